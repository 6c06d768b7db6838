//go:build unix

package security

import (
	"syscall"
	"testing"
)

// mkfifo makes a FIFO at the host path p.
func mkfifo(t *testing.T, p string) { t.Helper(); mustOK(t, syscall.Mkfifo(p, 0o644)) }

// underWine is false: this is not Windows.
const underWine = false

// tempDir is t.TempDir.
func tempDir(t *testing.T) string { t.Helper(); return t.TempDir() }
