package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/internal/tier"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
)

// The load tests drive the built binary the way a busy client does: they write every request
// without waiting for an answer and read the answers as they come. mcp-go's stdio server runs
// tool calls on a worker pool (and, when its queue is full, on the read loop), so answers may
// come back out of order; JSON-RPC and MCP allow that, and the client matches them by id. The
// tests check that every id is answered exactly once and correctly, and they log whether the
// answers came in order of id.

const (
	// loadCalls is how many tool calls TestPipelinedLoad pipelines after initialize.
	loadCalls = 2000
	// loadRate is the --rate-limit of the load run: far above what loadCalls can cost
	// (at most security.CostHeavy each), so no call is refused.
	loadRate = 100 * loadCalls * security.CostHeavy
	// loadTimeout bounds the wait for every answer; a lost reply fails the test here instead of
	// hanging it.
	loadTimeout = 2 * time.Minute
	// loadPeakRSSMB bounds the server's peak resident set size (VmHWM) during the run. It is
	// generous, a sign of a leak or of unbounded queueing, not a tight budget.
	loadPeakRSSMB = 512
	// rssSampleEvery is how often the server's VmRSS is sampled while the load runs.
	rssSampleEvery = 5 * time.Millisecond
)

// loadResult is the part of a tool result the load tests check.
type loadResult struct {
	Success      bool    `json:"success"`
	Code         string  `json:"code"`
	Error        string  `json:"error"`
	RetryAfterMs int64   `json:"retryAfterMs"`
	Content      *string `json:"content"`
	Exists       *bool   `json:"exists"`
	Created      bool    `json:"created"`
	SizeBytes    *int    `json:"sizeBytes"`
	TotalFound   int     `json:"totalFound"`
	Metadata     struct {
		ExecutionMs float64 `json:"executionMs"` // milliseconds inside the server
	} `json:"metadata"`
	Truncated bool `json:"truncated"`
	Files     []struct {
		Path    string `json:"path"`
		Type    string `json:"type"`
		Matches []struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"matches"`
	} `json:"files"`
}

// loadReply is one JSON-RPC response as it arrived.
type loadReply struct {
	at      time.Time
	isError bool
	rpcErr  string // a JSON-RPC error's message; "" for a result
	res     loadResult
}

// pipeClient is the built binary driven with raw JSON-RPC lines. The test goroutine writes; one
// goroutine reads every reply and files it by id; another samples the server's memory.
type pipeClient struct {
	tb     testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr bytes.Buffer // read only after cmd.Wait

	mu       sync.Mutex
	cond     *sync.Cond
	sent     map[int]time.Time
	got      map[int][]loadReply
	order    []int // ids in the order their replies arrived
	readErr  error // a line that is not a JSON-RPC response with an integer id, or the pipe's error
	readDone bool
	maxRSSMB float64 // the largest VmRSS sampled
	samples  int

	stopSampling chan struct{}
	sampled      sync.WaitGroup
	readerDone   chan struct{}
	closed       bool
}

// startPipe starts `packfs-mcp serve --root root args...` with its caches under a temporary
// directory, sends initialize (id 1) and notifications/initialized without waiting, and starts
// reading replies and sampling memory.
func startPipe(tb testing.TB, root string, args ...string) *pipeClient {
	tb.Helper()
	home := tb.TempDir()
	args = append([]string{"serve", "--root", root, "--history-dir", filepath.Join(home, "history")}, args...)
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), cacheEnv(home)...)
	c := &pipeClient{
		tb: tb, cmd: cmd,
		sent:         map[int]time.Time{},
		got:          map[int][]loadReply{},
		stopSampling: make(chan struct{}),
		readerDone:   make(chan struct{}),
	}
	c.cond = sync.NewCond(&c.mu)
	cmd.Stderr = &c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c.in = in
	tb.Cleanup(c.close)
	go c.read(out)
	c.sampled.Add(1)
	go c.sample()
	c.send(1, initializeLine)
	c.send(0, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return c
}

// send writes one line; id is the request's id, or 0 for a notification. The send time is taken
// before the write, so a write held up by a full pipe counts toward the call's latency.
func (c *pipeClient) send(id int, line string) {
	c.tb.Helper()
	now := time.Now()
	if id != 0 {
		c.mu.Lock()
		if _, dup := c.sent[id]; dup {
			c.mu.Unlock()
			c.tb.Fatalf("id %d sent twice", id)
		}
		c.sent[id] = now
		c.mu.Unlock()
	}
	if _, err := io.WriteString(c.in, line); err != nil {
		c.tb.Fatalf("writing id %d: %v", id, err)
	}
}

func (c *pipeClient) read(out io.Reader) {
	defer close(c.readerDone)
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		at := time.Now()
		if len(bytes.TrimSpace(line)) > 0 {
			c.file(line, at)
		}
		if err != nil {
			c.mu.Lock()
			if err != io.EOF && c.readErr == nil {
				c.readErr = err
			}
			c.readDone = true
			c.mu.Unlock()
			c.cond.Broadcast()
			return
		}
	}
}

// file records one line from the server under its id.
func (c *pipeClient) file(line []byte, at time.Time) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result *struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	err := json.Unmarshal(line, &m)
	c.mu.Lock()
	defer func() { c.mu.Unlock(); c.cond.Broadcast() }()
	if err == nil && m.Method != "" && len(m.ID) == 0 {
		return // a notification from the server, such as a log message
	}
	id, idErr := strconv.Atoi(string(m.ID))
	if err != nil || idErr != nil || (m.Result == nil) == (m.Error == nil) {
		if c.readErr == nil {
			c.readErr = fmt.Errorf("not a response with an integer id: %.300s", line)
		}
		return
	}
	rep := loadReply{at: at}
	if m.Error != nil {
		rep.rpcErr = m.Error.Message
		if rep.rpcErr == "" {
			rep.rpcErr = "(no message)"
		}
	} else {
		rep.isError = m.Result.IsError
		if len(m.Result.StructuredContent) > 0 {
			if err := json.Unmarshal(m.Result.StructuredContent, &rep.res); err != nil && c.readErr == nil {
				c.readErr = fmt.Errorf("id %d: structuredContent: %v", id, err)
			}
		}
	}
	c.got[id] = append(c.got[id], rep)
	c.order = append(c.order, id)
}

// sample reads the server's VmRSS every rssSampleEvery until close.
func (c *pipeClient) sample() {
	defer c.sampled.Done()
	tick := time.NewTicker(rssSampleEvery)
	defer tick.Stop()
	for {
		if mb, err := rssMB(c.cmd.Process.Pid); err == nil {
			c.mu.Lock()
			c.maxRSSMB = max(c.maxRSSMB, mb)
			c.samples++
			c.mu.Unlock()
		}
		select {
		case <-c.stopSampling:
			return
		case <-tick.C:
		}
	}
}

// await waits until every id in ids has at least one reply, and fails the test after timeout
// naming the ids still unanswered.
func (c *pipeClient) await(ids []int, timeout time.Duration) {
	c.tb.Helper()
	expired := false
	timer := time.AfterFunc(timeout, func() {
		c.mu.Lock()
		expired = true
		c.mu.Unlock()
		c.cond.Broadcast()
	})
	defer timer.Stop()
	c.mu.Lock()
	var missing []int
	for {
		missing = missing[:0]
		for _, id := range ids {
			if len(c.got[id]) == 0 {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 || expired || c.readDone {
			break
		}
		c.cond.Wait()
	}
	readErr := c.readErr
	c.mu.Unlock()
	if readErr != nil {
		c.tb.Fatalf("reading replies: %v", readErr)
	}
	if len(missing) > 0 {
		c.tb.Fatalf("%d of %d ids unanswered (first %v) after %v", len(missing), len(ids), missing[:min(len(missing), 10)], timeout)
	}
}

// peak returns the server's VmHWM, the largest VmRSS sampled so far, and the sample count.
func (c *pipeClient) peak() (hwm, sampled float64, samples int) {
	hwm, _ = peakMB(c.cmd.Process.Pid)
	c.mu.Lock()
	defer c.mu.Unlock()
	return hwm, c.maxRSSMB, c.samples
}

// close ends input, waits for the server to exit and for the reader to see the end of output.
// It is idempotent.
func (c *pipeClient) close() {
	if c.closed {
		return
	}
	c.closed = true
	c.in.Close()
	select {
	case <-c.readerDone:
	case <-time.After(loadTimeout):
		c.cmd.Process.Kill()
		<-c.readerDone
	}
	close(c.stopSampling)
	c.sampled.Wait()
	c.cmd.Wait()
}

// loadCall is one request of the load and its oracle.
type loadCall struct {
	kind  string
	line  string
	check func(loadResult) error
	disk  func() error // for writes: whether the change landed; nil otherwise
}

// loadWorkload builds a root under dir and n calls with ids 2..n+1 over it: reads of existing
// files, plain and recursive lists, content searches, and creates and updates, each write to a
// file of its own.
func loadWorkload(tb testing.TB, dir string, n int) []loadCall {
	tb.Helper()
	put := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	// r/: files to read, of different sizes.
	const readFiles = 100
	readContent := func(i int) string {
		return fmt.Sprintf("# read %03d\n", i) + strings.Repeat(fmt.Sprintf("line of read file %03d\n", i), 1+i*7)
	}
	for i := range readFiles {
		put(fmt.Sprintf("r/%03d.md", i), readContent(i))
	}
	// t/: a small tree to list recursively.
	for d := range 4 {
		for f := range 5 {
			put(fmt.Sprintf("t/d%d/f%d.md", d, f), "tree\n")
		}
		put(fmt.Sprintf("t/d%d/sub/deep.txt", d), "deep\n")
	}
	// s/: files to search, each needle in exactly two files, on a known line.
	const needles = 10
	for k := range needles {
		put(fmt.Sprintf("s/%d.md", k), fmt.Sprintf("alpha\nneedle-%d here\nomega\n", k))
		put(fmt.Sprintf("s/deep/%d.txt", k), fmt.Sprintf("x\ny\nthe needle-%d again\n", k))
		put(fmt.Sprintf("s/filler-%d.md", k), "nothing to find here\n")
	}
	// w/ receives the creates; u/ holds the files the updates replace.
	if err := os.MkdirAll(filepath.Join(dir, "w"), 0o755); err != nil {
		tb.Fatal(err)
	}
	wantList := func(sub string) []string {
		var names []string
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if rel != sub {
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		return names
	}
	readDir := wantList("r")
	tree := wantList("t")

	call := func(id int, tool string, args map[string]any) string {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		if err != nil {
			tb.Fatal(err)
		}
		return string(b) + "\n"
	}
	paths := func(r loadResult) []string {
		var p []string
		for _, f := range r.Files {
			p = append(p, f.Path)
		}
		return p
	}
	listed := func(want []string) func(loadResult) error {
		return func(r loadResult) error {
			if r.Truncated || r.TotalFound != len(want) {
				return fmt.Errorf("totalFound %d, truncated %v; want %d entries", r.TotalFound, r.Truncated, len(want))
			}
			if diff := cmp.Diff(want, paths(r)); diff != "" {
				return fmt.Errorf("listed (-want +got):\n%s", diff)
			}
			return nil
		}
	}
	wrote := func(name, content string, created bool) (func(loadResult) error, func() error) {
		return func(r loadResult) error {
				if r.Created != created || r.SizeBytes == nil || *r.SizeBytes != len(content) {
					return fmt.Errorf("created %v, sizeBytes %v; want created %v, %d bytes", r.Created, r.SizeBytes, created, len(content))
				}
				return nil
			}, func() error {
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
				if err != nil {
					return err
				}
				if string(b) != content {
					return fmt.Errorf("%s holds %q, want %q", name, b, content)
				}
				return nil
			}
	}

	calls := make([]loadCall, 0, n)
	for i := range n {
		id := i + 2
		var c loadCall
		switch id % 10 {
		case 0, 1, 2:
			k := (id * 7) % readFiles
			want := readContent(k)
			c = loadCall{kind: "read", line: call(id, reader, map[string]any{"purpose": "read", "target": map[string]any{"path": fmt.Sprintf("r/%03d.md", k)}}),
				check: func(r loadResult) error {
					if r.Content == nil {
						return fmt.Errorf("no content, want r/%03d.md's", k)
					}
					if *r.Content != want {
						return fmt.Errorf("content %.60q..., want r/%03d.md's", *r.Content, k)
					}
					return nil
				}}
		case 3:
			c = loadCall{kind: "list", line: call(id, searcher, map[string]any{"purpose": "list", "target": map[string]any{"path": "r"}}), check: listed(readDir)}
		case 4:
			c = loadCall{kind: "list-recursive", line: call(id, searcher, map[string]any{"purpose": "list", "target": map[string]any{"path": "t"}, "options": map[string]any{"recursive": true}}), check: listed(tree)}
		case 5:
			k := id % needles
			q := fmt.Sprintf("needle-%d", k)
			want := []string{fmt.Sprintf("s/%d.md:2:needle-%d here", k, k), fmt.Sprintf("s/deep/%d.txt:3:the needle-%d again", k, k)}
			c = loadCall{kind: "search", line: call(id, searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": "s", "query": q}, "options": map[string]any{"recursive": true}}),
				check: func(r loadResult) error {
					var got []string
					for _, f := range r.Files {
						for _, m := range f.Matches {
							got = append(got, fmt.Sprintf("%s:%d:%s", f.Path, m.Line, m.Text))
						}
					}
					sort.Strings(got)
					if diff := cmp.Diff(want, got); diff != "" || r.TotalFound != len(want) {
						return fmt.Errorf("search %q: totalFound %d (-want +got):\n%s", q, r.TotalFound, diff)
					}
					return nil
				}}
		case 6, 7:
			name := fmt.Sprintf("w/c-%04d.md", id)
			content := fmt.Sprintf("created by call %d\n", id) + strings.Repeat("x", id%512)
			check, disk := wrote(name, content, true)
			c = loadCall{kind: "create", line: call(id, writer, map[string]any{"purpose": "create", "target": map[string]any{"path": name}, "content": content}), check: check, disk: disk}
		case 8, 9:
			name := fmt.Sprintf("u/%04d.md", id)
			put(name, fmt.Sprintf("old content of %d\n", id))
			content := fmt.Sprintf("updated by call %d\n", id) + strings.Repeat("y", id%300)
			check, disk := wrote(name, content, false)
			c = loadCall{kind: "update", line: call(id, writer, map[string]any{"purpose": "update", "target": map[string]any{"path": name}, "content": content}), check: check, disk: disk}
		}
		calls = append(calls, c)
	}
	return calls
}

// loadReport is what one pipelined run measured.
type loadReport struct {
	latency        []time.Duration // per call, by call index
	kinds          map[string][]time.Duration
	service        map[string][]time.Duration // the server's own executionMs, per kind
	inOrder        bool
	late, maxBack  int // replies that came after a higher id's, and the furthest one came back
	initPos        int // where initialize's reply came among all replies, 0-based
	syncCalls      int // tool calls the server ran on its read loop because its queue was full
	peakMB, sample float64
	samples        int
	elapsed        time.Duration
}

// runLoad runs calls pipelined against a fresh server on dir and checks every reply and every write.
func runLoad(tb testing.TB, dir string, calls []loadCall) loadReport {
	tb.Helper()
	c := startPipe(tb, dir, "--allow-write", "--no-index", "--rate-limit", strconv.Itoa(loadRate), "--rate-window", "1m")
	t0 := time.Now()
	ids := []int{1}
	for i, call := range calls {
		c.send(i+2, call.line)
		ids = append(ids, i+2)
	}
	c.await(ids, loadTimeout)
	elapsed := time.Since(t0)
	hwm, sampled, samples := c.peak()
	c.close()

	c.mu.Lock()
	defer c.mu.Unlock()
	rep := loadReport{kinds: map[string][]time.Duration{}, service: map[string][]time.Duration{}, peakMB: hwm, sample: sampled, samples: samples, elapsed: elapsed}
	// mcp-go logs this when its tool-call queue is full; counted for the report, not asserted.
	rep.syncCalls = strings.Count(c.stderr.String(), "Tool call queue full")
	// Every id answered exactly once, and no reply for an id never sent.
	for _, id := range slices.Sorted(maps.Keys(c.got)) {
		if _, ok := c.sent[id]; !ok {
			tb.Errorf("reply for id %d, which was never sent", id)
		}
		if n := len(c.got[id]); n != 1 {
			tb.Errorf("id %d answered %d times", id, n)
		}
	}
	if r := c.got[1][0]; r.rpcErr != "" {
		tb.Fatalf("initialize: %s", r.rpcErr)
	}
	for i, call := range calls {
		id := i + 2
		r := c.got[id][0]
		d := r.at.Sub(c.sent[id])
		rep.latency = append(rep.latency, d)
		rep.kinds[call.kind] = append(rep.kinds[call.kind], d)
		rep.service[call.kind] = append(rep.service[call.kind], time.Duration(r.res.Metadata.ExecutionMs*float64(time.Millisecond)))
		switch {
		case r.rpcErr != "":
			tb.Errorf("id %d (%s): JSON-RPC error %s", id, call.kind, r.rpcErr)
		case r.isError || !r.res.Success:
			tb.Errorf("id %d (%s): %s: %s", id, call.kind, r.res.Code, r.res.Error)
		default:
			if err := call.check(r.res); err != nil {
				tb.Errorf("id %d (%s): %v", id, call.kind, err)
			}
		}
		// The reply is not proof: each file must hold exactly what its write sent.
		if call.disk != nil {
			if err := call.disk(); err != nil {
				tb.Errorf("id %d (%s) did not land: %v", id, call.kind, err)
			}
		}
	}
	// Nothing but the files asked for: an atomic write leaves no temporary behind.
	for _, sub := range []string{"w", "u"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			tb.Fatal(err)
		}
		want := 0
		for _, call := range calls {
			if call.disk != nil && strings.Contains(call.line, `"path":"`+sub+`/`) {
				want++
			}
		}
		if len(entries) != want {
			tb.Errorf("%s/ holds %d entries after the run, want %d", sub, len(entries), want)
		}
	}
	// Order of arrival.
	rep.inOrder = sort.IntsAreSorted(c.order)
	high := 0
	for pos, id := range c.order {
		if id == 1 {
			rep.initPos = pos
		}
		if id < high {
			rep.late++
		}
		high = max(high, id)
		// With every request sent before most replies, an id's reply "should" be the id-1'th.
		rep.maxBack = max(rep.maxBack, pos-(id-1))
	}
	return rep
}

