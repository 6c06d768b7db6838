package fulltext

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Search limits.
const (
	// DefaultMax is the number of documents [Index.Search] returns when [Query].Max is zero.
	DefaultMax = 10
	// FusionK is the constant k of reciprocal rank fusion: a document scores the sum of
	// 1/(k+rank) over the phrasings' lists (scaled, and mixed with scores: see
	// Ranking.ScoreFusion). The original paper's 60 suits long lists from many systems; a
	// calling model's few keyword paraphrases put the answer at the top of one or two lists, and
	// a smaller k lets that count. Chosen on the odd-numbered queries of
	// dev/eval/queries with their paraphrases (go run ./dev/eval --paraphrases --split, pooled
	// judgments) from 2, 5, 10, 20 and 60; 10 raised nDCG@5 on the odd and the even queries of
	// both corpora (dev/bench/README.md, The ranking's values).
	FusionK = 10
	// unitsPerDoc is how many units Search first fetches per wanted document, so that a few long
	// documents with many matching units do not crowd out the others.
	unitsPerDoc = 8
	// maxFetch caps the units one phrasing fetches for ranking, so a huge Max costs bounded work.
	maxFetch = 5000
	// maxCount caps the units read to count matching documents; beyond it the total is a lower
	// bound.
	maxCount = 50000
)

// ErrEmptyQuery is returned by [Index.Search] for a query without text.
var ErrEmptyQuery = errors.New("empty query")

// fieldBoost is one text field searched by a query and its weight.
type fieldBoost struct {
	field string
	boost float64
}

// Wanted returns how many documents a search asked for n returns: n, or [DefaultMax] when n is
// zero or less. It is the one place the default applies, here and in the callers that size a
// search (its offset, the room for hits they drop) before they make its [Query].
func Wanted(n int) int {
	if n <= 0 {
		return DefaultMax
	}
	return n
}

// Query is a ranked search.
type Query struct {
	// Text is the user's query, taken literally: no operators, fields or wildcards. Required.
	Text string
	// Paraphrases are extra phrasings written by the calling model; each runs on its own and the
	// ranked lists, Text's included, are fused by reciprocal rank fusion.
	Paraphrases []string
	// Prefix is the root-relative folder to search under; "" or "." searches everything.
	Prefix string
	// Extensions keeps documents with one of these extensions (".md"); empty keeps all.
	Extensions []string
	// After and Before keep documents modified at or after After and before Before.
	After, Before *time.Time
	// MinSize and MaxSize keep documents whose size in bytes lies in this inclusive range.
	MinSize, MaxSize *int64
	// Tags keeps documents that have every listed tag (case-insensitive).
	Tags []string
	// Keep, if set, keeps only the documents whose root-relative path it accepts, for criteria the
	// index has no field for (a file-name glob, a depth below Prefix). It is asked about every
	// matching unit before ranking, so the hits and the total hold only such documents; it must be
	// cheap and safe for concurrent use. If nil, every path is kept.
	Keep func(path string) bool
	// Max is the number of documents wanted. If zero, defaults to [DefaultMax] (see [Wanted]).
	Max int
	// Threshold drops hits whose score, normalised so that the top hit of their phrasing scores
	// 1, is below it. With paraphrases it applies to each phrasing's list before fusion, because
	// fused scores are rank-based and a cut on them would cut by rank, not by relevance. If zero,
	// every hit is kept.
	Threshold float64
	// Stats, if set, gives the statistics terms are weighed by in place of the index's own: the
	// sums of several indexes searched with one query, so that each weighs a term as one index of
	// all their records would and their lists' scores compare (see [Fuse]). It is called with the
	// terms and fields a search weighs, and must include this index's own numbers. If nil, the
	// index's own are used.
	Stats StatsFunc
	// Lead, if set, holds the scores (as [Listed]'s) of the best documents of the first list of
	// each index searched with Stats, the literal text's before feedback ([Index.Lead] of each):
	// feedback then draws on this index's documents among the best of all alone, weighted as one
	// index of all would weigh them. If nil, it draws on this index's best documents.
	Lead []float64
}

// Hit is one matching document, represented by its best unit.
type Hit struct {
	Path    string
	Title   string
	Score   float64 // fused score, normalised so that the top hit scores 1
	Heading string  // heading of the best section, "" for the preamble
	Line    int     // first line of the best unit
	Snippet string  // best fragment of the best unit, matched words in **bold**, one line
}

// Found is what [Index.SearchChecked] found.
type Found struct {
	Hits  []Hit
	Total int // documents matching, hits or not
	// Lists are the ranked lists the hits were fused from, for [Fuse].
	Lists Lists
}

