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
