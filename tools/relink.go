package tools

import (
	"context"
	"sort"

	"github.com/packfs/packfs-mcp/markdown"
)

// MaxRewrites caps the links a move's answer lists, and rewritesTotal says when it is cut: a
// much-linked folder can have thousands, and fifty are about 2,000 tokens, enough to check a move.
const MaxRewrites = 50

// relinked is what [Server.relink] did, or would do.
type relinked struct {
	files    []string      // the documents changed, sorted
	rewrites []LinkRewrite // every link rewritten, by path and line
}

// relink keeps links working after old moved to dest: it rewrites the links in other documents that
// pointed into old, and the moved documents' own links, and returns what it changed (with dry, what
// it would change, writing nothing). Each file is rewritten atomically. keepText says what a wiki
// link whose name changes shows (see [markdown.Move]).
func (s *Server) relink(ctx context.Context, old, dest string, dry, keepText bool) (relinked, error) {
	e := s.cfg.Engine
	if e == nil {
		return relinked{}, noIndex()
	}
	var out relinked
	seen := map[string]bool{}
	note := func(p string, rw []markdown.Rewrite) {
		if !seen[p] {
			seen[p] = true
			out.files = append(out.files, p)
		}
		for _, r := range rw {
			out.rewrites = append(out.rewrites, LinkRewrite{Path: p, Line: r.Line, Before: r.Before, After: r.After})
		}
	}
	defer func() {
		sort.Strings(out.files)
		sort.SliceStable(out.rewrites, func(i, j int) bool { return out.rewrites[i].Path < out.rewrites[j].Path })
	}()
	for _, from := range s.linkedFrom(old) {
		data, info, err := s.cfg.Root.ReadFile(ctx, from, s.cfg.MaxFileSize)
		if err != nil || !markdown.IsText(data) {
			continue
		}
		text, rw := e.RewriteLinks(from, data, info.ModTime, old, dest, keepText)
		if len(rw) == 0 {
			continue
		}
		if !dry {
			if err := s.cfg.Root.WriteFile(ctx, from, text); err != nil {
				return out, err
			}
		}
		note(from, rw)
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
		text, rw := e.RelinkMoved(data, info.ModTime, p, now, old, dest, keepText)
		if len(rw) == 0 {
			continue
		}
		if !dry {
			if err := s.cfg.Root.WriteFile(ctx, now, text); err != nil {
				return out, err
			}
		}
		note(now, rw)
	}
	return out, nil
}

// report puts what relink did on a move's result, the rewrites capped at MaxRewrites.
func (r relinked) report(out *WriterResult) {
	out.UpdatedFiles, out.Rewrites = r.files, r.rewrites
	if len(r.rewrites) > MaxRewrites {
		out.Rewrites, out.RewritesTotal = r.rewrites[:MaxRewrites], len(r.rewrites)
	}
}
