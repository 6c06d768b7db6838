package progress

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/semantic"
)

// searcherName and labels are the searcher's name and its purposes' progress labels, as tools'
// table of purposes has them (this package's tests cannot import tools).
const searcherName = "packfs-file-searcher"

var labels = map[string]string{"list": "listing", "search_content": "searching", "search_semantic": "building the search index", "relationships": "building the search index"}

// fakeClock is a clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// progressLog records what a reporter reported, to its hook and as notifications.
type progressLog struct {
	hook   []Report
	notes  []map[string]any
	times  []time.Time
	clock  *fakeClock
	refuse bool // notify fails, as when the session's queue is full
}

// testReporter returns a reporter for a call of tool and purpose whose clock, hook and notifications
// are logged; withToken says whether the client asked for notifications, withHook whether a hook is set.
func testReporter(ctx context.Context, purpose string, withToken, withHook bool) (*Reporter, *progressLog) {
	lg := &progressLog{clock: &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	var hook func(Report)
	if withHook {
		hook = func(p Report) {
			lg.hook = append(lg.hook, p)
			lg.times = append(lg.times, lg.clock.now())
		}
	}
	var token any
	if withToken {
		token = "tok-1"
	}
	r := New(ctx, searcherName, purpose, labels[purpose], token, hook, lg.clock.now)
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
				r.Step()
			}
			r.Finish()
			if diff := cmp.Diff(tt.want, lg.done()); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
			if len(lg.notes) != len(lg.hook) {
				t.Errorf("%d notifications for %d hook calls", len(lg.notes), len(lg.hook))
			}
			// Every report but the final one waits Interval after the one before (or after
			// the start, unless FirstAfter entries came first).
			prev := start
			for i := 0; i+1 < len(lg.times); i++ {
				if d := lg.times[i].Sub(prev); d < Interval && lg.hook[i].Done < FirstAfter {
					t.Errorf("report %d came %v after the one before, want at least %v", i, d, Interval)
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
	r.SetTotal(5000, "candidate files")
	for range 5000 {
		lg.clock.advance(3 * time.Millisecond)
		r.Step()
	}
	r.Finish()
	r.Finish() // a second finish repeats nothing
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
	want := Report{Tool: searcherName, Purpose: "search_content", Done: 5000, Total: 5000, Message: "searching: 5000 of 5000 candidate files"}
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
				r.Step()
			}
			r.Finish()
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
		r.Step()
	}
	cancel()
	for range 5000 {
		lg.clock.advance(time.Second)
		r.Step()
	}
	r.Finish()
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
		r.Step()
	}
	lg.refuse = false
	lg.clock.advance(time.Second)
	for range 100 {
		r.Step()
	}
	r.Finish()
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
		want []Report
	}{
		{"building", semantic.Progress{Done: 120, Total: 900},
			[]Report{{Tool: searcherName, Purpose: "search_semantic", Done: 120, Total: 900, Message: "building the search index: 120 of 900 files indexed"}}},
		{"walking, total unknown", semantic.Progress{},
			[]Report{{Tool: searcherName, Purpose: "search_semantic", Message: "building the search index: 0 files indexed"}}},
		{"complete", semantic.Progress{Done: 900, Total: 900, Complete: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, lg := testReporter(context.Background(), "search_semantic", true, true)
			r.Index(tt.st)
			r.Finish()
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
