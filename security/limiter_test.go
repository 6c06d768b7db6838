package security_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/security"
)

// t0 is a fixed clock start; tests pass explicit times and never sleep.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// refused asserts err is a *RateLimitError for scope and returns it.
func refused(t *testing.T, err error, scope string) *security.RateLimitError {
	t.Helper()
	if !errors.Is(err, security.ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
	var rl *security.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("err = %T, want *security.RateLimitError", err)
	}
	if rl.Scope != scope {
		t.Errorf("Scope = %q, want %q", rl.Scope, scope)
	}
	return rl
}

// within asserts got is within tolerance of want.
func within(t *testing.T, got, want, tolerance time.Duration) {
	t.Helper()
	if d := got - want; d < -tolerance || d > tolerance {
		t.Errorf("RetryAfter = %v, want %v ± %v", got, want, tolerance)
	}
}

func TestLimiterBurstAndRetry(t *testing.T) {
	// PerTool equals MaxRequests, so only the overall bucket is in play.
	l := security.NewLimiter(security.LimitConfig{MaxRequests: 10, Window: time.Second, PerTool: 10})
	for i := range 10 {
		if err := l.Allow("reader", 1, t0); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	rl := refused(t, l.Allow("reader", 1, t0), "overall")
	within(t, rl.RetryAfter, 100*time.Millisecond, time.Millisecond)
	if !strings.Contains(rl.Error(), "retry in 100 ms") {
		t.Errorf("message %q does not say when to retry", rl)
	}

	// Half the wait is not enough; the rest of it is.
	rl = refused(t, l.Allow("reader", 1, t0.Add(50*time.Millisecond)), "overall")
	within(t, rl.RetryAfter, 50*time.Millisecond, time.Millisecond)
	if err := l.Allow("reader", 1, t0.Add(100*time.Millisecond)); err != nil {
		t.Errorf("after the wait: %v", err)
	}
	// A full window later the bucket is full again, and no fuller.
	later := t0.Add(time.Hour)
	for i := range 10 {
		if err := l.Allow("reader", 1, later); err != nil {
			t.Fatalf("refilled call %d: %v", i+1, err)
		}
	}
	refused(t, l.Allow("reader", 1, later), "overall")
}

func TestLimiterRetryIsExactAndRoundedUp(t *testing.T) {
	tests := []struct {
		name string
		cfg  security.LimitConfig
		cost int
		want time.Duration
	}{
		// 3000 a minute: one token every 20 ms.
		{name: "default one", cfg: security.LimitConfig{PerTool: security.DefaultMaxRequests}, cost: 1, want: 20 * time.Millisecond},
		{name: "default heavy", cfg: security.LimitConfig{PerTool: security.DefaultMaxRequests}, cost: 5, want: 100 * time.Millisecond},
		// 3 a second: one token every 333.33 ms, rounded up.
		{name: "rounded up", cfg: security.LimitConfig{MaxRequests: 3, Window: time.Second, PerTool: 3}, cost: 1, want: 334 * time.Millisecond},
		// 1000 a millisecond: 1 µs, reported as the 1 ms minimum.
		{name: "at least 1 ms", cfg: security.LimitConfig{MaxRequests: 1000, Window: time.Millisecond, PerTool: 1000}, cost: 1, want: time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := security.NewLimiter(tt.cfg)
			n := tt.cfg.MaxRequests
			if n == 0 {
				n = security.DefaultMaxRequests
			}
			for i := range n {
				if err := l.Allow("a", 1, t0); err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
			}
			rl := refused(t, l.Allow("b", tt.cost, t0), "overall")
			if rl.RetryAfter != tt.want {
				t.Errorf("RetryAfter = %v, want %v", rl.RetryAfter, tt.want)
			}
		})
	}
}

