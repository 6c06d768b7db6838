package serving

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// memoryFloor is the least the Go runtime's soft memory limit is set to when GOMEMLIMIT is unset.
// It sits above the live heap of a cold build of a small tree such as the tldr pages: the default
// collector lets the heap double before it collects, and with this limit the collector runs
// earlier instead, for a lower peak at the same build speed (dev/bench/README.md, Scale).
const memoryFloor = 200 << 20

// memoryHeadroom is how far above the live heap the limit sits once the live heap outgrows
// memoryFloor, as a fraction of the live heap: the collector runs each time the program has
// allocated half its live heap again.
const memoryHeadroom = 0.5

// GovernMemory sets the runtime's soft memory limit to memoryFloor and then, in a goroutine of its
// own, keeps it at the larger of memoryFloor and the live heap plus memoryHeadroom, checking every
// interval until ctx ends.
//
// A fixed limit below the live heap makes the collector run back to back: on a big tree the
// build's live heap (the graph, the stamps and bleve's segments being merged) passed memoryFloor
// and the collector took most of the CPU (dev/bench/README.md, Scale). Following the live heap
// keeps the collector's share what it is on small trees, and memory still grows only with what is
// live, never to the default collector's double.
func GovernMemory(ctx context.Context, interval time.Duration) {
	debug.SetMemoryLimit(memoryFloor)
	go followLiveHeap(ctx, interval)
}

func followLiveHeap(ctx context.Context, interval time.Duration) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return // a runtime without the metric: keep the floor
		}
		debug.SetMemoryLimit(memoryLimit(sample[0].Value.Uint64()))
	}
}

// memoryLimit is the soft memory limit for a live heap of live bytes.
func memoryLimit(live uint64) int64 {
	return max(memoryFloor, int64(float64(live)*(1+memoryHeadroom)))
}
