package tools

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
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
		return nil, newError(CodeNotKept, "%q was left as it was: what it holds could not be kept in the history, so the change could not be undone (%v); free disk space, or start the server with --no-history", s.show(name), err)
	}
	return &st, nil
}

// changed records in c that the call changed the file name from before (nil: it made it) to
// after, content of permission bits mode (nil content: it removed it), for the record committed
// when the call ends. Nothing is recorded when the server keeps no history.
func (s *Server) changed(c *call, name string, before *history.State, after []byte, mode fs.FileMode) {
	if s.cfg.History == nil {
		return
	}
	ch := history.Change{Path: name, Before: before}
	if after != nil {
		ch.After = &history.State{Version: fsroot.Version(after), Size: int64(len(after)), Mode: mode.Perm()}
	}
	c.changes = append(c.changes, ch)
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
	name, err := s.cfg.Policy.Clean(in.Target.Path)
	if err == nil {
		err = s.cfg.Policy.CheckName(name, true)
	}
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
	out := ReaderResult{Status: Status{Success: true}, History: []HistoryEntry{}}
	for _, r := range records {
		for _, ch := range r.Changes {
			if ch.Path != name && !strings.HasPrefix(ch.Path, name+"/") && name != "." {
				continue
			}
			if len(out.History) == MaxHistoryEntries {
				out.Truncated = true
				break
			}
			e := HistoryEntry{Path: ch.Path, Time: r.Time.Format(time.RFC3339), Purpose: r.Purpose, Deleted: ch.After == nil}
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
	return newError(CodeNotAvailable, "this server keeps no history (it was started with --no-history, or found no folder for it outside the root): changes are final")
}

// restoreVersion answers the writer's restore purpose: it puts back in name the version the
// history kept (version, or by default the one the last change replaced), through a lookup judged
// like any write, and keeps what it replaces, so a restore is undone like any change. With no
// version given, the file must still be as the last change left it (else CONFLICT, unless
// options.overwrite): what someone wrote since is not silently undone. Undoing a create removes
// the file.
func (s *Server) restoreVersion(ctx context.Context, c *call, name, version string, o intents.UpdateOptions, out *WriterResult) error {
	if s.cfg.History == nil {
		return noHistory()
	}
	records, _, err := s.cfg.History.Records(ctx, history.Touching(name, false))
	if err != nil {
		return err
	}
	var changes []history.Change // of name, newest first
	for _, r := range records {
		for _, ch := range r.Changes {
			if ch.Path == name {
				changes = append(changes, ch)
			}
		}
	}
	if len(changes) == 0 {
		return newError(CodeNotFound, "the history keeps no change of %q: purpose history lists what it keeps", s.show(name))
	}
	last, want := changes[0], changes[0].Before
	if version != "" {
		i := slices.IndexFunc(changes, func(ch history.Change) bool { return ch.Before != nil && ch.Before.Version == version })
		if i < 0 {
			return &callError{code: CodeNotFound, field: "target.version", msg: fmt.Sprintf("version %s of %q is not kept: purpose history lists the kept versions", version, s.show(name))}
		}
		want = changes[i].Before
	}
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
	if version == "" && !o.Overwrite && !asLeft(last.After, now, exists) {
		return &callError{code: CodeConflict, msg: fmt.Sprintf("%q changed since the %s this restore would undo: nothing was written; read it, then restore a version purpose history lists (target.version), or set options.overwrite to put back the one before anyway", s.show(name), "last change")}
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

// asLeft reports whether a file holding now (exists false: no file) is as a change left it
// (after; nil: the change removed it).
func asLeft(after *history.State, now []byte, exists bool) bool {
	if after == nil {
		return !exists
	}
	return exists && fsroot.Version(now) == after.Version
}
