//go:build windows

package security

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"
)

// mkfifo skips: a Windows folder holds no FIFOs.
func mkfifo(t *testing.T, p string) { t.Helper(); t.Skip("no FIFOs in a Windows folder") }

// underWine reports that the tests run under Wine, which has no reparse points: its ntdll exports
// wine_get_version.
var underWine = windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil

// tempDir is t.TempDir, emptied first by os.Remove, entry by entry (each made writable), at the
// end of the test: os.RemoveAll's handle-relative delete answers "Invalid function" under Wine 8,
// which lacks FileDispositionInformationEx, and Windows refuses to remove a read-only file.
func tempDir(t *testing.T) string {
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
			os.Chmod(all[i], 0o666) // clears the read-only attribute
			os.Remove(all[i])
		}
	})
	return dir
}
