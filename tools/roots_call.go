package tools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
)

// A call to tools over several roots is decoded and judged (permission, arguments) once, as one
// root's server would; then each path it names is routed to its root, and the call, its paths made
// relative to that root, runs on that root's server. The answer's paths are given back their root's
// name (see [result.Rebase]). A call about ".", the roots themselves, is answered here, and a search of "."
// runs on every root, merged.

// admitRoots judges a call as one root's server would (permission, arguments: see admit), and
// returns its intent and the roots served now, or NOT_AVAILABLE when there are none yet.
func admitRoots[T any](r *Roots, c *call) (T, []*Server, error) {
	in, err := admit[T](r.top, c)
	if err != nil {
		return in, nil, err
	}
	roots := r.list()
	if len(roots) == 0 {
		return in, nil, errs.New(errs.CodeNotAvailable, "no folder is served yet: the client has not listed any file:// root; add a folder to the client's roots, or start the server with --root")
	}
	return in, roots, nil
}

// route finds the root a path argument names and the path inside it; a nil root with no error is
// ".", which holds the roots. A host path is routed to the root whose folder holds it, whose policy
// then judges it whole. Nothing else about the path is judged here: the root's policy judges the
// rest, so "notes/../work/x.md" is notes' "../work/x.md", outside that root.
func route(roots []*Server, raw, field string) (*Server, string, error) {
	if path.IsAbs(raw) {
		clean := path.Clean(raw)
		for _, s := range roots {
			for _, dir := range []string{s.cfg.Root.Dir(), s.cfg.Root.ResolvedDir()} {
				if fsroot.HostWithin(clean, dir) {
					return s, raw, nil
				}
			}
		}
		return nil, "", &errs.Error{Code: errs.CodeOutsideRoot, Field: field, Msg: "that absolute path is outside every root: " +
			"use a path that starts with a root's name, such as \"" + roots[0].cfg.Name + "/notes/todo.md\"; list \".\" to see the roots"}
	}
	p := raw
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	if p == "" || p == "." {
		return nil, ".", nil
	}
	first, rest, _ := strings.Cut(p, "/")
	if first == ".." {
		return nil, "", &errs.Error{Code: errs.CodeOutsideRoot, Field: field, Msg: fmt.Sprintf(
			"path %q climbs above the roots: start it with a root's name (%s)", raw, rootNames(roots))}
	}
	for _, s := range roots {
		if s.cfg.Name == first {
			if rest == "" {
				rest = "."
			}
			return s, rest, nil
		}
	}
	return nil, "", &errs.Error{Code: errs.CodeNotFound, Field: field, Msg: fmt.Sprintf(
		"no root is named %q: a path starts with a root's name (%s)%s", first, rootNames(roots), holders(roots, p))}
}

// holders says where p, a path given without its root's name, is: in the roots that hold it as a
// folder or a file the tools may open, under their policy, or else what such a path looks like.
func holders(roots []*Server, p string) string {
	var in []string
	for _, s := range roots {
		if _, e, err := s.lookup(p); err == nil {
			info, err := e.Info()
			e.Close()
			if err == nil && (info.Type == fsroot.TypeDir || s.cfg.Root.Refuses(info) == nil) {
				in = append(in, strconv.Quote(s.cfg.Name+"/"+p))
			}
		}
	}
	switch len(in) {
	case 0:
		return fmt.Sprintf(", such as %q; list \".\" to see the roots", roots[0].cfg.Name+"/"+p)
	case 1:
		return ": it is at " + in[0]
	}
	return ": it is at each of " + strings.Join(in, ", ") + "; name the one you mean"
}

func rootNames(roots []*Server) string {
	names := make([]string, len(roots))
	for i, s := range roots {
		names[i] = s.cfg.Name
	}
	return strings.Join(names, ", ")
}

// on runs the call on root s with in as its arguments, and returns its answer with the root's name
// in its paths. Its failure is mapped by s, which names the paths as the caller does.
func (r *Roots) on(ctx context.Context, c *call, s *Server, in any, h func(*Server) handlerFunc) (any, error) {
	out, name, err := r.sub(ctx, c, s, s, in, h)
	if err != nil {
		return nil, err
	}
	out = result.Rebase(out, s.show)
	if v, ok := out.(result.Searcher); ok && c.purpose == "relationships" {
		r.otherRoots(s, name, &v.DocumentLinks)
		for i := range v.Documents {
			if name, ok := strings.CutPrefix(v.Documents[i].Path, s.cfg.Name+"/"); ok {
				r.otherRoots(s, name, &v.Documents[i].DocumentLinks)
			}
		}
		out = v
	}
	return out, nil
}

