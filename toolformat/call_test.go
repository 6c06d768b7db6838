package toolformat_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/toolformat"
)

// args are the arguments every call of TestParseCall carries, with a quote that must survive being
// held in a string.
const args = `{"purpose": "search_content", "target": {"path": "notes", "query": "a \"quoted\" word"}}`

// quoted is args as a JSON string, as OpenAI sends arguments.
var quoted = func() string {
	b, _ := json.Marshal(args)
	return string(b)
}()

// TestParseCall checks that the same call in every shape maps to the same tool and arguments, with
// its shape, its id kept byte for byte as it came and MCP's _meta passed on.
func TestParseCall(t *testing.T) {
	tests := []struct {
		name, in string
		want     toolformat.Call
	}{
		{name: "mcp", in: `{"name": "searcher", "arguments": ` + args + `}`,
			want: toolformat.Call{Shape: toolformat.ShapeMCP}},
		{name: "mcp string arguments", in: `{"name": "searcher", "arguments": ` + quoted + `}`,
			want: toolformat.Call{Shape: toolformat.ShapeMCP}},
		{name: "mcp meta", in: `{"name": "searcher", "arguments": ` + args + `, "_meta": {"progressToken": 7}}`,
			want: toolformat.Call{Shape: toolformat.ShapeMCP, Meta: json.RawMessage(`{"progressToken": 7}`)}},
		{name: "jsonrpc", in: `{"jsonrpc": "2.0", "id": "r1", "method": "tools/call", "params": {"name": "searcher", "arguments": ` + args + `}}`,
			want: toolformat.Call{Shape: toolformat.ShapeJSONRPC, ID: json.RawMessage(`"r1"`)}},
		{name: "jsonrpc number id", in: `{"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "searcher", "arguments": ` + args + `, "_meta": {"k": 1}}}`,
			want: toolformat.Call{Shape: toolformat.ShapeJSONRPC, ID: json.RawMessage(`42`), Meta: json.RawMessage(`{"k": 1}`)}},
		{name: "openai", in: `{"id": "call_1", "type": "function", "function": {"name": "searcher", "arguments": ` + quoted + `}}`,
			want: toolformat.Call{Shape: toolformat.ShapeOpenAI, ID: json.RawMessage(`"call_1"`)}},
		{name: "openai object arguments", in: `{"id": "call_1", "type": "function", "function": {"name": "searcher", "arguments": ` + args + `}}`,
			want: toolformat.Call{Shape: toolformat.ShapeOpenAI, ID: json.RawMessage(`"call_1"`)}},
		{name: "openai without type", in: `{"id": "call_1", "function": {"name": "searcher", "arguments": ` + quoted + `}}`,
			want: toolformat.Call{Shape: toolformat.ShapeOpenAI, ID: json.RawMessage(`"call_1"`)}},
		{name: "openai without id", in: `{"type": "function", "function": {"name": "searcher", "arguments": ` + quoted + `}}`,
			want: toolformat.Call{Shape: toolformat.ShapeOpenAI}},
		{name: "responses", in: `{"type": "function_call", "id": "fc_item", "call_id": "call_2", "name": "searcher", "arguments": ` + quoted + `, "status": "completed"}`,
			want: toolformat.Call{Shape: toolformat.ShapeResponses, ID: json.RawMessage(`"call_2"`)}},
		{name: "anthropic", in: `{"type": "tool_use", "id": "toolu_1", "name": "searcher", "input": ` + args + `}`,
			want: toolformat.Call{Shape: toolformat.ShapeAnthropic, ID: json.RawMessage(`"toolu_1"`)}},
		{name: "anthropic string input", in: `{"type": "tool_use", "id": "toolu_1", "name": "searcher", "input": ` + quoted + `}`,
			want: toolformat.Call{Shape: toolformat.ShapeAnthropic, ID: json.RawMessage(`"toolu_1"`)}},
		{name: "white space around", in: "\n\t " + `{"name": "searcher", "arguments": ` + args + `}` + " \n",
			want: toolformat.Call{Shape: toolformat.ShapeMCP}},
	}
	var wantArgs any
	if err := json.Unmarshal([]byte(args), &wantArgs); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := toolformat.ParseCall("input", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var gotArgs any
			if err := json.Unmarshal(c.Arguments, &gotArgs); err != nil {
				t.Fatalf("arguments %s: %v", c.Arguments, err)
			}
			if d := cmp.Diff(wantArgs, gotArgs); d != "" {
				t.Errorf("arguments (-want +got):\n%s", d)
			}
			got := *c
			got.Arguments = nil
			tt.want.Name = "searcher"
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("call (-want +got):\n%s", d)
			}
		})
	}
}

