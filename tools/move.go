package tools

// The move: of one file or folder (target.path to target.destination), of several into one folder
// (target.paths), or of pairs each to its destination (target.moves); all or none, with the links
// to what moves rewritten and checked when options.preserveRelationships asks.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/relink"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
)

// moving is one file or folder a move takes, and where.
type moving struct {
	markdown.Moved
	dir bool
}

func (s *Server) move(ctx context.Context, c *call, name string, in intents.Update, out *result.Writer) error {
	isDir, err := s.isFolder(name)
	if err != nil {
		return err
	}
	if err := noFolderVersion(s.show(name), "move", isDir, in.Target.Version); err != nil {
		return err
	}
	dest, err := s.resolvePath(in.Target.Destination, kindOf(isDir))
	if err != nil {
		if !isDir {
			err = s.folderAsFile(err, dest, name)
		}
		return s.destErr(err)
	}
	if dest == "." {
		return fsroot.ErrIsRoot
	}
	out.Destination = dest
	return s.moveAll(ctx, c, []moving{{markdown.Moved{From: name, To: dest}, isDir}}, in, out)
}

// moveWritable judges where m puts what it moves: its destination, as its parents' links reach
// it, and, for a folder moved where a place that runs what is written goes on below (a folder
// moved to .config may hold fish/config.fish), every entry at its new path.
func (s *Server) moveWritable(ctx context.Context, m moving) error {
	refuse := func(err error, name string) error {
		return &errs.File{Err: err, Name: name, Field: "target.destination"}
	}
	real := m.To
	if e, err := s.cfg.Root.LookupLink(m.To); err == nil {
		real = e.Path()
		e.Close()
	}
	if err := s.writable(m.To, real); err != nil {
		return refuse(err, m.To)
	}
	if !m.dir || !s.cfg.Policy.HoldsAutoRun(real) {
		return nil
	}
	return s.cfg.Root.Walk(ctx, m.From, 0, func(info fsroot.Info, err error) error {
		if err != nil || info.Path == m.From {
			return nil
		}
		to := path.Join(real, strings.TrimPrefix(info.Path, m.From+"/"))
		if err := s.cfg.Policy.CheckWrite(to); err != nil {
			return refuse(err, to)
		}
		return nil
	})
}

// isFolder reports whether name is a folder, or a link to one.
func (s *Server) isFolder(name string) (bool, error) {
	info, err := s.cfg.Root.Lstat(name)
	if err != nil {
		return false, err
	}
	st, err := s.cfg.Root.Stat(name)
	return err == nil && st.Type == fsroot.TypeDir || info.Type == fsroot.TypeDir, nil
}

func kindOf(isDir bool) kind {
	if isDir {
		return kindDir
	}
	return kindFile
}

// moveMany answers a move of target.paths into the folder target.destination, each keeping its
// name, or of each of target.moves to its own destination: every one moves, or none does.
func (s *Server) moveMany(ctx context.Context, c *call, in intents.Update) (any, error) {
	pairs := in.Target.Moves
	if len(pairs) == 0 {
		for _, p := range in.Target.Paths {
			pairs = append(pairs, intents.MovePair{Path: p})
		}
	}
	var moves []moving
	at := map[string]int{} // destination -> index of the pair
	for i, pair := range pairs {
		m, err := s.movePair(c, in, i, pair)
		if err != nil {
			return nil, err
		}
		if j, ok := at[m.To]; ok {
			field := pairField(in, i, "destination")
			if len(in.Target.Moves) == 0 {
				field = pairField(in, i, "path") // what is the same is its name
			}
			return nil, &errs.Error{Code: errs.CodeInvalidArgument, Field: field, Msg: fmt.Sprintf(
				"%s and %s would both be %q: a folder holds one file of a name; give each its own destination (target.moves)", pairField(in, j, "path"), pairField(in, i, "path"), s.show(m.To))}
		}
		at[m.To] = i
		moves = append(moves, m)
	}
	if err := s.chained(in, moves); err != nil {
		return nil, err
	}
	if err := s.charge(c, false); err != nil {
		return nil, err
	}
	out := result.Writer{Status: result.Status{Success: true}}
	if len(in.Target.Moves) == 0 {
		out.Destination = path.Dir(moves[0].To)
	}
	if err := s.moveAll(ctx, c, moves, in, &out); err != nil {
		return nil, err
	}
	for _, m := range moves {
		out.Moved = append(out.Moved, result.MovedFile{Path: m.From, Destination: m.To})
	}
	out.Metadata = c.meta()
	return out, nil
}

