package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkResourcesTLDR lists the whole tldr corpus (38,404 files, 2,600 in its largest folder)
// as resources, page after page to the end, through the built binary over stdio, and reads one
// page's files. It needs ../shared/corpora beside the repository and skips without it:
//
//	go test -run '^$' -bench ResourcesTLDR -benchtime 1x ./cmd/packfs-mcp/
//
// It reports the pages, the whole listing, a page's p50/p95/max, the first and the last page (a
// page finds its place from the cursor, so a late page costs what an early one does), and a
// resources/read's p50.
func BenchmarkResourcesTLDR(b *testing.B) {
	archive := filepath.Join("..", "..", "..", "shared", "corpora", "tldr-pages.tar.gz")
	if _, err := os.Stat(archive); err != nil {
		b.Skip("no ../shared/corpora/tldr-pages.tar.gz beside the repository")
	}
	dir := b.TempDir()
	unpack(b, archive, dir)
	s := startRaw(b, filepath.Join(dir, "tldr"), "--no-index")
	for b.Loop() {
		var times []time.Duration
		var uris []string
		cursor := ""
		t0 := time.Now()
		for {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "resources/list", "params": params})
			t := time.Now()
			reply := s.roundTrip(b, string(line)+"\n")
			times = append(times, time.Since(t))
			var r struct {
				Result struct {
					Resources []struct {
						URI string `json:"uri"`
					} `json:"resources"`
					NextCursor string `json:"nextCursor"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(reply), &r); err != nil || r.Result.Resources == nil {
				b.Fatalf("resources/list: %.300s", reply)
			}
			for _, res := range r.Result.Resources {
				uris = append(uris, res.URI)
			}
			if cursor = r.Result.NextCursor; cursor == "" {
				break
			}
		}
		b.ReportMetric(ms(time.Since(t0)), "list-all-ms")
		b.ReportMetric(float64(len(times)), "pages")
		b.ReportMetric(float64(len(uris)), "resources")
		b.ReportMetric(ms(times[0]), "page-first-ms")
		b.ReportMetric(ms(times[len(times)-1]), "page-last-ms")
		b.ReportMetric(pct(times, 0.50), "page-p50-ms")
		b.ReportMetric(pct(times, 0.95), "page-p95-ms")
		b.ReportMetric(pct(times, 1), "page-max-ms")
		var reads []time.Duration
		for i := 0; i < len(uris); i += len(uris) / 200 {
			line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "resources/read", "params": map[string]any{"uri": uris[i]}})
			t := time.Now()
			reply := s.roundTrip(b, string(line)+"\n")
			reads = append(reads, time.Since(t))
			var r struct {
				Result struct {
					Contents []map[string]any `json:"contents"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(reply), &r); err != nil || len(r.Result.Contents) != 1 {
				b.Fatalf("resources/read %s: %.300s", uris[i], reply)
			}
		}
		b.ReportMetric(pct(reads, 0.50), "read-p50-ms")
	}
}
