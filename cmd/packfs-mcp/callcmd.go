package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools"
)

// progressEvery spaces the lines call prints on stderr while it brings the index up to date: often
// enough to show that a long build moves, rarely enough not to flood a terminal or a log.
const progressEvery = time.Second

// maxCallInput bounds what call reads from stdin. A call's largest part is the content of a write,
// at most the file size limit; this leaves room for it to be escaped in JSON, even twice (inside
// OpenAI's arguments string), and stops a runaway pipe before it exhausts memory.
func maxCallInput(cfg Config) int64 { return 8*maxFile(cfg) + 1<<20 }

// callShapes shows the accepted input shapes, for the help and for every complaint about the input.
const callShapes = `  MCP        {"name": "packfs-file-reader", "arguments": {"purpose": "read", "target": {"path": "notes/a.md"}}}
  JSON-RPC   {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": ..., "arguments": {...}}}
  OpenAI     {"id": "call_1", "type": "function", "function": {"name": ..., "arguments": "{\"purpose\": ...}"}}
  Responses  {"type": "function_call", "call_id": "call_1", "name": ..., "arguments": "{...}"}
  Anthropic  {"type": "tool_use", "id": "toolu_1", "name": ..., "input": {...}}
`

// callCmd runs one tool call read from stdin through the same tools, policy and pipeline as the
// server, and prints the result in the shape the call came in. It exits 0 when the tool succeeded,
// 1 when it answered an error (the result is still printed), and 2 for bad flags or input.
func callCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := newServerFlags("call", stdout)
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), `Usage: packfs-mcp call --root DIR [flags] < call.json

Run one tool call without an MCP client. call reads the call as JSON on stdin, runs it through the
same permissions, policy and tools as packfs-mcp serve with the same flags, and prints the result on
stdout in the shape the call came in, ready to hand back to the model. Agent frameworks that
register the tools themselves (see packfs-mcp tools) can run each call the model makes this way.

The call, in any of these shapes (arguments may be an object or a string holding one):
`+callShapes+`
The result, in the matching shape:
  MCP        the CallToolResult: {"content": [{"type": "text", "text": ...}], "structuredContent": {...}, "isError": false}
  JSON-RPC   {"jsonrpc": "2.0", "id": 1, "result": <that CallToolResult>}
  OpenAI     {"role": "tool", "tool_call_id": "call_1", "content": "<the result's JSON>"}
  Responses  {"type": "function_call_output", "call_id": "call_1", "output": "<the result's JSON>"}
  Anthropic  {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": ...}], "is_error": false}

Reading, listing and searching are on by default; writing is off until --allow-write. Before
search_semantic, relationships, move and delete, call brings the search index up to date (it is
kept between runs, so only changed files are read again) and shows its progress on stderr.

Exit status: 0 when the tool succeeded; 1 when it answered an error (the result, with its error
code, is still printed; a tool the flags do not offer, such as the writer without --allow-write,
answers PERMISSION_DENIED this way); 2 when the flags or the input are wrong (the reason goes to
stderr).

Example:
  echo '{"name": "packfs-file-searcher", "arguments": {"purpose": "search_content", "target": {"path": ".", "query": "TODO"}}}' |
    packfs-mcp call --root ~/notes

Flags (the same as serve's):
`)
		f.fs.PrintDefaults()
	}
	cfg, err := f.parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	// Goroutines the app starts (such as build's removal of leftover temporary files) may still log
	// after the call is answered; a one-shot command has nothing more to say by then.
	errw := &gatedWriter{w: stderr}
	defer errw.close()
	logger := log.New(errw, "packfs-mcp: ", 0)
	if err == nil {
		err = checkRoot(cfg.RootPath)
	}
	if err != nil {
		logger.Print(err)
		return 2
	}

	if isTerminal(stdin) {
		logger.Print("reading one tool call as JSON from stdin; end it with Ctrl-D (packfs-mcp call --help shows the shapes)")
	}
	limit := maxCallInput(cfg)
	data, err := io.ReadAll(io.LimitReader(stdin, limit+1))
	if err != nil {
		logger.Printf("reading stdin: %v", err)
		return 2
	}
	if int64(len(data)) > limit {
		logger.Printf("stdin holds more than %d bytes, more than one call can carry under --max-file-size %d", limit, maxFile(cfg))
		return 2
	}
	c, err := parseCall(data)
	if err != nil {
		logger.Printf("%v\n\nPass one tool call as a JSON object on stdin, in one of these shapes:\n%s", err, callShapes)
		return 2
	}
	if !slices.Contains(toolNames, c.name) {
		// Answered in the caller's shape like any failed call: a framework hands it back to the
		// model, which can then call a tool that exists.
		logger.Printf("unknown tool %q: the tools are %s", c.name, strings.Join(toolNames, ", "))
		return printAnswer(stdout, logger, c, tools.UnknownTool(c.name))
	}

	cfg.progress = progressPrinter(logger)
	a, err := build(cfg, logger)
	if err != nil {
		logger.Print(err)
		return 2
	}
	defer a.close()
	// A tool the flags do not offer answers like any failed call, in the caller's shape, so a
	// framework has a result to hand back to the model: the error says what is off and how to turn
	// it on.
	tool, offered := findTool(a.tools.Tools(), c.name)
	if !offered {
		tool, _ = a.tools.Refusal(c.name, notOffered(a, c.name))
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	req, err := c.request()
	if err != nil {
		logger.Print(err)
		return 2
	}
	if offered && a.engine != nil && needsIndex(c.name, tools.PurposeIn(c.args)) {
		a.buildIndex(ctx, progressEvery, func(st semantic.Progress) {
			if a.cfg.progress != nil {
				a.cfg.progress(tools.Progress{Done: st.Done, Total: st.Total,
					Message: st.String()})
			}
		})
	}
	start := time.Now()
	res, err := tool.Handler(ctx, req)
	if err != nil || res == nil {
		// The tools answer every failure as a result; an error here is a bug, logged as the server
		// would log it, with no result to print.
		logger.Printf("%s: %v", c.name, err)
		return 1
	}
	a.record(ctx, c.journalID(), &req, res, start)
	return printAnswer(stdout, logger, c, res)
}

