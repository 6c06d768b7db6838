package tools

import (
	"context"
	"io/fs"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
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

// history answers the reader's history purpose: the changes the history keeps of target.path, a
// file, or of everything below it, a folder ([undo.Tree.List]). The name is judged as a folder is,
// by its components: what it names may be gone.
func (s *Server) history(ctx context.Context, c *call, in intents.Access) (any, error) {
	name, err := s.resolvePath(in.Target.Path, kindName)
	c.path = name
	if err != nil {
		return nil, err
	}
	if err := s.charge(c, false); err != nil {
		return nil, err
	}
	out := result.Reader{Status: result.Status{Success: true}}
	if err := s.undoing(c).List(ctx, name, &out); err != nil {
		return nil, err
	}
	out.Metadata = c.meta()
	return out, nil
}
