package tools

import (
	"context"
	"io/fs"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
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
