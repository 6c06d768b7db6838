package tools

import (
	"cmp"
	"context"
	"fmt"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
)

// relationships describes the document name, or each document in the folder name, which the
// lookup found to be a folder when isDir.
func (s *Server) relationships(ctx context.Context, c *call, in intents.Discover, name string, isDir bool) (any, error) {
	if s.cfg.Engine == nil {
		return nil, noIndex()
	}
	s.notifyIndexProgress(ctx, c)
	if isDir {
		out, from, total, err := s.walker().Folder(ctx, in, name)
		if err != nil {
			return nil, err
		}
		return pageOf(out, from, total, c), nil
	}
	if in.Options.Offset > 0 {
		return nil, &intents.FieldError{Field: "options.offset", Rule: "conflict",
			Message: fmt.Sprintf("options.offset pages the documents of a folder, but %q is a document: remove options.offset", s.show(name))}
	}
	out, err := s.walker().Relations(ctx, name)
	if err != nil {
		return nil, err
	}
	out.Metadata = c.meta()
	return out, nil
}

// pathsRelations describes each document of target.paths from options.offset, each judged by the
// policy and charged to the rate limiter as a call about it alone would be, with its own success
// or error.
func (s *Server) pathsRelations(ctx context.Context, c *call, in intents.Discover) (any, error) {
	if s.cfg.Engine == nil {
		return nil, noIndex()
	}
	s.notifyIndexProgress(ctx, c)
	from := min(in.Options.Offset, len(in.Target.Paths))
	out := s.walker().Documents(ctx, len(in.Target.Paths)-from, func(i int) (string, error) {
		i += from
		name, err := s.admitDocument(c, in.Target.Paths[i], fmt.Sprintf("target.paths[%d]", i))
		// A path the policy could not clean is named by its place, never echoed: it may be a host
		// path outside the root.
		return cmp.Or(name, fmt.Sprintf("target.paths[%d]", i)), err
	})
	return pageOf(out, from, len(in.Target.Paths), c), nil
}

// admitDocument runs the policy and the rate limiter on raw, the path at field of target.paths, and
// returns its cleaned name.
func (s *Server) admitDocument(c *call, raw, field string) (string, error) {
	name, e, err := s.lookup(raw)
	if err != nil {
		return name, err
	}
	info, err := e.Info()
	e.Close()
	if err != nil {
		return name, err
	}
	if info.Type == fsroot.TypeDir {
		return name, &errs.Error{Code: errs.CodeIsDir, Field: field, Msg: fmt.Sprintf(
			"%q is a folder: describe the documents in it with target.path %q, without target.paths", s.show(name), s.show(name))}
	}
	return name, s.charge(c, false)
}

// pageOf completes out, the documents from offset from of total, with its count and the offset of
// the next page.
func pageOf(out result.Searcher, from, total int, c *call) result.Searcher {
	out.TotalFound = ptr(total)
	if next := from + len(out.Documents); next < total {
		out.Truncated, out.NextOffset = true, &next
	}
	out.Metadata = c.meta()
	return out
}
