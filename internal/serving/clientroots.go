package serving

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/tools"
)

// Roots from the client. Started with no folder of its own (no --root, no rootPath or roots in the
// config file), the server serves the folders its client offers as MCP roots, each named and
// served as a --root NAME=DIR would be, and follows the client's changes: a new root is served
// and indexed, a removed one stops answering at once (its index and files are closed once the
// calls already running on it have ended).
//
// How the server learns the roots depends on the protocol era. A client of the initialize
// handshake (up to 2025-11-25) is asked with roots/list once it has sent notifications/initialized,
// and again on each notifications/roots/list_changed; a tool call that arrives while the list is
// out of date waits for it. A client of protocol 2026-07-28 cannot be sent requests: its first tool
// call, and the first after each list_changed, is answered with an input_required result asking
// for its roots (a multi round-trip request), and the call its client retries with them runs on
// the roots they name.
//
// Each root the client lists is checked as a root the user chose on the command line is: a file://
// URI naming a folder that exists, is not the whole filesystem, does not hold or lie in another
// root, and does not hold the server's own files (the journal, another root's index or history). A
// root that fails is refused with a line in the log, on stderr and to the client, and the others
// are served.

// rootsTimeout bounds how long the server waits for the client to list its roots.
const rootsTimeout = 10 * time.Second

// rootsInput is the key of the roots request in a tool call's input_required result.
const rootsInput = "roots"

// clientRoots serves the roots one client offers: tools of their own over the client's folders,
// which are shared with the other clients offering the same ones (see pool.go).
type clientRoots struct {
	a     *app
	id    string // the client's session, "" for the roots one call brings
	tools *tools.Roots
	// log and warn log what becomes of the client's roots: to stderr, and to this client alone.
	log, warn *log.Logger
	// mu guards stale, listing, served and ended.
	mu sync.Mutex
	// ended says the client's session has ended: a listing that answers after serves nothing.
	ended bool
	// stale says the client's list may differ from the roots served: it has not been listed yet,
	// or has said it changed since.
	stale bool
	// listing is closed when the listing under way (handshake era) ends; nil when none is.
	listing chan struct{}
	// served are the folders served, in the order served.
	served []served
	// applyMu makes one list at a time change the roots.
	applyMu sync.Mutex
}

// served is one of a client's folders.
type served struct {
	name string // the client's root's name among its roots
	uri  string // the client's root's URI
	dir  string // the folder, as the URI names it
	m    *mount
}

func newClientRoots(a *app, id string) *clientRoots {
	return &clientRoots{a: a, id: id, tools: a.tools.Fork(), stale: true,
		log: a.logs.to(id, mcp.LoggingLevelInfo), warn: a.logs.to(id, mcp.LoggingLevelWarning)}
}

// clientOf returns the roots of the client of the request or notification in ctx, made on its
// first call, or nil for a client without a session (protocol 2026-07-28 over HTTP, where each
// call brings its roots), when the server serves folders of its own, and once it has stopped.
func (a *app) clientOf(ctx context.Context) *clientRoots {
	s := server.ClientSessionFromContext(ctx)
	if !a.clientMode || s == nil || s.SessionID() == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	c := a.clients[s.SessionID()]
	if c == nil {
		c = newClientRoots(a, s.SessionID())
		a.clients[s.SessionID()] = c
	}
	return c
}

// stream returns the session the transport registered for the client id, on which the server
// can send it requests, or nil.
func (a *app) stream(id string) server.ClientSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.streams[id]
}

// streamOpened records the session s on which the server can send its client requests, and lists
// the client's roots on it: over HTTP, the session of a handshake client's initialize, whose
// requests wait for the client to open its event stream (GET /mcp); on stdio, the one session,
// opened before the client initializes (its roots are then listed once it has).
func (a *app) streamOpened(ctx context.Context, s server.ClientSession) {
	a.mu.Lock()
	a.streams[s.SessionID()] = s
	a.mu.Unlock()
	ctx = a.mcp.WithContext(ctx, s)
	if c := a.clientOf(ctx); c != nil && clientOffersRoots(ctx) {
		c.changed()
		go c.refresh(ctx)
	}
}

