package search

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
)

// TestPartial checks what a search answered during the index build tells the model: what it covers,
// when to search again, and never an empty success while files remain unread.
func TestPartial(t *testing.T) {
	tests := []struct {
		name      string
		cv        semantic.Coverage
		found     bool
		wantCode  string // "" for success
		wantRetry int64
		wantTotal bool // totalFiles is told
		wantText  []string
	}{
		{name: "complete", cv: semantic.Coverage{Complete: true}, found: false},
		{name: "hits, files unread", cv: semantic.Coverage{Indexed: 100, Total: 1000, Scanned: 50, Unread: true, Left: 3 * time.Second},
			found: true, wantRetry: 3000, wantTotal: true, wantText: []string{"partial answer", "100 of 1000 files indexed", "50 files", "850 were not read", "about 3 s"}},
		{name: "no hits, files unread", cv: semantic.Coverage{Indexed: 100, Total: 1000, Scanned: 50, Unread: true},
			found: false, wantCode: errs.CodeNotAvailable, wantRetry: 2000, wantText: []string{"nothing found yet", "850 were not read"}},
		{name: "no hits, every file looked at", cv: semantic.Coverage{Indexed: 900, Total: 1000, Scanned: 100, Left: time.Hour},
			found: false, wantRetry: 30000, wantTotal: true, wantText: []string{"no file was left out", "about 30 s"}},
		{name: "restart, nothing outside the index", cv: semantic.Coverage{FromDisk: 7425, Total: 6742, Left: time.Second},
			found: true, wantRetry: 1000, wantTotal: true, wantText: []string{"no file outside the index was left to read, so no file was left out"}},
		{name: "restart, the last run's index answers", cv: semantic.Coverage{Counting: true, FromDisk: 38000, Total: 12000, Unread: true},
			found: true, wantRetry: 2000, wantText: []string{"index of the last run (38000 files) answers while it is checked", "12000 files found so far"}},
		{name: "still counting", cv: semantic.Coverage{Counting: true, Total: 40, Scanned: 10, Unread: true, Left: time.Millisecond},
			found: true, wantRetry: 500, wantText: []string{"still being counted (40 found so far)", "others were not read"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out result.Searcher
			err := partial(&out, tc.cv, tc.found)
			if tc.wantCode != "" {
				var ce *errs.Error
				if !errors.As(err, &ce) || ce.Code != tc.wantCode || ce.Retry.Milliseconds() != tc.wantRetry {
					t.Fatalf("got %v; want %s with a retry of %d ms", err, tc.wantCode, tc.wantRetry)
				}
				for _, w := range tc.wantText {
					if !strings.Contains(ce.Msg, w) {
						t.Errorf("message %q lacks %q", ce.Msg, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *out.IndexComplete != tc.cv.Complete || out.RetryAfterMs != tc.wantRetry || (out.TotalFiles != nil) != tc.wantTotal {
				t.Errorf("got complete %v, retry %d ms, totalFiles %v", *out.IndexComplete, out.RetryAfterMs, out.TotalFiles)
			}
			if tc.cv.FromDisk > 0 && *out.IndexedFiles != tc.cv.FromDisk {
				t.Errorf("indexedFiles = %d, want the %d files of the index on disk", *out.IndexedFiles, tc.cv.FromDisk)
			}
			if tc.cv.Complete && (out.Message != "" || out.ScannedFiles != nil) {
				t.Errorf("a complete answer says %q, scanned %v", out.Message, out.ScannedFiles)
			}
			for _, w := range tc.wantText {
				if !strings.Contains(out.Message, w) {
					t.Errorf("message %q lacks %q", out.Message, w)
				}
			}
		})
	}
}
