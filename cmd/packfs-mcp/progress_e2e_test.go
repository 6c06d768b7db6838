package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/tools"
)

// progressTreeFiles is how many files the progress test serves: enough that a recursive walk passes
// tools.ProgressFirstAfter entries, and so reports, whatever the machine's speed.
const progressTreeFiles = 2 * tools.ProgressFirstAfter

// newProgressFixture generates a tree of progressTreeFiles small text files in nested folders, a few
// of which hold "progress needle".
func newProgressFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{dir: dir, root: filepath.Join(dir, "root"), outside: filepath.Join(dir, "outside")}
	for i := range progressTreeFiles {
		p := filepath.Join(f.root, fmt.Sprintf("a%02d", i%30), fmt.Sprintf("b%d", i%7), fmt.Sprintf("f%04d.txt", i))
		content := fmt.Sprintf("file %d\nplain text\n", i)
		if i%1000 == 0 {
			content += "a progress needle\n"
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return f
}

// progressNote is one notifications/progress the client received.
type progressNote struct {
	token    string // the token, printed, so that 7 and 7.0 compare equal
	progress float64
	total    any
	message  string
	during   int // the index of the call under way when it arrived
}

// TestProgressE2E drives a recursive list and a search_content over a big tree through the built
// binary, with and without a progress token in _meta, and checks the notifications the client gets.
func TestProgressE2E(t *testing.T) {
	f := newProgressFixture(t)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			s := start(t, f, era.opts, "--no-index")
			var mu sync.Mutex
			var notes []progressNote
			running := -1 // the index in calls of the call under way
			s.c.OnNotification(func(n mcp.JSONRPCNotification) {
				if n.Method != "notifications/progress" {
					return
				}
				a := n.Params.AdditionalFields
				p, _ := a["progress"].(float64)
				msg, _ := a["message"].(string)
				mu.Lock()
				notes = append(notes, progressNote{token: fmt.Sprint(a["progressToken"]), progress: p, total: a["total"], message: msg, during: running})
				mu.Unlock()
			})

			list := map[string]any{"purpose": "list", "target": map[string]any{"path": ".", "criteria": map[string]any{"name": "f00*.txt"}},
				"options": map[string]any{"recursive": true}}
			search := map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "progress needle"}}
			// The calls without a token come last: the stream is ordered, so once they are answered,
			// every notification written for the calls before them has been received.
			calls := []struct {
				name  string
				args  map[string]any
				token any // nil sends no _meta
			}{
				{"list with a string token", list, "list-" + era.name},
				{"search with a numeric token", search, 7},
				{"list without a token", list, nil},
				{"search without a token", search, nil},
			}
			for i, c := range calls {
				mu.Lock()
				running = i
				mu.Unlock()
				out := callWithMeta(t, s, c.args, c.token)
				if out["success"] != true || out["totalFound"] == float64(0) {
					t.Fatalf("%s: result %v", c.name, out)
				}
			}
			mu.Lock()
			running = len(calls)
			got := append([]progressNote(nil), notes...)
			mu.Unlock()

			byToken := map[string][]progressNote{}
			for _, n := range got {
				byToken[n.token] = append(byToken[n.token], n)
			}
			for i, c := range calls {
				if c.token == nil {
					continue
				}
				want := fmt.Sprint(c.token)
				ns := byToken[want]
				delete(byToken, want)
				if len(ns) == 0 {
					t.Errorf("%s: no progress notification", c.name)
				}
				last := -1.0
				for j, n := range ns {
					if n.progress <= last {
						t.Errorf("%s: notification %d: progress %v after %v", c.name, j, n.progress, last)
					}
					last = n.progress
					if n.message == "" {
						t.Errorf("%s: notification %d has no message", c.name, j)
					}
					if total, ok := n.total.(float64); n.total != nil && (!ok || total < n.progress) {
						t.Errorf("%s: notification %d: total %v below progress %v", c.name, j, n.total, n.progress)
					}
					// mcp-go's stdio server writes notifications on a goroutine of their own, so the
					// server can only make a late one unlikely (see tools.reporter.drain), not
					// impossible on a loaded machine: log it rather than fail.
					if n.during != i {
						t.Logf("%s: notification %d (progress %v) arrived after the response", c.name, j, n.progress)
					}
				}
			}
			// What is left came for no token, or one never sent: the calls without a token.
			for token, ns := range byToken {
				t.Errorf("%d notifications for token %q, which no call sent: %+v", len(ns), token, ns)
			}
		})
	}
}

// callWithMeta calls the searcher with a progress token in _meta (none when token is nil) and
// returns its flat result.
func callWithMeta(t *testing.T, s *session, args map[string]any, token any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "packfs-file-searcher"
	req.Params.Arguments = args
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	res, err := s.c.CallTool(ctx, req)
	must(t, err)
	var out map[string]any
	must(t, json.Unmarshal(res.RawStructuredContent, &out))
	return out
}
