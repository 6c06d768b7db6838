package semantic

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
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
		e, err := Open(Options{FS: os.DirFS(root), Index: fulltext.IndexOptions{Dir: filepath.Join(dir, "ix")}})
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
		stopProfile := cpuProfile(b, "PACKFS_BUILD_CPUPROFILE")
		if err := e.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		el := time.Since(t0)
		stopProfile()
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
		b.ReportMetric(float64(dirBytes(b, dir))/(1<<20), "index-disk-MB")
	}
}

// dirBytes is the bytes of the regular files under dir.
func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// treeQueries are questions an agent asks of the tldr pages.
var treeQueries = []string{
	"how do I extract a tar archive", "copy files to a remote server over ssh", "list open network ports",
	"show disk usage of a folder", "find files by name recursively", "convert a video to another format",
	"change file permissions", "kill a process by name", "compress a folder into a zip file",
	"create a new git branch", "download a file from a url", "search text in files",
	"monitor cpu and memory usage", "resize an image", "schedule a job to run periodically",
	"check which process uses a port", "mount a usb drive", "set an environment variable",
	"merge pdf files", "show the last lines of a log file",
}

// BenchmarkSearchTree runs search_semantic's engine search over the folder named by
// PACKFS_BUILD_ROOT, on the persisted index in PACKFS_BUILD_INDEX (built there by the first run,
// reused after), and reports the p50 and p95 of treeQueries in ms. PACKFS_SEARCH_CPUPROFILE names
// a file for a CPU profile of the searches alone. It skips when either variable is unset:
//
//	PACKFS_BUILD_ROOT=/path/to/tree PACKFS_BUILD_INDEX=/var/tmp/ix go test -run '^$' \
//	    -bench SearchTree -benchtime 1x ./semantic/
func BenchmarkSearchTree(b *testing.B) {
	root, dir := os.Getenv("PACKFS_BUILD_ROOT"), os.Getenv("PACKFS_BUILD_INDEX")
	if root == "" || dir == "" {
		b.Skip("set PACKFS_BUILD_ROOT and PACKFS_BUILD_INDEX")
	}
	e := builtTree(b, root, dir)
	defer cpuProfile(b, "PACKFS_SEARCH_CPUPROFILE")()
	var took []time.Duration
	for b.Loop() {
		for _, q := range treeQueries {
			t := time.Now()
			if _, err := e.Search(context.Background(), fulltext.Query{Text: q}, false); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(t))
		}
	}
	reportTimes(b, took)
}

// cpuProfile starts a CPU profile into the file named by the environment variable env, if set, and
// returns the function that ends it.
func cpuProfile(b *testing.B, env string) (stop func()) {
	out := os.Getenv(env)
	if out == "" {
		return func() {}
	}
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// builtTree opens the engine of the folder root with its index persisted in dir, brings the index
// in step with the files and closes the engine when b ends.
func builtTree(b *testing.B, root, dir string) *Engine {
	e, err := Open(Options{FS: os.DirFS(root), Index: fulltext.IndexOptions{Dir: dir}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	if err := e.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	return e
}

// reportTimes reports the p50 and p95 of took in ms.
func reportTimes(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkCandidatesTree asks the index of the folder named by PACKFS_BUILD_ROOT (persisted in
// PACKFS_BUILD_INDEX, as for BenchmarkSearchTree) for the candidate files of each literal of
// PACKFS_LITERALS (comma separated), the index side of search_content, and reports the p50 and
// p95 in ms, the mean number of candidates, the share of literals left to a scan and the bytes of
// the list of indexed words.
func BenchmarkCandidatesTree(b *testing.B) {
	root, dir, lits := os.Getenv("PACKFS_BUILD_ROOT"), os.Getenv("PACKFS_BUILD_INDEX"), os.Getenv("PACKFS_LITERALS")
	if root == "" || dir == "" || lits == "" {
		b.Skip("set PACKFS_BUILD_ROOT, PACKFS_BUILD_INDEX and PACKFS_LITERALS")
	}
	e := builtTree(b, root, dir)
	var took []time.Duration
	found, scans := 0, 0
	for b.Loop() {
		for _, lit := range strings.Split(lits, ",") {
			t := time.Now()
			paths, ok, err := e.Candidates(context.Background(), lit, ".", 0)
			if err != nil {
				b.Fatalf("Candidates(%q): %v", lit, err)
			}
			took = append(took, time.Since(t))
			found += len(paths)
			if !ok {
				scans++
			}
		}
	}
	reportTimes(b, took)
	b.ReportMetric(float64(found)/float64(len(took)-scans), "candidates")
	b.ReportMetric(float64(scans)/float64(len(took)), "share-left-to-scan")
	b.ReportMetric(float64(e.index().WordListBytes())/(1<<20), "word-list-MB")
}

// BenchmarkRestartTree opens the index of the folder named by PACKFS_BUILD_ROOT persisted in
// PACKFS_BUILD_INDEX (built there first when it is missing, not timed) and brings it in step with
// the unchanged files, as a server does when it starts again, and reports the seconds to the
// engine's complete state and the live heap after it. It reads the folder through fsroot, as the
// server does. PACKFS_RESTART_CPUPROFILE names a file for a CPU profile of the restarts alone.
func BenchmarkRestartTree(b *testing.B) {
	root, dir := os.Getenv("PACKFS_BUILD_ROOT"), os.Getenv("PACKFS_BUILD_INDEX")
	if root == "" || dir == "" {
		b.Skip("set PACKFS_BUILD_ROOT and PACKFS_BUILD_INDEX")
	}
	builtTree(b, root, dir).Close()
	r, err := fsroot.Open(root, fsroot.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	defer cpuProfile(b, "PACKFS_RESTART_CPUPROFILE")()
	var took []time.Duration
	for b.Loop() {
		t := time.Now()
		e, err := Open(Options{FS: r.FS(), Index: fulltext.IndexOptions{Dir: dir}})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t))
		if st := e.Status(); st.Reused != st.Total {
			b.Fatalf("restart read %d of %d files again", st.Total-st.Reused, st.Total)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-heap-after-MB")
		e.Close()
		b.ReportMetric(float64(dirBytes(b, dir))/(1<<20), "index-disk-MB")
	}
	slices.Sort(took)
	b.ReportMetric(took[len(took)/2].Seconds(), "restart-s")
}
