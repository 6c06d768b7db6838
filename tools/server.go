// Package tools defines the three MCP tools of packfs-mcp, packfs-file-reader, packfs-file-searcher and
// packfs-file-writer, and runs every call through the same pipeline: the permission for its purpose,
// intent decoding and validation, the path and name policy, the rate limiter, and only then the rooted
// filesystem. Results are flat JSON objects (see [result.Reader], [result.Searcher], [result.Writer]),
// returned as structured content and, for clients that read only text, as the same JSON in a text block.
package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/progress"
	"github.com/packfs/packfs-mcp/tools/relink"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
	"github.com/packfs/packfs-mcp/tools/text"
)

// Tool names, as in the PackFS specification.
const (
	ReaderName   = "packfs-file-reader"
	SearcherName = "packfs-file-searcher"
	WriterName   = "packfs-file-writer"
)

// Defaults for [Config]'s zero fields.
const (
	// DefaultTimeout bounds one call; an interactive agent waits no longer than this for an answer.
	DefaultTimeout = 30 * time.Second
)

// Config wires the tools to the rest of the server: the root they serve (its Mount), apart from
// the settings every root shares, which [Roots] gives each of its roots. Limiter is required, and
// for a [Server] of its own the Mount's Root and Policy.
type Config struct {
	// Mount is the root served, embedded so that cfg.Root, cfg.Engine and the rest read as the
	// root's; [NewRoots] ignores it, as each root brings its own to [Roots.Add].
	Mount

	Limiter     *security.Limiter
	Permissions security.Permissions
	// MaxFileSize is the largest file read or written, in bytes. If zero, [fsroot.DefaultMaxFileSize].
	MaxFileSize int64
	// Timeout bounds each call. If zero, DefaultTimeout.
	Timeout time.Duration
	// RelevanceThreshold drops search_semantic hits scoring below it (the best hit scores 1).
	RelevanceThreshold float64
	// Progress, when set, receives the progress of long work (a recursive list or search over a big
	// tree, waiting for the index), besides the MCP progress notifications sent to a client that sent a
	// progress token. The CLI prints it on stderr. It may be called from several calls at once.
	Progress func(p progress.Report)
	// Disabled names tools not to offer, whatever the permissions.
	Disabled []string
	// Log receives diagnostics (never the protocol). If nil, they are discarded.
	Log *log.Logger
	// ErrorLog receives the server's own failures: a panic, an error no code maps (INTERNAL). The
	// CLI logs them at a higher level than Log's. If nil, Log.
	ErrorLog *log.Logger
	// Now returns the current time. If nil, time.Now.
	Now func() time.Time
}

// Server holds the tools' shared state. It is safe for concurrent use.
type Server struct {
	cfg Config
	// beforeWrite, if set, runs before an edit writes each of its files, and before a folder copy
	// copies each file: tests change files there, as a person saving at that moment would, to make
	// a write, and the restore after it, fail.
	beforeWrite func(name string)
	// mentionBudget bounds the search for mentions before a move (relink.MentionBudget); tests set it so
	// that a slow machine meets the byte and file bounds, not the clock.
	mentionBudget time.Duration
	// resumes remembers where recent lists and searches stopped, for their next page.
	resumes search.Resumes
	// budget, if set, replaces walkBudget, and beforeSearch, if set, runs before search_content
	// reads each file: tests end a walk's time at a file of their choosing, not by the clock.
	budget       func(context.Context) (context.Context, context.CancelFunc)
	beforeSearch func(name string)
}