// streamClosed stops serving the roots of the client whose session s ended (over HTTP, deleted
// or idle for sessionIdleTTL).
func (a *app) streamClosed(s server.ClientSession) {
	a.mu.Lock()
	c := a.clients[s.SessionID()]
	delete(a.clients, s.SessionID())
	if a.streams[s.SessionID()] == s {
		delete(a.streams, s.SessionID())
	}
	a.mu.Unlock()
	if c != nil {
		c.mu.Lock()
		c.ended = true
		c.mu.Unlock()
		c.apply(nil, false)
	}
}

// changed records that the client's roots changed.
func (c *clientRoots) changed() {
	c.mu.Lock()
	c.stale = true
	c.mu.Unlock()
}

func (c *clientRoots) isStale() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stale
}

// pin counts a tool call as running on the client's folders until the returned func is called.
func (c *clientRoots) pin() func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	ms := make([]*mount, len(c.served))
	for i, s := range c.served {
		ms[i] = s.m
	}
	return c.a.pin(ms)
}

// refresh lists the client's roots (handshake era) and serves them, unless they are up to date. A
// listing already under way is waited for rather than repeated; when the list changed again while
// it ran, it is listed once more.
func (c *clientRoots) refresh(ctx context.Context) {
	for range 2 {
		c.mu.Lock()
		if !c.stale && c.listing == nil {
			c.mu.Unlock()
			return
		}
		ch := c.listing
		if ch == nil {
			ch = make(chan struct{})
			c.listing, c.stale = ch, false
			go c.list(context.WithoutCancel(ctx), ch)
		}
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// list asks the client for its roots and serves them, then closes done.
func (c *clientRoots) list(ctx context.Context, done chan struct{}) {
	defer func() {
		c.mu.Lock()
		c.listing = nil
		c.mu.Unlock()
		close(done)
	}()
	// The request travels on the session the transport registered for the client's stream
	// (over HTTP, the client's GET event stream), not on the one that served the call.
	stream := c.a.stream(c.id)
	if stream == nil {
		c.warn.Print("the client offers MCP roots but has no event stream open (over HTTP, GET /mcp) on which the server could ask for them (roots/list): none of its folders is served until it opens one")
		return
	}
	ctx, cancel := context.WithTimeout(c.a.mcp.WithContext(ctx, stream), rootsTimeout)
	defer cancel()
	res, err := c.a.mcp.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	if err != nil {
		c.warn.Printf("asking the client for its roots (roots/list): %v (over HTTP the request travels on the client's event stream, GET /mcp, which must be open); they are asked again when the client says they changed", err)
		return
	}
	c.apply(res.Roots, true)
}

// apply serves the roots of list, the client's whole list: the roots it no longer holds stop
// answering at once, and the new ones are checked and served. A root served already stays as it
// is. say tells whether to log the roots served and removed: not for a call that brings its own.
func (c *clientRoots) apply(list []mcp.Root, say bool) {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	c.mu.Lock()
	if c.ended {
		list = nil
	}
	c.mu.Unlock()
	type wanted struct {
		root mcp.Root
		dir  string
	}
	var want []wanted
	for _, r := range list {
		dir, err := clientDir(r.URI)
		if err != nil {
			c.refuse(r, err)
			continue
		}
		if !slices.ContainsFunc(want, func(w wanted) bool { return w.dir == dir }) {
			want = append(want, wanted{r, dir})
		}
	}
	c.mu.Lock()
	var gone []served
	c.served = slices.DeleteFunc(c.served, func(s served) bool {
		if slices.ContainsFunc(want, func(w wanted) bool { return w.dir == s.dir }) {
			return false
		}
		gone = append(gone, s)
		return true
	})
	c.mu.Unlock()
	for _, s := range gone {
		c.tools.Remove(s.name)
		c.a.release(s.m)
		if say {
			c.log.Printf("root %s: no longer served: the client removed %s from its roots", s.name, s.uri)
		}
	}
	for _, w := range want {
		c.mu.Lock()
		have := slices.ContainsFunc(c.served, func(s served) bool { return s.dir == w.dir })
		c.mu.Unlock()
		if have {
			continue
		}
		if err := c.serve(w.root, w.dir, say); err != nil {
			c.refuse(w.root, err)
		}
	}
	c.mu.Lock()
	c.stale = false
	c.mu.Unlock()
}

// refuse logs that the client's root r is not served, and why. The client receives the line
// without the path (see clientLog), so the root's name, when it has one, says which it was.
func (c *clientRoots) refuse(r mcp.Root, why error) {
	name := ""
	if r.Name != "" {
		name = fmt.Sprintf(" (%q)", r.Name)
	}
	c.warn.Printf("client root %s%s refused: %v; the other roots are served", r.URI, name, why)
}

// clientDir returns the folder a root's URI names: only a file:// URI on this machine, naming an
// absolute path, names one.
func clientDir(uri string) (string, error) {
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "", errors.New("it is not a URI")
	case u.Scheme != "file":
		return "", errors.New("only file:// roots, folders on this machine, are served")
	case u.Host != "" && u.Host != "localhost":
		return "", fmt.Errorf("it names a folder on another machine (%s)", u.Host)
	case !filepath.IsAbs(u.Path):
		return "", errors.New("it names no absolute path")
	}
	return filepath.Clean(u.Path), nil
}

// serve checks the client's root r, the folder dir, as a root the user chose, and serves it under
// its name (r's name when valid, else its folder's), made unique among the client's roots.
func (c *clientRoots) serve(r mcp.Root, dir string, say bool) error {
	a := c.a
	fr, err := fsroot.Open(dir, fsroot.Options{AllowHardLinks: a.cfg.Security.AllowHardLinks})
	if err != nil {
		return clientRootError(dir, err)
	}
	if err := c.check(fr.ResolvedDir()); err != nil {
		fr.Close()
		return err
	}
	name := r.Name
	if tools.ValidRootName(name) != nil {
		name = rootNameOf(dir)
	}
	c.mu.Lock()
	var specs []rootSpec
	for _, s := range c.served {
		specs = append(specs, rootSpec{name: s.name})
	}
	c.mu.Unlock()
	if slices.ContainsFunc(specs, func(s rootSpec) bool { return s.name == name }) {
		name = freeName(name, specs)
	}
	m, err := a.acquire(name, fr)
	if err != nil {
		return err
	}
	tm := m.Mount // served under this client's name, which may not be the mount's (see acquire)
	tm.Name = name
	if err := c.tools.Add(tm); err != nil {
		a.release(m)
		return err
	}
	c.mu.Lock()
	c.served = append(c.served, served{name: name, uri: r.URI, dir: dir, m: m})
	c.mu.Unlock()
	if say {
		c.log.Printf("root %s: serving the client's root %s", name, r.URI)
	}
	return nil
}

// check reports why the folder resolved, a root the client offers, cannot be served: it is the
// whole filesystem, lies outside the folders the operator lets clients offer, overlaps another of
// the client's roots, or holds the server's own files or lies among them (a folder inside a root's
// index would put the index's files in reach of the tools).
func (c *clientRoots) check(resolved string) error {
	a := c.a
	if resolved == "/" {
		return errors.New("it is the whole filesystem, which the server serves only when started with it as --root")
	}
	if len(a.within) > 0 && !slices.ContainsFunc(a.within, func(w string) bool { return fsroot.HostWithin(resolved, w) }) {
		return errors.New("it is outside the folders the server lets clients offer (--client-roots-within)")
	}
	c.mu.Lock()
	for _, s := range c.served {
		if overlap(resolved, s.m.Root.ResolvedDir()) {
			c.mu.Unlock()
			return fmt.Errorf("it overlaps root %q (%s), and each file must belong to one root", s.name, s.uri)
		}
	}
	c.mu.Unlock()
	for _, m := range a.mountList() {
		for _, own := range m.ownDirs() {
			if overlap(resolveHost(own), resolved) {
				return fmt.Errorf("it holds, or lies in, the server's own files (the index or history of a root), which no tool may reach")
			}
		}
	}
	if j := a.cfg.Journal.File; j != "" && fsroot.HostWithin(resolveHost(filepath.Dir(j)), resolved) {
		return errors.New("it holds the server's audit journal, which no tool may reach")
	}
	if insideAny(resolved, stateAreas(a.cfg)) {
		return errors.New("it lies where the server keeps indexes and history, which no tool may reach")
	}
	return nil
}

// stateAreas are the folders, resolved, under which the server keeps the indexes and history of
// any root, open or not: the folders the operator named and every base packfs-mcp keeps state
// under. A client's root inside one could reach a closed root's index, or hold one that opens
// later.
func stateAreas(cfg Config) []string {
	var out []string
	for _, d := range []string{cfg.Semantic.IndexDir, cfg.HistoryDir} {
		if d != "" {
			out = append(out, resolveHost(d))
		}
	}
	for _, b := range stateBases() {
		out = append(out, resolveHost(b.dir))
	}
	if data := userDataDir(); filepath.IsAbs(data) {
		out = append(out, resolveHost(filepath.Join(data, "packfs-mcp")))
	}
	return out
}

// resolveWithin resolves the folders the clients' roots must lie in (--client-roots-within),
// each of which must be a folder that opens.
func resolveWithin(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		r, err := fsroot.Open(d, fsroot.Options{})
		if err != nil {
			return nil, fmt.Errorf("--client-roots-within %s: %v: name an existing folder the clients' roots must lie in", d, clientRootError(d, err))
		}
		out = append(out, r.ResolvedDir())
		r.Close()
	}
	return out, nil
}

