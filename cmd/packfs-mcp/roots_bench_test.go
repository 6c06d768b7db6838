package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRootsSearch measures a search of "." over two roots next to one: the tldr corpus alone,
// then tldr and the Obsidian Help vault served as two roots, through the built binary over stdio,
// with the judged tldr queries. It needs ../shared/corpora beside the repository and skips without:
//
//	go test -run '^$' -bench RootsSearch -benchtime 1x -timeout 30m ./cmd/packfs-mcp/
//
// It reports search_semantic and search_content p50/p95 in each setup.
func BenchmarkRootsSearch(b *testing.B) {
	shared := filepath.Join("..", "..", "..", "shared", "corpora")
	for _, name := range []string{"tldr-pages.tar.gz", "obsidian-help-en.tar.gz"} {
		if _, err := os.Stat(filepath.Join(shared, name)); err != nil {
			b.Skip("no ../shared/corpora/" + name + " beside the repository")
		}
	}
	dir := b.TempDir()
	unpack(b, filepath.Join(shared, "tldr-pages.tar.gz"), dir)
	unpack(b, filepath.Join(shared, "obsidian-help-en.tar.gz"), dir)
	tldr, vault := filepath.Join(dir, "tldr"), filepath.Join(dir, "obsidian-help-en")
	setups := []struct {
		name string
		root string
		args []string
	}{
		{"one-root", tldr, nil},
		{"two-roots", "tldr=" + tldr, []string{"--root", "vault=" + vault}},
	}
	queries := tldrQueries(b)
	for _, setup := range setups {
		b.Run(setup.name, func(b *testing.B) {
			for b.Loop() {
				s := startRaw(b, setup.root, append(setup.args, "--index-dir", b.TempDir())...)
				waitComplete(b, s)
				var sem, content []time.Duration
				for _, q := range queries {
					t := time.Now()
					s.roundTrip(b, toolCall(3, searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": q.text}}))
					sem = append(sem, time.Since(t))
				}
				for _, q := range queries[:min(20, len(queries))] {
					t := time.Now()
					s.roundTrip(b, toolCall(4, searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": q.text}}))
					content = append(content, time.Since(t))
				}
				b.ReportMetric(pct(sem, 0.50), "semantic-p50-ms")
				b.ReportMetric(pct(sem, 0.95), "semantic-p95-ms")
				b.ReportMetric(pct(content, 0.50), "content-p50-ms")
				b.ReportMetric(pct(content, 0.95), "content-p95-ms")
			}
		})
	}
}
