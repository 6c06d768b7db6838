//go:build windows

package fsroot

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"
)

// makeFIFO skips: a Windows folder holds no FIFOs (named pipes live in
// their own namespace, \\.\pipe\, which fsroot's names cannot reach).
func makeFIFO(t *testing.T, p string) {
	t.Helper()
	t.Skip("no FIFOs in a Windows folder")
}

// hostLinks is 0: os.Lstat does not report links on Windows.
func hostLinks(fs.FileInfo) uint64 { return 0 }

// listen skips: what Windows keeps of a Unix socket in a folder is a
// reparse point, which Wine does not make.
func listen(t *testing.T, p string) {
	t.Helper()
	t.Skip("no Unix socket files here")
}

// skipIfRoot skips the permission cases: Windows ignores a file's mode
// bits (access is an ACL), so chmod 000 denies nothing there.
func skipIfRoot(t *testing.T) {
	t.Helper()
	t.Skip("Windows ignores mode bits: access is an ACL")
}

// underWine reports that the tests run under Wine, which has no reparse
// points: its ntdll exports wine_get_version.
var underWine = windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil

// tempDir is t.TempDir, emptied first by os.Remove, entry by entry, at
// the end of the test: os.RemoveAll's handle-relative delete answers
// "Invalid function" under Wine 8, which lacks FileDispositionInformationEx.
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
			os.Chmod(all[i], 0o666)
			os.Remove(all[i])
		}
		os.Remove(dir)
	})
	return dir
}

// sameMode reports that a file's mode is the one wanted as far as Windows
// keeps one: the type and whether it may be written (the read-only
// attribute); the other bits are always 0666 or 0444 there.
func sameMode(got, want fs.FileMode) bool {
	return got.Type() == want.Type() && got&0o200 == want&0o200
}

// hostLinksUnknown is the link count os.Root reports on Windows, where its
// FileInfo has none.
const hostLinksUnknown = 0
