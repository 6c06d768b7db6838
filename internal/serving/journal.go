package serving

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/audit"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/tools"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// journal is the audit journal of a server started with --journal FILE: one JSON line per tool
// call, in the AI SDK UIMessage shape (see package audit), appended to FILE outside the root.
type journal struct {
	w    *audit.Writer
	dir  *fsroot.Root // FILE's folder, through which FILE was opened
	file string
	// starts holds when each tools/call in flight arrived, keyed by session and request id, from
	// the MCP server's before hook to its after or error hook.
	starts sync.Map
	// offered names the tools this server offers, so a call to one it does not can be told from a
	// call to a tool that does not exist.
	offered []string
	perms   string
}

// openJournal opens the journal named by the configuration, if any: its folder as an fsroot.Root
// and the file inside it for appending (created 0600; a link or anything but a regular file is
// refused). The folder must exist and, symbolic links resolved, lie outside the root, where no
// tool can read or change the journal.
func (a *app) openJournal() error {
	file := a.cfg.Journal.File
	if file == "" {
		return nil
	}
	clean := filepath.Clean(file)
	dir, err := fsroot.Open(filepath.Dir(clean), fsroot.Options{})
	if err != nil {
		return fmt.Errorf("journal %s: its folder must exist: %w", file, err)
	}
	for _, m := range a.mountList() {
		if fsroot.HostWithin(dir.ResolvedDir(), m.Root.ResolvedDir()) {
			dir.Close()
			return fmt.Errorf("the journal %s is inside the root, where the tools could read or change it: choose a file outside the root", file)
		}
	}
	j := &journal{dir: dir, file: file, perms: a.perms.String()}
	j.w, err = audit.Open(dir, filepath.Base(clean), audit.Options{
		MaxContentBytes: a.cfg.Journal.MaxContentBytes,
		Denied:          errs.IsDenial,
		OnError: func(err error) {
			a.errs.Printf("%v: tool calls go on unjournalled; later journal failures are not logged", err)
		},
	})
	if err != nil {
		dir.Close()
		return fmt.Errorf("journal %s: %w", file, err)
	}
	for _, t := range a.tools.Tools() {
		j.offered = append(j.offered, t.Tool.Name)
	}
	a.journal = j
	return nil
}

// closeJournal flushes and closes the journal, if one is open.
func (a *app) closeJournal() {
	j := a.journal
	if j == nil {
		return
	}
	a.journal = nil
	if err := j.w.Close(); err != nil {
		a.errs.Printf("closing the journal %s: %v", j.file, err)
	}
	j.dir.Close()
}

// hooks returns the MCP server's hooks: with a journal, they journal every tools/call the server
// answers, with a result or with a protocol error (an unknown tool, unparsable parameters). The
// line is written before the answer goes out, so a client that has its answer finds the call in
// the journal.
func (a *app) hooks() *server.Hooks {
	h := &server.Hooks{}
	j := a.journal
	if j == nil {
		return h
	}
	h.AddBeforeCallTool(func(ctx context.Context, id any, _ *mcp.CallToolRequest) {
		j.starts.Store(journalKey(ctx, id), time.Now())
	})
	h.AddAfterCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest, result any) {
		res, _ := result.(*mcp.CallToolResult)
		if res != nil && res.NeedsInput() {
			// The call asked the client for its roots; the call it retries with them is journalled.
			j.started(ctx, id)
			return
		}
		j.call(ctx, id, req, res, j.started(ctx, id), nil)
	})
	h.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, message any, err error) {
		if method != mcp.MethodToolsCall {
			return
		}
		req, _ := message.(*mcp.CallToolRequest)
		j.call(ctx, id, req, nil, j.started(ctx, id), err)
	})
	return h
}

// journalKey identifies a request in flight: its session and its JSON-RPC id.
func journalKey(ctx context.Context, id any) string {
	return journalSession(ctx) + "\x00" + journalIDString(id)
}

// started returns (and forgets) when the request arrived; zero if the before hook never saw it
// (mcp-go rejects unparsable parameters before that hook).
func (j *journal) started(ctx context.Context, id any) time.Time {
	if v, ok := j.starts.LoadAndDelete(journalKey(ctx, id)); ok {
		return v.(time.Time)
	}
	return time.Time{}
}

