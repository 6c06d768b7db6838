package tools

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// The files of several roots as MCP resources. A file's URI is file:/// and its path as the tools
// name it, its root's name first (file:///notes/todo.md is todo.md in the root named notes), and a
// read of a URI is routed to its root as a tool's path is (see route), then read by that root's
// server under its policy. resources/list lists the roots one after another in name order.

// severalRootsURIs says how a file URI names a file of one of several roots.
const severalRootsURIs = "file:/// and the file's path starting with its root's name, such as file:///notes/todo.md for todo.md in the root named notes"

// readResource answers resources/read over several roots: the read permission, the URI's path
// routed to its root exactly as a tool's target.path is (so file:///a/../b/x.md is a's
// "../b/x.md", outside a), then the root's read of the rest (see [Server.readResource]).
func (r *Roots) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	return r.top.guardResource(ctx, func(ctx context.Context, c *call) ([]mcp.ResourceContents, error) {
		if err := r.top.cfg.Permissions.Check(c.purpose, security.PermRead); err != nil {
			return nil, r.top.resourceError(err, "")
		}
		raw, err := resourcePath(uri, severalRootsURIs)
		if err != nil {
			return nil, r.top.resourceError(err, "")
		}
		roots := r.list()
		if len(roots) == 0 {
			return nil, r.top.resourceError(errs.New(errs.CodeNotAvailable, "no folder is served now: there is no file to read"), "")
		}
		s, rest, err := route(roots, raw, "uri")
		if err == nil && s == nil {
			err = errs.New(errs.CodeIsDir, "%q names the folder of the roots (%s), not a file: name a file as %s", uri, rootNames(roots), severalRootsURIs)
		}
		if err != nil {
			return nil, r.top.resourceError(err, "")
		}
		contents, err := s.readAt(ctx, c, uri, rest)
		if err != nil {
			return nil, s.resourceError(err, c.path)
		}
		return contents, nil
	})
}

// listResources returns the page of files of every root that follows cursor: the roots in name
// order, each root's files in its walk's order, [ResourcePageSize] files and [ResourceScanLimit]
// entries looked at in all, as one root's page. A cursor holds the position the page after starts
// from (see decodeRootsCursor). Roots may be removed and added while a client pages ([Roots.Remove]):
// a page goes on in the cursor's root if it is still served, and otherwise in the first root whose
// name sorts after it, as a folder removed under a cursor is passed over, rather than failing a
// listing the client cannot resume; a root added before the cursor is listed by the next listing
// from the start.
func (r *Roots) listResources(ctx context.Context, cursor mcp.Cursor) ([]mcp.Resource, mcp.Cursor) {
	page := []mcp.Resource{}
	from, after, err := decodeRootsCursor(cursor)
	if err != nil {
		return page, "" // admit refused it
	}
	ctx, cancel := context.WithTimeout(ctx, r.top.cfg.Timeout)
	defer cancel()
	roots := r.list()
	seen := 0
	for i, s := range roots {
		if s.cfg.Name < from {
			continue
		}
		start := ""
		if s.cfg.Name == from {
			start = after
		}
		got, last, n, more := s.walkResources(ctx, start, ResourcePageSize-len(page), ResourceScanLimit-seen)
		page, seen = append(page, got...), seen+n
		if more {
			return page, encodeCursor(s.cfg.Name + "/" + last)
		}
		// The root is done. Past the page's bounds or its deadline, the next page starts with
		// the next root.
		if len(page) == ResourcePageSize || seen == ResourceScanLimit || ctx.Err() != nil {
			if i+1 < len(roots) {
				return page, encodeCursor(roots[i+1].cfg.Name)
			}
			break
		}
	}
	return page, ""
}

// decodeRootsCursor returns the position a resources/list cursor of several roots holds: the root
// and the path in it the page after starts after, "" for the root's start. A cursor is, in base64
// as one root's (see decodeCursor), the root's name alone or the root's name and a path in it.
// The cursor of the first page, "", is the start of the first root.
func decodeRootsCursor(c mcp.Cursor) (root, after string, err error) {
	p, err := decodeCursor(c)
	if err != nil || p == "" {
		return "", "", err
	}
	root, after, _ = strings.Cut(p, "/")
	if ValidRootName(root) != nil {
		return "", "", errCursor
	}
	return root, after, nil
}
