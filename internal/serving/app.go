package serving

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/progress"
)

// App is a server built from a [Config]: its roots, policy, limiter, tools and journal, ready to
// listen on stdio or HTTP, or to answer one call.
type App struct{ a *app }

// Build opens cfg's roots and wires the policy, the limiter and the tools. With no root configured,
// the folders come from the client. Its error about a root that cannot be served says why and what
// to pass instead.
func Build(cfg Config, logger *log.Logger) (*App, error) {
	a, err := build(cfg, logger)
	if err != nil {
		return nil, err
	}
	return &App{a}, nil
}

// WithProgress returns c with fn receiving the progress of long tool calls and of
// [App.RefreshIndex].
func (c Config) WithProgress(fn func(progress.Report)) Config {
	c.progress = fn
	return c
}

// Close closes the journal and every root.
func (s *App) Close() { s.a.close() }

// RefuseUnoffered registers, for each tool the configuration does not offer, a stand-in that says
// what is off and how to turn it on, and keeps the stand-ins out of tools/list.
func (s *App) RefuseUnoffered() { s.a.refuseUnoffered() }

// Banner is the line the server logs when it starts: its version, what it serves and how.
func (s *App) Banner() string { return s.a.banner() }

// Background starts the work the server does besides answering calls (index builds, reconciles,
// sweeps), until ctx ends; [App.Wait] waits for it.
func (s *App) Background(ctx context.Context) { s.a.background(ctx) }

// Wait waits for the work [App.Background] started.
func (s *App) Wait() { s.a.wait() }

// Listen serves MCP on in and out (stdio) until ctx ends or in does.
func (s *App) Listen(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.a.listen(ctx, in, out)
}

// ListenHTTP serves MCP over streamable HTTP at the configured address until ctx ends.
func (s *App) ListenHTTP(ctx context.Context) error { return s.a.listenHTTP(ctx) }

// Tool returns the tool named name, a tool of [ToolNames], and whether the configuration offers
// it; one it does not offer is its refusal, which says what is off and how to turn it on.
func (s *App) Tool(name string) (tool mcpserver.ServerTool, offered bool) {
	tool, offered = findTool(s.a.tools.Tools(), name)
	if !offered {
		tool, _ = s.a.tools.Refusal(name, notOffered(s.a, name))
	}
	return tool, offered
}

// RefreshIndex brings every root's index up to date, as a server that has been running a while
// would have it, reporting its progress at most once each every to the [Config.WithProgress]
// hook.
func (s *App) RefreshIndex(ctx context.Context, every time.Duration) {
	a := s.a
	for _, m := range a.mountList() {
		if m.Engine == nil {
			continue
		}
		m.buildIndex(ctx, every, func(st semantic.Progress) {
			if a.cfg.progress != nil {
				msg := st.String()
				if a.named {
					msg = "root " + m.Name + ": " + msg
				}
				a.cfg.progress(progress.Report{Done: st.Done, Total: st.Total, Message: msg})
			}
		})
	}
}

// ForgetHistory removes from the history what it keeps of name (a file, or everything below a
// folder; "." for all of it), at once, and returns how many changes it forgot. With several roots,
// name starts with its root's name.
func (s *App) ForgetHistory(ctx context.Context, name string) (int, error) {
	for _, m := range s.a.mountList() {
		rel := name
		if s.a.named {
			first, rest, _ := strings.Cut(name, "/")
			if first != m.Name {
				continue
			}
			if rel = rest; rel == "" {
				rel = "."
			}
		}
		if m.History == nil {
			return 0, errors.New("this server keeps no history (--no-history, or no folder for it outside the root)")
		}
		rel, err := m.Policy.Clean(rel) // as a tool call's path is cleaned
		if err != nil {
			return 0, err
		}
		return m.History.Forget(ctx, rel, true)
	}
	return 0, fmt.Errorf("no root is named %q", name)
}

// Record writes one tool call, req answered res after it started at start, to the journal, when
// one is configured; id is the call's id as the journal records it.
func (s *App) Record(ctx context.Context, id any, req *mcp.CallToolRequest, res *mcp.CallToolResult, start time.Time) {
	s.a.record(ctx, id, req, res, start)
}

// Doctor prints what a server on cfg would do (its permissions and tools, policy, limits, and
// where its index, history and journal live), then checks that it can work, without making any
// folder. It reports whether every check passed; its error is a configuration that cannot be
// described. A root that cannot be opened is a failed check.
func Doctor(cfg Config, logger *log.Logger, w io.Writer) (passed bool, err error) {
	cfg.inspect = true // doctor changes nothing: no index, history or lock folder is made
	a, err := build(cfg, logger)
	if rootErr := (badRoot{}); errors.As(err, &rootErr) {
		// No server can be built without its root, but the report still shows what one on these
		// flags would do, with the root check failed and the reason.
		a, err := unrooted(cfg, rootErr.dir)
		if err != nil {
			return false, err
		}
		a.describe(w)
		return report(w, []check{checkRuntime(runtime.Version()), {false, rootErr.Error()}}), nil
	}
	if err != nil {
		return false, err
	}
	defer a.close()
	a.describe(w)
	return report(w, a.checks()), nil
}
