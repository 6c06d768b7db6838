//go:build unix

package fsroot

import (
	"io/fs"
	"net"
	"syscall"
	"testing"
)

// makeFIFO makes a FIFO at the host path p.
func makeFIFO(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostLinks is the hard link count of fi, from os.Lstat.
func hostLinks(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// listen makes a listening Unix socket at the host path p.
func listen(t *testing.T, p string) {
	t.Helper()
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
}

// underWine is false: this is not Windows.
const underWine = false

// tempDir is t.TempDir.
func tempDir(t *testing.T) string { t.Helper(); return t.TempDir() }

// sameMode reports that a file's mode is the one wanted.
func sameMode(got, want fs.FileMode) bool { return got == want }

// hostLinksUnknown is a link count no file has here.
const hostLinksUnknown = ^uint64(0)