// New returns a Server for cfg, filling its zero fields with their defaults.
func New(cfg Config) *Server {
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = fsroot.DefaultMaxFileSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Log == nil {
		cfg.Log = log.New(discard{}, "", 0)
	}
	if cfg.ErrorLog == nil {
		cfg.ErrorLog = cfg.Log
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Ignore == nil && cfg.Root != nil && cfg.Policy != nil {
		cfg.Ignore = security.NewIgnore(cfg.Root, cfg.Policy, security.IgnoreConfig{})
	}
	return &Server{cfg: cfg, mentionBudget: relink.MentionBudget}
}

// show returns the path a caller uses for name, a path inside this server's root: name itself, or
// with several roots name inside this root's name.
func (s *Server) show(name string) string {
	switch {
	case s.cfg.Name == "" || name == "":
		return name
	case name == ".":
		return s.cfg.Name
	}
	return s.cfg.Name + "/" + name
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// handlerFunc runs one decoded call and returns its flat result, or an error that [errs.Status] maps.
type handlerFunc func(ctx context.Context, c *call) (any, error)

// call carries what every handler needs about the request being served.
type call struct {
	tool    string
	purpose string
	path    string // root-relative, once the policy has cleaned it
	raw     []byte
	// in is the intent already decoded from raw and admitted, when a call of several roots runs
	// on one root's server with its paths made that root's (see [Roots.sub]): admit takes it
	// rather than decode again.
	in    any
	start time.Time
	// progressToken is the client's token for progress notifications on this call, or nil.
	progressToken any
	// free is set on the calls a search of several roots makes after its first: the rate limiter
	// charged that one for the whole search.
	free bool
	// from is the root a copy's target.path is in, when it is not the writer's own (see [Roots]).
	from *Server
	// spent is the content the answer holds already from files read in other roots, for a read
	// of target.paths across roots: this call's files share what is left of MaxContentBytes.
	spent int
	// changes are the files a writing call changed, for its history record (Server.commit).
	changes []history.Change
}

func (c *call) meta() result.Meta { return result.Meta{ExecutionMs: sinceMs(c.start)} }

// sinceMs is the time since start in milliseconds, to 0.1 ms: finer digits cost a model tokens and
// tell it nothing.
func sinceMs(start time.Time) float64 {
	return float64(time.Since(start).Microseconds()/100) / 10
}

// Register adds to m every tool whose permissions are not all off.
func (s *Server) Register(m *server.MCPServer) {
	for _, t := range s.Tools() {
		m.AddTool(t.Tool, t.Handler)
	}
}

// Tools returns the tools this server offers under its permissions, with their handlers.
func (s *Server) Tools() []server.ServerTool {
	return s.toolsWith(s.read, s.discover, s.update)
}

// toolsWith returns the tools offered under the permissions, with the handlers given.
func (s *Server) toolsWith(read, discover, update handlerFunc) []server.ServerTool {
	var out []server.ServerTool
	p := s.cfg.Permissions
	if p.Has(security.PermRead) && s.enabled(ReaderName) {
		out = append(out, server.ServerTool{Tool: readerTool(), Handler: s.adapt(ReaderName, read)})
	}
	if (p.Has(security.PermList) || p.Has(security.PermSearch)) && s.enabled(SearcherName) {
		out = append(out, server.ServerTool{Tool: searcherTool(), Handler: s.adapt(SearcherName, discover)})
	}
	if p.Has(security.PermWrite) && s.enabled(WriterName) {
		out = append(out, server.ServerTool{Tool: writerTool(), Handler: s.adapt(WriterName, update)})
	}
	return out
}

func (s *Server) enabled(tool string) bool {
	return !slices.Contains(s.cfg.Disabled, tool)
}

// adapt turns a handlerFunc into an MCP handler: it times the call, bounds it with the deadline,
// recovers a panic as an INTERNAL tool error, and shapes the flat result as structured content plus
// the same JSON as text. The handler runs on its own goroutine, so a filesystem call that hangs past
// the deadline yields a TIMEOUT answer at once and the server goes on serving; the hung goroutine
// ends whenever the call returns.
func (s *Server) adapt(tool string, h handlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c := &call{tool: tool, raw: Arguments(req), start: time.Now()}
		c.purpose = PurposeIn(c.raw)
		if m := req.Params.Meta; m != nil {
			c.progressToken = m.ProgressToken
		}
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
		done := make(chan *mcp.CallToolResult, 1)
		go func() { done <- s.run(ctx, c, h) }()
		select {
		case res := <-done:
			return res, nil
		case <-ctx.Done():
			st := result.Status{Code: errs.CodeTimeout, Error: fmt.Sprintf("the call ran past its deadline of %v and was abandoned: try a smaller path or narrower criteria", s.cfg.Timeout)}
			if tool == WriterName {
				st.Error = fmt.Sprintf("the call ran past its deadline of %v and was abandoned (a write may still complete): "+
					"check the file before retrying", s.cfg.Timeout)
			}
			return shape(errorResult(tool, st, c.meta()), true), nil
		}
	}
}

// run runs one handler and shapes its result; a panic becomes an INTERNAL tool error.
func (s *Server) run(ctx context.Context, c *call, h handlerFunc) (res *mcp.CallToolResult) {
	defer func() {
		if r := recover(); r != nil {
			s.cfg.ErrorLog.Printf("panic in %s: %v\n%s", c.tool, r, debug.Stack())
			st := result.Status{Code: errs.CodeInternal, Error: "the server hit an internal error on this call; it logged the details and goes on serving"}
			res = shape(errorResult(c.tool, st, c.meta()), true)
		}
	}()
	out, err := h(ctx, c)
	if err != nil {
		st := errs.Status(err, c.path, s.show)
		if mp := (*errs.Mapped)(nil); st.Code == errs.CodeInternal && !errors.As(err, &mp) { // a root logged its own
			s.cfg.ErrorLog.Printf("%s %s %q: %v", c.tool, c.purpose, c.path, err)
		}
		return shape(errorResult(c.tool, st, c.meta()), true)
	}
	return shape(out, false)
}

// errorResult builds the flat error result of the tool's own result type, so every result, error or
// not, matches the tool's declared output schema.
func errorResult(tool string, st result.Status, m result.Meta) any {
	switch tool {
	case ReaderName:
		return result.Reader{Status: st, Metadata: m}
	case SearcherName:
		return result.Searcher{Status: st, Metadata: m}
	default:
		return result.Writer{Status: st, Metadata: m}
	}
}

// shape makes the tool result of out: out itself as structured content, and its JSON as text. The
// structured content stays a Go value rather than the encoded text: encoding/json copies a
// json.RawMessage into the response only after scanning it byte by byte, which costs several
// times what encoding the value again does, and gives the same bytes.
func shape(out any, isErr bool) *mcp.CallToolResult {
	text, err := encode(out)
	if err != nil {
		text = `{"success":false,"code":"INTERNAL","error":"the result could not be encoded"}`
		out, isErr = json.RawMessage(text), true
	}
	res := mcp.NewToolResultStructured(out, text)
	res.IsError = isErr
	if r, ok := out.(result.Reader); ok && r.Image != nil {
		// The image a model sees, beside the JSON that describes it.
		res.Content = append(res.Content, mcp.NewImageContent(base64.StdEncoding.EncodeToString(r.Image.Data), r.Image.MediaType))
	}
	return res
}

// encode returns out's JSON as a model reads it: compact, and with <, > and & written as
// themselves. encoding/json's default escapes them as \u003c and the like for HTML pages, which
// costs six bytes (and several tokens) for each: a markdown quote line or a tldr page's "> " would
// pay it on every line.
func encode(out any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// Arguments returns a tool call's arguments as the JSON the client sent, or "{}" when it sent none.
// The journal records them as the tools decode them.
func Arguments(req mcp.CallToolRequest) []byte {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	if req.Params.Arguments == nil {
		return []byte("{}")
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return []byte("{}")
	}
	return b
}

// Instructions tells the model, in a few sentences, where it works and what it may do.
func (s *Server) Instructions() string {
	return s.instructions(nil)
}

// instructions are the server's instructions: about its one root, or with names about the roots of
// [Roots] (which may be none yet, when they come from the client).
func (s *Server) instructions(names []string) string {
	var b strings.Builder
	switch {
	case s.cfg.Root != nil:
		fmt.Fprintf(&b, "These tools work on the files under one folder, the root (%s). ", s.cfg.Root.Dir())
		b.WriteString("Give paths relative to it, with forward slashes, such as \"notes/todo.md\"; \".\" is the root. ")
	default:
		b.WriteString("These tools work on the files under several folders, the roots")
		if len(names) > 0 {
			fmt.Fprintf(&b, " (now %s)", strings.Join(names, ", "))
		}
		example := "notes"
		if len(names) > 0 {
			example = names[0]
		}
		fmt.Fprintf(&b, ". A path starts with its root's name, then the path inside it, with forward slashes, such as %q", example+"/todo.md")
		b.WriteString("; listing \".\" shows the roots. A search or listing of \".\" covers every root. Copy works across roots; move stays within one. ")
	}
	fmt.Fprintf(&b, "Permissions: %s. ", s.cfg.Permissions)
	if !s.cfg.Permissions.Has(security.PermWrite) {
		b.WriteString("Writing is off: the files are read-only to you. ")
	}
	fmt.Fprintf(&b, "Files over %s are refused; long files come back in parts with nextOffset. ", text.Size(s.cfg.MaxFileSize))
	b.WriteString("Secrets and version-control folders (such as .git, .env, *.pem) are blocked, and only common text, document, data and source file types can be opened. ")
	b.WriteString("Every result is JSON with success, and on failure error and code saying what to do next.")
	return b.String()
}

// schemas declares a tool's input and output schemas, generated from its intent type In and its
// result type Out, so the Go types are the one source of truth.
func schemas[In, Out any]() mcp.ToolOption {
	return func(t *mcp.Tool) {
		t.InputSchema = mcp.ToolInputSchema{}
		t.RawInputSchema = intents.Schema[In]()
		t.RawOutputSchema = intents.Schema[Out]()
	}
}
