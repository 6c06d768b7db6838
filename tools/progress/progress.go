// Package progress reports how far one call's long work has got: to the client as MCP
// notifications/progress when the request carried a progress token, and to the server's hook.
package progress

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/semantic"
)

// Report is how far one long call has got.
type Report struct {
	Tool    string
	Purpose string
	Done    int    // units done so far: files walked or indexed
	Total   int    // units in all, or 0 when unknown
	Message string // a short human line, such as "indexing: 1200 of 38404 files"
}

// Progress reporting limits: long work says how far it has got, without flooding the client or
// slowing the walk.
const (
	// Interval is the least time between two progress reports on one call: often enough for
	// a progress bar to move, rare enough that a walk over a million files sends a few lines a second.
	Interval = 250 * time.Millisecond
	// FirstAfter is how many entries a walk handles before its first report when Interval has not
	// yet passed: a walk this big is long work whatever the disk's speed,
	// and a smaller one that ends quickly reports nothing at all.
	FirstAfter = 1000
	// progressEvery is how many entries a walk handles between two looks at the clock, so that
	// reporting costs a walk one counter increment per entry.
	progressEvery = 64
	// progressDrain bounds how long a call waits, after its last notification, for the transport to
	// take the notification from its queue, so that the notification is written before the response.
	// The wait is bounded because the queue is shared with other calls and a slow client may never
	// empty it.
	progressDrain = 100 * time.Millisecond
	// progressWriteGrace is how long a call waits once the queue is empty, for the transport to
	// write the notification it took: mcp-go's stdio server writes notifications on a goroutine of
	// their own, and says nothing when it is done, so a response written at once could overtake it.
	progressWriteGrace = 10 * time.Millisecond
)

// Reporter reports the progress of one call's long work: to the client as MCP
// notifications/progress when the request carried a progress token, and to a hook (tools'
// Config.Progress). A walk calls Step for each entry; the reporter looks at the clock every
// progressEvery entries and reports at most once per Interval, plus once more when the work ends
// (Finish). Reported progress
// strictly increases, and nothing is reported once the call's context is done, since the response
// may then already be on its way. A reporter serves one call on one goroutine; it is not safe for
// concurrent use.
type Reporter struct {
	ctx           context.Context
	tool, purpose string
	label         string // what the purpose's progress is called, such as "listing"; "" for its name
	token         any
	// notify sends one notifications/progress; nil when the client asked for none. Its error means
	// the notification was dropped.
	notify func(params map[string]any) error
	// queue is the session's notification queue, which finish waits on; nil without notify.
	queue chan<- mcp.JSONRPCNotification
	hook  func(Report)
	now   func() time.Time

	done, total int
	unit        string    // what done counts, as in "listing: 1200 entries walked"
	sent        int       // the progress last reported, or -1 before the first report
	start, last time.Time // when the work began and when it was last reported
	stopped     bool      // the context ended: report nothing more

}

// New returns the reporter of a call of purpose (whose progress is called label) of tool, which
// sent token (nil: none) with its request, reporting to hook (nil: none) with the clock now.
// Notifications go to the client only when it sent a progress token and ctx carries the MCP
// server and session serving the request.
func New(ctx context.Context, tool, purpose, label string, token any, hook func(Report), now func() time.Time) *Reporter {
	r := &Reporter{ctx: ctx, tool: tool, purpose: purpose, label: label, token: token, hook: hook,
		now: now, sent: -1, unit: "entries walked"}
	r.start = r.now()
	if token == nil {
		return r
	}
	srv, sess := server.ServerFromContext(ctx), server.ClientSessionFromContext(ctx)
	if srv == nil || sess == nil {
		return r
	}
	// SendNotificationToClient never blocks: when the session's queue is full it returns an error
	// and the notification is dropped, so a slow client cannot stall the walk.
	r.notify = func(params map[string]any) error {
		return srv.SendNotificationToClient(ctx, "notifications/progress", params)
	}
	r.queue = sess.NotificationChannel()
	return r
}

// active reports whether anyone listens to this reporter.
func (r *Reporter) active() bool { return r.notify != nil || r.hook != nil }

// SetTotal declares how many units the work has in all, and what they are.
func (r *Reporter) SetTotal(total int, unit string) {
	r.total, r.unit = total, unit
}

// Step counts one more unit of work done, and reports when it is time to.
func (r *Reporter) Step() {
	r.done++
	if r.done%progressEvery != 0 || !r.active() {
		return
	}
	now := r.now()
	if r.sent < 0 {
		if r.done < FirstAfter && now.Sub(r.start) < Interval {
			return
		}
	} else if now.Sub(r.last) < Interval {
		return
	}
	r.report(now)
}

// Finish reports the final count of work that reported before, then gives the transport a moment
// to write what was sent ahead of the response. It is a no-op for work that never reported.
func (r *Reporter) Finish() {
	if r.sent < 0 {
		return
	}
	if r.done > r.sent {
		r.report(r.now())
	}
	r.drain()
}

// Index reports the search index's build once, unless it is complete: a search_semantic or
// relationships call answers from the index as far as it has been built.
func (r *Reporter) Index(st semantic.Progress) {
	if st.Complete {
		return
	}
	r.done = st.Done
	r.SetTotal(st.Total, "files indexed")
	r.report(r.now())
	r.drain()
}

// report sends the current progress to the hook and the client, unless it would not increase or
// the call's context is done.
func (r *Reporter) report(now time.Time) {
	if r.stopped || r.done <= r.sent || !r.active() {
		return
	}
	if r.ctx.Err() != nil {
		r.stopped = true
		return
	}
	r.sent, r.last = r.done, now
	p := Report{Tool: r.tool, Purpose: r.purpose, Done: r.done, Total: r.total, Message: r.message()}
	if r.hook != nil {
		r.hook(p)
	}
	if r.notify == nil {
		return
	}
	params := map[string]any{"progressToken": r.token, "progress": p.Done, "message": p.Message}
	if p.Total > 0 {
		params["total"] = p.Total
	}
	_ = r.notify(params) // a full queue drops the notification: the next one says more anyway
}

func (r *Reporter) message() string {
	what := r.purpose
	if r.label != "" {
		what = r.label
	}
	if r.total > 0 {
		return fmt.Sprintf("%s: %d of %d %s", what, r.done, r.total, r.unit)
	}
	return fmt.Sprintf("%s: %d %s", what, r.done, r.unit)
}

// drain waits, at most progressDrain, until the session's notification queue is empty, then
// progressWriteGrace for the last notification taken to be written. It is best effort: the
// transport does not tell when a notification is on the wire.
func (r *Reporter) drain() {
	if r.queue == nil || r.sent < 0 {
		return
	}
	deadline := time.Now().Add(progressDrain)
	for len(r.queue) > 0 {
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(progressWriteGrace)
}