// printAnswer prints res in c's shape and returns the exit code: 1 for an error result, else 0.
func printAnswer(stdout io.Writer, logger *log.Logger, c *callInput, res *mcp.CallToolResult) int {
	out, err := json.Marshal(c.answer(res))
	if err != nil {
		logger.Printf("encoding the result: %v", err)
		return 1
	}
	stdout.Write(append(out, '\n'))
	if res.IsError {
		return 1
	}
	return 0
}

// gatedWriter passes writes on to w until it is closed, then drops them.
type gatedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gatedWriter) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// isTerminal reports whether r is a terminal, where a user may not know that call waits for input.
// It asks the stream itself (stdin is an *os.File) rather than the filesystem.
func isTerminal(r io.Reader) bool {
	f, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&fs.ModeCharDevice != 0
}

func findTool(list []server.ServerTool, name string) (server.ServerTool, bool) {
	for _, t := range list {
		if t.Tool.Name == name {
			return t, true
		}
	}
	return server.ServerTool{}, false
}

// notOffered explains, to the model and to the user, why a known tool is not offered under a's
// configuration and how the user turns it on. It names flags and settings only, never a path.
func notOffered(a *app, name string) string {
	var offered []string
	for _, t := range a.tools.Tools() {
		offered = append(offered, t.Tool.Name)
	}
	if len(offered) == 0 {
		offered = []string{"none"}
	}
	others := fmt.Sprintf(" The tools offered are: %s.", strings.Join(offered, ", "))
	switch {
	case slices.Contains(a.cfg.DisabledTools, name):
		return fmt.Sprintf("%s is disabled on this server (--disable-tool, or disabledTools in its config file): to use it, take it out of that list and restart the server.%s", name, others)
	case name == tools.WriterName && a.cfg.ReadOnly:
		return "writing is off: the server runs with --read-only (or readOnly in its config file), which wins over --allow-write and the permissions; " +
			"to write, restart it without --read-only." + others
	case name == tools.WriterName:
		return fmt.Sprintf("writing is off: the server's permissions are %s; to write, restart it with --allow-write "+
			"(or add write to --permissions, or to permissions in its config file).%s", a.perms, others)
	}
	need := "read"
	if name == tools.SearcherName {
		need = "list or search"
	}
	return fmt.Sprintf("%s is not offered: the server's permissions are %s, without %s; to use it, restart the server with %s in --permissions.%s",
		name, a.perms, need, need, others)
}

// needsIndex reports whether a call's answer depends on the search index (see
// [tools.Purpose].NeedsIndex), so call brings it up to date first.
func needsIndex(tool, purpose string) bool {
	p, ok := tools.PurposeOf(tool, purpose)
	return ok && p.NeedsIndex
}

