package toolformat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// The sentinels that every error of [ParseCall] wraps, one per kind of mistake.
var (
	// ErrNoCall reports an input holding nothing but white space.
	ErrNoCall = errors.New("no tool call")
	// ErrNotJSON reports an input that does not parse as JSON.
	ErrNotJSON = errors.New("not JSON")
	// ErrNotOneCall reports an input holding more than one call: several JSON values, text after
	// the call, or a JSON array.
	ErrNotOneCall = errors.New("not one tool call")
	// ErrNotToolCall reports a JSON-RPC request for a method other than tools/call.
	ErrNotToolCall = errors.New("not a tool call")
	// ErrInvalidCall reports a call in none of the shapes, or with a field of the wrong type, or
	// missing: the message names the field.
	ErrInvalidCall = errors.New("invalid tool call")
)

// callError is an error of [ParseCall]: its message, and the sentinel it wraps.
type callError struct {
	kind error
	msg  string
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.kind }

// fail returns a callError of kind with a formatted message.
func fail(kind error, format string, args ...any) error {
	return &callError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Shape is the shape a tool call came in, and so the shape its answer goes back in.
type Shape int

// The shapes [ParseCall] reads.
const (
	// ShapeMCP is MCP's tools/call params: {"name", "arguments", "_meta"}.
	ShapeMCP Shape = iota
	// ShapeJSONRPC is a whole JSON-RPC tools/call request: {"jsonrpc": "2.0", "id", "method":
	// "tools/call", "params"}.
	ShapeJSONRPC
	// ShapeOpenAI is an OpenAI Chat Completions tool call: {"id", "type": "function", "function":
	// {"name", "arguments"}}.
	ShapeOpenAI
	// ShapeResponses is an OpenAI Responses API function_call item: {"type": "function_call",
	// "call_id", "name", "arguments"}.
	ShapeResponses
	// ShapeAnthropic is an Anthropic Messages API tool_use block: {"type": "tool_use", "id", "name",
	// "input"}.
	ShapeAnthropic
)

// String names the shape as its vendor does.
func (s Shape) String() string {
	switch s {
	case ShapeMCP:
		return "MCP"
	case ShapeJSONRPC:
		return "JSON-RPC"
	case ShapeOpenAI:
		return "OpenAI"
	case ShapeResponses:
		return "OpenAI Responses"
	case ShapeAnthropic:
		return "Anthropic"
	}
	return fmt.Sprintf("Shape(%d)", int(s))
}

// Call is one tool call read by [ParseCall], whatever its shape.
type Call struct {
	// Shape is the shape the call came in.
	Shape Shape
	// ID is the call's id as it came, raw JSON, so that it goes back byte for byte: a string, or
	// for [ShapeJSONRPC] a string or a number. It is nil when the call had none (MCP's params carry
	// none; the vendors' ids may be left out).
	ID json.RawMessage
	// Name is the tool's name, never empty.
	Name string
	// Arguments are the tool's arguments, always a JSON object: {} when the call had none, and
	// the object itself when the call held it in a string (as OpenAI sends arguments).
	Arguments json.RawMessage
	// Meta is MCP's _meta of a [ShapeMCP] or [ShapeJSONRPC] call, passed on as a server would;
	// nil when absent.
	Meta json.RawMessage
}

// ParseCall reads one tool call, a JSON object in any of the shapes of [Shape], telling the shape
// by its fields; arguments may be an object or a string holding one. name names the input in
// errors, such as "stdin". The errors say what is wrong in the input's own field names, and each
// wraps one of [ErrNoCall], [ErrNotJSON], [ErrNotOneCall], [ErrNotToolCall] or [ErrInvalidCall].
func ParseCall(name string, data []byte) (*Call, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fail(ErrNoCall, "no tool call: %s was empty", name)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var top json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, fail(ErrNotJSON, "%s is not JSON: %v", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(ErrNotOneCall, "%s holds more than one JSON value, or text after the call: pass exactly one tool call", name)
	}
	if top[0] == '[' {
		return nil, fail(ErrNotOneCall, "%s holds a JSON array: pass one tool call object, not a list", name)
	}
	m, err := object(top, name)
	if err != nil {
		return nil, err
	}
	c := &Call{}
	if err := c.fromObject(m); err != nil {
		return nil, err
	}
	return c, nil
}

// fromObject reads a call from its top-level object, telling the shape by its fields.
func (c *Call) fromObject(m map[string]json.RawMessage) error {
	_, rpc := m["jsonrpc"]
	_, method := m["method"]
	if rpc || method {
		return c.fromJSONRPC(m)
	}
	typ, err := optString(m, "type", "type")
	if err != nil {
		return err
	}
	switch {
	case typ == "function" || typ == "" && m["function"] != nil:
		c.Shape = ShapeOpenAI
		if m["function"] == nil {
			return fail(ErrInvalidCall, `an OpenAI tool call of type "function" needs a "function" object with its name and arguments (is this a tool definition rather than a call?)`)
		}
		fn, err := object(m["function"], "function")
		if err != nil {
			return err
		}
		if c.ID, err = optID(m, "id"); err != nil {
			return err
		}
		return c.fromFields(fn, "function.name", "arguments", "function.arguments")
	case typ == "function_call":
		c.Shape = ShapeResponses
		if c.ID, err = optID(m, "call_id"); err != nil {
			return err
		}
		return c.fromFields(m, "name", "arguments", "arguments")
	case typ == "tool_use":
		c.Shape = ShapeAnthropic
		if c.ID, err = optID(m, "id"); err != nil {
			return err
		}
		return c.fromFields(m, "name", "input", "input")
	case typ == "":
		c.Shape = ShapeMCP
		c.Meta = m["_meta"]
		return c.fromFields(m, "name", "arguments", "arguments")
	}
	return fail(ErrInvalidCall, `unknown call type %q: expected "function" (OpenAI), "function_call" (OpenAI Responses), "tool_use" (Anthropic), or no type (MCP)`, typ)
}

// fromJSONRPC reads a JSON-RPC tools/call request.
func (c *Call) fromJSONRPC(m map[string]json.RawMessage) error {
	c.Shape = ShapeJSONRPC
	if v, err := optString(m, "jsonrpc", "jsonrpc"); err != nil || v != "2.0" {
		return fail(ErrInvalidCall, `a JSON-RPC request needs "jsonrpc": "2.0"`)
	}
	method, err := optString(m, "method", "method")
	if err != nil {
		return err
	}
	if method != string(mcp.MethodToolsCall) {
		return fail(ErrNotToolCall, "JSON-RPC method %q is not a tool call", method)
	}
	id := bytes.TrimSpace(m["id"])
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		return fail(ErrInvalidCall, `a JSON-RPC tools/call request needs an "id", a string or a number, to answer to`)
	}
	c.ID = id
	if m["params"] == nil {
		return fail(ErrInvalidCall, `a JSON-RPC tools/call request needs "params": {"name": ..., "arguments": {...}}`)
	}
	params, err := object(m["params"], "params")
	if err != nil {
		return err
	}
	c.Meta = params["_meta"]
	return c.fromFields(params, "params.name", "arguments", "params.arguments")
}

