//go:build windows

package tools

import (
	"io/fs"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

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

// hostPerm is a file's permission bits as the tests' trees write them: on
// Windows they only say whether the read-only attribute is set (os reports
// 0o666 or 0o444), which stand here for the Unix modes the tests expect of
// a writable file and a read-only one.
func hostPerm(m fs.FileMode) string {
	if m.Perm()&0o200 != 0 {
		return "644"
	}
	return "444"
}