// clientRootError says why a client's root, the folder dir, cannot be opened, without the host
// path, which the line names by its URI.
func clientRootError(dir string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("it does not exist")
	case errors.Is(err, fsroot.ErrNotDir) || errors.Is(err, syscall.ENOTDIR) || notFolder(dir):
		return errors.New("it is not a folder")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("it cannot be opened: permission denied")
	}
	return fmt.Errorf("it cannot be opened: %w", err)
}

// clientOffersRoots reports whether the client of the request or notification in ctx declared
// the roots capability: in the request's own metadata (protocol 2026-07-28), or in its handshake.
func clientOffersRoots(ctx context.Context) bool {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities != nil && info.ClientCapabilities.Roots != nil
	}
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	return ok && s.GetClientCapabilities().Roots != nil
}

// handshaken reports whether the session in ctx began with the initialize handshake, whose
// server may send it requests (roots/list).
func handshaken(ctx context.Context) bool {
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithProtocolVersion)
	return ok && s.ProtocolVersion() != "" && !mcp.IsModernProtocol(s.ProtocolVersion())
}

// followRoots registers what the server does with the clients' roots: with roots of its own, it
// says once that the client's are not served; without, it lists a client's when it has
// initialized and when they change, and stops serving them when its session ends.
func (a *app) followRoots(hooks *server.Hooks) {
	a.mcp.AddNotificationHandler(string(mcp.MethodNotificationInitialized), func(ctx context.Context, _ mcp.JSONRPCNotification) {
		a.rootsNotice(ctx)
		if c := a.clientOf(ctx); c != nil && clientOffersRoots(ctx) {
			go c.refresh(ctx)
		}
	})
	a.mcp.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, func(ctx context.Context, _ mcp.JSONRPCNotification) {
		if !a.clientMode {
			a.rootsNotice(ctx)
			return
		}
		c := a.clientOf(ctx)
		if c == nil {
			return // a client without a session brings its roots with each call
		}
		c.changed()
		if handshaken(ctx) {
			go c.refresh(ctx)
		}
	})
	if a.clientMode {
		hooks.AddOnRegisterSession(a.streamOpened)
		hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { a.streamClosed(s) })
	}
}

