package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// progressLog records what a reporter reported, to its hook and as notifications.
type progressLog struct {
	hook   []Progress
	notes  []map[string]any
	times  []time.Time
	clock  *fakeClock
	refuse bool // notify fails, as when the session's queue is full
}

// testReporter returns a reporter for a call of tool and purpose whose clock, hook and notifications
// are logged; withToken says whether the client asked for notifications, withHook whether a hook is set.
func testReporter(ctx context.Context, purpose string, withToken, withHook bool) (*reporter, *progressLog) {
	lg := &progressLog{clock: &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	cfg := Config{Now: lg.clock.now}
	if withHook {
		cfg.Progress = func(p Progress) {
			lg.hook = append(lg.hook, p)
			lg.times = append(lg.times, lg.clock.now())
		}
	}
	c := &call{tool: SearcherName, purpose: purpose}
	if withToken {
		c.progressToken = "tok-1"
	}
	r := New(cfg).newReporter(ctx, c)
	if withToken { // no MCP server in ctx: stand in for it
		r.notify = func(p map[string]any) error {
			if lg.refuse {
				return server.ErrNotificationChannelBlocked
			}
			lg.notes = append(lg.notes, p)
			return nil
		}
	}
	return r, lg
}

func (lg *progressLog) done() []int {
	var out []int
	for _, p := range lg.hook {
		out = append(out, p.Done)
	}
	return out
}

func TestProgressThrottle(t *testing.T) {
	tests := []struct {
		name    string
		steps   int
		perStep time.Duration // how far the clock moves before each step
		want    []int         // Done of each report, the final one included
	}{
		{"a quick small walk reports nothing", 500, 0, nil},
		{"a quick big walk reports once it is big, then at the end", 3000, 0, []int{1024, 3000}},
		{"a walk ending on a report sends no repeat", 1024, 0, []int{1024}},
		{"a slow walk reports once per interval", 1000, time.Millisecond, []int{256, 512, 768, 1000}},
		{"a very slow walk reports at every look at the clock", 200, time.Second, []int{64, 128, 192, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, lg := testReporter(context.Background(), "list", true, true)
			start := lg.clock.now()
			for range tt.steps {
				lg.clock.advance(tt.perStep)
				r.step()
			}
			r.finish()
			if diff := cmp.Diff(tt.want, lg.done()); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
			if len(lg.notes) != len(lg.hook) {
				t.Errorf("%d notifications for %d hook calls", len(lg.notes), len(lg.hook))
			}
			// Every report but the final one waits ProgressInterval after the one before (or after
			// the start, unless ProgressFirstAfter entries came first).
			prev := start
			for i := 0; i+1 < len(lg.times); i++ {
				if d := lg.times[i].Sub(prev); d < ProgressInterval && lg.hook[i].Done < ProgressFirstAfter {
					t.Errorf("report %d came %v after the one before, want at least %v", i, d, ProgressInterval)
				}
				prev = lg.times[i]
			}
		})
	}
}

// TestProgressMonotonic checks that every notification carries the token and a progress greater
// than the one before, whatever order the reporter is driven in.
func TestProgressMonotonic(t *testing.T) {
	r, lg := testReporter(context.Background(), "search_content", true, true)
	r.setTotal(5000, "candidate files")
	for range 5000 {
		lg.clock.advance(3 * time.Millisecond)
		r.step()
	}
	r.finish()
	r.finish() // a second finish repeats nothing
	r.report(lg.clock.now())
	if len(lg.notes) < 2 {
		t.Fatalf("got %d notifications, want several", len(lg.notes))
	}
	last := -1
	for i, n := range lg.notes {
		p, ok := n["progress"].(int)
		if !ok || p <= last {
			t.Errorf("notification %d: progress %v after %d, want a greater int", i, n["progress"], last)
		}
		last = p
		if n["progressToken"] != "tok-1" || n["total"] != 5000 {
			t.Errorf("notification %d = %v, want token tok-1 and total 5000", i, n)
		}
	}
	if last != 5000 {
		t.Errorf("final progress = %d, want 5000", last)
	}
	want := Progress{Tool: SearcherName, Purpose: "search_content", Done: 5000, Total: 5000, Message: "searching: 5000 of 5000 candidate files"}
	if diff := cmp.Diff(want, lg.hook[len(lg.hook)-1]); diff != "" {
		t.Errorf("final report (-want +got):\n%s", diff)
	}
}

func TestProgressListeners(t *testing.T) {
	tests := []struct {
		name             string
		token, hook      bool
		wantHook, wantMC bool
	}{
		{"token and hook", true, true, true, true},
		{"no token: the hook only", false, true, true, false},
		{"token without hook", true, false, false, true},
		{"neither", false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, lg := testReporter(context.Background(), "list", tt.token, tt.hook)
			for range 2000 {
				r.step()
			}
			r.finish()
			if got := len(lg.hook) > 0; got != tt.wantHook {
				t.Errorf("hook called %d times, want calls %v", len(lg.hook), tt.wantHook)
			}
			if got := len(lg.notes) > 0; got != tt.wantMC {
				t.Errorf("%d notifications, want some %v", len(lg.notes), tt.wantMC)
			}
		})
	}
}

