package tools

import (
	"context"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/result"
)

// Purpose is one thing a tool can be asked to do, with everything the server decides by it. The
// table of them, [Purposes], is the one place the vocabulary is spelled out: the permission check,
// the rate limiter, the progress messages and the call command read it, and TestPurposeTable
// holds the intents' purpose lists (their validate tags) to it.
type Purpose struct {
	// Name is the purpose as a call spells it, such as "search_semantic".
	Name string
	// Tool is the tool that takes it ([ReaderName], [SearcherName] or [WriterName]).
	Tool string
	// Permission is what the server must grant for it.
	Permission security.Permission
	// Cost is its rate-limit weight ([security.CostLight], [security.CostMedium] or
	// [security.CostHeavy]): heavier operations do more work per request. RecursiveCost is the
	// weight when it walks a whole tree (a recursive list); 0 means Cost.
	Cost, RecursiveCost int
	// NeedsIndex says its answer depends on the search index, so the call command brings the
	// index up to date first, as a server that has been running a while would have: ranked search
	// and relationships read it, delete reports the documents that link to what it removes, and
	// move keeps links working.
	NeedsIndex bool
	// Progress is what its progress messages call the work ("listing: 120 of 400 files"); "" for
	// the purpose's own name.
	Progress string

	// The writer's columns. target is how target.path is judged: as a file, a folder, or by what
	// is there. single marks a write of target.path alone: the call holds its lock from the read to
	// the rename and refreshes the index for it after (edit, move and copy lock and refresh the
	// files they write themselves). merge marks the writes whose CONFLICT carries the file's text
	// now. write does the purpose's work.
	target        kind
	single, merge bool
	// acrossRoots marks a write whose target.destination may be in another root than
	// target.path (copy); a move stays in one.
	acrossRoots bool
	write       func(s *Server, ctx context.Context, w *writeCall) error
	// access answers a reader purpose; accessTop answers it for ".", the folder of roots, when
	// the server has several (nil: refused, as no file).
	access    func(s *Server, ctx context.Context, c *call, in intents.Access) (any, error)
	accessTop func(c *call) (any, error)
	// discoverTop answers a searcher purpose for ".", the folder of roots (nil: refused, as
	// relationships stay within one root).
	discoverTop func(r *Roots, ctx context.Context, c *call, in intents.Discover, roots []*Server) (any, error)
	// discover answers a searcher purpose at target.path, cleaned (name), with what the lookup
	// found there (info, or infoErr when nothing is).
	discover func(s *Server, ctx context.Context, c *call, in intents.Discover, name string, info fsroot.Info, infoErr error) (any, error)
}