// rootsNotice logs, once, what the server does with the roots of the client in ctx: with folders
// of its own, that the client's are not served; without, when the client offers none, that
// nothing is served.
func (a *app) rootsNotice(ctx context.Context) {
	offers := clientOffersRoots(ctx)
	switch {
	case !a.clientMode && offers:
		a.noticed.Do(func() {
			a.log.Print("the client offers folders as MCP roots; they are not served: the server was started with --root (or rootPath or roots in its config file), which wins")
		})
	case a.clientMode && !offers:
		a.noticed.Do(func() {
			a.warn.Print("no folder is served: the server was started without --root, and the client offers no MCP roots; every call answers NOT_AVAILABLE: start the server with --root DIR")
		})
	}
}

// clientKey is the context key of the roots a tool call runs on (see rootsMiddleware).
type clientKey struct{}

// registerTools registers the tools. With the clients' roots, each call runs on the roots of its
// own client, which rootsMiddleware has brought up to date.
func (a *app) registerTools() {
	if !a.clientMode {
		a.tools.Register(a.mcp)
		return
	}
	for _, t := range a.tools.Tools() {
		a.mcp.AddTool(t.Tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if c, ok := ctx.Value(clientKey{}).(*clientRoots); ok {
				return c.tools.Handle(ctx, req)
			}
			return t.Handler(ctx, req) // no roots at all: NOT_AVAILABLE
		})
	}
}

