package serving

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{
		{0, memoryFloor},
		{100 << 20, memoryFloor},
		{memoryFloor, memoryFloor + memoryFloor/2},
		{400 << 20, 600 << 20},
	} {
		if got := memoryLimit(tc.live); got != tc.want {
			t.Errorf("memoryLimit(%d MiB) = %d MiB, want %d MiB", tc.live>>20, got>>20, tc.want>>20)
		}
	}
}

// TestGovernMemoryFollowsLiveHeap holds 300 MB live, more than the floor, and checks that the
// limit rises above it: a limit left at the floor would make the collector run back to back.
func TestGovernMemoryFollowsLiveHeap(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	GovernMemory(ctx, 10*time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != memoryFloor {
		t.Fatalf("limit at start = %d MiB, want the floor %d MiB", got>>20, memoryFloor>>20)
	}
	held := make([][]byte, 300)
	for i := range held {
		held[i] = make([]byte, 1<<20)
		held[i][0] = 1
	}
	runtime.GC() // the live heap is measured by the last collection
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < 400<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("limit still %d MiB with 300 MB live", debug.SetMemoryLimit(-1)>>20)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(held)
}
