package tools

import (
	"context"
	"io/fs"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/tools/relink"
	"github.com/packfs/packfs-mcp/tools/undo"
)

// relinking is the tree a move of call c relinks in (c is nil for a dry run, which writes
// nothing), with the server as its host.
func (s *Server) relinking(c *call) relink.Tree {
	return relink.Tree{Host: callHost{s, c}, Engine: s.cfg.Engine, MaxFileSize: s.cfg.MaxFileSize, Log: s.cfg.Log, Budget: s.mentionBudget}
}

// undoing is the tree whose changes call c undoes, with the server as its host.
func (s *Server) undoing(c *call) undo.Tree {
	return undo.Tree{Host: callHost{s, c}, Store: s.cfg.History, Root: s.cfg.Root, Policy: s.cfg.Policy,
		MaxFileSize: s.cfg.MaxFileSize, MaxFolderFiles: MaxCopyEntries}
}

// callHost is the server as the host of call c for the rooms that change the root ([relink.Host],
// [undo.Host]): every lookup judged ([Server.open]), every change kept and recorded in c, the
// walks those of the searcher.
type callHost struct {
	s *Server
	c *call
}

func (h callHost) Open(name string, write bool) (*fsroot.Entry, error) {
	if write {
		return h.s.open(name, useWrite)
	}
	return h.s.open(name, useRead)
}

func (h callHost) Keep(ctx context.Context, name string, data []byte, mode fs.FileMode) (*history.State, error) {
	return h.s.keep(ctx, name, data, mode)
}

func (h callHost) Changed(name string, before *history.State, data []byte, mode fs.FileMode) {
	h.s.changed(h.c, name, before, data, mode)
}

func (h callHost) Walk(ctx context.Context, visit func(fsroot.Info) bool) error {
	return h.s.walker().Walk(ctx, visit)
}

func (h callHost) Visit(ctx context.Context, paths []string, visit func(fsroot.Info) bool) error {
	return h.s.walker().Visit(ctx, paths, visit)
}

func (h callHost) LinkedFrom(moves []markdown.Moved) []string { return h.s.linkedFromAny(moves) }

func (h callHost) MakeParents(name string, o intents.UpdateOptions) error {
	return h.s.makeParents(name, o)
}
func (h callHost) Refresh(ctx context.Context, names ...string) { h.s.refresh(ctx, names...) }
func (h callHost) Show(name string) string                      { return h.s.show(name) }

// MoveBack moves what the move ch put at ch.To back to ch.Path, kept as a move of this call.
func (h callHost) MoveBack(ctx context.Context, ch history.Change, overwrite bool) error {
	s, c := h.s, h.c
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
