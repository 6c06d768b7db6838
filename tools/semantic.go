package tools

import (
	"context"
	"time"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/search"
)

// searchSemantic answers search_semantic below name: the index's ranking.
func (s *Server) searchSemantic(ctx context.Context, c *call, in intents.Discover, name string) (any, error) {
	q, err := s.semanticQuery(ctx, c, in, name)
	if err != nil {
		return nil, err
	}
	res, err := s.cfg.Engine.Search(ctx, q, in.Options.FollowRelationships)
	return s.semanticAnswer(ctx, c, in, q, res, err)
}

// semanticQuery returns the index's query for a search_semantic below name, and tells the client
// how far the index's build has come.
func (s *Server) semanticQuery(ctx context.Context, c *call, in intents.Discover, name string) (fulltext.Query, error) {
	if s.cfg.Engine == nil {
		return fulltext.Query{}, noIndex()
	}
	q, err := search.Query(in, name, s.cfg.RelevanceThreshold)
	if err != nil {
		return fulltext.Query{}, err
	}
	s.notifyIndexProgress(ctx, c)
	return q, nil
}

// semanticAnswer answers a search_semantic below q.Prefix with what the index found for q (res),
// or its failure (err).
func (s *Server) semanticAnswer(ctx context.Context, c *call, in intents.Discover, q fulltext.Query, res semantic.Results, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	out, err := s.walker().Semantic(ctx, res, q, in, q.Prefix)
	if err != nil {
		return nil, err
	}
	out.Metadata = c.meta()
	return out, nil
}

// rootQuery judges a search_semantic on root s as its own search does ([Server.discover]), and
// answers the index's query for it rather than searching: a search of several roots
// ([Roots.ranked]) searches all their indexes at once.
func rootQuery(s *Server) handlerFunc {
	return func(ctx context.Context, c *call) (any, error) {
		in, err := admit[intents.Discover](s, c)
		if err != nil {
			return nil, err
		}
		name, _, _, err := s.target(c, in)
		if err != nil {
			return nil, err
		}
		return s.semanticQuery(ctx, c, in, name)
	}
}

// rootAnswer shapes a, what a root's index found for q (its [rootQuery]) in a search of several
// roots with arguments in, into that root's answer, as its own search does.
func rootAnswer(in intents.Discover, q fulltext.Query, a semantic.Answer) func(*Server) handlerFunc {
	return func(s *Server) handlerFunc {
		return func(ctx context.Context, c *call) (any, error) {
			c.path = q.Prefix
			return s.semanticAnswer(ctx, c, in, q, a.Results, a.Err)
		}
	}
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
