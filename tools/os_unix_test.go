//go:build unix

package tools

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used, on every thread (GC included): on a shared
// machine it moves less with the other load than wall time does.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	mustOKB(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// hostPerm is a file's permission bits as the tests' trees write them ("644").
func hostPerm(m fs.FileMode) string { return fmt.Sprintf("%o", m.Perm()) }
