package serving

import (
	"time"

	"golang.org/x/sys/windows"
)

// processCPU is the CPU time the process has used so far, in user and kernel mode together, or 0
// if the system does not say.
func processCPU() time.Duration {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	ticks := func(t windows.Filetime) int64 { return int64(t.HighDateTime)<<32 | int64(t.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100 // a Filetime counts 100 ns ticks
}