// statusOtherRoot marks a link that climbs out of its root into another one.
const statusOtherRoot = "otherRoot"

// otherRoots marks the links of doc, a document of root s, that climb out of s into another root:
// their status becomes otherRoot, and to the path they name there. It works from the link as
// written and the roots' folders, never from the filesystem: relationships stay within a root, and
// such a link is never followed, only named.
func (r *Roots) otherRoots(s *Server, doc string, d *result.DocumentLinks) {
	moved := map[[2]any]bool{}
	for i, l := range d.Links {
		if l.Status != string(markdown.StatusBroken) && l.Status != search.StatusUnresolved || l.Kind == string(markdown.KindWiki) {
			continue
		}
		target, err := url.PathUnescape(l.Target)
		if err != nil || path.IsAbs(target) || strings.Contains(target, ":") {
			continue
		}
		host := path.Join(s.cfg.Root.Dir(), path.Dir(doc), target)
		if fsroot.HostWithin(host, s.cfg.Root.Dir()) {
			continue // broken within its own root
		}
		for _, o := range r.list() {
			if rel, ok := fsroot.HostRel(host, o.cfg.Root.Dir()); ok && o != s {
				d.Links[i].Status, d.Links[i].To = statusOtherRoot, o.show(rel)
				moved[[2]any{l.Line, l.Target}] = true
			}
		}
	}
	d.Broken = slices.DeleteFunc(d.Broken, func(l result.LinkEntry) bool { return moved[[2]any{l.Line, l.Target}] })
}

func reader(s *Server) handlerFunc   { return s.read }
func searcher(s *Server) handlerFunc { return s.discover }
func writer(s *Server) handlerFunc   { return s.update }

// top is the answer about ".", the folder of roots, which holds nothing else and cannot change.
func topError(field string) error {
	return &errs.Error{Code: errs.CodeRoot, Field: field, Msg: "\".\" is the folder of roots, which cannot be written, deleted, moved or copied: name a path inside a root; list \".\" to see the roots"}
}

func (r *Roots) read(ctx context.Context, c *call) (any, error) {
	in, roots, err := admitRoots[intents.Access](r, c)
	if err != nil {
		return nil, err
	}
	if reads := in.Target.Reads; len(reads) > 0 {
		paths := make([]string, len(reads))
		for i, r := range reads {
			paths[i] = r.Path
		}
		return r.several(ctx, c, roots, "target.reads", paths, 0, func(idx []int, paths []string, _ int) any {
			in.Target.Reads = make([]intents.ReadRange, len(idx))
			for j, i := range idx {
				in.Target.Reads[j] = reads[i]
				in.Target.Reads[j].Path = paths[j]
			}
			return in
		}, reader)
	}
	s, rest, err := route(roots, in.Target.Path, "target.path")
	if err != nil {
		return nil, err
	}
	if s == nil {
		return r.readTop(c, in.Purpose)
	}
	in.Target.Path = rest
	return r.on(ctx, c, s, in, reader)
}

// readTop answers a read of ".": it exists, and is a folder.
func (r *Roots) readTop(c *call, purpose string) (any, error) {
	if err := r.top.charge(c, false); err != nil {
		return nil, err
	}
	if row, _ := PurposeOf(ReaderName, purpose); row.accessTop != nil {
		return row.accessTop(c)
	}
	return nil, &errs.Error{Code: errs.CodeIsDir, Field: "target.path", Msg: "\".\" is the folder of roots: list it with packfs-file-searcher (purpose \"list\") to see them, and name a file inside one"}
}

func (r *Roots) discover(ctx context.Context, c *call) (any, error) {
	in, roots, err := admitRoots[intents.Discover](r, c)
	if err != nil {
		return nil, err
	}
	if len(in.Target.Paths) > 0 {
		return r.several(ctx, c, roots, "target.paths", in.Target.Paths, in.Options.Offset, func(_ []int, paths []string, offset int) any {
			in.Target.Paths, in.Options.Offset = paths, offset
			return in
		}, searcher)
	}
	s, rest, err := route(roots, in.Target.Path, "target.path")
	if err != nil {
		return nil, err
	}
	if s != nil {
		in.Target.Path = rest
		return r.on(ctx, c, s, in, searcher)
	}
	if row, _ := PurposeOf(SearcherName, in.Purpose); row.discoverTop != nil {
		return row.discoverTop(r, ctx, c, in, roots)
	}
	return nil, &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.path", Msg: fmt.Sprintf(
		"relationships stay within one root: name a root's folder (%s) or its documents as target.path", rootNames(roots))}
}

