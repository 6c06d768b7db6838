package semantic

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// BenchmarkBuildTree builds the engine over the folder named by PACKFS_BUILD_ROOT, in process,
// with a persisted index, so that -cpuprofile and -memprofile show where a cold build of a real
// tree spends its time and memory. It skips when the variable is unset:
//
//	PACKFS_BUILD_ROOT=/path/to/tree go test -run '^$' -bench BuildTree -benchtime 1x \
//	    -cpuprofile cpu.out -memprofile mem.out ./semantic/
//
// PACKFS_BUILD_HEAPPROFILE names a file for a heap profile taken when the build ends, before the
// engine closes: what a built engine keeps live. It reports files/s, the peak live heap seen by a sampler and the heap left after the build.
func BenchmarkBuildTree(b *testing.B) {
	root := os.Getenv("PACKFS_BUILD_ROOT")
	if root == "" {
		b.Skip("set PACKFS_BUILD_ROOT to a folder to build the index of")
	}
	for b.Loop() {
		dir := b.TempDir()
		e, err := Open(Options{FS: os.DirFS(root), Index: IndexOptions{Dir: filepath.Join(dir, "ix")}})
		if err != nil {
			b.Fatal(err)
		}
		stop := make(chan struct{})
		peak := make(chan uint64)
		go func() { // samples the live heap, as the runtime sees it, every 100 ms
			var max uint64
			var ms runtime.MemStats
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					peak <- max
					return
				case <-t.C:
					runtime.ReadMemStats(&ms)
					max = maxU(max, ms.HeapInuse)
				}
			}
		}()
		t0 := time.Now()
		if err := e.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		el := time.Since(t0)
		close(stop)
		st := e.Status()
		b.ReportMetric(float64(st.Total)/el.Seconds(), "files/s")
		b.ReportMetric(float64(<-peak)/(1<<20), "peak-heap-inuse-MB")
		runtime.GC()
		if out := os.Getenv("PACKFS_BUILD_HEAPPROFILE"); out != "" { // what the built engine keeps live
			f, err := os.Create(out)
			if err != nil {
				b.Fatal(err)
			}
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-heap-after-MB")
		e.Close()
	}
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}
