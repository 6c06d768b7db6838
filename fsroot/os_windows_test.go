//go:build windows

package fsroot

import (
	"io/fs"
	"testing"
)

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

// sameMode reports that a file's mode is the one wanted as far as Windows
// keeps one: the type and whether it may be written (the read-only
// attribute); the other bits are always 0666 or 0444 there.
func sameMode(got, want fs.FileMode) bool {
	return got.Type() == want.Type() && got&0o200 == want&0o200
}

// hostLinksUnknown is the link count os.Root reports on Windows, where its
// FileInfo has none.
const hostLinksUnknown = 0
