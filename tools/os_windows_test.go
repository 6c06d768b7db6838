//go:build windows

package tools

import (
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// mkfifo skips: a Windows folder holds no FIFOs.
func mkfifo(t *testing.T, p string) { t.Helper(); t.Skip("no FIFOs in a Windows folder") }

// cpuTime is the CPU time the process has used, kernel and user.
func cpuTime(b *testing.B) time.Duration {
	var created, exited, kernel, user windows.Filetime
	mustOKB(b, windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user))
	return ticks(kernel) + ticks(user)
}

// ticks is a FILETIME that holds a duration (in 100 ns units), not a date.
func ticks(f windows.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}