// Lists are the ranked lists of one search, one per phrasing, for [Fuse] to merge with those of
// searches of other indexes by the same query and statistics (see [Query].Stats).
type Lists struct {
	Ranking Ranking
	// Fuzzy is set when the lists are of the fuzzy pass: no phrasing matched exactly.
	Fuzzy     bool
	Phrasings [][]Listed
}

// Listed is one document in one phrasing's list.
type Listed struct {
	Path string
	// Score is the document's score in the list, unnormalised: the sum over the query's terms of
	// their weights (bonus times idf) times what the unit's fields make of them. Two indexes
	// searched with the same statistics give scores that compare.
	Score float64
	Named bool // the phrasing names the document (see [NamesIn])
}

// Scored is a document of [Fuse]'s ranking.
type Scored struct {
	Path  string
	Score float64 // normalised: the top document scores 1
}

// Fuse merges the lists of searches of one query over several indexes as a search of one index of
// all their documents would rank them: the lists of each phrasing are merged into one by score and
// normalised by its top, and the phrasings fused as [Index.Search] fuses them, with the first
// lists' Ranking. When some lists are exact, the fuzzy ones are left out: one index would not
// have tried fuzzy matching. Paths must differ between indexes.
func Fuse(all ...Lists) []Scored {
	exact := slices.ContainsFunc(all, func(l Lists) bool { return !l.Fuzzy && len(l.Phrasings) > 0 })
	var merged [][]ranked
	var ranking *Ranking
	for _, l := range all {
		if exact && l.Fuzzy {
			continue
		}
		if ranking == nil {
			ranking = &l.Ranking
		}
		for i, list := range l.Phrasings {
			if i == len(merged) {
				merged = append(merged, nil)
			}
			for _, d := range list {
				merged[i] = append(merged[i], ranked{path: d.Path, score: d.Score, cmp: d.Score, named: d.Named})
			}
		}
	}
	for _, list := range merged {
		sort.SliceStable(list, func(i, j int) bool {
			if list[i].score != list[j].score {
				return list[i].score > list[j].score
			}
			return list[i].path < list[j].path
		})
		if len(list) > 0 && list[0].score > 0 {
			top := list[0].score
			for i := range list {
				list[i].score /= top
			}
		}
	}
	if ranking == nil {
		return nil
	}
	ix := &Index{ranking: *ranking}
	fused := ix.fuse(merged)
	if ranking.KeepNamed > 0 && len(merged) > 1 {
		fused = keepNamed(fused, merged, ranking.KeepNamed)
	}
	out := make([]Scored, len(fused))
	for i, r := range fused {
		out[i] = Scored{Path: r.path, Score: r.score}
	}
	return out
}

// ranked is one document in one phrasing's result list.
type ranked struct {
	path  string
	unit  string  // id of its best unit
	score float64 // normalised: the list's top document scores 1
	raw   float64 // bleve's score of the unit
	cmp   float64 // the score that compares across indexes (see Listed.Score)
	named bool    // the phrasing names the document (see Index.lift)
}

// Search runs q and returns at most q.Max documents, best first, each represented by its best
// unit, and how many documents matched in total. Fuzzy matching (one edit per word) is tried
// only when no phrasing matches exactly.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, int, error) {
	f, err := ix.SearchChecked(ctx, q, nil, 0)
	return f.Hits, f.Total, err
}