// pairField names the field of the i-th file of a move of several: target.paths[i], or
// target.moves[i].path or .destination (what).
func pairField(in intents.Update, i int, what string) string {
	if len(in.Target.Moves) == 0 {
		if what == "destination" {
			return "target.destination"
		}
		return fmt.Sprintf("target.paths[%d]", i)
	}
	return fmt.Sprintf("target.moves[%d].%s", i, what)
}

// movePair judges the i-th file of a move of several, pair, and where it goes: its own
// destination, or into target.destination under its name.
func (s *Server) movePair(c *call, in intents.Update, i int, pair intents.MovePair) (moving, error) {
	field := pairField(in, i, "path")
	name, err := s.resolvePath(pair.Path, kindAny)
	if c.path == "" {
		c.path = name
	}
	if err == nil && name == "." {
		err = fsroot.ErrIsRoot
	}
	if err != nil {
		return moving{}, s.withField(err, field)
	}
	isDir, err := s.isFolder(name)
	if err != nil {
		return moving{}, s.withField(err, field)
	}
	to := pair.Destination
	if len(in.Target.Moves) == 0 {
		to = path.Join(in.Target.Destination, path.Base(name))
	}
	dest, err := s.resolvePath(to, kindOf(isDir))
	if err != nil {
		if len(in.Target.Moves) > 0 {
			return moving{}, s.withField(err, pairField(in, i, "destination"))
		}
		return moving{}, s.destErr(err)
	}
	if fsroot.Within(dest, name) {
		return moving{}, &errs.Error{Code: errs.CodeInvalidArgument, Field: pairField(in, i, "destination"), Msg: fmt.Sprintf(
			"%q is inside %s, %q: a folder cannot move into itself; choose a destination outside it", s.show(dest), field, s.show(name))}
	}
	return moving{markdown.Moved{From: name, To: dest}, isDir}, nil
}

// chained refuses a move of several where one file's destination is, or is inside, what another
// moves, or one moves inside another: done in turn, one rename would overwrite, or carry off,
// what another has still to move.
func (s *Server) chained(in intents.Update, moves []moving) error {
	for i, a := range moves {
		for j, b := range moves {
			switch {
			case i == j:
			case fsroot.Within(a.To, b.From):
				return &errs.Error{Code: errs.CodeInvalidArgument, Field: pairField(in, i, "destination"), Msg: fmt.Sprintf(
					"%q is where %s is now, which this call moves too: a chain or a swap needs two calls (move one to a new name first)", s.show(a.To), pairField(in, j, "path"))}
			case fsroot.Within(a.From, b.From):
				return &errs.Error{Code: errs.CodeInvalidArgument, Field: pairField(in, i, "path"), Msg: fmt.Sprintf(
					"%q is inside %q, which %s moves: move the folder, or what is in it, not both", s.show(a.From), s.show(b.From), pairField(in, j, "path"))}
			}
		}
	}
	return nil
}

