//go:build !unix && !windows

package serving

import "time"

// processCPU is 0 where the system gives no process CPU time: walks are then paced by their wall
// time alone.
func processCPU() time.Duration { return 0 }
