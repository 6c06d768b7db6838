package fulltext

import (
	"context"
	"slices"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// within returns q with each of its term queries restricted to the units of pool, internal ids
// of the reader q will be searched with: a unit of pool scores as it does under q, and no other
// unit matches. The restriction goes to the leaves because bleve's boolean searcher, advanced
// to a unit, scores it differently with how the index's segments lie (TestRankingIndependentOfSegments);
// its term searchers do not, and the compound searchers above them still only step forward.
func within(q query.Query, pool []index.IndexInternalID) query.Query {
	switch q := q.(type) {
	case *query.TermQuery:
		return poolQuery{q: q, ids: pool}
	case *query.DisjunctionQuery:
		out := *q
		out.Disjuncts = withinAll(q.Disjuncts, pool)
		return &out
	case *query.ConjunctionQuery:
		out := *q
		out.Conjuncts = withinAll(q.Conjuncts, pool)
		return &out
	case *query.BooleanQuery:
		out := *q
		for _, c := range []*query.Query{&out.Must, &out.Should, &out.MustNot} {
			if *c != nil {
				*c = within(*c, pool)
			}
		}
		return &out
	}
	return q // matches nothing (MatchNone), or nothing the pool's units could lose
}

// withinAll is within of each of qs.
func withinAll(qs []query.Query, pool []index.IndexInternalID) []query.Query {
	out := make([]query.Query, len(qs))
	for i, c := range qs {
		out[i] = within(c, pool)
	}
	return out
}

// poolIDs returns the internal ids of units, sorted as the index orders them.
func poolIDs(units []unitHit) []index.IndexInternalID {
	ids := make([]index.IndexInternalID, 0, len(units))
	for _, u := range units {
		if u.iid != nil {
			ids = append(ids, u.iid)
		}
	}
	slices.SortFunc(ids, func(a, b index.IndexInternalID) int { return a.Compare(b) })
	return slices.CompactFunc(ids, index.IndexInternalID.Equals)
}

// poolQuery is a term query whose matches are those in the units ids holds, sorted.
type poolQuery struct {
	q   *query.TermQuery
	ids []index.IndexInternalID
}

// Searcher returns the searcher of the term, stepping from one unit of the pool to the next.
func (p poolQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, opts bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := p.q.Searcher(ctx, r, m, opts)
	if err != nil {
		return nil, err
	}
	return &poolSearcher{Searcher: s, ids: p.ids}, nil
}

// poolSearcher yields the matches of its term searcher among ids, found by advancing it to each
// id in turn; weights and norms are the term searcher's.
type poolSearcher struct {
	bsearch.Searcher
	ids []index.IndexInternalID // the ids not yet reached
}

// Next returns the next match in the pool, or nil.
func (s *poolSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	for len(s.ids) > 0 {
		dm, err := s.Searcher.Advance(ctx, s.ids[0])
		if err != nil || dm == nil {
			s.ids = nil
			return nil, err
		}
		// Skip the pool's ids the term does not reach.
		i, found := slices.BinarySearchFunc(s.ids, dm.IndexInternalID, index.IndexInternalID.Compare)
		if found {
			s.ids = s.ids[i+1:]
			return dm, nil
		}
		s.ids = s.ids[i:]
		ctx.DocumentMatchPool.Put(dm)
	}
	return nil, nil
}

// Advance returns the first match in the pool at or after id, or nil.
func (s *poolSearcher) Advance(ctx *bsearch.SearchContext, id index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	i, _ := slices.BinarySearchFunc(s.ids, id, index.IndexInternalID.Compare)
	s.ids = s.ids[i:]
	return s.Next(ctx)
}

// DocumentMatchPoolSize is the term searcher's and the match passed over.
func (s *poolSearcher) DocumentMatchPoolSize() int { return s.Searcher.DocumentMatchPoolSize() + 1 }
