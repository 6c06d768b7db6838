//go:build windows

package testfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"
)

// UnderWine reports that the tests run under Wine, which has no reparse points (its links are the
// host's), no POSIX rename or delete: its ntdll exports wine_get_version.
var UnderWine = windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil

// TempDir is t.TempDir, emptied first at the end of the test by os.Remove, entry by entry,
// deepest first, each made writable (Windows refuses to remove a read-only file), the folder
// itself last: t.TempDir's own cleanup, os.RemoveAll, deletes by handle, which answers "Invalid
// function" under Wine 8 (it lacks FileDispositionInformationEx), and would fail the test.
func TempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		var all []string
		filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err == nil && p != dir {
				all = append(all, p)
			}
			return nil
		})
		for i := len(all) - 1; i >= 0; i-- {
			os.Chmod(all[i], 0o666)
			os.Remove(all[i])
		}
		os.Remove(dir)
	})
	return dir
}

// Mkfifo skips the test: a Windows folder holds no FIFOs (named pipes live in their own
// namespace, \\.\pipe\, which no path of a root reaches).
func Mkfifo(t testing.TB, p string) {
	t.Helper()
	t.Skip("no FIFOs in a Windows folder")
}
