package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The benchmarks measure what a user feels: process start to an answered initialize, a 4 KB read's
// round trip over stdio, and the server's memory after start. Run them with
//
//	go test -run '^$' -bench . -benchtime 200x ./cmd/packfs-mcp/

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"

func BenchmarkStartToInitialize(b *testing.B) {
	root := b.TempDir()
	var times []time.Duration
	var rss []float64
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command(binPath, "serve", "--root", root)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		io.WriteString(in, initializeLine)
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":1`) {
			b.Fatalf("initialize: %q %v", line, err)
		}
		times = append(times, time.Since(t0))
		if mb, err := rssMB(cmd.Process.Pid); err == nil {
			rss = append(rss, mb)
		}
		in.Close()
		cmd.Wait()
	}
	reportPercentiles(b, times)
	if len(rss) > 0 {
		sort.Float64s(rss)
		b.ReportMetric(rss[len(rss)/2], "rss-after-start-MB")
	}
}

// rawServer is the built binary driven with raw JSON-RPC lines, so a round trip measures the
// server and the pipe, not a client library.
type rawServer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRaw(tb testing.TB, root string, args ...string) *rawServer {
	tb.Helper()
	cmd := exec.Command(binPath, append([]string{"serve", "--root", root}, args...)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &rawServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	tb.Cleanup(func() { in.Close(); cmd.Wait() })
	s.roundTrip(tb, initializeLine)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return s
}

func (s *rawServer) roundTrip(tb testing.TB, line string) string {
	tb.Helper()
	if _, err := io.WriteString(s.in, line); err != nil {
		tb.Fatal(err)
	}
	reply, err := s.out.ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	return reply
}

// BenchmarkRead4K measures a 4 KB read's round trip over stdio, plain and with the audit journal on
// (which records the call with its 4 KB of content), side by side.
func BenchmarkRead4K(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchRead4K(b, false) })
	b.Run("journal", func(b *testing.B) { benchRead4K(b, true) })
}

func benchRead4K(b *testing.B, journal bool) {
	dir := b.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "4k.md"), []byte(strings.Repeat("0123456789abcde\n", 256)), 0o644); err != nil {
		b.Fatal(err)
	}
	var args []string
	if journal {
		args = []string{"--journal", filepath.Join(dir, "journal.jsonl")}
	}
	s := startRaw(b, root, args...)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"4k.md"}}}}` + "\n"
	var times []time.Duration
	for b.Loop() {
		t0 := time.Now()
		reply := s.roundTrip(b, call)
		times = append(times, time.Since(t0))
		if !strings.Contains(reply, `\"success\":true`) {
			b.Fatalf("read failed: %s", reply)
		}
	}
	reportPercentiles(b, times)
	if rss, err := rssMB(s.cmd.Process.Pid); err == nil {
		b.ReportMetric(rss, "rss-after-reads-MB")
	}
}

func reportPercentiles(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	pct := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// rssMB reads a process's resident set size from /proc.
func rssMB(pid int) (float64, error) { return procMB(pid, "VmRSS") }

// peakMB reads a process's peak resident set size (VmHWM) from /proc.
func peakMB(pid int) (float64, error) { return procMB(pid, "VmHWM") }

// procMB reads one memory figure of /proc/PID/status, in MB.
func procMB(pid int, key string) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, key+":") {
			kb, err := strconv.Atoi(strings.Fields(line)[1])
			return float64(kb) / 1024, err
		}
	}
	return 0, fmt.Errorf("no %s", key)
}
