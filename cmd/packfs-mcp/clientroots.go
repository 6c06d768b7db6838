package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
// root, and does not hold the server's own files (the journal, another root's index or backups). A
// root that fails is refused with a line in the log, on stderr and to the client, and the others
// are served.

// rootsTimeout bounds how long the server waits for the client to list its roots.
const rootsTimeout = 10 * time.Second

// rootsInput is the key of the roots request in a tool call's input_required result.
const rootsInput = "roots"

// clientRoots serves the roots the client offers.
type clientRoots struct {
	a *app
	// mu guards stale, listing and calls.
	mu sync.Mutex
	// stale says the client's list may differ from the roots served: it has not been listed yet,
	// or has said it changed since.
	stale bool
	// listing is closed when the listing under way (handshake era) ends; nil when none is.
	listing chan struct{}
	// calls counts the tool calls running that began since the roots last changed (see enter).
	calls *sync.WaitGroup
	// applyMu makes one list at a time change the roots.
	applyMu sync.Mutex
}

func newClientRoots(a *app) *clientRoots {
	return &clientRoots{a: a, stale: true, calls: &sync.WaitGroup{}}
}

// enter counts a tool call as running until the returned func is called.
func (c *clientRoots) enter() func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	wg := c.calls
	wg.Add(1)
	return wg.Done
}

// drain returns a channel closed once every tool call that began before now has ended.
func (c *clientRoots) drain() <-chan struct{} {
	c.mu.Lock()
	old := c.calls
	c.calls = &sync.WaitGroup{}
	c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		old.Wait()
		close(done)
	}()
	return done
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
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := c.a.mcp.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	if err != nil {
		c.a.warn.Printf("asking the client for its roots (roots/list): %v; they are asked again when the client says they changed", err)
		return
	}
	c.apply(res.Roots)
}

// apply serves the roots of list, the client's whole list: the roots it no longer holds stop
// answering, and the new ones are checked and served. A root served already stays as it is.
func (c *clientRoots) apply(list []mcp.Root) {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
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
	var gone []*mount
	for _, m := range c.a.mountList() {
		if !slices.ContainsFunc(want, func(w wanted) bool { return w.dir == m.root.Dir() }) {
			gone = append(gone, m)
		}
	}
	if len(gone) > 0 {
		// Once no call can reach them, the calls that may have are waited for, then they close.
		for _, m := range gone {
			c.a.removeMount(m)
			m.log.Printf("no longer served: the client removed %s from its roots", m.uri)
		}
		drained := c.drain()
		for _, m := range gone {
			c.a.closeWhen(m, drained)
		}
	}
	for _, w := range want {
		if slices.ContainsFunc(c.a.mountList(), func(m *mount) bool { return m.root.Dir() == w.dir }) {
			continue
		}
		if err := c.serve(w.root, w.dir); err != nil {
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
	c.a.warn.Printf("client root %s%s refused: %v; the other roots are served", r.URI, name, why)
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
// its name (r's name when valid, else its folder's), made unique among the roots served.
func (c *clientRoots) serve(r mcp.Root, dir string) error {
	a := c.a
	fr, err := fsroot.Open(dir, fsroot.Options{AllowHardLinks: a.cfg.Security.AllowHardLinks})
	if err != nil {
		return clientRootError(dir, err)
	}
	resolved := fr.ResolvedDir()
	fail := func(err error) error {
		fr.Close()
		return err
	}
	if resolved == "/" {
		return fail(errors.New("it is the whole filesystem, which the server serves only when started with it as --root"))
	}
	mounts := a.mountList()
	var others []string
	for _, m := range mounts {
		if overlap(resolved, m.root.ResolvedDir()) {
			return fail(fmt.Errorf("it overlaps root %q (%s), and each file must belong to one root", m.name, m.uri))
		}
		others = append(others, m.root.ResolvedDir())
		for _, own := range m.ownDirs() {
			if within(resolveHost(own), resolved) {
				return fail(fmt.Errorf("it holds the server's own files (the index or backups of root %q), which no tool may reach", m.name))
			}
		}
	}
	if j := a.cfg.Journal.File; j != "" && within(resolveHost(filepath.Dir(j)), resolved) {
		return fail(errors.New("it holds the server's audit journal, which no tool may reach"))
	}
	name := r.Name
	if tools.ValidRootName(name) != nil {
		name = rootNameOf(dir)
	}
	taken := func(n string) bool { return slices.ContainsFunc(mounts, func(m *mount) bool { return m.name == n }) }
	if taken(name) {
		var specs []rootSpec
		for _, m := range mounts {
			specs = append(specs, rootSpec{name: m.name})
		}
		name = freeName(name, specs)
	}
	m, err := a.openMount(name, fr, others)
	if err != nil {
		return err
	}
	m.uri = r.URI
	if err := a.addMount(m); err != nil {
		return err
	}
	m.log.Printf("serving the client's root %s", r.URI)
	return nil
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

// followRoots registers what the server does with the client's roots: with roots of its own, it
// says once that the client's are not served; without, it lists them when the client has
// initialized and when they change.
func (a *app) followRoots() {
	a.mcp.AddNotificationHandler(string(mcp.MethodNotificationInitialized), func(ctx context.Context, _ mcp.JSONRPCNotification) {
		a.rootsNotice(ctx)
		if a.client != nil && clientOffersRoots(ctx) {
			go a.client.refresh(ctx)
		}
	})
	a.mcp.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, func(ctx context.Context, _ mcp.JSONRPCNotification) {
		if a.client == nil {
			a.rootsNotice(ctx)
			return
		}
		a.client.changed()
		if handshaken(ctx) {
			go a.client.refresh(ctx)
		}
	})
}

// rootsNotice logs, once, what the server does with the roots of the client in ctx: with folders
// of its own, that the client's are not served; without, when the client offers none, that
// nothing is served.
func (a *app) rootsNotice(ctx context.Context) {
	offers := clientOffersRoots(ctx)
	switch {
	case a.client == nil && offers:
		a.noticed.Do(func() {
			a.log.Print("the client offers folders as MCP roots; they are not served: the server was started with --root (or rootPath or roots in its config file), which wins")
		})
	case a.client != nil && !offers:
		a.noticed.Do(func() {
			a.warn.Print("no folder is served: the server was started without --root, and the client offers no MCP roots; every call answers NOT_AVAILABLE: start the server with --root DIR")
		})
	}
}

// rootsMiddleware runs before every tool call. With the client's roots, it brings them up to date
// first: in the handshake era by listing them, in protocol 2026-07-28 by asking for them with an
// input_required result (the client retries the call with them). It counts the call as running on
// the roots it began on, which a removed root waits for before it is closed.
func (a *app) rootsMiddleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c := a.client
		if c == nil {
			if server.IsModernRequest(ctx) {
				a.rootsNotice(ctx)
			}
			return next(ctx, req)
		}
		offers := clientOffersRoots(ctx)
		switch {
		case server.IsModernRequest(ctx):
			if res := server.RootsResponse(req.Params.InputResponses, rootsInput); res != nil {
				c.apply(res.Roots)
			} else if offers && c.isStale() {
				return server.NewInputRequestBuilder("").Roots(rootsInput).ToolResult(), nil
			}
		case offers:
			c.refresh(ctx)
		}
		if !offers {
			a.rootsNotice(ctx)
		}
		defer c.enter()()
		return next(ctx, req)
	}
}
