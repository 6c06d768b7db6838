package main

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkScale measures how the index's cost grows with the tree, through the
// built binary over stdio, on trees it builds itself:
//
//   - tldr: the tldr pages of ../shared/corpora (38,405 files);
//   - tldrx10: ten copies of them side by side in one root (384,050 files; ten pages share every
//     name, as README.md and index.md do in real repositories);
//   - linux: Debian's linux-source-6.1 (78,579 files, 1.5 GB of C, headers and documentation),
//     installed with apt-get and unpacked only when PACKFS_SCALE_LINUX=1; it skips otherwise.
//
// Each tree is served by every binary under test in turn, in the same run, so that a before and an
// after are measured side by side on the same machine load: the binary built from this tree
// ("new") and, for each name=path pair of PACKFS_SCALE_BINS (comma separated), that binary. The
// trees are built under PACKFS_SCALE_DIR when it is set (and kept there for the next run),
// else in a temporary folder. PACKFS_SCALE_TREES (comma separated) picks the trees; by default
// tldr and tldrx10. For example:
//
//	PACKFS_SCALE_DIR=/var/tmp/scale PACKFS_SCALE_BINS=base=/tmp/packfs-base PACKFS_SCALE_LINUX=1 \
//	PACKFS_SCALE_TREES=tldr,tldrx10,linux \
//	go test -run '^$' -bench Scale -benchtime 1x -timeout 3h ./cmd/packfs-mcp/
//
// PACKFS_SCALE_FOLDER=copy3/pages/linux also times search_content in that folder, on the built
// index and walked by a server without one.
// PACKFS_SCALE_KEEP_INDEX=DIR keeps the first cold-built index of each tree in DIR/<tree>;
// PACKFS_SCALE_RESTART_FROM=DIR then skips the cold build and measures only the restart of every
// binary on a copy of DIR/<tree>, which costs a minute where a cold build of tldrx10 costs ten.
//
// Per tree and binary it reports every row of the tables: the cold build to
// indexComplete (s, files/s, MB/s of text), the server's peak RSS during the cold build (VmHWM of
// /proc/PID/status, which counts the pages of the index's files it maps) and its peak anonymous
// memory (RssAnon, sampled), search_semantic p50/p95 on the built index, search_content p50/p95 with 50
// hits, the index's size on disk, and after a restart on the persisted index the time to the
// first search with hits, the time to indexComplete and the peak RSS.
func BenchmarkScale(b *testing.B) {
	trees := strings.Split(envOr("PACKFS_SCALE_TREES", "tldr,tldrx10"), ",")
	bins := [][2]string{{"new", binPath}}
	if s := os.Getenv("PACKFS_SCALE_BINS"); s != "" {
		var others [][2]string
		for _, kv := range strings.Split(s, ",") {
			name, p, ok := strings.Cut(kv, "=")
			if !ok {
				b.Fatalf("PACKFS_SCALE_BINS: %q is not name=path", kv)
			}
			others = append(others, [2]string{name, p})
		}
		bins = append(others, bins...) // the older binaries first: they set the baseline
	}
	base := os.Getenv("PACKFS_SCALE_DIR")
	if base == "" {
		base = b.TempDir()
	}
	for _, tree := range trees {
		b.Run("tree="+tree, func(b *testing.B) {
			root, queries, literals := scaleTree(b, base, tree)
			files, bytes, linked := countTree(b, root)
			if n := linked; n > 0 {
				// The server refuses them, so the figures would be those of a smaller tree (a
				// tree copied with cp -al beside this one once cost a third of tldrx10).
				b.Fatalf("%d files of %s have more than one hard link: remove the tree to have it built again", n, root)
			}
			for _, bin := range bins {
				b.Run("bin="+bin[0], func(b *testing.B) {
					for b.Loop() {
						scaleRun(b, tree, bin[1], root, files, bytes, queries, literals)
					}
				})
			}
		})
	}
}