// progressPrinter returns a [tools.Progress] hook that prints each report on stderr as one line.
// The tools already space their reports ([tools.ProgressInterval]) and always send the last one.
func progressPrinter(logger *log.Logger) func(tools.Progress) {
	return func(p tools.Progress) {
		msg := p.Message
		if msg == "" {
			msg = fmt.Sprintf("%s %s: %d", p.Tool, p.Purpose, p.Done)
			if p.Total > 0 {
				msg += fmt.Sprintf(" of %d", p.Total)
			}
		}
		logger.Print(msg)
	}
}

// callShape is the shape a tool call came in, and so the shape its result goes back in.
type callShape int

const (
	shapeMCP       callShape = iota // MCP's tools/call params: {"name", "arguments"}
	shapeJSONRPC                    // a whole JSON-RPC tools/call request
	shapeOpenAI                     // a Chat Completions tool call: {"id", "type": "function", "function": {"name", "arguments"}}
	shapeResponses                  // a Responses API function_call item: {"type": "function_call", "call_id", "name", "arguments"}
	shapeAnthropic                  // a Messages API tool_use block: {"type": "tool_use", "id", "name", "input"}
)

// callInput is one tool call read from stdin, whatever its shape.
type callInput struct {
	shape callShape
	// id is the call's id as it came, a JSON string (a string or a number for JSON-RPC), so it goes
	// back byte for byte; nil when the call had none.
	id   json.RawMessage
	name string
	args json.RawMessage // always a JSON object
	meta json.RawMessage // MCP's _meta, passed on as a server would; nil when absent
}

// parseCall reads one tool call in any of the accepted shapes. Its errors say what is wrong, in
// the input's own field names; the caller adds the shapes expected.
func parseCall(data []byte) (*callInput, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errors.New("no tool call: stdin was empty")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var top json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("stdin is not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("stdin holds more than one JSON value, or text after the call: pass exactly one tool call (run call once for each call)")
	}
	m, err := object(top, "stdin")
	if err != nil {
		if top[0] == '[' {
			return nil, errors.New("stdin holds a JSON array: pass one tool call object, not a list (run call once for each call)")
		}
		return nil, err
	}
	c := &callInput{}
	if err := c.fromObject(m); err != nil {
		return nil, err
	}
	return c, nil
}

// fromObject reads a call from its top-level object, telling the shape by its fields.
func (c *callInput) fromObject(m map[string]json.RawMessage) error {
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
		c.shape = shapeOpenAI
		if m["function"] == nil {
			return errors.New(`an OpenAI tool call of type "function" needs a "function" object with its name and arguments (is this a tool definition rather than a call?)`)
		}
		fn, err := object(m["function"], "function")
		if err != nil {
			return err
		}
		if c.id, err = optID(m, "id"); err != nil {
			return err
		}
		return c.fromFields(fn, "function.name", "arguments", "function.arguments")
	case typ == "function_call":
		c.shape = shapeResponses
		if c.id, err = optID(m, "call_id"); err != nil {
			return err
		}
		return c.fromFields(m, "name", "arguments", "arguments")
	case typ == "tool_use":
		c.shape = shapeAnthropic
		if c.id, err = optID(m, "id"); err != nil {
			return err
		}
		return c.fromFields(m, "name", "input", "input")
	case typ == "":
		c.shape = shapeMCP
		c.meta = m["_meta"]
		return c.fromFields(m, "name", "arguments", "arguments")
	}
	return fmt.Errorf(`unknown call type %q: expected "function" (OpenAI), "function_call" (OpenAI Responses), "tool_use" (Anthropic), or no type (MCP)`, typ)
}

// fromJSONRPC reads a JSON-RPC tools/call request.
func (c *callInput) fromJSONRPC(m map[string]json.RawMessage) error {
	c.shape = shapeJSONRPC
	if v, err := optString(m, "jsonrpc", "jsonrpc"); err != nil || v != "2.0" {
		return errors.New(`a JSON-RPC request needs "jsonrpc": "2.0"`)
	}
	method, err := optString(m, "method", "method")
	if err != nil {
		return err
	}
	if method != "tools/call" {
		return fmt.Errorf(`JSON-RPC method %q is not a tool call: call runs only "tools/call" (packfs-mcp serve answers the rest)`, method)
	}
	id := bytes.TrimSpace(m["id"])
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		return errors.New(`a JSON-RPC tools/call request needs an "id", a string or a number, to answer to`)
	}
	c.id = id
	if m["params"] == nil {
		return errors.New(`a JSON-RPC tools/call request needs "params": {"name": ..., "arguments": {...}}`)
	}
	params, err := object(m["params"], "params")
	if err != nil {
		return err
	}
	c.meta = params["_meta"]
	return c.fromFields(params, "params.name", "arguments", "params.arguments")
}

