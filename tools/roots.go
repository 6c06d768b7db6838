package tools

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
)

// Mount is one folder the tools serve: its rooted filesystem and policy, and its own search index
// and history. It is the one definition of a served root: a [Config] holds one beside the settings
// every root shares, and the server's own record of a folder (its index's place, its background
// work) holds one too. Nothing crosses from one mount into another but a copy the writer makes.
type Mount struct {
	// Name is the first element of every path inside the mount when the tools serve several
	// (see [Roots]); "" for a root served on its own, whose paths do not name it.
	Name string
	// Root and Policy are required to serve the mount.
	Root   *fsroot.Root
	Policy *security.Policy
	// Engine, when set, serves search_semantic and relationships and is kept in step with every
	// write. If nil, those purposes answer NOT_AVAILABLE.
	Engine *semantic.Engine
	// History, when set, keeps what every change replaces, so that it can be undone; it lies
	// outside Root. If nil, changes are final.
	History *history.Store
	// Ignore says what listings and searches leave out as noise (ignored files, caches); the index
	// is given the same. If nil, one of Root's own without a global excludes file.
	Ignore *security.Ignore
}

// Roots serves the three tools over one root or several. With one root (named false), paths are
// relative to it, exactly as a [Server] of its own takes them. With several (named true), a path's
// first element names its root ("notes/todo.md" is todo.md in the root named notes), "." holds the
// roots as folders, and searches without a root in their path search every root, merged into one
// answer. Roots may be added and removed while the tools serve (the client's roots change); a
// call that has begun on a root finishes on it. It is safe for concurrent use.
type Roots struct {
	top   *Server // the shared settings, without a root; it adapts the tools' handlers
	named bool
	mu    sync.RWMutex
	roots []*Server // sorted by name
}

// NewRoots returns the tools for the roots to be added with [Roots.Add], with shared's settings
// (its Mount is ignored: each root brings its own). With named false, the tools serve exactly one
// root, and its paths do not name it.
func NewRoots(shared Config, named bool) *Roots {
	shared.Mount = Mount{}
	return &Roots{top: New(shared), named: named}
}

// rootName is what a root's name may be: one path element of letters, digits, dots, hyphens and
// underscores, starting with a letter or digit, so that a model types it as it reads it.
var rootName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidRootName reports why name cannot name a root, or nil.
func ValidRootName(name string) error {
	if !rootName.MatchString(name) {
		return fmt.Errorf("root name %q is not valid: use up to 64 letters, digits, dots, hyphens and underscores, starting with a letter or digit", name)
	}
	return nil
}

// Add serves m. It refuses a second root when the tools serve one, a name that is not valid or
// is taken, and a folder that holds another root's or lies inside it: each file belongs to one root.
func (r *Roots) Add(m Mount) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.named {
		if len(r.roots) > 0 {
			return fmt.Errorf("these tools serve one root, and already serve %s", r.roots[0].cfg.Root.Dir())
		}
		m.Name = ""
	} else if err := ValidRootName(m.Name); err != nil {
		return err
	}
	dir := m.Root.ResolvedDir()
	for _, o := range r.roots {
		if o.cfg.Name == m.Name {
			return fmt.Errorf("a root is already named %q (%s): give this one another name", m.Name, o.cfg.Root.Dir())
		}
		if od := o.cfg.Root.ResolvedDir(); fsroot.HostWithin(dir, od) || fsroot.HostWithin(od, dir) {
			return fmt.Errorf("%s overlaps root %q (%s): roots may not hold one another", m.Root.Dir(), o.cfg.Name, o.cfg.Root.Dir())
		}
	}
	cfg := r.top.cfg
	cfg.Mount = m
	i, _ := slices.BinarySearchFunc(r.roots, m.Name, func(s *Server, name string) int { return strings.Compare(s.cfg.Name, name) })
	r.roots = slices.Insert(r.roots, i, New(cfg))
	return nil
}

// Remove stops serving the root named name at once, and reports whether one was. Calls already
// running on it finish; the caller closes its filesystem and index after.
func (r *Roots) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.roots)
	r.roots = slices.DeleteFunc(r.roots, func(s *Server) bool { return s.cfg.Name == name })
	return len(r.roots) < n
}

// Names returns the names of the roots served, sorted ("" for the one root of unnamed tools).
func (r *Roots) Names() []string {
	var names []string
	for _, s := range r.list() {
		names = append(names, s.cfg.Name)
	}
	return names
}

// list returns the roots served now.
func (r *Roots) list() []*Server {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.roots)
}