// scaleRun serves root with the binary at bin, cold and then restarted, and reports the figures.
func scaleRun(b *testing.B, tree, bin, root string, files int, bytes int64, queries, literals []string) {
	indexDir := filepath.Join(b.TempDir(), "index")
	args := []string{"--index-dir", indexDir}
	if from := os.Getenv("PACKFS_SCALE_RESTART_FROM"); from != "" {
		// Only the restart, on a copy of an index built before (the index format is the same
		// before and after this work, so both binaries restart on the same index).
		if out, err := exec.Command("cp", "-r", filepath.Join(from, tree), indexDir).CombinedOutput(); err != nil {
			b.Fatalf("copying the index to restart on: %v\n%s", err, out)
		}
		scaleRestart(b, bin, root, indexDir, queries, literals)
		return
	}

	t0 := time.Now()
	s := startBin(b, bin, root, args...)
	anon := sampleAnon(s.cmd.Process.Pid)
	file := firstText(b, root)
	during := waitReading(b, s, time.Hour, file)
	build := time.Since(t0)
	buildCPU, _ := cpuSeconds(s.cmd.Process.Pid)
	coldPeak, _ := peakMB(s.cmd.Process.Pid)
	coldAnon := anon()
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(float64(files)/build.Seconds(), "build-files/s")
	b.ReportMetric(float64(bytes)/(1<<20)/build.Seconds(), "build-MB/s")
	b.ReportMetric(buildCPU, "build-cpu-s")

	var idle []time.Duration
	time.Sleep(3 * time.Second) // the index's last merge and write after the build
	for range max(100, len(during)) {
		idle = append(idle, readTime(b, s, file))
		time.Sleep(20 * time.Millisecond)
	}
	if len(during) > 0 {
		b.ReportMetric(pct(during, 0.50), "read-build-p50-ms")
		b.ReportMetric(pct(during, 0.95), "read-build-p95-ms")
	}
	b.ReportMetric(pct(idle, 0.50), "read-idle-p50-ms")
	b.ReportMetric(pct(idle, 0.95), "read-idle-p95-ms")
	sem, content := searchTimes(b, s, queries, literals)
	b.ReportMetric(pct(sem, 0.50), "semantic-p50-ms")
	b.ReportMetric(pct(sem, 0.95), "semantic-p95-ms")
	b.ReportMetric(pct(content, 0.50), "content50-p50-ms")
	b.ReportMetric(pct(content, 0.95), "content50-p95-ms")
	b.ReportMetric(coldPeak, "cold-peak-rss-MB")
	b.ReportMetric(coldAnon, "cold-peak-anon-MB")
	if folder := os.Getenv("PACKFS_SCALE_FOLDER"); folder != "" {
		folderTimes(b, s, bin, root, folder, literals)
	}
	s.in.Close()
	s.cmd.Wait()
	disk := dirBytes(b, indexDir)
	b.ReportMetric(float64(disk)/(1<<20), "index-disk-MB")
	if keep := os.Getenv("PACKFS_SCALE_KEEP_INDEX"); keep != "" {
		dst := filepath.Join(keep, tree)
		if _, err := os.Stat(dst); err != nil {
			os.MkdirAll(keep, 0o755)
			if out, err := exec.Command("cp", "-r", indexDir, dst).CombinedOutput(); err != nil {
				b.Fatalf("keeping the index: %v\n%s", err, out)
			}
		}
	}
	b.Logf("%s on %d files (%.0f MB): build %.1f s (%.0f files/s, %.1f MB/s, %.0f s of CPU), peak RSS cold %.0f MB, anonymous %.0f MB, "+
		"search_semantic p50/p95 %.1f/%.1f ms, search_content(50) p50/p95 %.1f/%.1f ms, index %.0f MB",
		filepath.Base(bin), files, float64(bytes)/(1<<20), build.Seconds(), float64(files)/build.Seconds(), float64(bytes)/(1<<20)/build.Seconds(), buildCPU,
		coldPeak, coldAnon, pct(sem, 0.5), pct(sem, 0.95), pct(content, 0.5), pct(content, 0.95), float64(disk)/(1<<20))
	scaleRestart(b, bin, root, indexDir, queries, literals)
}

