//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// mkfifo makes a FIFO at the host path p.
func mkfifo(t *testing.T, p string) { t.Helper(); must(t, syscall.Mkfifo(p, 0o644)) }

// mknodNull makes a character device with /dev/null's numbers at p.
func mknodNull(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|3) }

// terminateSelf sends this process SIGTERM, as a service manager would.
func terminateSelf() error { return syscall.Kill(os.Getpid(), syscall.SIGTERM) }

// hardLinked reports a file with more than one name.
func hardLinked(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
