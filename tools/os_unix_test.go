//go:build unix

package tools

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a FIFO at the host path p.
func mkfifo(t *testing.T, p string) { t.Helper(); mustOK(t, syscall.Mkfifo(p, 0o644)) }

// cpuTime is the CPU time the process has used, on every thread (GC included): on a shared
// machine it moves less with the other load than wall time does.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	mustOKB(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// underWine is false: this is not Windows.
const underWine = false

// tempDir is t.TempDir.
func tempDir(t *testing.T) string { t.Helper(); return t.TempDir() }

// hostPerm is a file's permission bits as the tests' trees write them ("644").
func hostPerm(m fs.FileMode) string { return fmt.Sprintf("%o", m.Perm()) }