// SearchChecked is [Index.Search] for a caller that checks every hit against the files: unless
// keep is nil, the documents it rejects are dropped from the hits and the total, and the stored
// fields and snippets are made only for the first limit documents kept. It also returns the
// lists the hits were fused from (see [Fuse]).
func (ix *Index) SearchChecked(ctx context.Context, q Query, keep func(path string) bool, limit int) (Found, error) {
	if strings.TrimSpace(q.Text) == "" {
		return Found{}, ErrEmptyQuery
	}
	want := Wanted(q.Max)
	phrasings := []string{q.Text}
	for _, p := range q.Paraphrases {
		if strings.TrimSpace(p) != "" && !slices.Contains(phrasings, p) {
			phrasings = append(phrasings, p)
		}
	}
	q.Keep = ix.keeper(q)
	filter := ix.filter(q)
	fuzzy := false
	src := ix.shown() // the documents feedback learns from and the hits show, read once
	// One snapshot for every pass; the generation of the statistics cache is read before it.
	gen := ix.dfs.generation()
	r, err := ix.reader()
	if err != nil {
		return Found{}, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	terms := make([]query.Query, len(phrasings))
	for i, p := range phrasings {
		terms[i] = ix.termsQuery(r, gen, q.Stats, p, false)
	}
	var names []*naming
	if ix.ranking.NameBonus > 0 {
		if names, err = ix.naming(ctx, r, gen, phrasings); err != nil {
			return Found{}, err
		}
	}
	lists, pool, total, err := ix.runAll(ctx, r, terms, filter, q.Keep, want, q.Threshold, names)
	if err == nil && total > 0 {
		lists, err = ix.feedback(ctx, r, gen, q, phrasings, terms, lists, pool, want, src)
	}
	if err == nil && total > 0 {
		for i, n := range names {
			if lists[i], err = ix.lift(ctx, r, gen, q.Stats, n, lists[i], filter, q.Keep); err != nil {
				break
			}
		}
	}
	if err == nil && total == 0 {
		fuzzy = true
		for i, p := range phrasings {
			terms[i] = ix.termsQuery(r, gen, q.Stats, p, true)
		}
		lists, _, total, err = ix.runAll(ctx, r, terms, filter, q.Keep, want, q.Threshold, nil)
	}
	if err != nil {
		return Found{}, err
	}
	found := Found{Lists: Lists{Ranking: ix.ranking, Fuzzy: fuzzy, Phrasings: make([][]Listed, len(lists))}}
	for i, list := range lists {
		found.Lists.Phrasings[i] = make([]Listed, len(list))
		for j, d := range list {
			found.Lists.Phrasings[i][j] = Listed{Path: d.path, Score: d.cmp, Named: d.named}
		}
	}
	fused := ix.fuse(lists)
	if ix.ranking.KeepNamed > 0 && len(lists) > 1 {
		fused = keepNamed(fused, lists, ix.ranking.KeepNamed)
	}
	if len(fused) > want {
		fused = fused[:want]
	}
	if keep != nil {
		kept := fused[:0:0]
		for _, r := range fused {
			if !keep(r.path) {
				total--
				continue
			}
			if len(kept) < limit {
				kept = append(kept, r)
			}
		}
		fused = kept
	}
	if found.Hits, err = ix.hits(ctx, fused, phrasings, fuzzy, src); err != nil {
		return Found{}, err
	}
	found.Total = total
	return found, nil
}

// Lead returns the scores (as [Listed]'s) of the best documents of the list of q's literal text
// before feedback, as many as feedback draws on: what [Query].Lead wants of this index. q.Lead
// is not read.
func (ix *Index) Lead(ctx context.Context, q Query) ([]float64, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, ErrEmptyQuery
	}
	want := Wanted(q.Max)
	q.Keep = ix.keeper(q)
	gen := ix.dfs.generation()
	r, err := ix.reader()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	list, _, err := ix.run(ctx, r, kept(filtered(ix.termsQuery(r, gen, q.Stats, q.Text, false), ix.filter(q)), q.Keep), want, q.Threshold, nil, nil)
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, d := range list[:min(feedbackDocs, len(list))] {
		out = append(out, d.cmp)
	}
	return out, nil
}

// runAll runs the terms query of every phrasing, restricted by filter and keep, and returns their
// ranked lists, the units the first list was ranked from (what feedback re-ranks) and the number
// of documents that match any of them. Unless names is nil, the walk of phrasing i records the
// scores of the units names[i] watches.
func (ix *Index) runAll(ctx context.Context, r index.IndexReader, terms []query.Query, filter query.Query, keep func(string) bool, want int, threshold float64, names []*naming) (lists [][]ranked, pool []unitHit, total int, err error) {
	lists = make([][]ranked, 0, len(terms))
	matched := matchedPool.Get().(map[string]bool)
	defer func() {
		clear(matched)
		matchedPool.Put(matched)
	}()
	for i, tq := range terms {
		var watch map[string]float64
		if names != nil && names[i] != nil {
			watch = names[i].scores
		}
		list, units, err := ix.run(ctx, r, kept(filtered(tq, filter), keep), want, threshold, matched, watch)
		if err != nil {
			return nil, nil, 0, err
		}
		lists = append(lists, list)
		if i == 0 {
			pool = units
		}
	}
	return lists, pool, len(matched), nil
}

// matchedPool holds the sets runAll counts documents in, emptied: a search on the tldr tree
// counts thousands, and a set grown afresh each time spent a visible share of the search
// rehashing.
// The pool lets go of them at the next collection but one, so an idle server keeps none.
var matchedPool = sync.Pool{New: func() any { return map[string]bool{} }}

