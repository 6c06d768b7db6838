//go:build unix

package serving

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far, in user and system mode together, or 0
// if the system does not say.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