// TestParseCallNoArguments checks that absent, null and empty arguments all mean {}.
func TestParseCallNoArguments(t *testing.T) {
	for _, in := range []string{
		`{"name": "t"}`,
		`{"name": "t", "arguments": null}`,
		`{"name": "t", "arguments": ""}`,
		`{"name": "t", "arguments": "  "}`,
		`{"type": "function", "function": {"name": "t", "arguments": ""}}`,
		`{"type": "tool_use", "id": "x", "name": "t", "input": null}`,
	} {
		c, err := toolformat.ParseCall("input", []byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if string(c.Arguments) != "{}" {
			t.Errorf("%s: arguments %s, want {}", in, c.Arguments)
		}
	}
}

// TestParseCallErrors checks that each malformed call is refused with the sentinel of its kind and
// a message that names the field at fault in the input's own words.
func TestParseCallErrors(t *testing.T) {
	const readArgs = `{"purpose": "read", "target": {"path": "notes/a.md"}}`
	tests := []struct {
		name, in string
		kind     error
		msgHas   string
	}{
		{name: "empty", in: " \n", kind: toolformat.ErrNoCall, msgHas: "no tool call: stdin was empty"},
		{name: "not JSON", in: "read notes/a.md", kind: toolformat.ErrNotJSON, msgHas: "stdin is not JSON"},
		{name: "truncated", in: `{"name": "reader", "arguments": {`, kind: toolformat.ErrNotJSON, msgHas: "stdin is not JSON"},
		{name: "two objects", in: `{"name": "reader"} {"name": "reader"}`, kind: toolformat.ErrNotOneCall, msgHas: "stdin holds more than one JSON value"},
		{name: "trailing text", in: `{"name": "reader"} and more`, kind: toolformat.ErrNotOneCall, msgHas: "more than one JSON value, or text after the call"},
		{name: "array", in: `[{"name": "reader"}]`, kind: toolformat.ErrNotOneCall, msgHas: "stdin holds a JSON array: pass one tool call object, not a list"},
		{name: "string", in: `"reader"`, kind: toolformat.ErrInvalidCall, msgHas: "stdin is a JSON string, not an object"},
		{name: "number", in: `7`, kind: toolformat.ErrInvalidCall, msgHas: "stdin is a JSON number, not an object"},
		{name: "no name", in: `{"arguments": ` + readArgs + `}`, kind: toolformat.ErrInvalidCall, msgHas: "no tool name: name is missing"},
		{name: "empty name", in: `{"name": "", "arguments": ` + readArgs + `}`, kind: toolformat.ErrInvalidCall, msgHas: "no tool name: name is missing or empty"},
		{name: "no name openai", in: `{"id": "c", "type": "function", "function": {"arguments": "{}"}}`, kind: toolformat.ErrInvalidCall, msgHas: "function.name is missing"},
		{name: "no name jsonrpc", in: `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}`, kind: toolformat.ErrInvalidCall, msgHas: "params.name is missing"},
		{name: "name not a string", in: `{"name": 7}`, kind: toolformat.ErrInvalidCall, msgHas: "name is a JSON number, not a string"},
		{name: "type not a string", in: `{"type": true, "name": "reader"}`, kind: toolformat.ErrInvalidCall, msgHas: "type is a JSON boolean, not a string"},
		{name: "arguments array", in: `{"name": "reader", "arguments": [1]}`, kind: toolformat.ErrInvalidCall, msgHas: "arguments is a JSON array, not an object"},
		{name: "arguments number", in: `{"type": "tool_use", "id": "t", "name": "reader", "input": 3}`, kind: toolformat.ErrInvalidCall, msgHas: "input is a JSON number, not an object"},
		{name: "arguments string not JSON", in: `{"id": "c", "type": "function", "function": {"name": "reader", "arguments": "{purpose: read}"}}`, kind: toolformat.ErrInvalidCall, msgHas: "function.arguments is a string but does not hold JSON"},
		{name: "arguments string array", in: `{"type": "function_call", "call_id": "c", "name": "reader", "arguments": "[]"}`, kind: toolformat.ErrInvalidCall, msgHas: "arguments holds a JSON array, not an object"},
		{name: "arguments string of an object not closed", in: `{"type": "function_call", "call_id": "c", "name": "reader", "arguments": "{\"a\": 1"}`, kind: toolformat.ErrInvalidCall, msgHas: "arguments is a string but does not hold JSON"},
		{name: "function not an object", in: `{"type": "function", "function": "reader"}`, kind: toolformat.ErrInvalidCall, msgHas: "function is a JSON string, not an object"},
		{name: "tool definition", in: `{"type": "function", "name": "reader", "parameters": {}}`, kind: toolformat.ErrInvalidCall, msgHas: "tool definition rather than a call"},
		{name: "unknown type", in: `{"type": "tool_result", "tool_use_id": "t", "content": "x"}`, kind: toolformat.ErrInvalidCall, msgHas: `unknown call type "tool_result"`},
		{name: "id not a string", in: `{"type": "tool_use", "id": 5, "name": "reader", "input": {}}`, kind: toolformat.ErrInvalidCall, msgHas: "id is a JSON number, not a string"},
		{name: "call_id not a string", in: `{"type": "function_call", "call_id": {}, "name": "reader"}`, kind: toolformat.ErrInvalidCall, msgHas: "call_id is a JSON object, not a string"},
		{name: "jsonrpc other method", in: `{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}`, kind: toolformat.ErrNotToolCall, msgHas: `JSON-RPC method "tools/list" is not a tool call`},
		{name: "jsonrpc method alone", in: `{"method": "tools/call", "id": 1, "params": {"name": "reader"}}`, kind: toolformat.ErrInvalidCall, msgHas: `"jsonrpc": "2.0"`},
		{name: "jsonrpc no id", in: `{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "reader"}}`, kind: toolformat.ErrInvalidCall, msgHas: `needs an "id"`},
		{name: "jsonrpc null id", in: `{"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": {"name": "reader"}}`, kind: toolformat.ErrInvalidCall, msgHas: `needs an "id"`},
		{name: "jsonrpc object id", in: `{"jsonrpc": "2.0", "id": {}, "method": "tools/call", "params": {"name": "reader"}}`, kind: toolformat.ErrInvalidCall, msgHas: `needs an "id"`},
		{name: "jsonrpc no params", in: `{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}`, kind: toolformat.ErrInvalidCall, msgHas: `needs "params"`},
		{name: "jsonrpc params array", in: `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": []}`, kind: toolformat.ErrInvalidCall, msgHas: "params is a JSON array, not an object"},
		{name: "jsonrpc wrong version", in: `{"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "reader"}}`, kind: toolformat.ErrInvalidCall, msgHas: `"jsonrpc": "2.0"`},
	}
	kinds := []error{toolformat.ErrNoCall, toolformat.ErrNotJSON, toolformat.ErrNotOneCall, toolformat.ErrNotToolCall, toolformat.ErrInvalidCall}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := toolformat.ParseCall("stdin", []byte(tt.in))
			if err == nil {
				t.Fatalf("ParseCall = %+v, want an error", c)
			}
			for _, kind := range kinds {
				if errors.Is(err, kind) != (kind == tt.kind) {
					t.Errorf("errors.Is(%v, %v) = %v", err, kind, !(kind == tt.kind))
				}
			}
			if !strings.Contains(err.Error(), tt.msgHas) {
				t.Errorf("error %q lacks %q", err, tt.msgHas)
			}
		})
	}
}