// TestProgressStopsWithContext checks that nothing is reported once the call's context is done,
// since the response (a TIMEOUT) may already have been sent.
func TestProgressStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, lg := testReporter(ctx, "list", true, true)
	for range 1100 {
		r.step()
	}
	cancel()
	for range 5000 {
		lg.clock.advance(time.Second)
		r.step()
	}
	r.finish()
	if diff := cmp.Diff([]int{1024}, lg.done()); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

// TestProgressDropped checks that a notification the transport refuses is dropped: the walk goes
// on, the hook still hears, and later notifications go out.
func TestProgressDropped(t *testing.T) {
	r, lg := testReporter(context.Background(), "list", true, true)
	lg.refuse = true
	for range 1100 {
		r.step()
	}
	lg.refuse = false
	lg.clock.advance(time.Second)
	for range 100 {
		r.step()
	}
	r.finish()
	if diff := cmp.Diff([]int{1024, 1152, 1200}, lg.done()); diff != "" {
		t.Errorf("hook reports (-want +got):\n%s", diff)
	}
	if len(lg.notes) != 2 || lg.notes[0]["progress"] != 1152 {
		t.Errorf("notifications = %v, want those after the refusal", lg.notes)
	}
}

func TestProgressIndex(t *testing.T) {
	tests := []struct {
		name string
		st   semantic.Progress
		want []Progress
	}{
		{"building", semantic.Progress{Done: 120, Total: 900},
			[]Progress{{Tool: SearcherName, Purpose: "search_semantic", Done: 120, Total: 900, Message: "building the search index: 120 of 900 files indexed"}}},
		{"walking, total unknown", semantic.Progress{},
			[]Progress{{Tool: SearcherName, Purpose: "search_semantic", Message: "building the search index: 0 files indexed"}}},
		{"complete", semantic.Progress{Done: 900, Total: 900, Complete: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, lg := testReporter(context.Background(), "search_semantic", true, true)
			r.index(tt.st)
			r.finish()
			if diff := cmp.Diff(tt.want, lg.hook); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
			if len(lg.notes) != len(tt.want) {
				t.Fatalf("%d notifications, want %d", len(lg.notes), len(tt.want))
			}
			for i, n := range lg.notes {
				_, hasTotal := n["total"]
				if n["progress"] != tt.want[i].Done || hasTotal != (tt.want[i].Total > 0) {
					t.Errorf("notification %d = %v", i, n)
				}
			}
		})
	}
}

