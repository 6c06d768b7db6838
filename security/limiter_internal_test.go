package security

import (
	"fmt"
	"testing"
	"time"
)

func TestLimiterMemoryBounded(t *testing.T) {
	// G38: callers inventing tool names cannot grow the limiter.
	l := NewLimiter(LimitConfig{MaxRequests: 1_000_000, Window: time.Second, PerTool: 2})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		if err := l.Allow(fmt.Sprintf("tool-%d", i), 1, now); err != nil && i < MaxTrackedTools {
			t.Fatalf("tracked tool %d refused: %v", i, err)
		}
	}
	if n := len(l.tools); n > MaxTrackedTools {
		t.Errorf("limiter tracks %d tools, want at most %d", n, MaxTrackedTools)
	}
	// Names beyond the bound share the overflow bucket (burst 2), so most
	// of them were refused, and with the tool's scope.
	err := l.Allow("tool-999", 1, now)
	rl, ok := err.(*RateLimitError)
	if !ok || rl.Scope != "tool-999" {
		t.Errorf("overflow tool: err = %v, want a *RateLimitError for tool-999", err)
	}
	// A tracked tool keeps its own bucket.
	if err := l.Allow("tool-0", 1, now); err != nil {
		t.Errorf("tracked tool-0 after overflow: %v", err)
	}
}

// TestClientLimiterMemoryBounded checks that clients arriving from ever new
// keys cannot grow the limiter, and which clients it forgets to make room.
func TestClientLimiterMemoryBounded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const maxClients = 100
	cfg := ClientLimitConfig{PerClient: 10, Window: time.Minute, MaxClients: maxClients}
	t.Run("bounded, idle longest first", func(t *testing.T) {
		l := NewClientLimiter(cfg)
		for i := range maxClients + 10 {
			l.Allow(fmt.Sprint(i), t0.Add(time.Duration(i)*time.Millisecond))
		}
		if n := len(l.clients); n > maxClients {
			t.Errorf("%d clients tracked, want at most %d", n, maxClients)
		}
		if l.clients["0"] != nil || l.clients[fmt.Sprint(maxClients+9)] == nil {
			t.Error("the clients evicted are not those idle longest")
		}
	})
	t.Run("idle a whole window go first", func(t *testing.T) {
		l := NewClientLimiter(cfg)
		l.Allow("idle", t0)
		later := t0.Add(cfg.Window)
		for i := range maxClients - 1 {
			l.Allow(fmt.Sprint(i), later)
		}
		l.Allow("new", later)
		if l.clients["idle"] != nil || len(l.clients) != maxClients {
			t.Errorf("idle client kept or active ones dropped: %d tracked", len(l.clients))
		}
	})
	t.Run("default bound", func(t *testing.T) {
		if got := NewClientLimiter(ClientLimitConfig{}).maxClients; got != DefaultMaxClients {
			t.Errorf("MaxClients 0 tracks up to %d clients, want %d", got, DefaultMaxClients)
		}
	})
}
