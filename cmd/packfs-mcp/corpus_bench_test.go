package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

// BenchmarkTLDRCorpus measures the search index on the whole tldr corpus (38,404 files) through the
// built binary over stdio. It needs ../shared/corpora beside the repository and skips without it:
//
//	go test -run '^$' -bench TLDRCorpus -benchtime 1x -timeout 30m ./cmd/packfs-mcp/
//
// It reports: cold index build (files/s), restart with the persisted index to the first answered
// search, a write visible to search, search_semantic p50/p95 over the judged tldr queries (alone
// and with a calling model's paraphrases), search_content for word-like literals against ripgrep
// over the same files, the first search_content after a write, and peak RSS.
func BenchmarkTLDRCorpus(b *testing.B) {
	archive := filepath.Join("..", "..", "..", "shared", "corpora", "tldr-pages.tar.gz")
	if _, err := os.Stat(archive); err != nil {
		b.Skip("no ../shared/corpora/tldr-pages.tar.gz beside the repository")
	}
	dir := b.TempDir()
	files := unpack(b, archive, dir)
	root := filepath.Join(dir, "tldr")
	indexDir := filepath.Join(dir, "index")
	for b.Loop() {
		// Cold build.
		t0 := time.Now()
		s := startRaw(b, root, "--index-dir", indexDir, "--allow-write")
		waitComplete(b, s)
		build := time.Since(t0)
		b.ReportMetric(float64(files)/build.Seconds(), "build-files/s")

		// search_semantic latency over the judged queries, alone and with the paraphrases a
		// calling model wrote for them.
		var sem, para []time.Duration
		for _, q := range tldrQueries(b) {
			t := time.Now()
			s.roundTrip(b, toolCall(3, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": q.text}}))
			sem = append(sem, time.Since(t))
		}
		for _, q := range tldrQueries(b) {
			t := time.Now()
			s.roundTrip(b, toolCall(3, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": q.text}, "queries": q.paraphrases}))
			para = append(para, time.Since(t))
		}
		b.ReportMetric(pct(sem, 0.50), "semantic-p50-ms")
		b.ReportMetric(pct(sem, 0.95), "semantic-p95-ms")
		b.ReportMetric(pct(para, 0.50), "semantic-paraphrases-p50-ms")
		b.ReportMetric(pct(para, 0.95), "semantic-paraphrases-p95-ms")

		// A write, then a search that must see it.
		t := time.Now()
		s.roundTrip(b, toolCall(4, writer, map[string]any{"purpose": "create", "target": map[string]any{"path": "pages/common/zz-bench.md"}, "content": "# zz-bench\n> Quixotically unique benchmark word.\n"}))
		reply := s.roundTrip(b, toolCall(5, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "quixotically"}}))
		b.ReportMetric(ms(time.Since(t)), "write-visible-ms")
		if !strings.Contains(reply, "zz-bench.md") {
			b.Fatalf("the write was not visible: %s", reply)
		}

		// search_content against ripgrep, for a rare word, a common word and a phrase.
		for _, lit := range []string{"quixotically", "archive", "list all"} {
			var ours []time.Duration
			for i := 0; i < 5; i++ {
				t := time.Now()
				s.roundTrip(b, toolCall(6, searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": lit}, "options": map[string]any{"maxResults": 10000}}))
				ours = append(ours, time.Since(t))
			}
			name := strings.ReplaceAll(lit, " ", "-")
			b.ReportMetric(pct(ours, 0.5), "content-"+name+"-ms")
			if rg, err := exec.LookPath("rg"); err == nil {
				var theirs []time.Duration
				for i := 0; i < 5; i++ {
					t := time.Now()
					exec.Command(rg, "-i", "-F", "-n", "--no-heading", lit, root).Run()
					theirs = append(theirs, time.Since(t))
				}
				b.ReportMetric(pct(theirs, 0.5), "rg-"+name+"-ms")
			}
		}
		// The first search_content after a write, which must find the word written.
		s.roundTrip(b, toolCall(8, writer, map[string]any{"purpose": "append", "target": map[string]any{"path": "pages/common/zz-bench.md"}, "content": "\n- Zyzzyvas:\n\n`zyzzyva --example`\n"}))
		t = time.Now()
		reply = s.roundTrip(b, toolCall(9, searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "zyzzyva"}}))
		b.ReportMetric(ms(time.Since(t)), "content-after-write-ms")
		if !strings.Contains(reply, "zz-bench.md") {
			b.Fatalf("search_content missed the appended word: %s", reply)
		}
		if rss, err := peakMB(s.cmd.Process.Pid); err == nil {
			b.ReportMetric(rss, "peak-rss-MB")
		}
		s.in.Close()
		s.cmd.Wait()

		// Restart with the persisted index: time to the first search answered with hits (the index
		// opens in the background, so the first calls may find it still opening).
		t = time.Now()
		s2 := startRaw(b, root, "--index-dir", indexDir)
		for {
			reply = s2.roundTrip(b, toolCall(7, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "extract an archive"}}))
			// Every reply names a path in its metadata: a hit is a reply with files.
			if strings.Contains(reply, `\"files\":[`) || time.Since(t) > time.Minute {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		b.ReportMetric(ms(time.Since(t)), "restart-first-hits-ms")
		if !strings.Contains(reply, `\"files\":[`) {
			b.Fatalf("no hits after restart: %s", reply)
		}
		waitComplete(b, s2)
	}
}

func toolCall(id int, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	return string(b) + "\n"
}

func waitComplete(b *testing.B, s *rawServer) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		reply := s.roundTrip(b, toolCall(2, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "x"}}))
		if strings.Contains(reply, `\"indexComplete\":true`) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatal("the index never completed")
}

// tldrQuery is one judged tldr query and the paraphrases a calling model wrote for it.
type tldrQuery struct {
	text        string
	paraphrases []string
}

func tldrQueries(b *testing.B) []tldrQuery {
	dir := filepath.Join("..", "..", "dev", "eval", "queries")
	var set struct {
		Queries []struct{ ID, Query string } `json:"queries"`
	}
	var paras struct {
		Paraphrases map[string][]string `json:"paraphrases"`
	}
	for name, v := range map[string]any{"tldr.json": &set, "tldr.paraphrases.json": &paras} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			b.Fatal(err)
		}
	}
	var out []tldrQuery
	for _, q := range set.Queries {
		out = append(out, tldrQuery{q.Query, paras.Paraphrases[q.ID]})
	}
	return out
}

// unpack extracts the regular files of a .tar.gz into dir and returns how many there were.
func unpack(b *testing.B, archive, dir string) int {
	n, err := corpora.Unpack(archive, "", dir)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func pct(d []time.Duration, p float64) float64 {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return ms(s[min(len(s)-1, int(p*float64(len(s))))])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