// fromFields reads the tool's name and arguments from m; the paths name them in errors.
func (c *callInput) fromFields(m map[string]json.RawMessage, namePath, argsKey, argsPath string) error {
	key := namePath[strings.LastIndexByte(namePath, '.')+1:]
	name, err := optString(m, key, namePath)
	if err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("no tool name: %s is missing or empty", namePath)
	}
	c.name = name
	c.args, err = arguments(m[argsKey], argsPath)
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
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		inner := bytes.TrimSpace([]byte(s))
		if len(inner) == 0 {
			return json.RawMessage("{}"), nil
		}
		if !json.Valid(inner) {
			return nil, fmt.Errorf("%s is a string but does not hold JSON: it must be a JSON object of the tool's arguments, or a string holding one", path)
		}
		if inner[0] != '{' {
			return nil, fmt.Errorf("%s holds a JSON %s, not an object: it must hold the tool's arguments as an object such as {\"purpose\": \"read\", ...}", path, kindOf(inner))
		}
		return inner, nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("%s is a JSON %s, not an object: it must be the tool's arguments as an object such as {\"purpose\": \"read\", ...}, or a string holding one", path, kindOf(raw))
	}
	return raw, nil
}

// object decodes raw as a JSON object; path names it in the error.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%s is a JSON %s, not an object", path, kindOf(raw))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
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
		return "", fmt.Errorf("%s is a JSON %s, not a string", path, kindOf(raw))
	}
	return s, nil
}

// optID returns the id string m[key] as raw JSON, or nil when it is absent.
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

// request builds the MCP request the server would have decoded from the same call: its params go
// through mcp-go's own decoding, so the handler sees the arguments exactly as it does when served.
func (c *callInput) request() (mcp.CallToolRequest, error) {
	params, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta,omitempty"`
	}{c.name, c.args, c.meta})
	if err != nil {
		return mcp.CallToolRequest{}, fmt.Errorf("the call's arguments: %v", err)
	}
	var req mcp.CallToolRequest
	req.Method = string(mcp.MethodToolsCall)
	if err := json.Unmarshal(params, &req.Params); err != nil {
		return mcp.CallToolRequest{}, fmt.Errorf("the call's params: %v", err)
	}
	return req, nil
}

// journalID is the id the journal records for the call: the JSON-RPC request id as the server's
// hooks see it, the OpenAI or Anthropic call id as a string, or nil when the call had none.
func (c *callInput) journalID() any {
	if c.id == nil {
		return nil
	}
	if c.shape == shapeJSONRPC {
		var id mcp.RequestId
		if json.Unmarshal(c.id, &id) == nil {
			return id
		}
		return nil
	}
	var s string
	json.Unmarshal(c.id, &s) // parseCall checked it is a string
	return s
}

// answer shapes a result to go back the way the call came.
func (c *callInput) answer(res *mcp.CallToolResult) any {
	id := c.id
	if id == nil {
		id = json.RawMessage(`""`)
	}
	text := resultText(res)
	switch c.shape {
	case shapeJSONRPC:
		return struct {
			JSONRPC string              `json:"jsonrpc"`
			ID      json.RawMessage     `json:"id"`
			Result  *mcp.CallToolResult `json:"result"`
		}{mcp.JSONRPC_VERSION, id, res}
	case shapeOpenAI:
		return struct {
			Role       string          `json:"role"`
			ToolCallID json.RawMessage `json:"tool_call_id"`
			Content    string          `json:"content"`
		}{"tool", id, text}
	case shapeResponses:
		return struct {
			Type   string          `json:"type"`
			CallID json.RawMessage `json:"call_id"`
			Output string          `json:"output"`
		}{"function_call_output", id, text}
	case shapeAnthropic:
		type block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		return struct {
			Type      string          `json:"type"`
			ToolUseID json.RawMessage `json:"tool_use_id"`
			Content   []block         `json:"content"`
			IsError   bool            `json:"is_error"`
		}{"tool_result", id, []block{{"text", text}}, res.IsError}
	}
	return res
}

// resultText is the text a model reads from a result: its text blocks, which the tools fill with
// the result's JSON.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
