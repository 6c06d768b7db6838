package fulltext

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Pseudo-relevance feedback (RM3-style): Search runs each phrasing, takes the best units of its
// top feedbackDocs documents, picks the feedbackTerms terms of their text that weigh most (the
// share of each unit's terms it makes up, times the unit's normalised score, summed, times the
// term's idf in the text field) and runs the phrasing again with those terms added as an
// optional clause whose weights sum to feedbackWeight of the original terms'. The expansion only
// re-ranks: it cannot add documents that match no original term, nor change the total.
//
// The values were chosen on the odd-numbered queries of dev/eval/queries (go run ./dev/eval --split)
// from k in {3,5,10}, m in {5,10,20,30}, w in {0.1..3}, max df in {0.05,0.1,0.2}, also fusing
// the two lists by rank instead, and raised nDCG@5 on both corpora (dev/bench/README.md, The
// ranking's values). Without the df cap, terms common to every feedback unit outweighed the
// title match of TestSearchRanking. The second search re-ranks only the units the first ranked
// from: scoring every match again was half of a search's time on a big tree, for documents
// that could only enter the tail of the list (dev/bench/README.md, Scale).
const (
	feedbackDocs   = 3
	feedbackTerms  = 20
	feedbackWeight = 0.5
	// feedbackMaxDF drops expansion terms found in more than this share of the records: they
	// say little about any topic and drift the ranking toward long units.
	feedbackMaxDF = 0.2
)

// feedback reruns the literal phrasing, the first, with expansion terms drawn from the top units
// of its own list. The paraphrases keep their lists: they already bring the vocabulary feedback would, and
// expanding them too doubled the cost of a search with paraphrases for no gain in ranking
// (dev/bench/README.md, The ranking's values).
//
// With q.Lead (a search of several indexes), it draws only on the documents of this index among
// the best of all, weighted as one index of all would weigh them, and gives the expansion their
// share of the weight it would have: an index whose best documents are not among the best of all
// draws on none and is not expanded, rather than drifting toward its own near misses.
func (ix *Index) feedback(ctx context.Context, r index.IndexReader, gen uint64, q Query, phrasings []string, terms []query.Query, lists [][]ranked, pool []unitHit, want int, src *shown) ([][]ranked, error) {
	docs, mass := feedbackOn(lists[0], q.Lead)
	exp, err := ix.expansion(ctx, r, gen, q.Stats, phrasings[0], docs, mass, src)
	if err != nil || exp == nil {
		return lists, err
	}
	// The second pass scores only the units the first ranked from (they passed the filter
	// already): the expansion re-ranks them, and the term searchers skip to each of them instead
	// of scoring every match again. The clauses go in as they are: bleve's one-clause
	// disjunction (of the should) adds nothing to a score, but a call per match.
	bq := within(&query.BooleanQuery{Must: terms[0], Should: exp}, poolIDs(pool))
	list, _, err := ix.run(ctx, r, kept(bq, q.Keep), want, q.Threshold, nil, nil)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(lists)
	out[0] = list
	return out, nil
}

// feedbackOn returns the documents of list that feedback draws on, with the scores it weighs
// them by, and the share of the expansion's weight they carry: the top feedbackDocs of list, as
// they score there, and 1; or, given lead (see Query.Lead), those among the best feedbackDocs of
// all lead's indexes, scored relative to the best of them, and the share of lead's sum that
// their scores make.
func feedbackOn(list []ranked, lead []float64) ([]ranked, float64) {
	if lead == nil {
		return list[:min(feedbackDocs, len(list))], 1
	}
	lead = slices.Clone(lead)
	slices.SortFunc(lead, func(a, b float64) int { return cmp.Compare(b, a) })
	lead = lead[:min(feedbackDocs, len(lead))]
	if len(lead) == 0 || lead[0] <= 0 {
		return nil, 0
	}
	var docs []ranked
	sum, mine := 0.0, 0.0
	for _, s := range lead {
		sum += s
	}
	floor := lead[len(lead)-1]
	for _, d := range list {
		if len(docs) == feedbackDocs || farBelow(d.cmp, floor) {
			break
		}
		mine += d.cmp
		d.score = d.cmp / lead[0]
		docs = append(docs, d)
	}
	return docs, min(mine/sum, 1)
}

