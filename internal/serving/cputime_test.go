package serving

import (
	"testing"
	"time"
)

// TestProcessCPU checks that the process's CPU time, which paces the walks, counts work done: a
// clock that stood still would let walks run back to back.
func TestProcessCPU(t *testing.T) {
	before := processCPU()
	n, deadline := 0, time.Now().Add(200*time.Millisecond)
	for time.Now().Before(deadline) {
		n++
	}
	if used := processCPU() - before; used < 50*time.Millisecond {
		t.Errorf("200 ms of busy work counted %v of CPU time (%d turns)", used, n)
	}
}