// TestAnswer checks that a result goes back in the shape its call came in, with the call's id as
// it came: a number stays a number.
func TestAnswer(t *testing.T) {
	ok := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(`{"success":true}`)}, StructuredContent: map[string]any{"success": true}}
	failed := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(`{"success":false,"code":"NOT_FOUND"}`)}, IsError: true}
	picture := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(`{"success":true}`), mcp.NewImageContent("iVBORw0KGgo=", "image/png")}}
	tests := []struct {
		name string
		in   string
		res  *mcp.CallToolResult
		want string
	}{
		{name: "mcp", in: `{"name": "t"}`, res: ok,
			want: `{"content": [{"type": "text", "text": "{\"success\":true}"}], "structuredContent": {"success": true}}`},
		{name: "jsonrpc", in: `{"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "t"}}`, res: failed,
			want: `{"jsonrpc": "2.0", "id": 42, "result": {"content": [{"type": "text", "text": "{\"success\":false,\"code\":\"NOT_FOUND\"}"}], "isError": true}}`},
		{name: "openai", in: `{"id": "call_1", "type": "function", "function": {"name": "t"}}`, res: ok,
			want: `{"role": "tool", "tool_call_id": "call_1", "content": "{\"success\":true}"}`},
		{name: "openai without id", in: `{"type": "function", "function": {"name": "t"}}`, res: ok,
			want: `{"role": "tool", "tool_call_id": "", "content": "{\"success\":true}"}`},
		{name: "responses", in: `{"type": "function_call", "call_id": "call_2", "name": "t"}`, res: failed,
			want: `{"type": "function_call_output", "call_id": "call_2", "output": "{\"success\":false,\"code\":\"NOT_FOUND\"}"}`},
		{name: "anthropic", in: `{"type": "tool_use", "id": "toolu_1", "name": "t", "input": {}}`, res: failed,
			want: `{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "{\"success\":false,\"code\":\"NOT_FOUND\"}"}], "is_error": true}`},
		{name: "anthropic with an image", in: `{"type": "tool_use", "id": "toolu_2", "name": "t", "input": {}}`, res: picture,
			want: `{"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "{\"success\":true}"},
				{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}], "is_error": false}`},
		{name: "openai with an image says it left it out", in: `{"id": "call_3", "type": "function", "function": {"name": "t"}}`, res: picture,
			want: `{"role": "tool", "tool_call_id": "call_3", "content": "{\"success\":true}\n[1 image(s) not shown: this tool result's shape carries text only; the MCP and Anthropic shapes carry images]"}`},
		{name: "responses with an image says it left it out", in: `{"type": "function_call", "call_id": "call_4", "name": "t"}`, res: picture,
			want: `{"type": "function_call_output", "call_id": "call_4", "output": "{\"success\":true}\n[1 image(s) not shown: this tool result's shape carries text only; the MCP and Anthropic shapes carry images]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := toolformat.ParseCall("input", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := diffJSON(t, tt.want, c.Answer(tt.res)); d != "" {
				t.Errorf("answer (-want +got):\n%s", d)
			}
		})
	}
}

// TestRequest checks that a call becomes the MCP request a server would have decoded: the name,
// the arguments and _meta.
func TestRequest(t *testing.T) {
	c, err := toolformat.ParseCall("input", []byte(`{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": {"name": "reader", "arguments": "{\"purpose\": \"read\", \"limit\": 5}", "_meta": {"progressToken": "p1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req, err := c.Request()
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "tools/call" || req.Params.Name != "reader" {
		t.Errorf("method %q, name %q", req.Method, req.Params.Name)
	}
	if d := cmp.Diff(map[string]any{"purpose": "read", "limit": float64(5)}, req.GetArguments()); d != "" {
		t.Errorf("arguments (-want +got):\n%s", d)
	}
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken != "p1" {
		t.Errorf("_meta = %+v, want the progress token p1", req.Params.Meta)
	}
}

func TestResultText(t *testing.T) {
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{name: "one block", res: mcp.NewToolResultText("a"), want: "a"},
		{name: "two blocks", res: &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}}, want: "a\nb"},
		{name: "an image left out", res: &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent("AAAA", "image/png"), mcp.NewTextContent("b")}}, want: "b"},
		{name: "none", res: &mcp.CallToolResult{}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := toolformat.ResultText(tt.res); got != tt.want {
				t.Errorf("ResultText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestShapeString(t *testing.T) {
	want := map[toolformat.Shape]string{
		toolformat.ShapeMCP: "MCP", toolformat.ShapeJSONRPC: "JSON-RPC", toolformat.ShapeOpenAI: "OpenAI",
		toolformat.ShapeResponses: "OpenAI Responses", toolformat.ShapeAnthropic: "Anthropic", toolformat.Shape(9): "Shape(9)",
	}
	for s, w := range want {
		if got := s.String(); got != w {
			t.Errorf("Shape(%d).String() = %q, want %q", int(s), got, w)
		}
	}
}
