package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/search"
	"github.com/packfs/packfs-mcp/tools/text"
)

// The root's files as MCP resources, for hosts that let a user attach a file to a conversation.
const (
	// ResourceTemplate is the URI template of a file under the root: file:/// and the file's
	// root-relative path, percent-encoded as in any URI ("file:///notes/to%20do.md"). The path is
	// the root's, never the host's: file:///etc/passwd names the root's etc/passwd. Its expansion
	// is reserved ({+path}) so that the path's slashes stand as they are; under a simple {path}
	// only the names at the top of the root would match.
	ResourceTemplate = "file:///{+path}"
	// ResourcePageSize is the most files one resources/list page names: about 30 KB of JSON, small
	// for a host to take in at once, and a tree of 40,000 files in 200 pages.
	ResourcePageSize = 200
	// ResourceScanLimit bounds the entries one page looks at past its cursor, hidden ones
	// included, so that a page over a tree of mostly hidden entries answers promptly, shorter, with
	// a cursor to go on from, instead of walking the rest of the tree to fill itself.
	ResourceScanLimit = 10 * ResourcePageSize
	// maxListRequest bounds the messages read to find a resources/list request: one holds a method
	// and a cursor (a path in base64), so a few KiB. Parsing every message instead would cost a
	// tools/call carrying a large file one more full decoding (dev/bench/README.md, Other
	// timings).
	maxListRequest = 16 << 10
	// fallbackTemplate matches the file: URIs ResourceTemplate does not (file://host/x, file:x),
	// so that their refusal says why instead of mcp-go's "handler not found". It is not listed.
	fallbackTemplate = "file:{+uri}"
	fallbackName     = "other file URIs"
)

// OffersResources reports whether the server offers the root's files as resources: when it offers
// the reader, whose permission and checks every resource read goes through.
func (s *Server) OffersResources() bool {
	return s.cfg.Permissions.Has(security.PermRead) && s.enabled(ReaderName)
}

// RegisterResources offers the root's files to m as resources, if [Server.OffersResources]: the
// template [ResourceTemplate] reads any file by its URI, and resources/list names the files the
// tools can see ([security.Visible]), [ResourcePageSize] at a time. m must have been made with
// server.WithResourceCapabilities and with hooks.
//
// mcp-go v1.2.1 lists only resources registered one by one, sorting all of them for every page:
// for a tree of files that change under it, that is a copy of the tree kept in step by hand. So
// the listing is made by hooks around mcp-go's own, empty, resources/list (see lister).
func (s *Server) RegisterResources(m *server.MCPServer, hooks *server.Hooks) {
	if !s.OffersResources() {
		return
	}
	registerResources(m, hooks, "A file under the served folder, by its path relative to that folder.", s.readResource,
		&lister{s: s, list: s.listResources, decode: func(c mcp.Cursor) error { _, err := decodeCursor(c); return err }})
}

// registerResources adds to m the files' template, described by what, whose reads read answers,
// and the hooks of l, which makes the pages of resources/list.
func registerResources(m *server.MCPServer, hooks *server.Hooks, what string, read server.ResourceTemplateHandlerFunc, l *lister) {
	m.AddResourceTemplate(mcp.NewResourceTemplate(ResourceTemplate, "files",
		mcp.WithTemplateDescription(what+" Reads pass the same checks as packfs-file-reader's: blocked names, file types and the size limit.")),
		read)
	m.AddResourceTemplate(mcp.NewResourceTemplate(fallbackTemplate, fallbackName), read)
	hooks.AddOnRequestInitialization(l.admit)
	hooks.AddAfterListResources(l.page)
	hooks.AddOnError(l.forget)
	hooks.AddAfterListResourceTemplates(func(_ context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
		res.ResourceTemplates = slices.DeleteFunc(res.ResourceTemplates, func(t mcp.ResourceTemplate) bool {
			return t.Name == fallbackName
		})
	})
}

