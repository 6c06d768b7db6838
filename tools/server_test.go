package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
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
	if err := json.Unmarshal(structured(t, res), &out); err != nil {
		t.Fatal(err)
	}
	if !res.IsError || out["code"] != errs.CodeInternal || out["success"] != false {
		t.Errorf("result = %v (isError %v)", out, res.IsError)
	}
}

// TestHungCallTimesOut injects a handler that never returns: the call ends with TIMEOUT at its
// deadline, and other calls are answered meanwhile.
func TestHungCallTimesOut(t *testing.T) {
	s := New(Config{Timeout: 50 * time.Millisecond})
	block := make(chan struct{})
	defer close(block)
	hung := s.adapt(ReaderName, func(ctx context.Context, c *call) (any, error) {
		<-block // a read that never returns, whatever its context says
		return nil, nil
	})
	quick := s.adapt(ReaderName, func(ctx context.Context, c *call) (any, error) {
		return result.Reader{Status: result.Status{Success: true}}, nil
	})
	errc := make(chan map[string]any, 1)
	go func() {
		res, _ := hung(context.Background(), mcp.CallToolRequest{})
		var out map[string]any
		json.Unmarshal(structured(t, res), &out)
		errc <- out
	}()
	if res, err := quick(context.Background(), mcp.CallToolRequest{}); err != nil || res.IsError {
		t.Fatalf("a quick call failed while another hung: %v %v", res, err)
	}
	select {
	case out := <-errc:
		if out["code"] != errs.CodeTimeout {
			t.Errorf("hung call = %v", out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hung call never answered")
	}
}

// TestRefusal checks that the stand-in for a tool not offered answers any call with a
// PERMISSION_DENIED error result, in the tool's result shape, carrying the reason it was given.
func TestRefusal(t *testing.T) {
	s := New(Config{})
	const why = "writing is off: restart the server with --allow-write"
	tests := []struct {
		name string
		ok   bool
	}{
		{ReaderName, true},
		{SearcherName, true},
		{WriterName, true},
		{"read_file", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, ok := s.Refusal(tt.name, why)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if tool.Tool.Name != tt.name || len(tool.Tool.RawInputSchema) == 0 {
				t.Errorf("definition = %+v, want the tool's own", tool.Tool)
			}
			req := mcp.CallToolRequest{}
			req.Params.Name = tt.name
			req.Params.Arguments = map[string]any{"purpose": "create", "target": map[string]any{"path": "a.md"}}
			res, err := tool.Handler(context.Background(), req)
			if err != nil {
				t.Fatalf("err = %v, want a tool result", err)
			}
			var out map[string]any
			if err := json.Unmarshal(structured(t, res), &out); err != nil {
				t.Fatal(err)
			}
			if !res.IsError || out["success"] != false || out["code"] != errs.CodePermissionDenied || out["error"] != why {
				t.Errorf("result = %v (isError %v)", out, res.IsError)
			}
		})
	}
}

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// structured returns a tool result's structured content as a client receives it.
func structured(t testing.TB, res *mcp.CallToolResult) []byte {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShapeSameJSON checks that a result goes out as structured content and the same JSON as
// text, for a success and for an error, and that the text writes <, > and & as themselves: a
// model reads the text, and "\u003c" costs it six bytes for one.
func TestShapeSameJSON(t *testing.T) {
	content := "line one\nline \"two\" <b>&</b>\n"
	for _, tt := range []struct {
		name  string
		out   any
		isErr bool
	}{
		{"read", result.Reader{Status: result.Status{Success: true}, FileContent: result.FileContent{Content: &content, Encoding: "utf-8", TotalLines: ptr(2)}}, false},
		{"error", errorResult(ReaderName, result.Status{Code: errs.CodeNotFound, Error: "\"a.md\" does not exist"}, result.Meta{}), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wire, err := json.Marshal(shape(tt.out, tt.isErr))
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Content           []struct{ Text string }
				StructuredContent json.RawMessage
				IsError           bool
			}
			if err := json.Unmarshal(wire, &got); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(tt.out)
			if len(got.Content) != 1 || !sameJSON(got.Content[0].Text, string(want)) || !sameJSON(string(got.StructuredContent), string(want)) || got.IsError != tt.isErr {
				t.Errorf("result %s, want the text and the structured content both %s (isError %v)", wire, want, tt.isErr)
			}
			if len(got.Content) == 1 && strings.Contains(got.Content[0].Text, `\u00`) {
				t.Errorf("text %s escapes characters a model reads as themselves", got.Content[0].Text)
			}
		})
	}
}
