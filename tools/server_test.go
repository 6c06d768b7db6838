package tools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestPanicBecomesToolError checks that a panicking handler yields an INTERNAL tool error, not a
// crash or a JSON-RPC error, so the server goes on serving.
func TestPanicBecomesToolError(t *testing.T) {
	s := New(Config{})
	h := s.adapt(ReaderName, func(context.Context, *call) (any, error) { panic("boom") })
	res, err := h(context.Background(), mcp.CallToolRequest{})
	if err != nil {
		t.Fatalf("err = %v, want a tool result", err)
	}
	var out map[string]any
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &out); err != nil {
		t.Fatal(err)
	}
	if !res.IsError || out["code"] != CodeInternal || out["success"] != false {
		t.Errorf("result = %v (isError %v)", out, res.IsError)
	}
}

func TestFailureCodes(t *testing.T) {
	tests := []struct {
		err  error
		code string
	}{
		{context.DeadlineExceeded, CodeTimeout},
		{errors.New("something odd"), CodeInternal},
		{newError(CodeNotAvailable, "x"), CodeNotAvailable},
	}
	for _, tt := range tests {
		if got := failure(tt.err, "a.md").Code; got != tt.code {
			t.Errorf("failure(%v) = %s, want %s", tt.err, got, tt.code)
		}
	}
}
