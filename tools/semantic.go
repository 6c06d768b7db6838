package tools

import (
	"context"
	"time"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
)

// searchSemantic answers search_semantic below name: the index's ranking, within the several
// roots' statistics and lead when the call runs over several ([Roots.ranked]).
func (s *Server) searchSemantic(ctx context.Context, c *call, in intents.Discover, name string) (any, error) {
	e := s.cfg.Engine
	if e == nil {
		return nil, noIndex()
	}
	q, err := search.Query(in, name, s.cfg.RelevanceThreshold)
	if err != nil {
		return nil, err
	}
	q.Stats, q.Lead = c.stats, c.lead
	if c.leading {
		lead, err := e.Lead(ctx, q)
		return result.Searcher{Status: result.Status{Success: true}, Lead: lead}, err
	}
	s.notifyIndexProgress(ctx, c)
	res, err := e.Search(ctx, q, in.Options.FollowRelationships)
	if err != nil {
		return nil, err
	}
	out, err := s.walker().Semantic(ctx, res, q, in, name)
	if err != nil {
		return nil, err
	}
	out.Metadata = c.meta()
	return out, nil
}

func noIndex() error {
	return errs.New(errs.CodeNotAvailable, "the search index is off on this server (started with --no-index): use purpose \"search_content\" for literal or regular-expression search")
}

// refresh brings the index and the graph in step with paths the writer just changed, so a search
// right after a write sees it. A failure is logged: the write itself succeeded.
func (s *Server) refresh(ctx context.Context, paths ...string) {
	if s.cfg.Engine == nil {
		return
	}
	for _, p := range paths {
		t0 := time.Now()
		if err := s.cfg.Engine.Refresh(ctx, p); err != nil {
			s.cfg.Log.Printf("index refresh of %q: %v", p, err)
		} else if d := time.Since(t0); d > time.Second {
			s.cfg.Log.Printf("index refresh of %q took %v", p, d)
		}
	}
}