// run ranks the documents matching bq: their best units, best first, at least want documents
// when that many match. It adds every matching document to matched, unless matched is nil, and
// records the scores of the units watch holds (see Index.top). It also returns the units the
// list was ranked from.
func (ix *Index) run(ctx context.Context, r index.IndexReader, bq query.Query, want int, threshold float64, matched map[string]bool, watch map[string]float64) ([]ranked, []unitHit, error) {
	size := min(max(want*unitsPerDoc, 50), maxFetch)
	for {
		units, total, scale, err := ix.top(ctx, r, bq, size, matched, watch)
		if err != nil {
			return nil, nil, err
		}
		list, complete := rankUnits(units, total, want, threshold, scale)
		if !complete && size < maxFetch {
			size = min(size*4, maxFetch)
			matched = nil // counted already
			continue
		}
		return list, units, nil
	}
}

// rankUnits turns units, best first, into documents with their best unit, scores normalised,
// dropping those under threshold; scale turns a unit's score into one that compares across
// indexes (see Index.top). complete is false when fewer than want documents were found while more
// units than these match.
func rankUnits(units []unitHit, total, want int, threshold, scale float64) (list []ranked, complete bool) {
	seen := map[string]bool{}
	for _, u := range units {
		p := pathOfID(u.id)
		if seen[p] {
			continue
		}
		seen[p] = true
		list = append(list, ranked{path: p, unit: u.id, score: u.score, raw: u.score, cmp: steady(u.score * scale)})
	}
	complete = len(list) >= want || total <= len(units)
	if len(list) > 0 && list[0].score > 0 {
		top := list[0].score
		for i := range list {
			list[i].score /= top
		}
	}
	if threshold > 0 {
		list = slices.DeleteFunc(list, func(r ranked) bool { return r.score < threshold })
	}
	return list, complete
}

// unitHit is one scored unit.
type unitHit struct {
	id    string
	score float64
	iid   index.IndexInternalID // its id in the reader it was found with
}

// worse orders units best first: by score, then by id, since equal scores are common
// (near-duplicate pages) and the id makes the order reproducible.
func (a unitHit) worse(b unitHit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id > b.id
}

// steady rounds a score of bleve's to ten significant digits. Its float sums vary in the last
// bits with how the index's segments happen to be laid out, so two units with the same text
// (tldr's linux/df.md and osx/df.md) scored a hair apart in one build and the other way round in
// the next; rounded, they tie, and the id orders them the same way every time.
func steady(score float64) float64 {
	if score == 0 || math.IsInf(score, 0) || math.IsNaN(score) {
		return score
	}
	scale := math.Pow(10, 9-math.Floor(math.Log10(math.Abs(score))))
	return math.Round(score*scale) / scale
}

// farBelow reports whether steady(score) is certainly below floor, a positive steady score:
// steady moves a score by at most half a unit of its tenth digit, less than a billionth of it.
func farBelow(score, floor float64) bool {
	return floor > 0 && score < floor*(1-1e-9)
}

// unitHeap is a min-heap of units, the worst on top.
type unitHeap []unitHit

