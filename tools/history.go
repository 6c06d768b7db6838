package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
)

// keep keeps old, what the file name holds with permission bits mode, in the root's history
// before a change replaces, truncates or deletes it, and returns its state for the call's record;
// nil when the server keeps no history. When it cannot be kept the change must not happen: the
// error says so.
func (s *Server) keep(ctx context.Context, name string, old []byte, mode fs.FileMode) (*history.State, error) {
	if s.cfg.History == nil {
		return nil, nil
	}
	st, err := s.cfg.History.Keep(ctx, old, mode)
	if err != nil {
		return nil, errs.New(errs.CodeNotKept, "%q was left as it was: what it holds could not be kept in the history, so the change could not be undone (%v); free disk space, or start the server with --no-history", s.show(name), err)
	}
	return &st, nil
}

// changed records in c that the call changed the file name from before (nil: it made it) to
// after, content of permission bits mode (nil content: it removed it), for the record committed
// when the call ends. Nothing is recorded when the server keeps no history.
func (s *Server) changed(c *call, name string, before *history.State, after []byte, mode fs.FileMode) {
	if after == nil {
		if s.cfg.History != nil {
			c.changes = append(c.changes, history.Change{Path: name, Before: before})
		}
		return
	}
	s.changedTo(c, name, before, fsroot.Version(after), int64(len(after)), mode)
}

// commit records the changes call c made, which undo together. The changes happened: a record
// that cannot be written is logged, and the content they replaced stays kept.
func (s *Server) commit(ctx context.Context, c *call) {
	if s.cfg.History == nil || len(c.changes) == 0 {
		return
	}
	r := &history.Record{Purpose: c.purpose, Changes: c.changes}
	if err := s.cfg.History.Commit(context.WithoutCancel(ctx), r); err != nil {
		s.cfg.ErrorLog.Printf("history: the record of a %s of %q was not written, so it cannot be undone as one call: %v", c.purpose, c.changes[0].Path, err)
	}
	c.changes = nil
}

// MaxHistoryEntries is the most changes one history answer lists, the newest first: a page of a
// note's life, or of a folder's recent changes.
const MaxHistoryEntries = 50

// history answers the reader's history purpose: the changes the history keeps of target.path, a
// file, or of everything below it, a folder (deleted files included), newest first, each with the
// version it replaced, which restore brings back. The name is judged as a folder is, by its
// components: what it names may be gone.
func (s *Server) history(ctx context.Context, c *call, in intents.Access) (any, error) {
	name, err := s.resolvePath(in.Target.Path, kindName)
	c.path = name
	if err != nil {
		return nil, err
	}
	if err := s.charge(c, false); err != nil {
		return nil, err
	}
	if s.cfg.History == nil {
		return nil, noHistory()
	}
	records, truncated, err := s.cfg.History.Records(ctx, history.Touching(name, true))
	if err != nil {
		return nil, err
	}
	out := result.Reader{Status: result.Status{Success: true}, History: []result.HistoryEntry{}}
	for _, r := range records {
		for _, ch := range r.Changes {
			if !fsroot.Within(ch.Path, name) && !fsroot.Within(ch.To, name) {
				continue
			}
			if len(out.History) == MaxHistoryEntries {
				out.Truncated = true
				break
			}
			e := result.HistoryEntry{Path: ch.Path, MovedTo: ch.To, Call: r.ID, Time: r.Time.Format(time.RFC3339), Purpose: r.Purpose, Deleted: ch.After == nil && ch.To == ""}
			if ch.Before != nil {
				e.Version, e.SizeBytes = ch.Before.Version, ptr(ch.Before.Size)
			}
			out.History = append(out.History, e)
		}
	}
	out.Truncated = out.Truncated || truncated
	out.Metadata = c.meta()
	return out, nil
}

// noHistory is the refusal of a history purpose by a server that keeps none.
func noHistory() error {
	return errs.New(errs.CodeNotAvailable, "this server keeps no history (it was started with --no-history, or found no folder for it outside the root): changes are final")
}