// record journals one tool call answered outside the MCP server (the call subcommand), with the
// call's own id.
func (a *app) record(ctx context.Context, id any, req *mcp.CallToolRequest, res *mcp.CallToolResult, start time.Time) {
	if a.journal != nil {
		a.journal.call(ctx, id, req, res, start, nil)
	}
}

// call appends one call to the journal: res is the tool's result, or nil with err the protocol
// error the server answered instead. A journal failure is logged once (by the writer) and never
// fails the call.
func (j *journal) call(ctx context.Context, id any, req *mcp.CallToolRequest, res *mcp.CallToolResult, start time.Time, err error) {
	now := time.Now()
	if start.IsZero() {
		start = now
	}
	c := audit.Call{
		ID:       journalCallID(ctx, id),
		Session:  journalSessionLabel(journalSession(ctx)),
		Tool:     "unknown",
		Start:    start,
		Duration: now.Sub(start),
	}
	if req != nil {
		if req.Params.Name != "" {
			c.Tool = req.Params.Name
		}
		c.Input = tools.Arguments(*req)
	}
	switch {
	case res != nil:
		c.Output, c.IsError = journalOutput(res), res.IsError
	case err != nil:
		c.Code, c.Error = j.protocolFailure(c.Tool, err)
	default:
		c.Code, c.Error = errs.CodeProtocol, "the server answered with no result"
	}
	j.w.Append(c)
}

// protocolFailure gives the code and words of a tools/call that no tool answered. A call to one of
// packfs-mcp's tools that this server does not offer (writing off, --read-only, --disable-tool) is
// a permission refusal: the journal counts it as a denial.
func (j *journal) protocolFailure(tool string, err error) (code, msg string) {
	msg = err.Error()
	if inner := errors.Unwrap(err); inner != nil {
		msg = inner.Error() // without mcp-go's "request error: " prefix
	}
	var unparsable *server.UnparsableMessageError
	switch {
	case errors.Is(err, server.ErrToolNotFound) && slices.Contains(ToolNames, tool) && !slices.Contains(j.offered, tool):
		return errs.CodePermissionDenied, fmt.Sprintf("%s is not offered by this server (permissions %s; offered: %s)",
			tool, j.perms, strings.Join(j.offered, ", "))
	case errors.Is(err, server.ErrToolNotFound):
		return errs.CodeUnknownTool, msg
	case errors.As(err, &unparsable):
		return errs.CodeInvalidRequest, msg
	}
	return errs.CodeProtocol, msg
}

// journalSession is the MCP session's id: "stdio" on stdio, the Mcp-Session-Id over HTTP, "" outside
// any session (the call subcommand).
func journalSession(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// journalSessionLabel names a session in the journal. An HTTP session id is a credential-like value that
// logs should not spread, so it is recorded as a short hash: enough to tell sessions apart.
func journalSessionLabel(id string) string {
	if id == "" || id == "stdio" {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "http-" + hex.EncodeToString(sum[:6])
}

// journalCallID is the journal's toolCallId: the JSON-RPC id as a string, qualified by the session
// label when several clients share the server (HTTP), since each numbers its requests from 1. A
// call without an id gets a random one, as the AI SDK requires one.
func journalCallID(ctx context.Context, id any) string {
	s := journalIDString(id)
	if s == "" {
		s = "call-" + strings.ToLower(rand.Text()[:12])
	}
	if label := journalSessionLabel(journalSession(ctx)); label != "" && label != "stdio" {
		return label + "/" + s
	}
	return s
}

// journalIDString writes a JSON-RPC id, a number or a string, as text: 7 for 7, "a" for "a".
func journalIDString(id any) string {
	switch v := id.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case mcp.RequestId:
		return journalIDString(v.Value())
	case *mcp.RequestId:
		if v == nil {
			return ""
		}
		return journalIDString(v.Value())
	case json.Number:
		return v.String()
	}
	return fmt.Sprint(id)
}

// journalOutput returns a result's flat JSON: its structured content, else its text when that is
// JSON, else the text as a JSON string.
func journalOutput(res *mcp.CallToolResult) json.RawMessage {
	if len(res.RawStructuredContent) > 0 {
		return res.RawStructuredContent
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return b
		}
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if json.Valid([]byte(text.String())) {
		return json.RawMessage(text.String())
	}
	b, _ := json.Marshal(text.String())
	return b
}
