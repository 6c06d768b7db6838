package tools

import (
	"context"
	"io/fs"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/tools/relink"
)

// relinking is the tree a move of call c relinks in (c is nil for a dry run, which writes
// nothing), with the server as its host.
func (s *Server) relinking(c *call) relink.Tree {
	return relink.Tree{Host: relinkHost{s, c}, Engine: s.cfg.Engine, MaxFileSize: s.cfg.MaxFileSize, Log: s.cfg.Log, Budget: s.mentionBudget}
}

// relinkHost is [relink.Host] over a server, for call c: every lookup judged ([Server.open]),
// every rewrite kept and recorded in c, and the walks those of the searcher.
type relinkHost struct {
	s *Server
	c *call
}

func (h relinkHost) Open(name string, write bool) (*fsroot.Entry, error) {
	if write {
		return h.s.open(name, useWrite)
	}
	return h.s.open(name, useRead)
}

func (h relinkHost) Keep(ctx context.Context, name string, data []byte, mode fs.FileMode) (*history.State, error) {
	return h.s.keep(ctx, name, data, mode)
}

func (h relinkHost) Changed(name string, before *history.State, data []byte, mode fs.FileMode) {
	h.s.changed(h.c, name, before, data, mode)
}

func (h relinkHost) Walk(ctx context.Context, visit func(fsroot.Info) bool) error {
	return h.s.walker().Walk(ctx, visit)
}

func (h relinkHost) Visit(ctx context.Context, paths []string, visit func(fsroot.Info) bool) error {
	return h.s.walker().Visit(ctx, paths, visit)
}

func (h relinkHost) LinkedFrom(moves []markdown.Moved) []string { return h.s.linkedFromAny(moves) }
