package fsroot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/packfs/packfs-mcp/internal/tier"
)

// allocated returns the bytes of heap f allocates, as the runtime counts them. The fsroot tests run
// one at a time, so nothing else allocates much meanwhile.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// peakLiveHeap runs f, which calls probe at the points to measure, and returns the largest growth
// of the live heap (after a collection) seen at a probe over the live heap before f.
func peakLiveHeap(f func(probe func())) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, uint64(0)
	f(func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			peak = max(peak, ms.HeapAlloc-base)
		}
	})
	return peak
}

// Walk's memory budget: what a walk may hold live, at most, is walkEntryBytes for each entry of the
// largest folder it is in, plus walkBaseBytes. On 2026-11-24 a walk held about 135 bytes an entry
// (the Info and its name) and 30 KB besides.
const (
	walkEntryBytes = 256
	walkBaseBytes  = 256 << 10
)

// TestWalkMemory is the memory half of case D29: a walk holds the entries of one folder per level
// of the tree, so its live memory grows with the largest folder, never with the tree. The tree of
// 50 folders would take about 1.4 MB held whole; a walk must stay within 300 KB.
func TestWalkMemory(t *testing.T) {
	tier.Full(t, "walks a big tree to measure its memory")
	tests := []struct {
		name          string
		folders, each int // folders below the root, and files in each
	}{
		{"one folder of 10,000 files", 1, 10_000},
		{"50 folders of 200 files", 50, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{})
			for d := range tt.folders {
				dir := filepath.Join(base, "root", fmt.Sprintf("d%03d", d))
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for i := range tt.each {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%06d.md", i)), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			total := tt.folders * (tt.each + 1)
			seen := 0
			peak := peakLiveHeap(func(probe func()) {
				err := r.Walk(context.Background(), ".", 0, func(Info, error) error {
					if seen++; seen%1000 == 0 {
						probe()
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
			if seen != total {
				t.Fatalf("walked %d entries, want %d", seen, total)
			}
			budget := uint64(walkEntryBytes*max(tt.folders, tt.each) + walkBaseBytes)
			t.Logf("%d entries walked, live heap grew by %d bytes at most (budget %d)", seen, peak, budget)
			if peak > budget {
				t.Errorf("the walk held %d bytes, more than the %d a walk of folders of at most %d entries may", peak, budget, max(tt.folders, tt.each))
			}
		})
	}
}