func loadPercentile(d []time.Duration, p float64) time.Duration {
	s := slices.Sorted(slices.Values(d))
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func TestPipelinedLoad(t *testing.T) {
	tier.Full(t, "pipelines many calls through the binary")
	dir := t.TempDir()
	calls := loadWorkload(t, dir, loadCalls)
	rep := runLoad(t, dir, calls)

	t.Logf("%d calls pipelined after initialize, all answered in %v (%.0f calls/s)", len(calls), rep.elapsed.Round(time.Millisecond), float64(len(calls))/rep.elapsed.Seconds())
	t.Logf("latency, write of the line to read of the reply: p50 %v, p95 %v, p99 %v, max %v",
		loadPercentile(rep.latency, 0.50), loadPercentile(rep.latency, 0.95), loadPercentile(rep.latency, 0.99), loadPercentile(rep.latency, 1))
	for _, k := range slices.Sorted(maps.Keys(rep.kinds)) {
		d := rep.kinds[k]
		sv := rep.service[k]
		t.Logf("  %-15s n=%4d p50 %v p95 %v p99 %v; in the server (executionMs) p50 %v p99 %v", k, len(d),
			loadPercentile(d, 0.50).Round(time.Millisecond), loadPercentile(d, 0.95).Round(time.Millisecond), loadPercentile(d, 0.99).Round(time.Millisecond),
			loadPercentile(sv, 0.50).Round(time.Microsecond), loadPercentile(sv, 0.99).Round(time.Microsecond))
	}
	t.Logf("replies in order of id: %v; %d of %d replies came after a reply to a higher id (furthest %d places late); initialize's reply came %d-th",
		rep.inOrder, rep.late, len(calls)+1, rep.maxBack, rep.initPos+1)
	t.Logf("tool calls the server ran on its read loop because its worker queue was full: %d", rep.syncCalls)
	t.Logf("server memory: peak VmHWM %.1f MB; largest of %d VmRSS samples %.1f MB", rep.peakMB, rep.samples, rep.sample)
	if rep.peakMB > loadPeakRSSMB {
		t.Errorf("server peak RSS %.1f MB, over the %d MB bound", rep.peakMB, loadPeakRSSMB)
	}
}

func BenchmarkPipelinedLoad(b *testing.B) {
	var lat []time.Duration
	var peak, rate float64
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		calls := loadWorkload(b, dir, loadCalls)
		b.StartTimer()
		rep := runLoad(b, dir, calls)
		lat = append(lat, rep.latency...)
		peak = max(peak, rep.peakMB)
		rate += float64(len(calls)) / rep.elapsed.Seconds()
	}
	b.ReportMetric(float64(loadPercentile(lat, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(loadPercentile(lat, 0.95).Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(loadPercentile(lat, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(peak, "peak-rss-MB")
	b.ReportMetric(rate/float64(b.N), "calls/s")
}

func TestRateLimitBurst(t *testing.T) {
	// The configuration under test, and what it implies (see security.LimitConfig: each tool
	// gets half the overall budget, at least 1).
	const (
		rateMax = 100
		window  = time.Minute
		burst   = 120
	)
	perTool := max(rateMax/2, 1)
	existsP, _ := tools.PurposeOf(tools.ReaderName, "exists")
	listP, _ := tools.PurposeOf(tools.SearcherName, "list")
	existsCost, listCost := existsP.Cost, listP.Cost
	allowed := min(perTool, rateMax) / existsCost
	// A refused call waits for at most existsCost tokens of the reader's bucket, which refills
	// perTool tokens per window; RetryAfter rounds up to the millisecond.
	maxWaitMs := int64(existsCost)*window.Milliseconds()/int64(perTool) + 1
	if allowed >= burst || rateMax-allowed*existsCost < listCost || perTool < listCost {
		t.Fatalf("the configuration does not test what it should: %d allowed of %d", allowed, burst)
	}
	// The burst must end well before the reader's bucket refills one call's tokens, or one more
	// call would pass.
	refill := time.Duration(existsCost) * window / time.Duration(perTool)

	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startPipe(t, root, "--no-index", "--rate-limit", strconv.Itoa(rateMax), "--rate-window", window.String())
	exists := fmt.Sprintf(`{"jsonrpc":"2.0","id":%%d,"method":"tools/call","params":{"name":%q,"arguments":{"purpose":"exists","target":{"path":"a.md"}}}}`+"\n", reader)
	t0 := time.Now()
	var ids []int
	for id := 2; id < 2+burst; id++ {
		c.send(id, fmt.Sprintf(exists, id))
		ids = append(ids, id)
	}
	c.await(ids, loadTimeout)
	took := time.Since(t0)
	listID := 2 + burst
	c.send(listID, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"purpose":"list","target":{"path":"."}}}}`+"\n", listID, searcher))
	c.await([]int{listID}, loadTimeout)
	c.close()

	c.mu.Lock()
	defer c.mu.Unlock()
	ok, limited := 0, 0
	var maxWait int64
	for _, id := range ids {
		if len(c.got[id]) != 1 {
			t.Errorf("id %d answered %d times", id, len(c.got[id]))
			continue
		}
		r := c.got[id][0]
		switch {
		case r.rpcErr != "":
			t.Errorf("id %d: JSON-RPC error %s", id, r.rpcErr)
		case r.res.Success && !r.isError:
			if r.res.Exists == nil || !*r.res.Exists {
				t.Errorf("id %d: exists = %v, want true", id, r.res.Exists)
			}
			ok++
		case r.res.Code == "RATE_LIMITED" && r.isError:
			limited++
			maxWait = max(maxWait, r.res.RetryAfterMs)
			if r.res.RetryAfterMs <= 0 || r.res.RetryAfterMs > maxWaitMs {
				t.Errorf("id %d: retryAfterMs %d, want in (0, %d]", id, r.res.RetryAfterMs, maxWaitMs)
			}
		default:
			t.Errorf("id %d: %s: %s", id, r.res.Code, r.res.Error)
		}
	}
	t.Logf("burst of %d exists calls in %v: %d succeeded, %d RATE_LIMITED (largest retryAfterMs %d, bound %d)", burst, took.Round(time.Microsecond), ok, limited, maxWait, maxWaitMs)
	if took >= refill {
		t.Logf("the burst took %v, longer than one refill (%v): counts may be off by the refill", took, refill)
	}
	// On a slow machine the bucket may refill during the burst: each whole refill lets one more
	// call through, and no more.
	extra := int(took / refill)
	if ok < allowed || ok > allowed+extra || ok+limited != burst {
		t.Errorf("%d succeeded and %d were refused; want %d (+%d refilled during the burst) and the rest of %d", ok, limited, allowed, extra, burst)
	}
	if r := c.got[listID]; len(r) != 1 || !r[0].res.Success || r[0].isError {
		t.Errorf("list after the burst = %+v; want success (another tool, and the overall bucket has %d tokens left)", r, rateMax-allowed*existsCost)
	}
}
