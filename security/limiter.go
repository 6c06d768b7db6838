package security

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

const (
	// DefaultMaxRequests is the overall budget per window when
	// [LimitConfig.MaxRequests] is zero: 50 a second on average, far above
	// what an agent needs, but low enough to stop a runaway loop.
	DefaultMaxRequests = 3000
	// DefaultWindow is the window when [LimitConfig.Window] is zero.
	DefaultWindow = time.Minute
	// MaxTrackedTools bounds the per-tool buckets a [Limiter] keeps, so
	// callers inventing tool names cannot grow its memory. The server has
	// three tools; later names share one overflow bucket.
	MaxTrackedTools = 64
	// DefaultClientRequests is how many requests one client of a
	// [ClientLimiter] may make per window when [ClientLimitConfig.PerClient]
	// is zero: 10 a second on average over [DefaultWindow], with a burst of
	// as many.
	DefaultClientRequests = 600
	// DefaultMaxClients bounds the buckets a [ClientLimiter] keeps when
	// [ClientLimitConfig.MaxClients] is zero: at about 200 bytes a client,
	// 2 MB, so clients arriving from ever new addresses cannot grow it.
	DefaultMaxClients = 10000
)

// Request weights: the tools' table of purposes gives each purpose one.
const (
	// CostLight is a single stat or a read of one bounded file.
	CostLight = 1
	// CostMedium is a directory listing, a relationship lookup or a write:
	// a few syscalls, or a change that is worth slowing down.
	CostMedium = 2
	// CostHeavy is a walk of a whole tree: a recursive listing or a search.
	CostHeavy = 5
)

// LimitConfig configures a [Limiter]. Zero or negative fields get the
// documented defaults.
type LimitConfig struct {
	// MaxRequests is how many requests are allowed per Window overall; it
	// is also the burst. If zero, defaults to [DefaultMaxRequests].
	MaxRequests int
	// Window is the period MaxRequests refers to. If zero, defaults to
	// [DefaultWindow].
	Window time.Duration
	// PerTool is how many requests per Window each tool name may make (and
	// its burst), so one busy tool cannot starve the others. If zero,
	// defaults to MaxRequests/2, at least 1.
	PerTool int
}

// RateLimitError reports a refused request and how long to wait, for
// example
//
//	rate limit exceeded: 3000 requests per 1m0s; retry in 120 ms
type RateLimitError struct {
	// RetryAfter is the wait until the request would be allowed, rounded up
	// to the millisecond and at least one millisecond.
	RetryAfter time.Duration
	// Scope is "overall", or the tool name whose own limit was hit; for a
	// [ClientLimiter], the client.
	Scope string
	// Client reports that Scope names a client of a [ClientLimiter] rather
	// than a tool.
	Client bool
	// Limit and Window describe the limit that was hit, for the message.
	// If Limit is zero they are left out of it.
	Limit  int
	Window time.Duration
}

// Error says which limit was hit and when to retry.
func (e *RateLimitError) Error() string {
	scope := ""
	switch {
	case e.Client:
		scope = fmt.Sprintf(" for client %q", e.Scope)
	case e.Scope != "" && e.Scope != scopeOverall:
		scope = fmt.Sprintf(" for tool %q", e.Scope)
	}
	limit := ""
	if e.Limit > 0 {
		limit = fmt.Sprintf(": %d requests per %v", e.Limit, e.Window)
	}
	return fmt.Sprintf("%v%s%s; retry in %d ms", ErrRateLimited, scope, limit, e.RetryAfter.Milliseconds())
}

// Unwrap returns [ErrRateLimited].
func (e *RateLimitError) Unwrap() error { return ErrRateLimited }

// scopeOverall is the [RateLimitError.Scope] of the shared bucket.
const scopeOverall = "overall"

// Limiter is a token-bucket rate limiter with one overall bucket and one
// bucket per tool name. It never blocks: [Limiter.Allow] answers at once.
// It is safe for concurrent use.
type Limiter struct {
	window   time.Duration
	max      int // overall requests per window, and the overall burst
	perTool  int // requests per window for each tool, and its burst
	mu       sync.Mutex
	overall  *rate.Limiter
	tools    map[string]*rate.Limiter // at most MaxTrackedTools entries
	overflow *rate.Limiter            // shared by names beyond MaxTrackedTools
}

// NewLimiter returns a Limiter for cfg, with every bucket full.
func NewLimiter(cfg LimitConfig) *Limiter {
	if cfg.MaxRequests <= 0 {
		cfg.MaxRequests = DefaultMaxRequests
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.PerTool <= 0 {
		cfg.PerTool = max(cfg.MaxRequests/2, 1)
	}
	l := &Limiter{
		window:  cfg.Window,
		max:     cfg.MaxRequests,
		perTool: cfg.PerTool,
		tools:   make(map[string]*rate.Limiter),
	}
	l.overall = bucket(l.max, l.window)
	l.overflow = bucket(l.perTool, l.window)
	return l
}

// Summary describes the limits in a few words for the startup log, e.g.
// "rate limit 3000 per 1m0s, 1500 per tool".
func (l *Limiter) Summary() string {
	return fmt.Sprintf("rate limit %d per %v, %d per tool", l.max, l.window, l.perTool)
}

// bucket returns a full bucket allowing n requests per window, with a
// burst of n.
func bucket(n int, window time.Duration) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(float64(n)/window.Seconds()), n)
}