// only returns the one root of unnamed tools, or nil before it is added.
func (r *Roots) only() *Server {
	if roots := r.list(); !r.named && len(roots) == 1 {
		return roots[0]
	}
	return nil
}

// Fork returns tools with r's settings and roots of their own, none yet: the roots one client
// offers, served beside another client's.
func (r *Roots) Fork() *Roots {
	return &Roots{top: r.top, named: r.named}
}

// Handle runs the call req to one of the three tools on r's roots, as the handler [Roots.Tools]
// gives for req's tool does; the call's purpose is judged by the permissions as there.
func (r *Roots) Handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s, read, discover, update := r.top, r.read, r.discover, r.update
	if o := r.only(); o != nil {
		s, read, discover, update = o, o.read, o.discover, o.update
	}
	h, ok := map[string]handlerFunc{ReaderName: read, SearcherName: discover, WriterName: update}[req.Params.Name]
	if !ok {
		return nil, fmt.Errorf("tool %q not found", req.Params.Name)
	}
	return s.adapt(req.Params.Name, h)(ctx, req)
}

// severalRoots ends each tool's description when the tools serve several roots: a client may
// show the model the tools and not the instructions, and the fields' own descriptions speak of
// one root. It names no root, since the roots may change while the listing stays.
const severalRoots = ` Several folders are served: a path starts with its folder's name, such as "notes/todo.md", and "." lists them.`

// Tools returns the tools offered under the permissions, with their handlers.
func (r *Roots) Tools() []server.ServerTool {
	if s := r.only(); s != nil {
		return s.Tools()
	}
	out := r.top.toolsWith(r.read, r.discover, r.update)
	for i := range out {
		if r.named {
			out[i].Tool.Description += severalRoots
		}
	}
	return out
}

// Register adds to m every tool whose permissions are not all off.
func (r *Roots) Register(m *server.MCPServer) {
	for _, t := range r.Tools() {
		m.AddTool(t.Tool, t.Handler)
	}
}

// Refusal is [Server.Refusal] for these tools.
func (r *Roots) Refusal(name, why string) (server.ServerTool, bool) {
	return r.top.Refusal(name, why)
}

// OffersResources reports whether the roots' files are offered as resources: for one root, as
// [Server.OffersResources] says; for several, on the same conditions (the reader and its
// permission), whichever roots are served now, which may change (the client's roots).
func (r *Roots) OffersResources() bool {
	if s := r.only(); s != nil {
		return s.OffersResources()
	}
	return r.named && r.top.OffersResources()
}

// RegisterResources offers the roots' files as resources, if [Roots.OffersResources], as
// [Server.RegisterResources] offers one root's. With several roots, a file's URI is file:/// and
// its path as the tools name it, its root's name first (file:///notes/todo.md), a read goes to that
// root under its policy, and resources/list lists the roots one after another in name order, with
// the root in its cursor. The roots served may change after: each listing and read takes the
// roots served then.
func (r *Roots) RegisterResources(m *server.MCPServer, hooks *server.Hooks) {
	if s := r.only(); s != nil {
		s.RegisterResources(m, hooks)
		return
	}
	r.RegisterResourcesOf(m, hooks, func(context.Context) (*Roots, func()) { return r, func() {} })
}

// RegisterResourcesOf offers as resources, as [Roots.RegisterResources] does, the files of roots
// that depend on who asks (each client's own roots): of returns the roots of the request in ctx,
// r's forks (see [Roots.Fork]), and a func it calls once the request is answered.
func (r *Roots) RegisterResourcesOf(m *server.MCPServer, hooks *server.Hooks, of func(context.Context) (*Roots, func())) {
	if !r.named || !r.OffersResources() {
		return
	}
	read := func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		t, done := of(ctx)
		defer done()
		return t.readResource(ctx, req)
	}
	list := func(ctx context.Context, c mcp.Cursor) ([]mcp.Resource, mcp.Cursor) {
		t, done := of(ctx)
		defer done()
		return t.listResources(ctx, c)
	}
	registerResources(m, hooks, "A file under one of the served folders: its path starts with its folder's root name.", read,
		&lister{s: r.top, list: list, decode: func(c mcp.Cursor) error { _, _, err := decodeRootsCursor(c); return err }})
}

// Instructions tells the model, in a few sentences, where it works and what it may do.
func (r *Roots) Instructions() string {
	if s := r.only(); s != nil {
		return s.Instructions()
	}
	return r.top.instructions(r.Names())
}
