// Command bench compares packfs-mcp with other filesystem MCP servers on the same machine and the
// same files, and prints one table. Run it from the repository root, after installing the peers
// with dev/bench/install-peers.sh:
//
//	bash dev/bench/install-peers.sh
//	go run ./dev/bench --runs 5 --markdown /tmp/bench.md
//
// Every server is started over stdio and driven by the same client (mcp-go, stdio transport,
// protocol pinned to 2025-11-25). Each repetition starts every server afresh and then runs each
// measure on each server in turn, ours first, so that the ratio ours/peer of one repetition compares
// two measurements taken seconds apart. On a shared, noisy machine that pairing, not the absolute
// numbers, is what makes the comparison fair: the table reports medians with min and max over the
// repetitions, and the median of the per-repetition ratios.
//
// A peer that is not installed is skipped with a message.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// callTimeout bounds one tool call, so that a peer that hangs costs one cell, not the run. The
// slowest call measured here (a content search of 38,404 files by a naive peer) takes seconds.
const callTimeout = 3 * time.Minute

// indexTimeout bounds the wait for our index of the corpus; a cold build of the tldr corpus takes
// about a minute on two cores.
const indexTimeout = 15 * time.Minute

type config struct {
	runs      int
	reads     int
	warmup    bool
	markdown  string
	corpusDir string
	archive   string
	peersDir  string
	ours      string
	official  string
	mark3labs string
	rg        string
	keep      bool
}