// moveAll moves each of moves, all or none, and with options.preserveRelationships keeps the
// links to them working: the links between two documents that move together reach each other
// where they go. A rename that fails puts back the ones made before it.
func (s *Server) moveAll(ctx context.Context, c *call, moves []moving, in intents.Update, out *result.Writer) error {
	pairs := make([]markdown.Moved, len(moves))
	for i, m := range moves {
		pairs[i] = m.Moved
	}
	version := in.Target.Version
	for _, m := range moves {
		if err := s.moveWritable(ctx, m); err != nil {
			return err
		}
	}
	if in.Options.PreserveRelationships {
		if err := s.linksKnown(); err != nil {
			return err
		}
	}
	if !in.Options.DryRun {
		unlock, err := s.cfg.Root.Lock(ctx, s.moveWrites(pairs, in.Options.PreserveRelationships)...)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if version != "" {
		// Before anything changes, the folders options.createPath makes included; RenameIf
		// checks again right before the rename.
		old, _, err := s.readJudged(ctx, pairs[0].From, s.cfg.MaxFileSize)
		if err != nil {
			return err
		}
		if err := unchanged(old, version); err != nil {
			return err
		}
	}
	keep, relinks := in.Options.LinkText != "target", in.Options.PreserveRelationships
	if !in.Options.Overwrite && (in.Options.DryRun || len(moves) > 1) {
		for i, m := range moves { // a move of several looks before it moves any
			if _, err := s.cfg.Root.Lstat(m.To); err == nil {
				err := existsAt(m.To).(*errs.Error)
				if len(in.Target.Moves) > 0 {
					err.Field = pairField(in, i, "destination")
				}
				return err
			}
		}
	}
	if in.Options.DryRun {
		out.DryRun = true
		if relinks {
			t := s.relinking(nil)
			r, err := t.Rewrite(ctx, pairs, true, keep)
			if err != nil {
				return err
			}
			r.Report(out)
			t.Mentions(ctx, pairs).Report(out)
			relink.ReportLinks(out)(t.Hold(pairs).Predict(s.cfg.Engine.AfterMoves(pairs), r.After))
		}
		return nil
	}
	for _, m := range moves {
		if err := s.makeParents(m.To, in.Options); err != nil {
			return err
		}
	}
	var mentions relink.Mentions
	var held relink.Check
	t := s.relinking(c)
	if relinks {
		// Before the move, where the index knows the files.
		mentions, held = t.Mentions(ctx, pairs), t.Hold(pairs)
	}
	if err := s.renameAll(ctx, c, moves, in.Options.Overwrite, version); err != nil {
		return err
	}
	touched := []string{}
	for _, p := range pairs {
		touched = append(touched, p.From, p.To)
	}
	if relinks {
		r, err := t.Rewrite(ctx, pairs, false, keep)
		if err != nil {
			s.cfg.Log.Printf("rewriting links after moving %q: %v", pairs[0].From, err)
		}
		r.Report(out)
		mentions.Report(out)
	}
	s.refresh(ctx, append(touched, out.UpdatedFiles...)...)
	if relinks {
		held.Report(out)
	}
	return nil
}

// renameAll renames each of moves in turn; when one fails, it renames back those it made, newest
// first, so that a failed move of several leaves every file where it was.
func (s *Server) renameAll(ctx context.Context, c *call, moves []moving, overwrite bool, version string) error {
	var changes []history.Change
	for i, m := range moves {
		replaced, err := s.keepReplaced(ctx, m, overwrite)
		if err == nil {
			err = s.rename(ctx, m.From, m.To, m.dir, overwrite, version)
		}
		if err == nil {
			if replaced != nil {
				changes = append(changes, *replaced)
			}
			changes = append(changes, history.Change{Path: m.From, To: m.To})
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if uerr := s.rename(ctx, moves[j].To, moves[j].From, moves[j].dir, false, ""); uerr != nil {
				s.cfg.Log.Printf("putting %q back after a failed move: %v", moves[j].From, uerr)
			}
		}
		if errors.Is(err, fs.ErrExist) {
			return existsAt(m.To)
		}
		return err
	}
	if s.cfg.History != nil {
		c.changes = append(c.changes, changes...)
	}
	return nil
}

// keepReplaced keeps, before m moves a file over one at its destination (overwrite), what that
// file holds: the change for the call's record, or nil when nothing is replaced or no history is
// kept.
func (s *Server) keepReplaced(ctx context.Context, m moving, overwrite bool) (*history.Change, error) {
	if s.cfg.History == nil || !overwrite || m.dir {
		return nil, nil
	}
	e, err := s.open(m.To, useReplace)
	if err != nil {
		return nil, nil // the rename refuses it, or makes it
	}
	defer e.Close()
	if info, err := e.Info(); err != nil || info.Type != fsroot.TypeFile {
		return nil, nil // nothing there, or a folder the rename refuses to replace
	}
	old, info, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	if err != nil {
		return nil, err
	}
	before, err := s.keep(ctx, m.To, old, info.Mode)
	if err != nil {
		return nil, err
	}
	return &history.Change{Path: m.To, Before: before}, nil
}

// moveWrites lists the files a move writes, for their locks: the two ends of each of moves, and
// with relinks the documents that link into them and those they hold, whose links are rewritten.
// A document inside a moved folder keeps its lock across the move (see [fsroot.Root.Lock]).
func (s *Server) moveWrites(moves []markdown.Moved, relinks bool) []string {
	var names []string
	for _, m := range moves {
		names = append(names, m.From, m.To)
	}
	if relinks {
		names = append(names, s.linkedFromAny(moves)...)
		for _, m := range moves {
			names = append(names, s.cfg.Engine.Documents(m.From)...)
		}
	}
	return names
}

// linkedFromAny lists the documents outside every one of moves that link into one of them.
func (s *Server) linkedFromAny(moves []markdown.Moved) []string {
	var out []string
	for _, m := range moves {
		for _, p := range s.linkedFrom(m.From) {
			if !slices.ContainsFunc(moves, func(o markdown.Moved) bool { return fsroot.Within(p, o.From) }) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// linksKnown says whether a move can keep links working: the index must know every link to what
// moves. While it is being built, what it knows is a part, and a move would rewrite a part of the
// links and call the rest checked; so the move is refused, nothing moved, until the build ends.
func (s *Server) linksKnown() error {
	e := s.cfg.Engine
	if e == nil {
		return &errs.Error{Code: errs.CodeNotAvailable, Field: "options.preserveRelationships", Msg: "links cannot be kept working because the search index is off on this server (--no-index): move without preserveRelationships"}
	}
	st := e.Status()
	if st.Complete {
		return nil
	}
	progress := fmt.Sprintf("%d of %d files indexed", st.Done, st.Total)
	if st.Phase != semantic.PhaseIndexing {
		progress = fmt.Sprintf("%s: %d files found so far", st.Phase, st.Total)
	}
	retry := search.RetryAfter(st.Left)
	return &errs.Error{Code: errs.CodeNotAvailable, Field: "options.preserveRelationships", Retry: retry, Msg: fmt.Sprintf(
		"links cannot be kept working yet: the search index is still being built (%s), and a move that keeps links must know every link to what moves. "+
			"Nothing was moved. Try again in about %s, or move without preserveRelationships.", progress, search.Seconds(retry))}
}

func existsAt(dest string) error {
	return &errs.Error{Code: errs.CodeExists, Field: "target.destination", Msg: "\"" + dest + "\" already exists: choose another destination, or set options.overwrite to true to replace that file"}
}

// rename moves name to dest, each looked up once (a final link not followed) and judged by the
// path it reached (dest as a folder when isDir), and moves the entries those lookups found.
func (s *Server) rename(ctx context.Context, name, dest string, isDir, overwrite bool, version string) error {
	src, err := s.open(name, useRemove)
	if err != nil {
		return err
	}
	defer src.Close()
	u := useReplace
	if isDir {
		u = useReplaceDir
	}
	dst, err := s.open(dest, u)
	if err != nil {
		if _, judged := errors.AsType[*security.PathError](err); judged {
			return s.destErr(err) // the policy's: name the field
		}
		return err
	}
	defer dst.Close()
	return src.RenameIf(ctx, dst, overwrite, version, s.cfg.MaxFileSize)
}

// destErr names target.destination in err, a failure to judge or reach it, unless err is a call
// error, which names its field already.
func (s *Server) destErr(err error) error {
	var ce *errs.Error
	if !errors.As(err, &ce) {
		return s.withField(err, "target.destination")
	}
	return err
}

// writeCall is what a writer purpose works on: the call and its intent, target.path cleaned
// (name), the root a copy reads from (from: the writer's own, or another root's), and the answer
// it fills.
type writeCall struct {
	c    *call
	in   intents.Update
	name string
	from *Server
	out  *result.Writer
}