// fromFields reads the tool's name and arguments from m; the paths name them in errors.
func (c *Call) fromFields(m map[string]json.RawMessage, namePath, argsKey, argsPath string) error {
	key := namePath[strings.LastIndexByte(namePath, '.')+1:]
	name, err := optString(m, key, namePath)
	if err != nil {
		return err
	}
	if name == "" {
		return fail(ErrInvalidCall, "no tool name: %s is missing or empty", namePath)
	}
	c.Name = name
	c.Arguments, err = arguments(m[argsKey], argsPath)
	return err
}

// arguments returns a call's arguments as a JSON object: given as an object, or as a string holding
// one (as OpenAI sends them). Absent, null and "" mean no arguments, {}.
func arguments(raw json.RawMessage, path string) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fail(ErrInvalidCall, "%s: %v", path, err)
		}
		inner := bytes.TrimSpace([]byte(s))
		if len(inner) == 0 {
			return json.RawMessage("{}"), nil
		}
		if !json.Valid(inner) {
			return nil, fail(ErrInvalidCall, "%s is a string but does not hold JSON: it must be a JSON object of the tool's arguments, or a string holding one", path)
		}
		if inner[0] != '{' {
			return nil, fail(ErrInvalidCall, "%s holds a JSON %s, not an object: it must hold the tool's arguments as an object such as {\"purpose\": \"read\", ...}", path, kindOf(inner))
		}
		return inner, nil
	}
	if raw[0] != '{' {
		return nil, fail(ErrInvalidCall, "%s is a JSON %s, not an object: it must be the tool's arguments as an object such as {\"purpose\": \"read\", ...}, or a string holding one", path, kindOf(raw))
	}
	return raw, nil
}

// object decodes raw as a JSON object; path names it in the error.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fail(ErrInvalidCall, "%s is a JSON %s, not an object", path, kindOf(raw))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fail(ErrInvalidCall, "%s: %v", path, err)
	}
	return m, nil
}