// restoreVersion answers the writer's restore purpose: it puts back in name the version the
// history kept (version, or by default the one the last change replaced), through a lookup judged
// like any write, and keeps what it replaces, so a restore is undone like any change. With no
// version given, the file must still be as the last change left it (else CONFLICT, unless
// options.overwrite): what someone wrote since is not silently undone. Undoing a create removes
// the file. A name the history knows only files below is a deleted folder: restoreFolder.
func (s *Server) restoreVersion(ctx context.Context, c *call, name, version string, o intents.UpdateOptions, out *result.Writer) error {
	if s.cfg.History == nil {
		return noHistory()
	}
	records, _, err := s.cfg.History.Records(ctx, history.Touching(name, true))
	if err != nil {
		return err
	}
	var changes, under []history.Change // of name, and of the files below it, newest first
	for _, r := range records {
		for _, ch := range r.Changes {
			switch {
			case ch.Path == name:
				changes = append(changes, ch)
			case fsroot.Within(ch.Path, name):
				under = append(under, ch)
			}
		}
	}
	if version == "" && len(records) > 0 && hasMove(records[0]) {
		return s.undoRecord(ctx, c, records[0], o, out) // a move, and its link rewrites, undo together
	}
	if len(changes) == 0 && len(under) > 0 && version == "" {
		return s.restoreFolder(ctx, c, name, under, o, out)
	}
	if len(changes) == 0 {
		return errs.New(errs.CodeNotFound, "the history keeps no change of %q: purpose history lists what it keeps", s.show(name))
	}
	last, want := changes[0], changes[0].Before
	if version != "" {
		i := slices.IndexFunc(changes, func(ch history.Change) bool { return ch.Before != nil && ch.Before.Version == version })
		if i < 0 {
			return &errs.Error{Code: errs.CodeNotFound, Field: "target.version", Msg: fmt.Sprintf("version %s of %q is not kept: purpose history lists the kept versions", version, s.show(name))}
		}
		want = changes[i].Before
	}
	if version == "" && !o.Overwrite {
		if err := s.asLeft(ctx, name, last.After); err != nil {
			return err
		}
	}
	return s.putBack(ctx, c, name, want, o, out)
}

// asLeft refuses with CONFLICT a restore of name that would undo a change whose result (after;
// nil: it removed the file) is no longer what name holds.
func (s *Server) asLeft(ctx context.Context, name string, after *history.State) error {
	e, err := s.open(name, useWrite)
	if err != nil {
		return err
	}
	defer e.Close()
	now, _, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	if err != nil && !isNotExist(err) {
		return err
	}
	exists := err == nil
	if after == nil && !exists || after != nil && exists && fsroot.Version(now) == after.Version {
		return nil
	}
	return &errs.Error{Code: errs.CodeConflict, Msg: fmt.Sprintf("%q changed since the last change this restore would undo: nothing was written; read it, then restore a version purpose history lists (target.version), or set options.overwrite to put back the one before anyway", s.show(name))}
}

// putBack makes name hold want (nil: no file), keeping what it replaces, and brings the index up
// to date for it.
func (s *Server) putBack(ctx context.Context, c *call, name string, want *history.State, o intents.UpdateOptions, out *result.Writer) error {
	defer s.refresh(ctx, name)
	e, err := s.open(name, useWrite)
	if err != nil {
		return err
	}
	defer func() { e.Close() }()
	now, info, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	exists := err == nil
	if err != nil && !isNotExist(err) {
		return err
	}
	switch {
	case want == nil && !exists:
		return nil // made by the change undone, and gone already
	case want == nil: // undo of a create: remove what it made, kept first
		before, err := s.keep(ctx, name, now, info.Mode)
		if err == nil {
			err = e.RemoveIf(ctx, fsroot.Version(now), s.cfg.MaxFileSize)
		}
		if err != nil {
			return err
		}
		s.changed(c, name, before, nil, 0)
		out.Deleted = true
		return nil
	}
	content, err := s.cfg.History.Content(ctx, want.SHA256)
	if err != nil {
		return err
	}
	if exists {
		if fsroot.Version(now) != want.Version {
			before, err := s.keep(ctx, name, now, info.Mode)
			if err != nil {
				return err
			}
			if _, err := e.WriteFileIf(ctx, content, fsroot.Version(now), s.cfg.MaxFileSize); err != nil {
				return err
			}
			s.changed(c, name, before, content, info.Mode)
		}
	} else {
		e.Close()
		if err := s.makeParents(name, o); err != nil {
			return err
		}
		if e, err = s.open(name, useWrite); err != nil {
			return err
		}
		if err := e.CreateFile(ctx, content, want.Mode); err != nil {
			return err
		}
		s.changed(c, name, nil, content, want.Mode)
		out.Created = true
	}
	out.SizeBytes, out.Version = ptr(len(content)), want.Version
	return nil
}