func main() {
	var cfg config
	flag.IntVar(&cfg.runs, "runs", 5, "repetitions; every row is the median over them, with min and max")
	flag.IntVar(&cfg.reads, "reads", 30, "reads of each file per server and repetition, for p50/p95")
	flag.BoolVar(&cfg.warmup, "warmup", true, "run one unrecorded repetition first (page cache, our index, node's caches)")
	flag.StringVar(&cfg.markdown, "markdown", "", "also write the report as markdown to this file")
	flag.StringVar(&cfg.corpusDir, "corpus-dir", "", "an unpacked tldr corpus to copy into the benchmark root (default: unpack --corpus-archive)")
	flag.StringVar(&cfg.archive, "corpus-archive", filepath.Join("..", "shared", "corpora", "tldr-pages.tar.gz"), "the tldr corpus archive, relative to the repository root")
	flag.StringVar(&cfg.peersDir, "peers-dir", defaultPeersDir(), "where dev/bench/install-peers.sh installed the peers")
	flag.StringVar(&cfg.ours, "ours", "", "a built packfs-mcp binary (default: go build ./cmd/packfs-mcp into a temporary folder)")
	flag.StringVar(&cfg.official, "official", "", "the official server's dist/index.js (default: under --peers-dir)")
	flag.StringVar(&cfg.mark3labs, "mark3labs", "", "the mcp-filesystem-server binary (default: under --peers-dir)")
	flag.StringVar(&cfg.rg, "rg", "rg", "the ripgrep binary")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary folder (root, index, binary) and print its path")
	flag.Parse()
	if cfg.runs < 1 || cfg.reads < 1 {
		fmt.Fprintln(os.Stderr, "bench: --runs and --reads must be at least 1")
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func defaultPeersDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "packfs-bench")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func run(cfg config) error {
	tmp, err := os.MkdirTemp("", "packfs-bench-")
	if err != nil {
		return err
	}
	if cfg.keep {
		logf("keeping %s", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	ours := cfg.ours
	if ours == "" {
		ours = filepath.Join(tmp, "packfs-mcp")
		logf("building packfs-mcp")
		cmd := exec.Command("go", "build", "-o", ours, "./cmd/packfs-mcp")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/packfs-mcp (run from the repository root): %w", err)
		}
	}

	root := filepath.Join(tmp, "root")
	fx, err := makeFixtures(root, cfg)
	if err != nil {
		return err
	}
	queries, err := semanticQueries(filepath.Join("eval", "queries", "tldr.json"))
	if err != nil {
		logf("no semantic queries (%v); the semantic row is skipped", err)
	}

	servers := []*server{
		oursServer("ours", ours, root, filepath.Join(tmp, "index")),
		oursServer("ours --no-index", ours, root, ""),
	}
	var skipped []string
	if p, err := findMark3labs(cfg); err != nil {
		skipped = append(skipped, "mark3labs/mcp-filesystem-server: "+err.Error())
	} else {
		servers = append(servers, mark3labsServer(p, root))
	}
	if p, node, err := findOfficial(cfg); err != nil {
		skipped = append(skipped, "@modelcontextprotocol/server-filesystem: "+err.Error())
	} else {
		servers = append(servers, officialServer(node, p, root))
	}
	rg, err := exec.LookPath(cfg.rg)
	if err != nil {
		skipped = append(skipped, "ripgrep: "+err.Error()+" (apt-get install -y ripgrep)")
		rg = ""
	}
	for _, s := range skipped {
		logf("skipping %s", s)
	}

	b := &bench{cfg: cfg, fx: fx, servers: servers, rg: rg, queries: queries, res: newResults()}
	if cfg.warmup {
		logf("warm-up repetition (not recorded; builds our index of %d files the first time)", fx.corpusFiles)
		if err := b.repetition(-1); err != nil {
			return err
		}
	}
	for r := 0; r < cfg.runs; r++ {
		logf("repetition %d of %d", r+1, cfg.runs)
		if err := b.repetition(r); err != nil {
			return err
		}
	}

	report := b.report(skipped)
	fmt.Print(report)
	if cfg.markdown != "" {
		if err := os.WriteFile(cfg.markdown, []byte(report), 0o644); err != nil {
			return err
		}
		logf("wrote %s", cfg.markdown)
	}
	return nil
}

// bench holds one run's servers and what they measured.
type bench struct {
	cfg     config
	fx      fixtures
	servers []*server
	rg      string
	queries []string
	res     *results
	notes   map[string]string // what each server answered, from the last repetition
	proto   map[string]string // the protocol version each server agreed to
}

// repetition starts every server, measures everything on each in turn, and stops them. r < 0 is the
// warm-up, which records nothing.
func (b *bench) repetition(r int) error {
	rec := func(m measure, srv string, v float64) {
		if r >= 0 {
			b.res.add(m, srv, r, v)
		}
	}
	var sessions []*session
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()

	// Start each server alone: ours with the index waits for it to complete before the next
	// starts, so that its background work does not slow the peers' starts.
	for _, srv := range b.servers {
		s, start, err := srv.start()
		if err != nil {
			logf("%s: start: %v", srv.name, err)
			continue
		}
		sessions = append(sessions, s)
		rec(mStart, srv.name, ms(start))
		if cpu, err := cpuTime(s.pid()); err == nil {
			rec(mStartCPU, srv.name, ms(cpu))
		}
		t0 := time.Now()
		if err := s.listTools(); err != nil {
			logf("%s: tools/list: %v", srv.name, err)
		} else {
			rec(mToolsList, srv.name, ms(time.Since(t0)))
		}
		if b.proto == nil {
			b.proto = map[string]string{}
		}
		b.proto[srv.name] = s.protocol
		if srv.indexed {
			if err := s.waitIndex(indexTimeout); err != nil {
				logf("%s: %v", srv.name, err)
			}
		}
	}

	// Reads, interleaved call by call.
	for _, f := range []struct {
		p50, p95 measure
		path     string
	}{{mRead4KP50, mRead4KP95, b.fx.file4K}, {mRead1MP50, mRead1MP95, b.fx.file1M}} {
		times := map[string][]time.Duration{}
		for i := 0; i < b.cfg.reads; i++ {
			for _, s := range sessions {
				d, err := s.do(opRead, f.path, "")
				if err == nil {
					times[s.srv.name] = append(times[s.srv.name], d)
				} else if i == 0 {
					logf("%s: read %s: %v", s.srv.name, f.path, err)
				}
			}
		}
		for name, ts := range times {
			rec(f.p50, name, ms(percentile(ts, 0.50)))
			rec(f.p95, name, ms(percentile(ts, 0.95)))
		}
	}

	// Listings and content searches: one call per server and repetition, interleaved.
	one := func(m measure, o op, path, query string) {
		for _, s := range sessions {
			d, err := s.do(o, path, query)
			switch {
			case err == errNotAvailable:
			case err != nil:
				logf("%s: %s: %v", s.srv.name, m, err)
			default:
				rec(m, s.srv.name, ms(d))
			}
		}
		if o == opContent && b.rg != "" {
			d, n, err := runRG(b.rg, query, filepath.Join(b.fx.root, b.fx.corpus))
			if err != nil {
				logf("ripgrep: %s: %v", m, err)
				return
			}
			rec(m, "ripgrep", ms(d))
			b.note("ripgrep", m, fmt.Sprintf("%d lines", n))
		}
	}
	one(mList1000, opList, b.fx.dir1000, "")
	one(mTree, opTree, b.fx.corpus, "")
	one(mContentRare, opContent, b.fx.corpus, rareWord)
	one(mContentCommon, opContent, b.fx.corpus, commonWord)
	one(mContentPhrase, opContent, b.fx.corpus, phrase)

	// Semantic search, ours only.
	if len(b.queries) > 0 {
		for _, s := range sessions {
			if !s.srv.indexed {
				continue
			}
			var times []time.Duration
			for _, q := range b.queries {
				d, err := s.do(opSemantic, b.fx.corpus, q)
				if err != nil {
					logf("%s: semantic %q: %v", s.srv.name, q, err)
					continue
				}
				times = append(times, d)
			}
			if len(times) > 0 {
				rec(mSemanticP50, s.srv.name, ms(percentile(times, 0.50)))
				rec(mSemanticP95, s.srv.name, ms(percentile(times, 0.95)))
			}
		}
	}

	// Peak memory, after all of the above.
	for _, s := range sessions {
		if mb, err := peakRSS(s.pid()); err != nil {
			logf("%s: peak RSS: %v", s.srv.name, err)
		} else {
			rec(mRSS, s.srv.name, mb)
		}
		for m, n := range s.notes {
			b.note(s.srv.name, m, n)
		}
	}
	return nil
}

func (b *bench) note(srv string, m measure, text string) {
	if b.notes == nil {
		b.notes = map[string]string{}
	}
	b.notes[srv+"\x00"+string(m)] = text
}

// runRG runs ripgrep for a case-sensitive literal, as the servers are asked to search, and counts
// the lines it prints.
func runRG(rg, literal, dir string) (time.Duration, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, rg, "-F", "-n", "--no-heading", "--", literal, dir)
	var c lineCounter
	cmd.Stdout = &c
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil // no match
	}
	return d, c.n, err
}

type lineCounter struct{ n int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n += strings.Count(string(p), "\n")
	return len(p), nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func percentile(ts []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ts...)
	sortDurations(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(0, min(len(s)-1, i))]
}

// peakRSS reads a process's peak resident set size (VmHWM) from /proc, in MB.
func peakRSS(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			if _, err := fmt.Sscan(strings.Fields(line)[1], &kb); err != nil {
				return 0, err
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// cpuTime is the CPU time a process has used so far, summed over its threads (the first field of
// /proc/PID/task/TID/schedstat, in nanoseconds). Unlike wall time, it barely moves with the load of
// a shared machine.
func cpuTime(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no schedstat for process %d", pid)
	}
	var total time.Duration
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, err
		}
		total += time.Duration(ns)
	}
	return total, nil
}
