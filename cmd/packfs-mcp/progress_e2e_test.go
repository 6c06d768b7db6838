package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/internal/tier"
	"github.com/packfs/packfs-mcp/tools/progress"
)

// progressTreeFiles is how many files the progress test serves: enough that a recursive walk passes
// progress.FirstAfter entries, and so reports, whatever the machine's speed.
const progressTreeFiles = 2 * progress.FirstAfter

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

// progressRounds is how many times TestProgressE2E makes each call with a token in each era, and
// progressMaxLate how many of all those calls may get a notification after their response. On
// 2026-11-24 (-race, a loaded 2-core machine), none of the 60 calls did in each of three runs;
// without the server's wait for its notifications to go out (tools/progress Reporter.drain), 5 to 8 did,
// all of them searches.
const progressRounds, progressMaxLate = 15, 2

// progressNote is one notifications/progress the client received.
type progressNote struct {
	token    string // the token, printed, so that 7 and 7.0 compare equal
	progress float64
	total    any
	message  string
	during   int // the index of the call under way when it arrived
}

// TestProgressE2E drives a recursive list and a search_content over a big tree through the built
// binary, with and without a progress token in _meta, and checks the notifications the client gets:
// each call with a token gets some, in order, and they come before its response (all but
// progressMaxLate calls).
func TestProgressE2E(t *testing.T) {
	tier.Full(t, "times progress notifications of long calls")
	f := newProgressFixture(t)
	var late []string // the calls with a token that got a notification after their response
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
			// Each call with a token runs progressRounds times, each time with a token of its own, so
			// that notifications arriving after the response are counted over many calls. The calls
			// without a token come last: the stream is ordered, so once they are answered, every
			// notification written for the calls before them has been received.
			type progressCall struct {
				name  string
				args  map[string]any
				token any // nil sends no _meta
			}
			var calls []progressCall
			for r := range progressRounds {
				calls = append(calls,
					progressCall{fmt.Sprintf("list with a string token, round %d", r), list, fmt.Sprintf("list-%s-%d", era.name, r)},
					progressCall{fmt.Sprintf("search with a numeric token, round %d", r), search, 7 + r})
			}
			calls = append(calls,
				progressCall{"list without a token", list, nil},
				progressCall{"search without a token", search, nil})
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
					if name := era.name + ": " + c.name; n.during != i && !slices.Contains(late, name) {
						late = append(late, name)
					}
				}
			}
			// What is left came for no token, or one never sent: the calls without a token.
			for token, ns := range byToken {
				t.Errorf("%d notifications for token %q, which no call sent: %+v", len(ns), token, ns)
			}
		})
	}
	// mcp-go's stdio server writes notifications on a goroutine of their own, so the server can
	// only make a late one unlikely (see tools/progress Reporter.drain), not impossible on a loaded machine:
	// a few calls may see one.
	if calls := 2 * progressRounds * len(eras); len(late) > progressMaxLate {
		t.Errorf("%d of %d calls with a token got a notification after their response, want at most %d: %q",
			len(late), calls, progressMaxLate, late)
	} else if len(late) > 0 {
		t.Logf("%d of %d calls with a token got a notification after their response: %q", len(late), calls, late)
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