// purposes is the table, in the order the tools list them.
var purposes = []Purpose{
	{Name: "read", Tool: ReaderName, Permission: security.PermRead, Cost: security.CostLight,
		access: (*Server).readFiles},
	{Name: "metadata", Tool: ReaderName, Permission: security.PermRead, Cost: security.CostLight,
		access: (*Server).readMetadata, accessTop: func(c *call) (any, error) {
			return result.Reader{Status: result.Status{Success: true}, FileContent: result.FileContent{FileAttrs: result.FileAttrs{Type: "directory"}}, Metadata: c.meta()}, nil
		}},
	{Name: "exists", Tool: ReaderName, Permission: security.PermRead, Cost: security.CostLight,
		access: func(s *Server, _ context.Context, c *call, in intents.Access) (any, error) { return s.exists(c, in) },
		accessTop: func(c *call) (any, error) {
			return result.Reader{Status: result.Status{Success: true}, Exists: ptr(true), Metadata: c.meta()}, nil
		}},
	{Name: "history", Tool: ReaderName, Permission: security.PermRead, Cost: security.CostLight,
		access: (*Server).history},
	{Name: "list", Tool: SearcherName, Permission: security.PermList, Cost: security.CostMedium,
		RecursiveCost: security.CostHeavy, Progress: "listing", discover: (*Server).listFolder,
		discoverTop: func(r *Roots, ctx context.Context, c *call, in intents.Discover, roots []*Server) (any, error) {
			if in.Depth() == 1 {
				return r.listTop(c, in, roots)
			}
			return r.pages(ctx, c, roots, in)
		}},
	{Name: "search_content", Tool: SearcherName, Permission: security.PermSearch, Cost: security.CostHeavy,
		Progress: "searching", discover: (*Server).searchFiles,
		discoverTop: func(r *Roots, ctx context.Context, c *call, in intents.Discover, roots []*Server) (any, error) {
			return r.pages(ctx, c, roots, in)
		}},
	{Name: "search_semantic", Tool: SearcherName, Permission: security.PermSearch, Cost: security.CostHeavy,
		NeedsIndex: true, Progress: "building the search index",
		discover: func(s *Server, ctx context.Context, c *call, in intents.Discover, name string, _ fsroot.Info, _ error) (any, error) {
			return s.searchSemantic(ctx, c, in, name)
		},
		discoverTop: func(r *Roots, ctx context.Context, c *call, in intents.Discover, roots []*Server) (any, error) {
			return r.ranked(ctx, c, roots, in)
		}},
	{Name: "relationships", Tool: SearcherName, Permission: security.PermSearch, Cost: security.CostMedium,
		NeedsIndex: true, Progress: "building the search index",
		discover: func(s *Server, ctx context.Context, c *call, in intents.Discover, name string, info fsroot.Info, infoErr error) (any, error) {
			if infoErr != nil {
				return nil, infoErr
			}
			return s.relationships(ctx, c, in, name, info.Type == fsroot.TypeDir)
		}},
	{Name: "create", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium,
		single: true, write: func(s *Server, ctx context.Context, w *writeCall) error {
			return s.create(ctx, w.c, w.name, *w.in.Content, w.in.Options, w.out)
		}},
	{Name: "update", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium,
		single: true, merge: true, write: func(s *Server, ctx context.Context, w *writeCall) error {
			return s.replace(ctx, w.c, w.name, *w.in.Content, w.in.Target.Version, w.in.Options, w.out)
		}},
	{Name: "append", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium,
		single: true, merge: true, write: func(s *Server, ctx context.Context, w *writeCall) error {
			return s.appendTo(ctx, w.c, w.name, *w.in.Content, w.in.Target.Version, w.in.Options, w.out)
		}},
	{Name: "delete", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium, NeedsIndex: true,
		target: kindAny, single: true, write: func(s *Server, ctx context.Context, w *writeCall) error {
			return s.remove(ctx, w.c, w.name, w.in.Target.Version, w.in.Options, w.out)
		}},
	{Name: "edit", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium,
		target: kindLookup, write: func(s *Server, ctx context.Context, w *writeCall) error { return s.edit(ctx, w.c, w.name, w.in, w.out) }},
	{Name: "move", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium, NeedsIndex: true,
		target: kindAny, write: func(s *Server, ctx context.Context, w *writeCall) error { return s.move(ctx, w.c, w.name, w.in, w.out) }},
	// copy needs write alone, as move does: it makes no content readable that read permission
	// guards, since what it writes stays under the same policy. Copying a folder walks a whole tree.
	{Name: "copy", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium,
		RecursiveCost: security.CostHeavy, acrossRoots: true,
		target: kindAny, write: func(s *Server, ctx context.Context, w *writeCall) error { return s.copy(ctx, w.c, w.from, w.in, w.out) }},
	{Name: "mkdir", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium,
		target: kindDir, write: func(s *Server, _ context.Context, w *writeCall) error { return s.mkdir(w.name, w.out) }},
	{Name: "restore", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium,
		target: kindName, single: true, write: func(s *Server, ctx context.Context, w *writeCall) error {
			if w.in.Target.Call != "" {
				return s.undoing(w.c).Call(ctx, w.in.Target.Call, w.in.Options, w.out)
			}
			return s.undoing(w.c).Restore(ctx, w.name, w.in.Target.Version, w.in.Options, w.out)
		}},
}

// rows is purposes for the lookups ([PurposeOf]) that code the table's own handlers reach makes
// (the rate limiter, progress): set by init, since a reference to purposes from there would make
// the table's initialization depend on itself.
var rows []Purpose

func init() { rows = purposes }

// Purposes returns the table of purposes, in the order the tools list them.
func Purposes() []Purpose { return append([]Purpose(nil), rows...) }

// PurposeOf returns the purpose named name of the tool named tool, and false when that tool
// takes no such purpose. Names are matched exactly.
func PurposeOf(tool, name string) (Purpose, bool) {
	for _, p := range rows {
		if p.Name == name && p.Tool == tool {
			return p, true
		}
	}
	return Purpose{}, false
}

// cost is the rate-limit weight of p, recursive when it walks a whole tree.
func (p Purpose) cost(recursive bool) int {
	if recursive && p.RecursiveCost != 0 {
		return p.RecursiveCost
	}
	return p.Cost
}