// keepFolder keeps, before the folder e found at name is deleted, the content of every file in it
// (each looked up and judged as a read is), and returns their changes for the call's record, named
// below name. What it cannot keep it counts in out.NotKept: links, files over the size limit, and
// every file when there are more than MaxCopyEntries. A folder holding what the policy blocks is
// kept nothing of: the delete refuses it.
func (s *Server) keepFolder(ctx context.Context, e *fsroot.Entry, name string, out *result.Writer) ([]history.Change, error) {
	var changes []history.Change
	var lost []string
	n := 0
	err := s.cfg.Root.Walk(ctx, e.Path(), 0, func(info fsroot.Info, err error) error {
		if err != nil {
			return err
		}
		if s.blocked(info.Path, info.Type == fsroot.TypeDir) {
			return errBlockedInside // the delete refuses the folder: keep nothing for it
		}
		rel, _ := below(info.Path, e.Path())
		p := path.Join(name, rel)
		switch info.Type {
		case fsroot.TypeDir:
			return nil
		case fsroot.TypeFile:
		default:
			lost = append(lost, p)
			return nil
		}
		if n++; n > MaxCopyEntries {
			return errTooMany
		}
		fe, err := s.open(info.Path, useRead)
		if err != nil {
			lost = append(lost, p) // refused for another reason (a hard link): not kept
			return nil
		}
		data, st, err := fe.ReadFile(ctx, s.cfg.MaxFileSize)
		fe.Close()
		if errors.Is(err, fsroot.ErrTooLarge) {
			lost = append(lost, p)
			return nil
		}
		if err != nil {
			return err
		}
		kept, err := s.keep(ctx, p, data, st.Mode)
		if err != nil {
			return err
		}
		changes = append(changes, history.Change{Path: p, Before: kept})
		return nil
	})
	if errors.Is(err, errBlockedInside) {
		return nil, nil
	}
	if errors.Is(err, errTooMany) {
		out.NotKept = fmt.Sprintf("the folder holds more than %d files, more than the history keeps of one delete: this delete cannot be undone", MaxCopyEntries)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(lost) > 0 {
		out.NotKept = fmt.Sprintf("%d entries were not kept (links, files over the size limit or with other hard links), such as %q: restore brings back the rest", len(lost), s.show(lost[0]))
	}
	return changes, nil
}

// errTooMany and errBlockedInside stop keepFolder's walk of a folder too large to keep, or one
// holding what the policy blocks, which the delete refuses (removeFolder).
var (
	errTooMany       = errors.New("too many files")
	errBlockedInside = errors.New("blocked entry inside")
)

// restoreFolder brings back the files below the folder name whose last change deleted them, as
// one change: a file there again is a CONFLICT, before anything is written, unless
// options.overwrite; a failure midway leaves those restored before it, each kept as a change of
// this call, so it can be undone. changes are the history's changes below name, newest first.
func (s *Server) restoreFolder(ctx context.Context, c *call, name string, changes []history.Change, o intents.UpdateOptions, out *result.Writer) error {
	seen := map[string]bool{}
	var gone []history.Change // the files whose last change removed them
	for _, ch := range changes {
		if seen[ch.Path] {
			continue
		}
		seen[ch.Path] = true
		if ch.After == nil && ch.Before != nil {
			gone = append(gone, ch)
		}
	}
	if len(gone) == 0 {
		return errs.New(errs.CodeNotFound, "no file below %q was deleted by a change the history keeps: purpose history lists what it keeps", s.show(name))
	}
	if !o.Overwrite {
		for _, ch := range gone {
			if _, err := s.cfg.Root.Lstat(ch.Path); err == nil {
				return &errs.Error{Code: errs.CodeConflict, Msg: fmt.Sprintf("%q is there again, so nothing was restored: set options.overwrite to put the deleted version back over it, or restore the files one by one", s.show(ch.Path))}
			}
		}
	}
	for _, ch := range gone {
		one := result.Writer{}
		o.CreatePath = true // the folders went with the files
		if err := s.putBack(ctx, c, ch.Path, ch.Before, o, &one); err != nil {
			return &errs.File{Err: err, Name: ch.Path}
		}
		out.Files = append(out.Files, result.EditedFile{Path: ch.Path, Version: one.Version, SizeBytes: one.SizeBytes})
	}
	out.Created = true
	return nil
}

// keepCopied keeps what the file dst (at name) holds before a copy replaces it: its state, or nil
// when nothing is there or no history is kept.
func (s *Server) keepCopied(ctx context.Context, dst *fsroot.Entry, name string) (*history.State, error) {
	if s.cfg.History == nil {
		return nil, nil
	}
	if info, err := dst.Info(); err != nil || info.Type != fsroot.TypeFile {
		return nil, nil
	}
	old, info, err := dst.ReadFile(ctx, s.cfg.MaxFileSize)
	if err != nil {
		return nil, err
	}
	return s.keep(ctx, name, old, info.Mode)
}

// changedTo is [Server.changed] for a write whose new content the call did not hold: its version
// and size.
func (s *Server) changedTo(c *call, name string, before *history.State, version string, size int64, mode fs.FileMode) {
	if s.cfg.History == nil {
		return
	}
	c.changes = append(c.changes, history.Change{Path: name, Before: before, After: &history.State{Version: version, Size: size, Mode: mode.Perm()}})
}

// hasMove reports whether r moved a file or a folder.
func hasMove(r *history.Record) bool {
	return slices.ContainsFunc(r.Changes, func(ch history.Change) bool { return ch.To != "" })
}

// undoCall answers restore with target.call: it undoes every change of the call the history
// records under id ([Server.undoRecord]).
func (s *Server) undoCall(ctx context.Context, c *call, id string, o intents.UpdateOptions, out *result.Writer) error {
	if s.cfg.History == nil {
		return noHistory()
	}
	records, _, err := s.cfg.History.Records(ctx, func(r *history.Record) bool { return r.ID == id })
	if err != nil {
		return err
	}
	if len(records) == 0 {
		return &errs.Error{Code: errs.CodeNotFound, Field: "target.call", Msg: fmt.Sprintf("no call %q is kept: purpose history lists the calls it keeps", id)}
	}
	return s.undoRecord(ctx, c, records[0], o, out)
}

// undoRecord undoes every change of r, the last first: a move is moved back, a content put back
// (a file r made is removed). It first checks that each file is still as r left it, a CONFLICT
// before anything is done unless options.overwrite; each step is kept as a change of this call,
// so the undo can be undone in its turn.
func (s *Server) undoRecord(ctx context.Context, c *call, r *history.Record, o intents.UpdateOptions, out *result.Writer) error {
	movedTo := map[string]bool{} // where r's moves put something: those paths hold the moved entry
	for _, ch := range r.Changes {
		if ch.To != "" {
			movedTo[ch.To] = true
		}
	}
	if !o.Overwrite {
		for i, ch := range r.Changes {
			var err error
			switch {
			case ch.To != "":
				// A later change of r that made a file where the move took it from is undone
				// first, freeing the place.
				freed := slices.ContainsFunc(r.Changes[i+1:], func(l history.Change) bool { return l.Path == ch.Path && l.To == "" })
				err = s.movedStill(ch, freed)
			case !movedTo[ch.Path]:
				err = s.asLeft(ctx, ch.Path, ch.After)
			}
			if err != nil {
				return err
			}
		}
	}
	o.CreatePath = true // a folder on the way may have gone since
	for i := len(r.Changes) - 1; i >= 0; i-- {
		ch := r.Changes[i]
		one := result.Writer{}
		var err error
		if ch.To != "" {
			err = s.moveBack(ctx, c, ch, o.Overwrite)
		} else {
			err = s.putBack(ctx, c, ch.Path, ch.Before, o, &one)
		}
		if err != nil {
			return &errs.File{Err: err, Name: ch.Path}
		}
		out.Files = append(out.Files, result.EditedFile{Path: ch.Path, Version: one.Version, SizeBytes: one.SizeBytes})
	}
	return nil
}

// movedStill refuses with CONFLICT the undo of the move ch when what it moved is no longer where
// it put it, or its old place is taken (and not freed by the undo first).
func (s *Server) movedStill(ch history.Change, freed bool) error {
	if _, err := s.cfg.Root.Lstat(ch.To); err != nil {
		return &errs.Error{Code: errs.CodeConflict, Msg: fmt.Sprintf("%q is no longer where the move put it, so nothing was undone", s.show(ch.To))}
	}
	if _, err := s.cfg.Root.Lstat(ch.Path); err == nil && !freed {
		return &errs.Error{Code: errs.CodeConflict, Msg: fmt.Sprintf("%q, where the move took it from, is taken again, so nothing was undone: set options.overwrite to move it back over that", s.show(ch.Path))}
	}
	return nil
}

// moveBack moves what the move ch put at ch.To back to ch.Path, kept as a move of this call.
func (s *Server) moveBack(ctx context.Context, c *call, ch history.Change, overwrite bool) error {
	isDir, err := s.isFolder(ch.To)
	if err != nil {
		return err
	}
	if err := s.makeParents(ch.Path, intents.UpdateOptions{CreatePath: true}); err != nil {
		return err
	}
	m := moving{markdown.Moved{From: ch.To, To: ch.Path}, isDir}
	if err := s.renameAll(ctx, c, []moving{m}, overwrite, ""); err != nil {
		return err
	}
	s.refresh(ctx, ch.To, ch.Path)
	return nil
}