func (r *Roots) update(ctx context.Context, c *call) (any, error) {
	in, roots, err := admitRoots[intents.Update](r, c)
	if err != nil {
		return nil, err
	}
	s, err := routeTargets(roots, &in)
	if err != nil {
		return nil, err
	}
	for i, e := range in.Edits {
		if e.Path == "" {
			continue
		}
		field := fmt.Sprintf("edits[%d].path", i)
		es, erest, err := route(roots, e.Path, field)
		if err != nil {
			return nil, err
		}
		if es != s {
			return nil, &errs.Error{Code: errs.CodeInvalidArgument, Field: field, Msg: fmt.Sprintf(
				"an edit changes files of one root, and target.path is in %q: edit the files of each root in a call of their own", s.cfg.Name)}
		}
		in.Edits[i].Path = erest
	}
	if in.Target.Destination == "" { // only move and copy take one
		return r.on(ctx, c, s, in, writer)
	}
	d, drest, err := route(roots, in.Target.Destination, "target.destination")
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, topError("target.destination")
	}
	row, _ := PurposeOf(WriterName, in.Purpose)
	switch {
	case d == s:
		in.Target.Destination = drest
		return r.on(ctx, c, s, in, writer)
	case !row.acrossRoots:
		return nil, &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.destination", Msg: fmt.Sprintf(
			"a move stays within one root, and %q is in root %q, target.path in %q: copy it there (purpose \"copy\"), then delete it",
			in.Target.Destination, d.cfg.Name, s.cfg.Name)}
	}
	in.Target.Destination = drest
	return r.copyAcross(ctx, c, s, d, in)
}

// routeTargets finds the root of in's target.path, or of every one of target.paths, which must be
// one root, and rewrites them to paths within it.
func routeTargets(roots []*Server, in *intents.Update) (*Server, error) {
	if len(in.Target.Paths) == 0 {
		s, rest, err := route(roots, in.Target.Path, "target.path")
		if err == nil && s == nil {
			err = topError("target.path")
		}
		in.Target.Path = rest
		return s, err
	}
	var s *Server
	for i, p := range in.Target.Paths {
		field := fmt.Sprintf("target.paths[%d]", i)
		ps, rest, err := route(roots, p, field)
		if err == nil && ps == nil {
			err = topError(field)
		}
		if err != nil {
			return nil, err
		}
		if s != nil && ps != s {
			return nil, &errs.Error{Code: errs.CodeInvalidArgument, Field: field, Msg: fmt.Sprintf(
				"a move of several files stays within one root, and target.paths[0] is in %q, %s in %q: move the files of each root in a call of their own", s.cfg.Name, field, ps.cfg.Name)}
		}
		s, in.Target.Paths[i] = ps, rest
	}
	return s, nil
}

// copyAcross copies target.path of root from to target.destination of root to: the source is
// judged by from's policy, the destination by to's, and the copy is written by to.
func (r *Roots) copyAcross(ctx context.Context, c *call, from, to *Server, in intents.Update) (any, error) {
	out, _, err := r.sub(ctx, c, to, from, in, writer)
	if err != nil {
		return nil, err
	}
	w := out.(result.Writer)
	w.Path = from.show(w.Path)
	for i := range w.Skipped {
		w.Skipped[i].Path = from.show(w.Skipped[i].Path)
	}
	w.Destination = to.show(w.Destination)
	for i := range w.WouldCopy {
		w.WouldCopy[i] = to.show(w.WouldCopy[i])
	}
	return w, nil
}

// sub runs the call on root s with in as its arguments, and returns the answer as s gave it and the
// path it was about, inside its root. from is the root target.path is in: s, or for a copy across
// roots the source's. A failure is mapped here, naming each path with its root: target.path's with
// from's, target.destination's with s's.
func (r *Roots) sub(ctx context.Context, c *call, s, from *Server, in any, h func(*Server) handlerFunc) (any, string, error) {
	sc := *c
	sc.raw, sc.in, sc.path = nil, in, ""
	if from != s {
		sc.from = from
	}
	out, err := h(s)(ctx, &sc)
	c.path = from.show(sc.path)
	if err != nil {
		show := from.show
		if fe := (*errs.File)(nil); errors.As(err, &fe) && fe.Field == "target.destination" {
			show = s.show
		}
		st := errs.Status(err, sc.path, show)
		if st.Code == errs.CodeInternal {
			s.cfg.ErrorLog.Printf("%s %s %q: %v", c.tool, c.purpose, c.path, err)
		}
		return nil, "", &errs.Mapped{Status: st}
	}
	return out, sc.path, nil
}
