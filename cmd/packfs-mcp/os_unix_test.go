//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"
)

// mknodNull makes a character device with /dev/null's numbers at p.
func mknodNull(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|3) }

// terminateSelf sends this process SIGTERM, as a service manager would.
func terminateSelf() error { return syscall.Kill(os.Getpid(), syscall.SIGTERM) }

// hardLinked reports a file with more than one name.
func hardLinked(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
