//go:build unix

package fsroot

import (
	"io/fs"
	"net"
	"syscall"
	"testing"
)

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

// sameMode reports that a file's mode is the one wanted.
func sameMode(got, want fs.FileMode) bool { return got == want }

// hostLinksUnknown is a link count no file has here.
const hostLinksUnknown = ^uint64(0)