// TestProgressCandidates checks that a search narrowed by the index counts every candidate, out of
// all of them, even those it skips.
func TestProgressCandidates(t *testing.T) {
	root, err := fsroot.Open(testfs.TempDir(t), fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(t, err)
	var got []Progress
	s := New(Config{Root: root, Policy: policy, Progress: func(p Progress) { got = append(got, p) }})
	r := s.newReporter(context.Background(), &call{tool: SearcherName, purpose: "search_content"})
	var paths []string
	for i := range 1500 {
		paths = append(paths, fmt.Sprintf("gone/%04d.md", i)) // missing: skipped, yet counted
	}
	err = s.visitCandidates(context.Background(), ".", 0, paths, r, nil, func(fsroot.Info) bool { return true })
	mustOK(t, err)
	r.finish()
	if len(got) != 2 || got[1].Done != 1500 || got[1].Total != 1500 {
		t.Errorf("reports = %+v, want one midway and a final 1500 of 1500", got)
	}
}

// progressSession is an initialized MCP client session whose notifications stay in a queue the test
// reads.
type progressSession struct{ ch chan mcp.JSONRPCNotification }

func (s *progressSession) Initialize()                                         {}
func (s *progressSession) Initialized() bool                                   { return true }
func (s *progressSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s *progressSession) SessionID() string                                   { return "progress-test" }

// TestProgressThroughServer serves a tree of 1,500 files through a real MCP server and checks the
// notifications that recursive listings and searches send, with and without a progress token.
func TestProgressThroughServer(t *testing.T) {
	dir := testfs.TempDir(t)
	for i := range 1500 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%30), fmt.Sprintf("f%04d.txt", i))
		mustOK(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mustOK(t, os.WriteFile(p, []byte("plain text\n"), 0o644))
	}
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(t, err)

	tests := []struct {
		name      string
		args      string
		meta      string // the request's _meta, or ""
		hook      bool
		wantNotes bool
	}{
		{"list with token", `{"purpose":"list","target":{"path":".","criteria":{"name":"f0007.txt"}},"options":{"recursive":true}}`, `{"progressToken":"tok-list"}`, true, true},
		{"search with numeric token", `{"purpose":"search_content","target":{"path":".","query":"absent needle"}}`, `{"progressToken":42}`, false, true},
		{"list without token", `{"purpose":"list","target":{"path":".","criteria":{"name":"f0007.txt"}},"options":{"recursive":true}}`, ``, true, false},
		{"search with empty meta", `{"purpose":"search_content","target":{"path":".","query":"absent needle"}}`, `{}`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hooked []Progress
			cfg := Config{Root: root, Policy: policy, Permissions: security.AllPermissions(),
				Limiter: security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30})}
			if tt.hook {
				cfg.Progress = func(p Progress) { hooked = append(hooked, p) }
			}
			m := server.NewMCPServer("progress-test", "1", server.WithToolCapabilities(false))
			New(cfg).Register(m)
			sess := &progressSession{ch: make(chan mcp.JSONRPCNotification, 1000)}
			params := `{"name":"` + SearcherName + `","arguments":` + tt.args
			if tt.meta != "" {
				params += `,"_meta":` + tt.meta
			}
			req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}}`
			resp := m.HandleMessage(m.WithContext(context.Background(), sess), json.RawMessage(req))
			b, err := json.Marshal(resp)
			mustOK(t, err)
			if !strings.Contains(string(b), `\"success\":true`) {
				t.Fatalf("response = %s", b)
			}
			close(sess.ch)
			var notes []mcp.JSONRPCNotification
			for n := range sess.ch {
				notes = append(notes, n)
			}
			if got := len(notes) > 0; got != tt.wantNotes {
				t.Fatalf("%d notifications, want some: %v", len(notes), tt.wantNotes)
			}
			if tt.hook && len(hooked) == 0 {
				t.Errorf("the hook heard nothing")
			}
			var token any
			if tt.meta != "" {
				var meta map[string]any
				mustOK(t, json.Unmarshal([]byte(tt.meta), &meta))
				token = meta["progressToken"]
			}
			last := -1
			for i, n := range notes {
				f := n.Params.AdditionalFields
				if n.Method != "notifications/progress" || f["progressToken"] != token {
					t.Errorf("notification %d = %s %v, want progress for token %v", i, n.Method, f, token)
				}
				p, _ := f["progress"].(int)
				if p <= last {
					t.Errorf("notification %d: progress %v after %d", i, f["progress"], last)
				}
				last = p
				if msg, _ := f["message"].(string); msg == "" {
					t.Errorf("notification %d has no message", i)
				}
			}
		})
	}
}