// optString returns the string m[key], or "" when it is absent or null; path names it in the error.
func optString(m map[string]json.RawMessage, key, path string) (string, error) {
	raw := m[key]
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fail(ErrInvalidCall, "%s is a JSON %s, not a string", path, kindOf(raw))
	}
	return s, nil
}

// optID returns the id string m[key] as raw JSON, or nil when it is absent or null.
func optID(m map[string]json.RawMessage, key string) (json.RawMessage, error) {
	if _, err := optString(m, key, key); err != nil {
		return nil, err
	}
	if raw := bytes.TrimSpace(m[key]); len(raw) > 0 && string(raw) != "null" {
		return raw, nil
	}
	return nil, nil
}

// kindOf names the kind of JSON value raw begins, for error messages.
func kindOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// Request returns the MCP request a server would have decoded from the same call: its params go
// through mcp-go's own decoding, so a handler sees the arguments exactly as it does when served.
// Its error wraps [ErrInvalidCall]; a [Call] from [ParseCall] always decodes.
func (c *Call) Request() (mcp.CallToolRequest, error) {
	params, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta,omitempty"`
	}{c.Name, c.Arguments, c.Meta})
	if err != nil {
		return mcp.CallToolRequest{}, fmt.Errorf("%w: the call's arguments: %v", ErrInvalidCall, err)
	}
	var req mcp.CallToolRequest
	req.Method = string(mcp.MethodToolsCall)
	if err := json.Unmarshal(params, &req.Params); err != nil {
		return mcp.CallToolRequest{}, fmt.Errorf("%w: the call's params: %v", ErrInvalidCall, err)
	}
	return req, nil
}

// Answer shapes res to go back the way the call came, ready for [json.Marshal]:
//
//	MCP        res itself: {"content": [...], "structuredContent": {...}, "isError": false}
//	JSON-RPC   {"jsonrpc": "2.0", "id": 1, "result": res}
//	OpenAI     {"role": "tool", "tool_call_id": "call_1", "content": "<the result's text>"}
//	Responses  {"type": "function_call_output", "call_id": "call_1", "output": "<the result's text>"}
//	Anthropic  {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": ...}], "is_error": false}
//
// The id goes back as it came; a call without one is answered with the id "". The text is
// [ResultText]'s.
func (c *Call) Answer(res *mcp.CallToolResult) any {
	id := c.ID
	if id == nil {
		id = json.RawMessage(`""`)
	}
	text := ResultText(res)
	switch c.Shape {
	case ShapeJSONRPC:
		return struct {
			JSONRPC string              `json:"jsonrpc"`
			ID      json.RawMessage     `json:"id"`
			Result  *mcp.CallToolResult `json:"result"`
		}{mcp.JSONRPC_VERSION, id, res}
	case ShapeOpenAI:
		return struct {
			Role       string          `json:"role"`
			ToolCallID json.RawMessage `json:"tool_call_id"`
			Content    string          `json:"content"`
		}{"tool", id, text + imagesLeftOut(res)}
	case ShapeResponses:
		return struct {
			Type   string          `json:"type"`
			CallID json.RawMessage `json:"call_id"`
			Output string          `json:"output"`
		}{"function_call_output", id, text + imagesLeftOut(res)}
	case ShapeAnthropic:
		type source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		}
		type block struct {
			Type   string  `json:"type"`
			Text   string  `json:"text,omitempty"`
			Source *source `json:"source,omitempty"`
		}
		blocks := []block{{Type: "text", Text: text}}
		for _, c := range res.Content { // an image the model sees, as Anthropic's image block
			if img, ok := c.(mcp.ImageContent); ok {
				blocks = append(blocks, block{Type: "image", Source: &source{"base64", img.MIMEType, img.Data}})
			}
		}
		return struct {
			Type      string          `json:"type"`
			ToolUseID json.RawMessage `json:"tool_use_id"`
			Content   []block         `json:"content"`
			IsError   bool            `json:"is_error"`
		}{"tool_result", id, blocks, res.IsError}
	}
	return res
}

// imagesLeftOut is the note a shape that carries only text adds for the images of res it leaves
// out, so that a model does not take the result's word that an image was sent for one it saw.
func imagesLeftOut(res *mcp.CallToolResult) string {
	n := 0
	for _, c := range res.Content {
		if _, ok := c.(mcp.ImageContent); ok {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("\n[%d image(s) not shown: this tool result's shape carries text only; the MCP and Anthropic shapes carry images]", n)
}

// ResultText is the text a model reads from a result: its text blocks, joined by newlines. Other
// blocks (images, resources) are left out.
func ResultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
