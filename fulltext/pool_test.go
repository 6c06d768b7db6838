package fulltext

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"
	"github.com/packfs/packfs-mcp/markdown"
)

// TestWithinPool checks that a query restricted to a pool of units (see within) matches exactly
// the units of the pool that the query matches, each with the score the whole query gives it,
// on an index of many segments and for pools of every density.
func TestWithinPool(t *testing.T) {
	ix := newTestIndex(t, IndexOptions{})
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa")
	for batch := range 8 { // a batch a segment
		var docs []markdown.Doc
		for i := range 40 {
			var body, title []string
			for range 12 {
				body = append(body, words[rng.IntN(len(words))])
			}
			for range 2 {
				title = append(title, words[rng.IntN(len(words))])
			}
			docs = append(docs, textDoc(fmt.Sprintf("d%d/n%d.md", batch, i), strings.Join(title, " "), strings.Join(body, " "), strings.Join(body[:4], " ")))
		}
		if err := ix.PutBatch(docs); err != nil {
			t.Fatal(err)
		}
	}
	r, err := ix.reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gen := ix.dfs.generation()
	scores := func(q query.Query) map[string]float64 {
		s, err := ix.searcher(context.Background(), r, q)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		out := map[string]float64{}
		err = eachMatch(context.Background(), r, s, func(dm *bsearch.DocumentMatch) error {
			out[string(dm.IndexInternalID)] = dm.Score
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, text := range []string{"alpha beta", "gamma delta epsilon", "theta"} {
		q := ix.termsQuery(r, gen, nil, text, false)
		all := scores(q)
		var ids []index.IndexInternalID
		for id := range all {
			ids = append(ids, index.IndexInternalID(id))
		}
		slices.SortFunc(ids, index.IndexInternalID.Compare)
		for _, every := range []int{1, 2, 7, 50} {
			var pool []unitHit
			want := map[string]float64{}
			for i, id := range ids {
				if i%every == 0 {
					pool = append(pool, unitHit{iid: id})
					want[string(id)] = all[string(id)]
				}
			}
			got := scores(within(q, poolIDs(pool)))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%q, every %d of %d matches (-want +got):\n%s", text, every, len(ids), diff)
			}
		}
	}
}