// expansion returns the disjunction of the feedbackTerms most informative terms of the best
// units of docs, each weighing its score, their weights summing to mass times feedbackWeight of
// the original terms', or nil when there are none.
func (ix *Index) expansion(ctx context.Context, r index.IndexReader, gen uint64, global StatsFunc, text string, docs []ranked, mass float64, src *shown) (query.Query, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	skip := map[string]bool{}
	for _, t := range termsOf(textAnalyzer, text) {
		skip[t] = true
	}
	question := ix.questionTerms()
	// weight sums, over the feedback units, the share of the unit's terms that are t times the
	// unit's normalised score.
	weight := map[string]float64{}
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		title, p, ok := src.unit(d.unit)
		if !ok {
			continue
		}
		toks := analyze(textAnalyzer, title+"\n"+p.heading+"\n"+p.text+"\n")
		if len(toks) == 0 {
			continue
		}
		for _, tok := range toks {
			t := string(tok.Term)
			// Numbers and single letters are mostly list markers and versions.
			if skip[t] || question[t] || len(t) < 2 || strings.Trim(t, "0123456789") == "" {
				continue
			}
			weight[t] += d.score / float64(len(toks))
		}
	}
	cands := make([]string, 0, len(weight))
	for t := range weight {
		cands = append(cands, t)
	}
	st, err := ix.stats(r, gen, global, cands, fieldText)
	if err != nil {
		return nil, err
	}
	type cand struct {
		t string
		w float64
		// weight is the idf the term is weighed by (see termStats.weight), idf bleve's.
		weight, idf float64
	}
	var cs []cand
	for _, t := range cands {
		idf, ok := st.idf(fieldText, t)
		w, _ := st.weight(fieldText, t)
		// A term of a single unit can only bring back the unit it came from.
		if n := st.docs(fieldText, t); !ok || n < 2 || float64(n) > feedbackMaxDF*float64(st.records()) {
			continue
		}
		cs = append(cs, cand{t, weight[t] * w, w, idf})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].w != cs[j].w {
			return cs[i].w > cs[j].w
		}
		return cs[i].t < cs[j].t
	})
	if len(cs) > feedbackTerms {
		cs = cs[:feedbackTerms]
	}
	if len(cs) == 0 {
		return nil, nil
	}
	sum := 0.0
	for _, c := range cs {
		sum += c.w
	}
	// RM3 interpolation: the expansion is a distribution over its terms, given feedbackWeight
	// of the mass of the nq original terms.
	nq := float64(len(QueryTerms(text)))
	clauses := make([]query.Query, len(cs))
	for i, c := range cs {
		tq := query.NewTermQuery(c.t)
		tq.SetField(fieldText)
		// As in termsQuery, bleve's idf is divided out, twice, and the term weighted by its idf
		// once.
		tq.SetBoost(mass * feedbackWeight * nq * (c.w / sum) * c.weight / (c.idf * c.idf))
		clauses[i] = tq
	}
	return query.NewDisjunctionQuery(clauses), nil
}

// questionTerms returns the terms the text analyzer makes of the question words, analysed once
// per index: the analyzers are fixed with the mapping. The map is shared and read-only.
func (ix *Index) questionTerms() map[string]bool {
	ix.questionOnce.Do(func() {
		ix.question = map[string]bool{}
		for w := range questionWords {
			for _, tok := range analyze(textAnalyzer, w) {
				ix.question[string(tok.Term)] = true
			}
		}
	})
	return ix.question
}