// toolBucket returns tool's bucket, creating it while fewer than
// MaxTrackedTools exist. l.mu must be held.
func (l *Limiter) toolBucket(tool string) *rate.Limiter {
	if b, ok := l.tools[tool]; ok {
		return b
	}
	if len(l.tools) >= MaxTrackedTools {
		return l.overflow
	}
	b := bucket(l.perTool, l.window)
	l.tools[tool] = b
	return b
}

// Allow charges cost tokens to the overall bucket and to tool's bucket at
// time now, and returns nil if both had them. A cost below 1 counts as 1;
// a cost above a bucket's burst is clamped to that burst, so any request
// can eventually pass. If either bucket is short, neither is charged and a
// *[RateLimitError] gives the longer of the two waits, for the bucket that
// needs it.
func (l *Limiter) Allow(tool string, cost int, now time.Time) error {
	cost = max(cost, 1)
	l.mu.Lock()
	defer l.mu.Unlock()

	tb := l.toolBucket(tool)
	oc, tc := min(cost, l.max), min(cost, l.perTool)
	// Check both before charging either: l.mu serialises every charge, so
	// tokens seen here are still there when AllowN runs.
	ow := wait(l.overall, oc, l.max, l.window, now)
	tw := wait(tb, tc, l.perTool, l.window, now)
	if ow == 0 && tw == 0 {
		l.overall.AllowN(now, oc)
		tb.AllowN(now, tc)
		return nil
	}
	if tw > ow {
		return &RateLimitError{RetryAfter: tw, Scope: tool, Limit: l.perTool, Window: l.window}
	}
	return &RateLimitError{RetryAfter: ow, Scope: scopeOverall, Limit: l.max, Window: l.window}
}

// wait returns 0 if b holds cost tokens at now, or else the time until it
// will, for a bucket refilling n tokens per window, rounded up to the
// millisecond and at least one millisecond.
func wait(b *rate.Limiter, cost, n int, window time.Duration, now time.Time) time.Duration {
	short := float64(cost) - b.TokensAt(now)
	if short <= 0 {
		return 0
	}
	ms := short * float64(window) / float64(n) / float64(time.Millisecond)
	// Allow for float error in the bucket's token count, so an exact 100 ms
	// is not reported as 101 ms.
	ms = math.Ceil(ms - 1e-6)
	return time.Duration(max(ms, 1)) * time.Millisecond
}

// ClientLimitConfig configures a [ClientLimiter]. Zero or negative fields
// get the documented defaults.
type ClientLimitConfig struct {
	// PerClient is how many requests each client may make per Window; it is
	// also the burst. If zero, defaults to [DefaultClientRequests].
	PerClient int
	// Window is the period PerClient refers to. If zero, defaults to
	// [DefaultWindow].
	Window time.Duration
	// MaxClients bounds how many clients are tracked at once. If zero,
	// defaults to [DefaultMaxClients].
	MaxClients int
}

// ClientLimiter is a token-bucket rate limiter with one bucket per client,
// named by a key the caller chooses (an address, a hash of a credential),
// so that one busy client cannot use up the others' budget. It never
// blocks: [ClientLimiter.Allow] answers at once. It is safe for concurrent
// use.
//
// Its memory is bounded: when MaxClients are tracked, a new client evicts
// every client idle for a whole window (their buckets are full again, so
// forgetting them loses nothing) or, if none is, the one idle longest.
type ClientLimiter struct {
	perClient  int
	window     time.Duration
	maxClients int
	mu         sync.Mutex
	clients    map[string]*clientBucket // at most maxClients entries
}

// clientBucket is one client's bucket and when it last asked.
type clientBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewClientLimiter returns a ClientLimiter for cfg, tracking no client yet.
func NewClientLimiter(cfg ClientLimitConfig) *ClientLimiter {
	if cfg.PerClient <= 0 {
		cfg.PerClient = DefaultClientRequests
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	return &ClientLimiter{
		perClient:  cfg.PerClient,
		window:     cfg.Window,
		maxClients: cfg.MaxClients,
		clients:    make(map[string]*clientBucket),
	}
}

// PerClient returns how many requests each client may make per window.
func (l *ClientLimiter) PerClient() int { return l.perClient }

// Window returns the period [ClientLimiter.PerClient] refers to.
func (l *ClientLimiter) Window() time.Duration { return l.window }

// Allow takes one request from client's bucket at time now, and returns
// nil if it had one. Otherwise it charges nothing and returns a
// *[RateLimitError] for the client (Client set, Scope the client) with the
// wait until the bucket holds a request again.
func (l *ClientLimiter) Allow(client string, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.clients[client]
	if b == nil {
		if len(l.clients) >= l.maxClients {
			l.evict(now)
		}
		b = &clientBucket{lim: bucket(l.perClient, l.window)}
		l.clients[client] = b
	}
	b.seen = now
	if w := wait(b.lim, 1, l.perClient, l.window, now); w > 0 {
		return &RateLimitError{RetryAfter: w, Scope: client, Client: true, Limit: l.perClient, Window: l.window}
	}
	b.lim.AllowN(now, 1)
	return nil
}

// evict forgets the clients idle for a whole window or longer, whose
// buckets are full again; if that frees no room, the one idle longest.
// l.mu must be held.
func (l *ClientLimiter) evict(now time.Time) {
	var oldest string
	var oldestSeen time.Time
	found := false
	for k, b := range l.clients {
		if now.Sub(b.seen) >= l.window {
			delete(l.clients, k)
			continue
		}
		if !found || b.seen.Before(oldestSeen) {
			oldest, oldestSeen, found = k, b.seen, true
		}
	}
	if len(l.clients) >= l.maxClients {
		delete(l.clients, oldest)
	}
}
