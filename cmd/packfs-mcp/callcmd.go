package main

import (
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

	"github.com/packfs/packfs-mcp/internal/serving"
	"github.com/packfs/packfs-mcp/toolformat"
	"github.com/packfs/packfs-mcp/tools"
	"github.com/packfs/packfs-mcp/tools/progress"
)

// progressEvery spaces the lines call prints on stderr while it brings the index up to date: often
// enough to show that a long build moves, rarely enough not to flood a terminal or a log.
const progressEvery = time.Second

// maxCallInput bounds what call reads from stdin. A call's largest part is the content of a write,
// at most the file size limit; this leaves room for it to be escaped in JSON, even twice (inside
// OpenAI's arguments string), and stops a runaway pipe before it exhausts memory.
func maxCallInput(cfg serving.Config) int64 { return 8*serving.MaxFile(cfg) + 1<<20 }

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
		fmt.Fprint(f.fs.Output(), `Usage: packfs-mcp call --root DIR [--root NAME=DIR ...] [flags] < call.json

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
		err = cfg.RequireRoot()
	}
	if err == nil {
		err = serving.CheckRoots(cfg)
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
		logger.Printf("stdin holds more than %d bytes, more than one call can carry under --max-file-size %d", limit, serving.MaxFile(cfg))
		return 2
	}
	c, err := toolformat.ParseCall("stdin", data)
	if err != nil {
		logger.Printf("%s\n\nPass one tool call as a JSON object on stdin, in one of these shapes:\n%s", callError(err), callShapes)
		return 2
	}
	if !slices.Contains(serving.ToolNames, c.Name) {
		// Answered in the caller's shape like any failed call: a framework hands it back to the
		// model, which can then call a tool that exists.
		logger.Printf("unknown tool %q: the tools are %s", c.Name, strings.Join(serving.ToolNames, ", "))
		return printAnswer(stdout, logger, c, tools.UnknownTool(c.Name))
	}

	cfg = cfg.WithProgress(progressPrinter(logger))
	a, err := serving.Build(cfg, logger)
	if err != nil {
		logger.Print(err)
		return 2
	}
	defer a.Close()
	// A tool the flags do not offer answers like any failed call, in the caller's shape, so a
	// framework has a result to hand back to the model: the error says what is off and how to turn
	// it on.
	tool, offered := a.Tool(c.Name)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	req, err := c.Request()
	if err != nil {
		logger.Print(err)
		return 2
	}
	// A call whose answer depends on the index finds it up to date, as a server that has been
	// running a while would have (see tools.Purpose.NeedsIndex).
	if p, ok := tools.PurposeOf(c.Name, tools.PurposeIn(c.Arguments)); offered && ok && p.NeedsIndex {
		a.RefreshIndex(ctx, progressEvery)
	}
	start := time.Now()
	res, err := tool.Handler(ctx, req)
	if err != nil || res == nil {
		// The tools answer every failure as a result; an error here is a bug, logged as the server
		// would log it, with no result to print.
		logger.Printf("%s: %v", c.Name, err)
		return 1
	}
	a.Record(ctx, journalID(c), &req, res, start)
	return printAnswer(stdout, logger, c, res)
}

// printAnswer prints res in c's shape and returns the exit code: 1 for an error result, else 0.
func printAnswer(stdout io.Writer, logger *log.Logger, c *toolformat.Call, res *mcp.CallToolResult) int {
	out, err := json.Marshal(c.Answer(res))
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

// callError is err, a [toolformat.ParseCall] error about stdin, with what call adds for its user:
// that it runs one call per run, and only tool calls.
func callError(err error) string {
	switch {
	case errors.Is(err, toolformat.ErrNotOneCall):
		return err.Error() + " (run call once for each call)"
	case errors.Is(err, toolformat.ErrNotToolCall):
		return err.Error() + `: call runs only "tools/call" (packfs-mcp serve answers the rest)`
	}
	return err.Error()
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

// progressPrinter returns a [progress.Report] hook that prints each report on stderr as one line.
// The tools already space their reports ([progress.Interval]) and always send the last one.
func progressPrinter(logger *log.Logger) func(progress.Report) {
	return func(p progress.Report) {
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

// journalID is the id the journal records for the call: the JSON-RPC request id as the server's
// hooks see it, the OpenAI or Anthropic call id as a string, or nil when the call had none.
func journalID(c *toolformat.Call) any {
	if c.ID == nil {
		return nil
	}
	if c.Shape == toolformat.ShapeJSONRPC {
		var id mcp.RequestId
		if json.Unmarshal(c.ID, &id) == nil {
			return id
		}
		return nil
	}
	var s string
	json.Unmarshal(c.ID, &s) // ParseCall checked it is a string
	return s
}