// lister makes the pages of resources/list in two hooks. The first, admit, sees every request
// before mcp-go serves it and can refuse it with a JSON-RPC error: it runs a listing's checks (the
// list permission, the cursor, the rate limiter) and lets the listings that pass through. The
// second, page, runs after mcp-go's answer, which has no error to give, and puts in the page walked
// from the cursor, for an admitted listing only: a listing admit did not read (a message over
// maxListRequest) gets an empty page.
type lister struct {
	s *Server // checks and charges a listing
	// decode refuses a cursor this server did not give; list makes the page that follows one.
	decode func(mcp.Cursor) error
	list   func(context.Context, mcp.Cursor) ([]mcp.Resource, mcp.Cursor)
	// admitted holds the key (see requestKey) of each listing let through whose page is not made
	// yet; forget drops the ones mcp-go refuses after admit.
	admitted sync.Map
}

// admit runs a listing's checks, and records it as admitted when they pass. Other requests pass.
// The method is decoded as mcp-go decodes it: a byte search would miss an escaped one.
func (l *lister) admit(ctx context.Context, id any, message any) error {
	raw, ok := message.(json.RawMessage)
	if !ok || len(raw) > maxListRequest {
		return nil
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			Cursor mcp.Cursor `json:"cursor"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &req) != nil || req.Method != string(mcp.MethodResourcesList) {
		return nil // mcp-go answers what it cannot parse
	}
	c := &call{tool: SearcherName, purpose: "list", start: time.Now()}
	err := l.s.cfg.Permissions.Check(c.purpose, security.PermList)
	if err == nil {
		err = l.decode(req.Params.Cursor)
	}
	if err == nil {
		err = l.s.charge(c, false)
	}
	if err != nil {
		return l.s.resourceError(err, "")
	}
	l.admitted.Store(requestKey(ctx, id), true)
	return nil
}

// page puts the page of an admitted listing in mcp-go's answer res.
func (l *lister) page(ctx context.Context, id any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	if _, ok := l.admitted.LoadAndDelete(requestKey(ctx, id)); !ok {
		res.Resources, res.NextCursor = []mcp.Resource{}, ""
		return
	}
	res.Resources, res.NextCursor = l.list(ctx, req.Params.Cursor)
}

// forget drops a listing mcp-go refused after admit let it through, which page never sees.
func (l *lister) forget(ctx context.Context, id any, method mcp.MCPMethod, _ any, _ error) {
	if method == mcp.MethodResourcesList {
		l.admitted.Delete(requestKey(ctx, id))
	}
}

// requestKey identifies a request in flight: its session and its JSON-RPC id, with the id's type
// (1 and "1" are two requests).
func requestKey(ctx context.Context, id any) string {
	sid := ""
	if s := server.ClientSessionFromContext(ctx); s != nil {
		sid = s.SessionID()
	}
	return fmt.Sprintf("%s\x00%T:%v", sid, id, id)
}

// listResources returns the page of files that follows cursor in the walk's order, and the cursor
// of the page after it, or "" at the end. A cursor is the last path a page looked at, so a page
// starts where the last one stopped, whatever changed in between, and finding its place costs
// the listing of the folders that lead to that path, not a walk of everything before it.
func (s *Server) listResources(ctx context.Context, cursor mcp.Cursor) ([]mcp.Resource, mcp.Cursor) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return []mcp.Resource{}, "" // admit refused it
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	page, last, _, more := s.walkResources(ctx, after, ResourcePageSize, ResourceScanLimit)
	if !more {
		return page, ""
	}
	return page, encodeCursor(last)
}

// walkResources returns the files that follow the root-relative path after ("" for the start) in
// the walk's order, at most room of them and looking at no more than scan entries; the last path
// it looked at, how many it looked at, and whether more entries follow.
func (s *Server) walkResources(ctx context.Context, after string, room, scan int) (page []mcp.Resource, last string, seen int, more bool) {
	page = []mcp.Resource{}
	err := s.cfg.Root.Walk(ctx, ".", 0, func(info fsroot.Info, err error) error {
		if err != nil {
			return nil // an unreadable folder is left out, as a listing leaves it out
		}
		if after != "" && !search.WalkOrder(after, info.Path) {
			// At or before the cursor: enter only the folders on the way to it.
			if info.Type == fsroot.TypeDir && (info.Path == after || strings.HasPrefix(after, info.Path+"/")) && s.listed(info) {
				return nil
			}
			if info.Type == fsroot.TypeDir {
				return fs.SkipDir
			}
			return nil
		}
		if len(page) == room || seen == scan {
			more = true
			return fs.SkipAll
		}
		seen++
		last = info.Path
		if !s.listed(info) {
			if info.Type == fsroot.TypeDir {
				return fs.SkipDir
			}
			return nil
		}
		if r, ok := s.resource(info); ok {
			page = append(page, r)
		}
		return nil
	})
	if err != nil {
		s.cfg.Log.Printf("listing resources after %q: %v", s.show(after), err)
		more = last != "" // go on from there
	}
	return page, last, seen, more
}

// resource describes the visible entry info as a resource, if it is a file or a link to one.
func (s *Server) resource(info fsroot.Info) (mcp.Resource, bool) {
	if info.Type == fsroot.TypeSymlink {
		st, err := s.cfg.Root.Stat(info.Path)
		if err != nil {
			return mcp.Resource{}, false
		}
		info.Type, info.Size = st.Type, st.Size
	}
	if info.Type != fsroot.TypeFile {
		return mcp.Resource{}, false
	}
	name := s.show(info.Path) // as the tools name it: with its root's name, when they serve several
	return mcp.NewResource(fileURI(name), name,
		mcp.WithMIMEType(text.MediaType(info.Path, nil, true)), mcp.WithResourceSize(info.Size)), true
}

// decodeCursor returns the path a resources/list cursor holds, "" for none. A cursor is that path
// in standard base64, which mcp-go's own decoding of it also takes.
func decodeCursor(c mcp.Cursor) (string, error) {
	if c == "" {
		return "", nil
	}
	b, err := base64.StdEncoding.DecodeString(string(c))
	if err != nil || !fs.ValidPath(string(b)) || string(b) == "." {
		return "", errCursor
	}
	return string(b), nil
}

// errCursor refuses a resources/list cursor this server did not give.
var errCursor = &errs.Error{Code: errs.CodeInvalidArgument, Field: "cursor",
	Msg: "the cursor is not one this server gave: pass back the nextCursor of the page before, or none for the first page"}

// encodeCursor is the cursor that holds the path p.
func encodeCursor(p string) mcp.Cursor {
	return mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(p)))
}

// fileURI is the resource URI of the root-relative name.
func fileURI(name string) string {
	return (&url.URL{Scheme: "file", Path: "/" + name}).String()
}

// oneRootURIs says how a file URI names a file of one root, for the refusals of a URI that does not.
const oneRootURIs = "file:/// and the file's path relative to the root, such as file:///notes/todo.md"

// resourcePath returns the path a resource URI names, for the policy to judge as it judges a
// tool's target.path: the URI's path without its leading slash. form says, in a refusal, how a URI
// names a file here (see oneRootURIs).
func resourcePath(uri, form string) (string, error) {
	u, err := url.Parse(uri)
	switch {
	case err != nil, u.Scheme != "file", u.Opaque != "":
		return "", errs.New(errs.CodeInvalidPath, "%q is not a file URI this server reads: name a file as %s", uri, form)
	case u.Host != "" || u.User != nil:
		return "", errs.New(errs.CodeOutsideRoot, "the URI names a host (%q): this server reads only the files it serves, named as %s", u.Host, form)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", errs.New(errs.CodeInvalidPath, "the URI has a query or a fragment, which a file URI here does not take: use file:/// and the path alone")
	}
	return strings.TrimPrefix(u.Path, "/"), nil
}

// readResource answers resources/read. It reads as packfs-file-reader's read does, through the
// same pipeline (the read permission, the path policy and the lookup, the rate limiter, the size
// limit, the rooted filesystem), with the same deadline and recovery, and returns text with its
// media type, or a binary file as a base64 blob of at most [MaxContentBytes]. A refusal is an
// error whose message starts with the tools' code ("PATH_BLOCKED: ..."): mcp-go answers every
// resource handler's error as a JSON-RPC internal error (-32603) carrying that message.
func (s *Server) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	return s.guardResource(ctx, func(ctx context.Context, c *call) ([]mcp.ResourceContents, error) {
		contents, err := s.readFile(ctx, c, req.Params.URI)
		if err != nil {
			return nil, s.resourceError(err, c.path)
		}
		return contents, nil
	})
}

// guardResource runs read, a resource read, as a reader's call: on a goroutine of its own under
// the server's deadline, with a panic recovered as an INTERNAL refusal. read returns its refusals
// as the answer's errors (see resourceError).
func (s *Server) guardResource(ctx context.Context, read func(context.Context, *call) ([]mcp.ResourceContents, error)) ([]mcp.ResourceContents, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	type answer struct {
		contents []mcp.ResourceContents
		err      error
	}
	done := make(chan answer, 1)
	go func() {
		c := &call{tool: ReaderName, purpose: "read", start: time.Now()}
		defer func() {
			if r := recover(); r != nil {
				s.cfg.ErrorLog.Printf("panic reading resource %q: %v\n%s", c.path, r, debug.Stack())
				done <- answer{err: errs.New(errs.CodeInternal, "the server hit an internal error reading this resource; it logged the details and goes on serving")}
			}
		}()
		contents, err := read(ctx, c)
		done <- answer{contents, err}
	}()
	select {
	case a := <-done:
		return a.contents, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: reading the resource ran past the deadline of %v and was abandoned: try again, or read the file in parts with %s", errs.CodeTimeout, s.cfg.Timeout, ReaderName)
	}
}

// readFile reads the file uri names, for readResource.
func (s *Server) readFile(ctx context.Context, c *call, uri string) ([]mcp.ResourceContents, error) {
	if err := s.cfg.Permissions.Check(c.purpose, security.PermRead); err != nil {
		return nil, err
	}
	raw, err := resourcePath(uri, oneRootURIs)
	if err != nil {
		return nil, err
	}
	return s.readAt(ctx, c, uri, raw)
}

// readAt reads raw, the path in this root that uri names, as its contents: the policy and the
// lookup, the rate limiter and the size limit.
func (s *Server) readAt(ctx context.Context, c *call, uri, raw string) ([]mcp.ResourceContents, error) {
	name, e, err := s.lookup(raw)
	c.path = name
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if err := s.charge(c, false); err != nil {
		return nil, err
	}
	data, _, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	if err == nil {
		err = noKey(name, data)
	}
	if errors.Is(err, fsroot.ErrTooLarge) {
		return nil, errs.New(errs.CodeTooLarge, "%q is larger than the size limit of %s: read it in parts with %s (preferences.offset and preferences.limit)", s.show(name), text.Size(s.cfg.MaxFileSize), ReaderName)
	}
	if err != nil {
		return nil, err
	}
	isText := markdown.IsText(data)
	typ := text.MediaType(name, data, isText)
	if isText {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: typ, Text: string(data)}}, nil
	}
	if len(data) > MaxContentBytes {
		return nil, errs.New(errs.CodeTooLarge, "%q is a binary file of %d bytes, more than a resource carries (%s)", s.show(name), len(data), text.Size(MaxContentBytes))
	}
	return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: typ, Blob: base64.StdEncoding.EncodeToString(data)}}, nil
}

// resourceError is err as a resource request's error: the tools' code and message, which name the
// rule and only root-relative paths. An error no code maps is logged, as a tool call's is.
func (s *Server) resourceError(err error, name string) error {
	st := errs.Status(err, name, s.show)
	if st.Code == errs.CodeInternal {
		s.cfg.ErrorLog.Printf("resource %q: %v", name, err)
	}
	return errors.New(st.Code + ": " + st.Error)
}