func (h unitHeap) Len() int           { return len(h) }
func (h unitHeap) Less(i, j int) bool { return h[i].worse(h[j]) }
func (h unitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *unitHeap) Push(x any)        { *h = append(*h, x.(unitHit)) }
func (h *unitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// searcher returns the searcher of q over r, scoring with the index's model as bleve's own
// search would.
func (ix *Index) searcher(ctx context.Context, r index.IndexReader, q query.Query) (bsearch.Searcher, error) {
	model := index.DefaultScoringModel
	if m := indexMapping(); m.ScoringModel != "" {
		model = m.ScoringModel
	}
	ctx = context.WithValue(ctx, bsearch.GetScoringModelCallbackKey, bsearch.GetScoringModelCallbackFn(func() string { return model }))
	s, err := q.Searcher(ctx, r, indexMapping(), bsearch.SearcherOptions{})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return s, nil
}

// top walks the matches of bq and returns the best n units, best first, and how many units
// match. Unless matched is nil, it adds the documents of the first maxCount matching units to
// matched; and it sets the score of each matching unit that watch (by internal id) holds. It drives
// bleve's searcher itself rather than making a search request: a request sorted by score and
// id loads the id of every match, and counting the documents took a second walk; here a
// match's id is read only when it is counted or could enter the best n, and one walk does both
// (together a large share of a search: dev/bench/README.md, Other timings).
//
// It also returns scale, which turns the walk's scores into ones that compare across indexes:
// bleve divides every score of a query by its norm, the root of the sum of the squared weights
// (boost times idf, in this index) of its terms, and that sum differs from one index to the next
// even when the boosts make each term's weight the same (a term an index lacks still counts in
// it). The top searcher's Weight is that sum.
func (ix *Index) top(ctx context.Context, r index.IndexReader, bq query.Query, n int, matched map[string]bool, watch map[string]float64) (_ []unitHit, total int, scale float64, _ error) {
	s, err := ix.searcher(ctx, r, bq)
	if err != nil {
		return nil, 0, 0, err
	}
	defer s.Close()
	scale = math.Sqrt(s.Weight())
	h := make(unitHeap, 0, n)
	err = eachMatch(ctx, r, s, func(dm *bsearch.DocumentMatch) error {
		total++
		// A unit far below the worst of a full heap stays below it once made steady: its
		// score needs no rounding (a log and a power per match) to be passed over.
		u := unitHit{score: dm.Score}
		if len(h) < n || !farBelow(u.score, h[0].score) {
			u.score = steady(u.score)
		}
		if _, ok := watch[string(dm.IndexInternalID)]; ok {
			watch[string(dm.IndexInternalID)] = steady(dm.Score)
		}
		count := matched != nil && total <= maxCount
		if count || len(h) < n || u.score >= h[0].score {
			var err error
			if u.id, err = r.ExternalID(dm.IndexInternalID); err != nil {
				return err
			}
			u.iid = slices.Clone(dm.IndexInternalID)
			if count {
				matched[pathOfID(u.id)] = true
			}
			switch {
			case len(h) < n:
				heap.Push(&h, u)
			case h[0].worse(u):
				h[0] = u
				heap.Fix(&h, 0)
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("search: %w", err)
	}
	out := make([]unitHit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(unitHit)
	}
	return out, total, scale, nil
}

// eachMatch calls f with each match of s over r, in index order, until f fails, and checks ctx
// every 1,024 matches. f must not keep the match: it goes back to the pool.
func eachMatch(ctx context.Context, r index.IndexReader, s bsearch.Searcher, f func(*bsearch.DocumentMatch) error) error {
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r}
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		dm, err := s.Next(sctx)
		if err != nil || dm == nil {
			return err
		}
		if err := f(dm); err != nil {
			return err
		}
		sctx.DocumentMatchPool.Put(dm)
	}
}

// fuse merges ranked lists by reciprocal rank fusion mixed with their normalised scores (see
// Ranking.ScoreFusion); a single list keeps its own scores. A document's best unit comes from the
// list that ranks it highest, the literal text first on ties. Scores are normalised so that the
// top document scores 1.
func (ix *Index) fuse(lists [][]ranked) []ranked {
	if len(lists) == 1 {
		return lists[0]
	}
	type acc struct {
		ranked
		bestRank int
	}
	byPath := map[string]*acc{}
	mix := ix.ranking.ScoreFusion
	for _, list := range lists {
		for i, r := range list {
			a, ok := byPath[r.path]
			if !ok {
				a = &acc{ranked: ranked{path: r.path, unit: r.unit}, bestRank: i}
				byPath[r.path] = a
			} else if i < a.bestRank {
				a.unit, a.bestRank = r.unit, i
			}
			a.score += (1-mix)*float64(FusionK+1)/float64(FusionK+i+1) + mix*r.score
		}
	}
	out := make([]ranked, 0, len(byPath))
	for _, a := range byPath {
		out = append(out, a.ranked)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].path < out[j].path
	})
	if len(out) > 0 {
		top := out[0].score
		for i := range out {
			out[i].score /= top
		}
	}
	return out
}

// hits makes the hits of the ranked documents from the best unit of each, as its document is now.
func (ix *Index) hits(ctx context.Context, fused []ranked, phrasings []string, fuzzy bool, src *shown) ([]Hit, error) {
	if len(fused) == 0 {
		return nil, nil
	}
	terms := map[string]bool{}
	for _, p := range phrasings {
		for _, t := range termsOf(textAnalyzer, p) {
			terms[t] = true
		}
	}
	out := make([]Hit, 0, len(fused))
	for _, r := range fused {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		title, p, _ := src.unit(r.unit)
		out = append(out, Hit{
			Path:    r.path,
			Title:   title,
			Score:   r.score,
			Heading: p.heading,
			Line:    p.line,
			Snippet: ix.snippet(p.text, terms, fuzzy),
		})
	}
	return out, nil
}
