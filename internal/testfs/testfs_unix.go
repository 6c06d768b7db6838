//go:build unix

package testfs

import (
	"syscall"
	"testing"
)

// UnderWine is false: this is not Windows.
const UnderWine = false

// TempDir is t.TempDir: on Unix its own cleanup removes the folder.
func TempDir(t testing.TB) string { t.Helper(); return t.TempDir() }

// Mkfifo makes a FIFO at the host path p, failing the test if it cannot.
func Mkfifo(t testing.TB, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}
