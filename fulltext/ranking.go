package fulltext

import (
	"fmt"
	"sync"

	bsearch "github.com/blevesearch/bleve/v2/search"
)

// Ranking holds the weights of the ranker. [DefaultRanking] is what the server uses; the
// evaluation and TestRankingEval compare others.
type Ranking struct {
	// BM25B is BM25's length normalisation. bleve v2.6.1 takes the average field length from the
	// number of distinct terms of the field in the whole index divided by the number of records,
	// far below the real average, so its default b=0.75 punishes every unit for its length. Units
	// are already cut to at most ChunkSize bytes, so no normalisation (b=0) ranks best, as
	// TestRankingEval measured against tf-idf (bleve's default) and smaller and larger b, with
	// and without the heading path searched; searching link texts as well ranked worse, so the
	// links field is indexed but not searched (dev/bench/README.md, The ranking's values).
	BM25B float64
	// BM25K1 is BM25's term-frequency saturation (bleve's default, 1.2).
	BM25K1 float64
	// TitleBonus, HeadingBonus and LeadBonus are what a term earns, on top of its match in a
	// unit's text, when it is also in the document's title (or an alias), the unit's heading or
	// the document's lead, as a share of the term's weight. They were chosen on the odd-numbered
	// queries of dev/eval/queries (see TestRankingEval): the earlier title boost of 2, weighted by the
	// title's own idf, let a page named after a common word ("see", "free", "last") win any query
	// containing that word. 0 leaves the field out.
	TitleBonus, HeadingBonus, LeadBonus float64
	// TagBoost weighs a query word equal to a tag of the document, as a share of its idf in tags.
	// 0 leaves tags out.
	TagBoost float64
	// NameBonus lifts, in one phrasing's list, the documents the phrasing names (see NamesIn):
	// such a document scores its share of the top score plus NameBonus times its coverage, the
	// share (by idf) of the phrasing's other terms it contains. 0 turns names off.
	NameBonus float64
	// NameCoverage is the least coverage at which a named document is lifted: a page named
	// "install" is not what "install software on ubuntu" asks for unless it speaks of software
	// and ubuntu too.
	NameCoverage float64
	// KeepNamed is the place after fusion below which a document is not dropped when a phrasing
	// names it and ranks it first. 0 leaves fusion alone.
	KeepNamed int
	// ScoreFusion mixes, in fusion, each list's normalised scores into its reciprocal ranks: a
	// document scores the sum over lists of (1-ScoreFusion)*(k+1)/(k+rank) + ScoreFusion*score.
	// 0 is plain reciprocal rank fusion.
	ScoreFusion float64
}

// DefaultRanking returns the weights the server ranks with.
//
// The names and fusion weights were chosen on the odd-numbered queries of dev/eval/queries (go run
// ./dev/eval --split, in each of the three query views, after pooling what they brought into the
// top 5) from NameBonus in {0.25, 0.5, 1}, NameCoverage in {0, 0.5, 1}, KeepNamed in {0, 2, 3},
// ScoreFusion in {0, 0.3, 0.5, 0.7, 1} and a weight of the literal query's list in fusion in
// {0.5, 1, 2} (1 was best, so there is none); they raised the mean odd nDCG@5 of the six
// corpus-and-view cells. Names with a coverage below 1 lifted pages named by a common word ("boot"
// for "start on boot", "users" for "create user"); a heading as a name of its section helped one
// view and cost another, and was dropped; a bonus for the document's folder names cost nDCG@5 on
// Obsidian's words alone and was dropped. Once a named page was scored by its phrasing's own walk
// (not a conjunction that added the names term's score), other values of NameBonus and NameCoverage
// did no better beyond noise: the weights stayed. Lifting the pages named by a run of two words or
// more whatever their coverage ("where is", "zip up"), on tldr's odd queries in the user's words
// alone, gained no answer and cost nDCG@5; counting only runs of two words that can name a page
// alone did no better: names stayed as they are. The figures are in dev/bench/README.md, The
// ranking's values.
func DefaultRanking() Ranking {
	return Ranking{BM25B: 0, BM25K1: 1.2, TitleBonus: 1, HeadingBonus: 0.5, LeadBonus: 0.75, TagBoost: 1.5,
		NameBonus: 0.5, NameCoverage: 1, KeepNamed: 3, ScoreFusion: 0.5}
}

// bm25 is bleve's BM25 b and k1, which v2.6.1 reads from package variables of its search package
// rather than from an index: every index open in one process must use the same. users counts
// the open indexes; the variables are written only when there is none, so no search reads them
// while they change.
var bm25 struct {
	sync.Mutex
	users int
	b, k1 float64
}

// claimBM25 sets bleve's BM25 parameters to r's for an index being opened, or refuses when an
// index open in the process uses others. Each successful claim is released by releaseBM25.
func claimBM25(r Ranking) error {
	bm25.Lock()
	defer bm25.Unlock()
	if bm25.users == 0 {
		bsearch.BM25_b, bsearch.BM25_k1 = r.BM25B, r.BM25K1
		bm25.b, bm25.k1 = r.BM25B, r.BM25K1
	} else if bm25.b != r.BM25B || bm25.k1 != r.BM25K1 {
		return fmt.Errorf("index: BM25 b=%g k1=%g differs from b=%g k1=%g of an index already open: bleve v2.6.1 keeps one pair per process", r.BM25B, r.BM25K1, bm25.b, bm25.k1)
	}
	bm25.users++
	return nil
}

// releaseBM25 gives back a claim of claimBM25.
func releaseBM25() {
	bm25.Lock()
	defer bm25.Unlock()
	bm25.users--
}