func TestLimiterPerTool(t *testing.T) {
	// 10 overall per second, 4 per tool.
	l := security.NewLimiter(security.LimitConfig{MaxRequests: 10, Window: time.Second, PerTool: 4})
	for i := range 4 {
		if err := l.Allow("reader", 1, t0); err != nil {
			t.Fatalf("reader call %d: %v", i+1, err)
		}
	}
	rl := refused(t, l.Allow("reader", 1, t0), "reader")
	within(t, rl.RetryAfter, 250*time.Millisecond, time.Millisecond)
	if !strings.Contains(rl.Error(), `"reader"`) {
		t.Errorf("message %q does not name the tool", rl)
	}

	// Another tool has its own tokens: the refused call charged nothing to
	// the shared bucket, so 4 + 4 = 8 of 10 are used after this.
	for i := range 4 {
		if err := l.Allow("searcher", 1, t0); err != nil {
			t.Fatalf("searcher call %d: %v", i+1, err)
		}
	}
	// The overall limit is shared: writer gets the last 2, then is refused
	// with the overall scope although its own bucket has tokens.
	for i := range 2 {
		if err := l.Allow("writer", 1, t0); err != nil {
			t.Fatalf("writer call %d: %v", i+1, err)
		}
	}
	rl = refused(t, l.Allow("writer", 1, t0), "overall")
	within(t, rl.RetryAfter, 100*time.Millisecond, time.Millisecond)
}

func TestLimiterRefusalChargesNothing(t *testing.T) {
	l := security.NewLimiter(security.LimitConfig{MaxRequests: 10, Window: time.Second, PerTool: 5})
	// Tool a uses 4 of its 5; a cost-3 call would exceed a's bucket.
	if err := l.Allow("a", 4, t0); err != nil {
		t.Fatal(err)
	}
	refused(t, l.Allow("a", 3, t0), "a")
	// Had the refusal charged the overall bucket (3), b's 5 + 1 more for a
	// would not fit in the 6 left.
	if err := l.Allow("b", 5, t0); err != nil {
		t.Fatalf("b after a's refusal: %v", err)
	}
	if err := l.Allow("a", 1, t0); err != nil {
		t.Fatalf("a's own last token after its refusal: %v", err)
	}
	// Overall is now empty: refused for the overall scope, and a's empty
	// bucket is not charged either (nor does it go negative).
	refused(t, l.Allow("c", 1, t0), "overall")
	if err := l.Allow("c", 1, t0.Add(100*time.Millisecond)); err != nil {
		t.Fatalf("c after refill: %v", err)
	}
}

func TestLimiterCostClamping(t *testing.T) {
	tests := []struct {
		name string
		cost int
		want int // calls allowed at one instant
	}{
		{name: "zero counts as one", cost: 0, want: 4},
		{name: "negative counts as one", cost: -7, want: 4},
		{name: "two", cost: 2, want: 2},
		{name: "above burst clamped", cost: 1000, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := security.NewLimiter(security.LimitConfig{MaxRequests: 4, Window: time.Second, PerTool: 4})
			n := 0
			for l.Allow("x", tt.cost, t0) == nil {
				n++
				if n > 100 {
					t.Fatal("limiter never refused")
				}
			}
			if n != tt.want {
				t.Errorf("allowed %d calls, want %d", n, tt.want)
			}
		})
	}
}

func TestLimiterDefaults(t *testing.T) {
	l := security.NewLimiter(security.LimitConfig{})
	// Per tool defaults to half of 3000.
	for i := range security.DefaultMaxRequests / 2 {
		if err := l.Allow("reader", 1, t0); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	rl := refused(t, l.Allow("reader", 1, t0), "reader")
	if rl.Limit != security.DefaultMaxRequests/2 || rl.Window != security.DefaultWindow {
		t.Errorf("limit = %d per %v, want %d per %v", rl.Limit, rl.Window, security.DefaultMaxRequests/2, security.DefaultWindow)
	}

	// MaxRequests 1 still gives each tool at least 1.
	one := security.NewLimiter(security.LimitConfig{MaxRequests: 1, Window: time.Second})
	if err := one.Allow("reader", 1, t0); err != nil {
		t.Fatalf("MaxRequests 1: %v", err)
	}
}

func TestRateLimitErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *security.RateLimitError
		want string
	}{
		{name: "overall",
			err:  &security.RateLimitError{RetryAfter: 120 * time.Millisecond, Scope: "overall", Limit: 3000, Window: time.Minute},
			want: "rate limit exceeded: 3000 requests per 1m0s; retry in 120 ms"},
		{name: "tool",
			err:  &security.RateLimitError{RetryAfter: 2 * time.Second, Scope: "searcher", Limit: 1500, Window: time.Minute},
			want: `rate limit exceeded for tool "searcher": 1500 requests per 1m0s; retry in 2000 ms`},
		{name: "bare",
			err:  &security.RateLimitError{RetryAfter: 5 * time.Millisecond},
			want: "rate limit exceeded; retry in 5 ms"},
		{name: "client",
			err:  &security.RateLimitError{RetryAfter: 1500 * time.Millisecond, Scope: "addr 192.0.2.1", Client: true, Limit: 600, Window: time.Minute},
			want: `rate limit exceeded for client "addr 192.0.2.1": 600 requests per 1m0s; retry in 1500 ms`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if !errors.Is(tt.err, security.ErrRateLimited) {
				t.Error("does not wrap ErrRateLimited")
			}
		})
	}
}