// scaleRestart serves root with the binary at bin on the index persisted in indexDir and reports
// the time to the first search with hits, to indexComplete, and the peak memory.
func scaleRestart(b *testing.B, bin, root, indexDir string, queries, literals []string) {
	args := []string{"--index-dir", indexDir}
	t0 := time.Now()
	s2 := startBin(b, bin, root, args...)
	anon := sampleAnon(s2.cmd.Process.Pid)
	first := time.Duration(0)
	for time.Since(t0) < 10*time.Minute {
		reply := s2.roundTrip(b, toolCall(7, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": queries[0]}}))
		if strings.Contains(reply, hitsMark) {
			first = time.Since(t0)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if first == 0 {
		b.Fatal("no hits within 10 minutes of a restart")
	}
	waitCompleteFor(b, s2, time.Hour)
	complete := time.Since(t0)
	sem, content := searchTimes(b, s2, queries, literals) // on the settled index, as most searches meet it
	restartPeak, _ := peakMB(s2.cmd.Process.Pid)
	restartAnon := anon()
	s2.in.Close()
	s2.cmd.Wait()
	// The size on disk again, once a second server has run: scorch deletes the files of merged
	// segments lazily, so right after a fast build some are still there.
	b.ReportMetric(float64(dirBytes(b, indexDir))/(1<<20), "index-disk-settled-MB")
	b.ReportMetric(ms(first), "restart-first-hit-ms")
	b.ReportMetric(ms(complete), "restart-complete-ms")
	b.ReportMetric(restartPeak, "restart-peak-rss-MB")
	b.ReportMetric(restartAnon, "restart-peak-anon-MB")
	b.ReportMetric(pct(sem, 0.50), "restart-semantic-p50-ms")
	b.ReportMetric(pct(sem, 0.95), "restart-semantic-p95-ms")
	b.ReportMetric(pct(content, 0.50), "restart-content50-p50-ms")
	b.ReportMetric(pct(content, 0.95), "restart-content50-p95-ms")
	b.Logf("%s restarted: first hit %.1f s, complete %.1f s, peak RSS %.0f MB, anonymous %.0f MB, index settled %.0f MB, "+
		"search_semantic p50/p95 %.1f/%.1f ms, search_content(50) p50/p95 %.1f/%.1f ms",
		filepath.Base(bin), first.Seconds(), complete.Seconds(), restartPeak, restartAnon, float64(dirBytes(b, indexDir))/(1<<20),
		pct(sem, 0.5), pct(sem, 0.95), pct(content, 0.5), pct(content, 0.95))
}

// searchTimes runs every query through search_semantic and every literal through search_content
// (50 results), twice, and returns the times of the second round: the first warms the page cache
// and the term caches.
func searchTimes(b *testing.B, s *rawServer, queries, literals []string) (sem, content []time.Duration) {
	for round := 0; round < 2; round++ {
		sem, content = sem[:0], content[:0]
		for _, q := range queries {
			t := time.Now()
			s.roundTrip(b, toolCall(3, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": q}}))
			sem = append(sem, time.Since(t))
		}
		for _, lit := range literals {
			t := time.Now()
			s.roundTrip(b, toolCall(4, searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": lit}, "options": map[string]any{"maxResults": 50}}))
			content = append(content, time.Since(t))
			if round == 1 && testing.Verbose() {
				b.Logf("search_content %q: %.1f ms", lit, ms(time.Since(t)))
			}
		}
	}
	return sem, content
}

// folderTimes reports the p50 and p95 of search_content (50 results) for every literal in one
// folder of root, on s's built index and on a server of the same binary without an index, which
// walks the folder: a search the index narrows should be no slower.
func folderTimes(b *testing.B, s *rawServer, bin, root, folder string, literals []string) {
	indexed := contentTimes(b, s, folder, literals)
	w := startBin(b, bin, root, "--no-index")
	walked := contentTimes(b, w, folder, literals)
	w.in.Close()
	w.cmd.Wait()
	b.ReportMetric(pct(indexed, 0.50), "folder-content-p50-ms")
	b.ReportMetric(pct(indexed, 0.95), "folder-content-p95-ms")
	b.ReportMetric(pct(walked, 0.50), "folder-walk-p50-ms")
	b.ReportMetric(pct(walked, 0.95), "folder-walk-p95-ms")
}

// contentTimes runs every literal through search_content (50 results) in folder, twice, and
// returns the times of the second round.
func contentTimes(b *testing.B, s *rawServer, folder string, literals []string) []time.Duration {
	var took []time.Duration
	for round := 0; round < 2; round++ {
		took = took[:0]
		for _, lit := range literals {
			t := time.Now()
			reply := s.roundTrip(b, toolCall(4, searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": folder, "query": lit}, "options": map[string]any{"maxResults": 50}}))
			took = append(took, time.Since(t))
			if !strings.Contains(reply, `\"success\":true`) {
				b.Fatalf("search_content %q in %s: %s", lit, folder, reply)
			}
			if round == 1 && testing.Verbose() {
				b.Logf("search_content %q in %s: %.1f ms", lit, folder, ms(took[len(took)-1]))
			}
		}
	}
	return took
}

// hitsMark is how a search_semantic reply with hits begins its list; a reply without hits also
// has a "path" (in its metadata), so that is no sign of hits.
const hitsMark = `\"files\":[{\"path\":`

// sampleAnon samples the anonymous resident memory of process pid (RssAnon: its heap, without
// the pages of the index's files it maps, which VmHWM counts too and the kernel can drop) every
// 100 ms, and returns a function that stops the sampling and returns the largest seen, in MB.
func sampleAnon(pid int) func() float64 {
	stop, peak := make(chan struct{}), make(chan float64)
	go func() {
		max := 0.0
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if mb, err := procMB(pid, "RssAnon"); err == nil && mb > max {
				max = mb
			}
			select {
			case <-stop:
				peak <- max
				return
			case <-t.C:
			}
		}
	}()
	return func() float64 {
		close(stop)
		return <-peak
	}
}

// startBin is startRaw for a given binary.
func startBin(b *testing.B, bin, root string, args ...string) *rawServer {
	saved := binPath
	binPath = bin
	defer func() { binPath = saved }()
	return startRaw(b, root, args...)
}

// waitCompleteFor is waitComplete with a longer deadline, for trees that take minutes to build.
func waitCompleteFor(b *testing.B, s *rawServer, limit time.Duration) {
	b.Helper()
	waitReading(b, s, limit, "")
}

// waitReading waits, as waitCompleteFor, for the index to be complete and, when file is not "",
// reads 10 lines of it every 20 ms meanwhile, as an agent would during the build: it returns how
// long each read took.
func waitReading(b *testing.B, s *rawServer, limit time.Duration, file string) []time.Duration {
	b.Helper()
	var reads []time.Duration
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		reply := s.roundTrip(b, toolCall(2, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "x"}}))
		if strings.Contains(reply, `\"indexComplete\":true`) {
			return reads
		}
		for next := time.Now().Add(100 * time.Millisecond); time.Now().Before(next); time.Sleep(20 * time.Millisecond) {
			if file != "" {
				reads = append(reads, readTime(b, s, file))
			}
		}
	}
	b.Fatal("the index never completed")
	return nil
}

// readTime returns how long a read of the first 10 lines of file took, through s.
func readTime(b *testing.B, s *rawServer, file string) time.Duration {
	t0 := time.Now()
	reply := s.roundTrip(b, toolCall(3, reader, map[string]any{"purpose": "read", "target": map[string]any{"path": file}, "preferences": map[string]any{"limit": 10}}))
	if !strings.Contains(reply, `\"success\":true`) {
		b.Fatalf("read %s: %s", file, reply)
	}
	return time.Since(t0)
}

// firstText returns the first markdown file below root, in walk order.
func firstText(b *testing.B, root string) string {
	var first string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			first, _ = filepath.Rel(root, p)
			return fs.SkipAll
		}
		return nil
	})
	if first == "" {
		b.Fatalf("no markdown file below %s", root)
	}
	return filepath.ToSlash(first)
}

// linuxQueries are questions a developer asks of a kernel tree.
var linuxQueries = []string{
	"spinlock irq save restore", "allocate DMA coherent memory", "ext4 journal commit", "usb device probe",
	"scheduler load balancing between cpus", "page fault handler", "network packet receive napi poll",
	"read copy update grace period", "device tree binding for i2c controller", "how to submit a patch",
	"kernel module parameters", "memory cgroup limit", "tcp congestion control", "workqueue flush",
	"interrupt handler registration", "file system mount options", "power management suspend resume",
	"bpf verifier", "pci express hotplug", "crypto api hash",
}

// linuxLiterals are literal searches over a kernel tree, from rare to very common.
var linuxLiterals = []string{
	"balancing", "spin_lock_irqsave", "MODULE_LICENSE", "copy_from_user", "kmalloc", "struct device",
	"EXPORT_SYMBOL_GPL", "mutex_lock", "rcu_read_lock", "printk", "return -EINVAL", "list_for_each_entry",
	"devm_kzalloc", "of_property_read_u32", "schedule_work", "atomic_inc", "jiffies", "GFP_KERNEL",
	"container_of", "platform_driver",
}

// tldrLiterals are literal searches over the tldr pages, from rare to very common.
var tldrLiterals = []string{
	"archive", "list all", "quixotically", "tar", "compress", "network", "kubectl", "docker run",
	"print", "file", "directory", "--help", "install", "git commit", "password", "display",
	"recursively", "permissions", "process", "example",
}

// scaleTree builds the named tree under base (once; a later run reuses it) and returns its root,
// the semantic queries and the literals to search it with.
func scaleTree(b *testing.B, base, tree string) (string, []string, []string) {
	var tldr []string
	if tree != "linux" {
		for _, q := range tldrQueries(b) {
			tldr = append(tldr, q.text)
		}
	}
	archive := filepath.Join("..", "..", "..", "shared", "corpora", "tldr-pages.tar.gz")
	switch tree {
	case "tldr":
		root := filepath.Join(base, "x1", "tldr")
		if _, err := os.Stat(root); err != nil {
			if _, err := os.Stat(archive); err != nil {
				b.Skip("no ../shared/corpora/tldr-pages.tar.gz beside the repository")
			}
			unpack(b, archive, filepath.Join(base, "x1"))
		}
		return root, tldr, tldrLiterals
	case "tldrx10":
		one, _, _ := scaleTree(b, base, "tldr")
		root := filepath.Join(base, "x10")
		if _, err := os.Stat(filepath.Join(root, "copy9")); err != nil {
			for i := range 10 {
				dst := filepath.Join(root, fmt.Sprintf("copy%d", i))
				os.RemoveAll(dst)
				if err := os.MkdirAll(root, 0o755); err != nil {
					b.Fatal(err)
				}
				if out, err := exec.Command("cp", "-r", one, dst).CombinedOutput(); err != nil {
					b.Fatalf("copying the tldr tree: %v\n%s", err, out)
				}
			}
		}
		return root, tldr, tldrLiterals
	case "linux":
		if os.Getenv("PACKFS_SCALE_LINUX") != "1" {
			b.Skip("the Linux tree needs apt-get install linux-source-6.1 and 1.5 GB: set PACKFS_SCALE_LINUX=1 to run it")
		}
		root := filepath.Join(base, "linux")
		if _, err := os.Stat(filepath.Join(root, "linux-source-6.1")); err != nil {
			const tarball = "/usr/src/linux-source-6.1.tar.xz"
			if _, err := os.Stat(tarball); err != nil {
				if out, err := exec.Command("apt-get", "install", "-y", "linux-source-6.1").CombinedOutput(); err != nil {
					b.Fatalf("apt-get install linux-source-6.1: %v\n%s", err, out)
				}
			}
			if err := os.MkdirAll(root, 0o755); err != nil {
				b.Fatal(err)
			}
			if out, err := exec.Command("tar", "-xJf", tarball, "-C", root).CombinedOutput(); err != nil {
				b.Fatalf("unpacking %s: %v\n%s", tarball, err, out)
			}
		}
		return filepath.Join(root, "linux-source-6.1"), linuxQueries, linuxLiterals
	}
	b.Fatalf("unknown tree %q (tldr, tldrx10 or linux)", tree)
	return "", nil, nil
}

// countTree counts the regular files under root, their bytes, and those of them with more than
// one hard link.
func countTree(b *testing.B, root string) (n int, size int64, linked int) {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n, size = n+1, size+info.Size()
		if hardLinked(info) {
			linked++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n, size, linked
}

// dirBytes is the disk usage of the files under dir.
func dirBytes(b *testing.B, dir string) int64 {
	_, size, _ := countTree(b, dir)
	return size
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// cpuSeconds returns the CPU time, user and system, that process pid has used so far: on a machine
// shared with other work, the build's cost where its wall time is not comparable between runs.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name (which may hold spaces) in parentheses; utime and stime
	// are the 14th and 15th fields of the line, in clock ticks of 1/100 s on Linux.
	stat := string(data)
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err := cmp.Or(err1, err2); err != nil {
		return 0, err
	}
	return (utime + stime) / 100, nil
}