// registerResources offers the roots' files as MCP resources. With the clients' roots, each
// listing and read is of the calling client's roots, brought up to date first in the handshake
// era; a client without a session (protocol 2026-07-28 over HTTP) has none to list.
func (a *app) registerResources(hooks *server.Hooks) {
	if !a.clientMode {
		a.tools.RegisterResources(a.mcp, hooks)
		return
	}
	a.tools.RegisterResourcesOf(a.mcp, hooks, func(ctx context.Context) (*tools.Roots, func()) {
		c := a.clientOf(ctx)
		if c == nil {
			return a.tools, func() {}
		}
		if handshaken(ctx) && clientOffersRoots(ctx) {
			c.refresh(ctx)
		}
		return c.tools, c.pin()
	})
}

// rootsMiddleware runs before every tool call. With the clients' roots, it brings the calling
// client's up to date first: in the handshake era by listing them, in protocol 2026-07-28 by
// asking for them with an input_required result (the client retries the call with them). Over
// HTTP, a client of protocol 2026-07-28 has no session: each of its calls is asked for its roots
// and runs on them. The call pins the folders it runs on until it ends.
func (a *app) rootsMiddleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !a.clientMode {
			if server.IsModernRequest(ctx) {
				a.rootsNotice(ctx)
			}
			return next(ctx, req)
		}
		offers := clientOffersRoots(ctx)
		if !offers {
			a.rootsNotice(ctx)
		}
		given := server.RootsResponse(req.Params.InputResponses, rootsInput)
		c := a.clientOf(ctx)
		switch {
		case c == nil && given == nil && offers:
			return server.NewInputRequestBuilder("").Roots(rootsInput).ToolResult(), nil
		case c == nil: // no session: the call's own roots, for this call
			c = newClientRoots(a, "")
			if given != nil {
				c.apply(given.Roots, false)
			}
			defer c.apply(nil, false)
		case !server.IsModernRequest(ctx):
			if offers {
				c.refresh(ctx)
			}
		case given != nil:
			c.apply(given.Roots, true)
		case offers && c.isStale():
			return server.NewInputRequestBuilder("").Roots(rootsInput).ToolResult(), nil
		}
		defer c.pin()()
		return next(context.WithValue(ctx, clientKey{}, c), req)
	}
}