func TestLimiterConcurrent(t *testing.T) {
	// 8 goroutines race for 400 overall tokens at one instant; exactly 400
	// calls may pass, whatever the interleaving. Run with -race.
	const goroutines, calls, budget = 8, 100, 400
	l := security.NewLimiter(security.LimitConfig{MaxRequests: budget, Window: time.Minute, PerTool: budget})
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tool := []string{"reader", "searcher", "writer"}[g%3]
			for range calls {
				err := l.Allow(tool, 1, t0)
				if err == nil {
					mu.Lock()
					allowed++
					mu.Unlock()
				} else if !errors.Is(err, security.ErrRateLimited) {
					t.Errorf("unexpected error: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if allowed != budget {
		t.Errorf("allowed %d calls, want exactly %d", allowed, budget)
	}
}

func TestClientLimiter(t *testing.T) {
	// Two a minute: one every 30 seconds, a burst of 2.
	l := security.NewClientLimiter(security.ClientLimitConfig{PerClient: 2, Window: time.Minute})
	steps := []struct {
		name   string
		client string
		at     time.Duration
		wait   time.Duration // 0 for allowed
	}{
		{name: "first of the burst", client: "a", wait: 0},
		{name: "second of the burst", client: "a", wait: 0},
		{name: "over the burst", client: "a", wait: 30 * time.Second},
		{name: "refused again, nothing charged", client: "a", at: 10 * time.Second, wait: 20 * time.Second},
		{name: "another client has its own budget", client: "b", wait: 0},
		{name: "after the wait", client: "a", at: 30 * time.Second, wait: 0},
		{name: "the next one waits again", client: "a", at: 30 * time.Second, wait: 30 * time.Second},
	}
	for _, s := range steps {
		err := l.Allow(s.client, t0.Add(s.at))
		if s.wait == 0 {
			if err != nil {
				t.Fatalf("%s: %v, want allowed", s.name, err)
			}
			continue
		}
		rl := refused(t, err, s.client)
		if !rl.Client || rl.Limit != 2 || rl.Window != time.Minute {
			t.Errorf("%s: %+v, want the client's limit of 2 per minute", s.name, rl)
		}
		within(t, rl.RetryAfter, s.wait, time.Millisecond)
	}
}

func TestClientLimiterDefaults(t *testing.T) {
	l := security.NewClientLimiter(security.ClientLimitConfig{})
	if l.PerClient() != security.DefaultClientRequests || l.Window() != security.DefaultWindow {
		t.Errorf("defaults %d per %v, want %d per %v", l.PerClient(), l.Window(), security.DefaultClientRequests, security.DefaultWindow)
	}
	for i := range security.DefaultClientRequests {
		if err := l.Allow("a", t0); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	refused(t, l.Allow("a", t0), "a")
}

func TestClientLimiterConcurrent(t *testing.T) {
	// 8 goroutines race for one client's 50 tokens at one instant; exactly
	// 50 calls may pass, whatever the interleaving. Run with -race.
	const goroutines, calls, budget = 8, 20, 50
	l := security.NewClientLimiter(security.ClientLimitConfig{PerClient: budget, Window: time.Minute})
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				if l.Allow("a", t0) == nil {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != budget {
		t.Errorf("allowed %d calls, want exactly %d", allowed, budget)
	}
}
