package tools

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
)

// Progress reporting limits: long work says how far it has got, without flooding the client or
// slowing the walk.
const (
	// ProgressInterval is the least time between two progress reports on one call: often enough for
	// a progress bar to move, rare enough that a walk over a million files sends a few lines a second.
	ProgressInterval = 250 * time.Millisecond
	// ProgressFirstAfter is how many entries a walk handles before its first report when
	// ProgressInterval has not yet passed: a walk this big is long work whatever the disk's speed,
	// and a smaller one that ends quickly reports nothing at all.
	ProgressFirstAfter = 1000
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

// reporter reports the progress of one call's long work: to the client as MCP
// notifications/progress when the request carried a progress token, and to [Config.Progress]. A walk
// calls step for each entry; the reporter looks at the clock every progressEvery entries and reports
// at most once per ProgressInterval, plus once more when the work ends (finish). Reported progress
// strictly increases, and nothing is reported once the call's context is done, since the response
// may then already be on its way. A reporter serves one call on one goroutine; it is not safe for
// concurrent use.
type reporter struct {
	ctx           context.Context
	tool, purpose string
	token         any
	// notify sends one notifications/progress; nil when the client asked for none. Its error means
	// the notification was dropped.
	notify func(params map[string]any) error
	// queue is the session's notification queue, which finish waits on; nil without notify.
	queue chan<- mcp.JSONRPCNotification
	hook  func(Progress)
	now   func() time.Time

	done, total int
	unit        string    // what done counts, as in "listing: 1200 entries walked"
	sent        int       // the progress last reported, or -1 before the first report
	start, last time.Time // when the work began and when it was last reported
	stopped     bool      // the context ended: report nothing more

	// noise says to walk what is ignored and cached too (options.includeIgnored); hidden counts
	// what a walk left out, by reason (security.HiddenBlocked, ...), for the answer.
	noise  bool
	hidden map[string]int
	// rules says, for up to maxHintRules of the entries left out as noise, what left them out
	// ([security.Ignore.Why]), each once, for the answer's hint.
	rules []string
	// others names, for up to maxHintRules of the entries left out as security.HiddenOther, the
	// entry and why ([otherWhy]).
	others []string
	// narrowed says the index's candidates, not a walk, chose the files searched.
	narrowed bool
}

// hide counts one entry a walk left out for why.
func (r *reporter) hide(why string) {
	if r.hidden == nil {
		r.hidden = map[string]int{}
	}
	r.hidden[why]++
}

// unread counts the document p, whose text could not be read (code says why), among the entries
// left out as security.HiddenOther, naming it while the hint has room.
func (r *reporter) unread(p, code string) {
	r.hide(security.HiddenOther)
	if len(r.others) < maxHintRules {
		r.others = append(r.others, fmt.Sprintf("%s (its text cannot be read: %s)", p, code))
	}
}

// maxHintRules is how many of the rules that left entries out a hint names.
const maxHintRules = 3

// wantsRule reports whether the hint has room for another rule.
func (r *reporter) wantsRule() bool { return len(r.rules) < maxHintRules }

// rule records what left an entry out as noise, once.
func (r *reporter) rule(what string) {
	if what != "" && r.wantsRule() && !slices.Contains(r.rules, what) {
		r.rules = append(r.rules, what)
	}
}

// newReporter returns the reporter for call c. Notifications go to the client only when it sent a
// progress token and ctx carries the MCP server and session serving the request.
func (s *Server) newReporter(ctx context.Context, c *call) *reporter {
	r := &reporter{ctx: ctx, tool: c.tool, purpose: c.purpose, token: c.progressToken, hook: s.cfg.Progress,
		now: s.cfg.Now, sent: -1, unit: "entries walked"}
	r.start = r.now()
	if c.progressToken == nil {
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
func (r *reporter) active() bool { return r.notify != nil || r.hook != nil }

// setTotal declares how many units the work has in all, and what they are.
func (r *reporter) setTotal(total int, unit string) {
	r.total, r.unit = total, unit
}

// step counts one more unit of work done, and reports when it is time to.
func (r *reporter) step() {
	r.done++
	if r.done%progressEvery != 0 || !r.active() {
		return
	}
	now := r.now()
	if r.sent < 0 {
		if r.done < ProgressFirstAfter && now.Sub(r.start) < ProgressInterval {
			return
		}
	} else if now.Sub(r.last) < ProgressInterval {
		return
	}
	r.report(now)
}

// finish reports the final count of work that reported before, then gives the transport a moment
// to write what was sent ahead of the response. It is a no-op for work that never reported.
func (r *reporter) finish() {
	if r.sent < 0 {
		return
	}
	if r.done > r.sent {
		r.report(r.now())
	}
	r.drain()
}

// index reports the search index's build once, unless it is complete: a search_semantic or
// relationships call answers from the index as far as it has been built.
func (r *reporter) index(st semantic.Progress) {
	if st.Complete {
		return
	}
	r.done = st.Done
	r.setTotal(st.Total, "files indexed")
	r.report(r.now())
	r.drain()
}

// report sends the current progress to the hook and the client, unless it would not increase or
// the call's context is done.
func (r *reporter) report(now time.Time) {
	if r.stopped || r.done <= r.sent || !r.active() {
		return
	}
	if r.ctx.Err() != nil {
		r.stopped = true
		return
	}
	r.sent, r.last = r.done, now
	p := Progress{Tool: r.tool, Purpose: r.purpose, Done: r.done, Total: r.total, Message: r.message()}
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

func (r *reporter) message() string {
	what := r.purpose
	if p, ok := PurposeOf(r.tool, r.purpose); ok && p.Progress != "" {
		what = p.Progress
	}
	if r.total > 0 {
		return fmt.Sprintf("%s: %d of %d %s", what, r.done, r.total, r.unit)
	}
	return fmt.Sprintf("%s: %d %s", what, r.done, r.unit)
}

// drain waits, at most progressDrain, until the session's notification queue is empty, then
// progressWriteGrace for the last notification taken to be written. It is best effort: the
// transport does not tell when a notification is on the wire.
func (r *reporter) drain() {
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

// notifyIndexProgress tells the client (when it sent a progress token) and [Config.Progress] how far
// the index build has got, when it is still running.
func (s *Server) notifyIndexProgress(ctx context.Context, c *call) {
	s.newReporter(ctx, c).index(s.cfg.Engine.Status())
}
