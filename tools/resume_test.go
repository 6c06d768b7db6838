package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
)

// expiring is a context whose deadline a test ends at a moment of its choosing.
type expiring struct {
	context.Context
	once sync.Once
	done chan struct{}
}

func (e *expiring) Done() <-chan struct{} { return e.done }

func (e *expiring) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (e *expiring) expire() { e.once.Do(func() { close(e.done) }) }

// TestSearchStopsWithWhatItFound checks that a search_content whose time runs out answers the
// files it found, truncated and timedOut, with a nextOffset, and that the call for that offset
// goes on from the file where it stopped; likewise for a page that filled. A server that does not
// remember the place (a new one) walks again from the start and gives the same page.
func TestSearchStopsWithWhatItFound(t *testing.T) {
	var tree []string
	var all []string
	for i := range 10 {
		p := fmt.Sprintf("d/%02d.md", i)
		text := "a needle here\n"
		if i >= 8 {
			text += "and a rare word\n"
		}
		tree, all = append(tree, p+"="+text), append(all, p)
	}
	for _, engine := range []bool{false, true} {
		t.Run(fmt.Sprintf("index %v", engine), func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: tree, engine: engine})
			var ctxs []*expiring
			e.srv.budget = func(ctx context.Context) (context.Context, context.CancelFunc) {
				x := &expiring{Context: ctx, done: make(chan struct{})}
				ctxs = append(ctxs, x)
				return x, func() {}
			}
			var read []string
			stopAt := ""
			e.srv.beforeSearch = func(p string) {
				read = append(read, p)
				if p == stopAt {
					ctxs[len(ctxs)-1].expire()
				}
			}
			query := "needle"
			search := func(opts map[string]any) optionResult {
				t.Helper()
				read = nil
				opts["filesOnly"] = true
				return e.call(t, SearcherName, map[string]any{"purpose": "search_content", "target": map[string]any{"path": "d", "query": query}, "options": opts})
			}
			paths := func(out optionResult) []string {
				var files []result.FileEntry
				field(t, out, "files", &files)
				var ps []string
				for _, f := range files {
					ps = append(ps, f.Path)
				}
				return ps
			}

			stopAt = "d/04.md"
			out := search(map[string]any{})
			if diff := cmp.Diff(all[:4], paths(out)); diff != "" || out.Result["success"] != true {
				t.Fatalf("out of time at d/04.md: files (-want +got):\n%s\n%s", diff, out.json())
			}
			if out.Result["timedOut"] != true || out.Result["truncated"] != true || out.Result["nextOffset"] != 4.0 {
				t.Errorf("out of time: want timedOut, truncated and nextOffset 4: %s", out.json())
			}
			if msg, _ := out.Result["message"].(string); !engine && !strings.Contains(msg, "after 4 files searched") || !strings.Contains(msg, "options.offset 4") {
				t.Errorf("out of time: the message does not say how far it got and how to go on: %q", msg)
			}
			stopAt = ""
			out = search(map[string]any{"offset": 4})
			if diff := cmp.Diff(all[4:], paths(out)); diff != "" {
				t.Errorf("next call: files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(all[4:], read); diff != "" {
				t.Errorf("next call read (-want +got), want it to go on where the first stopped:\n%s", diff)
			}
			if out.Result["timedOut"] != nil || out.Result["nextOffset"] != nil || out.Result["totalFound"] != 10.0 {
				t.Errorf("next call: want the rest, 10 found in all: %s", out.json())
			}

			out = search(map[string]any{"maxResults": 3})
			if diff := cmp.Diff(all[:3], paths(out)); diff != "" || out.Result["nextOffset"] != 3.0 {
				t.Errorf("page of 3: files (-want +got):\n%s\n%s", diff, out.json())
			}
			out = search(map[string]any{"maxResults": 3, "offset": 3})
			if diff := cmp.Diff(all[3:6], paths(out)); diff != "" {
				t.Errorf("second page: files (-want +got):\n%s", diff)
			}
			if read[0] != "d/03.md" {
				t.Errorf("second page read %v first, want d/03.md: it walked again from the start", read)
			}

			// Out of time before anything was found: called again, it goes on where it stopped.
			// (With the index, the search reads only the two files that hold the word.)
			if !engine {
				query, stopAt = "rare", "d/03.md"
				out = search(map[string]any{})
				if out.Result["timedOut"] != true || out.Result["nextOffset"] != 0.0 || len(paths(out)) != 0 {
					t.Errorf("rare word out of time at d/03.md: want timedOut, nothing found, nextOffset 0: %s", out.json())
				}
				stopAt = ""
				out = search(map[string]any{"offset": 0})
				if diff := cmp.Diff(all[8:], paths(out)); diff != "" || read[0] != "d/03.md" {
					t.Errorf("rare word called again: read %v; files (-want +got):\n%s", read, diff)
				}
				query = "needle"
			}
			// Out of time at the last file.
			stopAt = "d/09.md"
			out = search(map[string]any{"offset": 0, "maxResults": 20})
			if diff := cmp.Diff(all[:9], paths(out)); diff != "" || out.Result["timedOut"] != true {
				t.Errorf("out of time at the last file: want timedOut and the 9 before it: %s", out.json())
			}
			stopAt = ""

			fresh := newOptionEnv(t, optionTable{tree: tree, engine: engine})
			out = fresh.call(t, SearcherName, map[string]any{"purpose": "search_content", "target": map[string]any{"path": "d", "query": "needle"}, "options": map[string]any{"offset": 4, "filesOnly": true}})
			if diff := cmp.Diff(all[4:], paths(out)); diff != "" {
				t.Errorf("a server that does not remember: files (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSearchResumeForgotten checks that a search does not go on from where an earlier one stopped
// once the writer has changed a file, nor after search.ResumeTTL: it walks again from the start.
func TestSearchResumeForgotten(t *testing.T) {
	tree := []string{"d/a.md=needle\n", "d/b.md=nothing\n", "d/c.md=needle\n"}
	tests := []struct {
		name  string
		after func(e *optionEnv, now *time.Time)
		first string // the first file of a walk from the start
	}{
		{"after a write", func(e *optionEnv, _ *time.Time) {
			e.call(t, WriterName, map[string]any{"purpose": "create", "target": map[string]any{"path": "d/0.md"}, "content": "needle\n"})
		}, "d/0.md"},
		{"after ten minutes", func(_ *optionEnv, now *time.Time) { *now = now.Add(search.ResumeTTL) }, "d/a.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: tree})
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			e.srv.cfg.Now = func() time.Time { return now }
			var read []string
			e.srv.beforeSearch = func(p string) { read = append(read, p) }
			search := func(offset int) {
				read = nil
				e.call(t, SearcherName, map[string]any{"purpose": "search_content", "target": map[string]any{"path": "d", "query": "needle"}, "options": map[string]any{"maxResults": 1, "offset": offset}})
			}
			search(0)
			tt.after(e, &now)
			search(1)
			if len(read) == 0 || read[0] != tt.first {
				t.Errorf("read %v, want a walk from the start (%s first)", read, tt.first)
			}
		})
	}
}
