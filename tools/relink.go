package tools

import (
	"context"
	"sort"

	"github.com/packfs/packfs-mcp/markdown"
)

// relink keeps links working after old moved to dest: it rewrites the links in other documents that
// pointed into old, and the moved documents' own relative links, and returns the files it changed
// (with dry, the files it would change, writing nothing). Each file is rewritten atomically.
func (s *Server) relink(ctx context.Context, old, dest string, dry bool) ([]string, error) {
	e := s.cfg.Engine
	if e == nil {
		return nil, noIndex()
	}
	seen := map[string]bool{}
	var changed []string
	note := func(p string) {
		if !seen[p] {
			seen[p] = true
			changed = append(changed, p)
		}
	}
	for _, from := range s.linkedFrom(old) {
		data, info, err := s.cfg.Root.ReadFile(ctx, from, s.cfg.MaxFileSize)
		if err != nil || !markdown.IsText(data) {
			continue
		}
		out, n := e.RewriteLinks(from, data, info.ModTime, old, dest)
		if n == 0 {
			continue
		}
		note(from)
		if !dry {
			if err := s.cfg.Root.WriteFile(ctx, from, out); err != nil {
				return changed, err
			}
		}
	}
	for _, p := range e.MovedDocuments(old) {
		now := dest + p[len(old):] // where p is after the move
		at := now
		if dry {
			at = p
		}
		data, info, err := s.cfg.Root.ReadFile(ctx, at, s.cfg.MaxFileSize)
		if err != nil || !markdown.IsText(data) {
			continue
		}
		out, n := e.RelinkMoved(data, info.ModTime, p, now)
		if n == 0 {
			continue
		}
		note(now)
		if !dry {
			if err := s.cfg.Root.WriteFile(ctx, now, out); err != nil {
				return changed, err
			}
		}
	}
	sort.Strings(changed)
	return changed, nil
}
