package semantic

import (
	"context"
	"slices"

	"github.com/packfs/packfs-mcp/fulltext"
)

// A search over several engines ranks their documents as one index of all of them would, though
// each keeps its own index and only numbers pass between them: every engine weighs the query's
// terms by the statistics of all summed (document counts, and how many hold each term), so that
// the scores of their phrasings' lists compare; feedback draws on the best documents of all
// ([fulltext.Query].Lead); and [fulltext.Fuse] merges those lists and fuses the phrasings as one
// index's search does. [SearchSeveral] searches, [Merge] ranks what those that answered found.

// Part is one engine of a search over several: the name its paths go by in the merged ranking,
// its engine, and the query it is asked, its own (its threshold, its filters). Names must differ
// and hold no "/": a path of the merged ranking is Name + "/" + the engine's path, and
// [fulltext.Fuse] orders documents of equal score by those paths.
type Part struct {
	Name   string
	Engine *Engine
	Query  fulltext.Query
}

// Answer is what one part of a search over several found, for [Merge]: its results, or the
// error that kept it from answering.
type Answer struct {
	Name    string
	Results Results
	// Err is the part's failure: Merge leaves the part out. A caller that cannot use a part's
	// results (it fails them, as a search that found nothing while files were unread) sets it.
	Err error
}

// SearchSeveral searches every part's engine for its query, with follow as [Engine.Search]
// takes it, as one index of all their documents would be searched. Feedback needs the best
// documents of all before any engine's search, so each engine is asked for its lead
// ([fulltext.Index.Lead]) first, then searched. It returns each part's answer, in the order of
// parts.
func SearchSeveral(ctx context.Context, parts []Part, follow bool) []Answer {
	stats := sumStats(parts)
	// Never nil, even when no engine has a lead: a nil lead would have each engine draw on its
	// own best documents, which are not the best of all.
	lead := []float64{}
	for _, p := range parts {
		q := p.Query
		q.Stats = stats
		if l, err := p.Engine.lead(ctx, q); err == nil { // an engine whose lead fails adds none
			lead = append(lead, l...)
		}
	}
	answers := make([]Answer, len(parts))
	for i, p := range parts {
		q := p.Query
		q.Stats, q.Lead = stats, lead
		res, err := p.Engine.Search(ctx, q, follow)
		answers[i] = Answer{Name: p.Name, Results: res, Err: err}
	}
	return answers
}

// sumStats returns the statistics a search of parts weighs its terms by: the sums of every
// engine's, as one index of all their documents would hold them. An engine whose index is not
// open, or closes meanwhile, adds nothing. Each index's own cache of term counts answers the
// engines' repeated asks for the same terms (a memo of the sums per search measured no gain:
// dev/bench/README.md, Several roots).
func sumStats(parts []Part) fulltext.StatsFunc {
	return func(terms []string, fields ...string) (fulltext.Stats, error) {
		var sum fulltext.Stats
		for _, p := range parts {
			if st, err := p.Engine.stats(terms, fields...); err == nil {
				sum.Add(st)
			}
		}
		return sum, nil
	}
}

// stats returns the statistics of terms in fields of the engine's index (see
// [fulltext.Index.Stats]), none while no index is open.
func (e *Engine) stats(terms []string, fields ...string) (fulltext.Stats, error) {
	ix := e.index()
	if ix == nil {
		return fulltext.Stats{}, nil
	}
	return ix.Stats(terms, fields...)
}

// lead returns what [fulltext.Index.Lead] returns of the engine's index for q, nothing while no
// index is open.
func (e *Engine) lead(ctx context.Context, q fulltext.Query) ([]float64, error) {
	ix := e.index()
	if ix == nil {
		return nil, nil
	}
	return ix.Lead(ctx, q)
}

// Ranked is a hit of a merged ranking ([Merge]): the answer it is from (its index among the
// answers), its rank among that answer's hits, and its fused score.
type Ranked struct {
	Answer, Rank int
	Score        float64
}

// Merged is what a search over several engines found, merged from the answers that have no Err
// ([Merge]).
type Merged struct {
	// Ranking holds the hits, best first, ranked as one index of all the engines' documents
	// would rank them; nil unless Fused.
	Ranking []Ranked
	// Fused is false when an answer has no lists, its hits including files read directly while
	// its index is being built: nothing compares their scores, and the caller orders the hits.
	Fused bool
	// Total is how many documents the searches matched, hits or not, summed ([Results].Total).
	Total int
	// Unknown are the words of the query no engine's documents contain: those every answer's
	// Unknown names, sorted. One answer told while its index is incomplete names none.
	Unknown []string
}

// Merge merges the answers that have no Err: their hits are ranked by [fulltext.Fuse] of their
// lists. A document of a list that is not a hit was not among its engine's best, or failed the
// check against the files: it is passed over, and the scores stay relative to the best hit's (1).
func Merge(answers []Answer) Merged {
	var (
		m        = Merged{Fused: true}
		lists    []fulltext.Lists
		at       = map[string]Ranked{}
		unknown  = map[string]int{}
		answered int
	)
	for i, a := range answers {
		if a.Err != nil {
			continue
		}
		answered++
		m.Total += a.Results.Total
		for _, w := range a.Results.Unknown {
			unknown[w]++
		}
		if a.Results.Lists == nil {
			m.Fused = false
			continue
		}
		lists = append(lists, named(*a.Results.Lists, a.Name))
		for r, h := range a.Results.Hits {
			at[a.Name+"/"+h.Path] = Ranked{Answer: i, Rank: r}
		}
	}
	for w, n := range unknown {
		if n == answered {
			m.Unknown = append(m.Unknown, w)
		}
	}
	slices.Sort(m.Unknown)
	if !m.Fused {
		return m
	}
	for _, d := range fulltext.Fuse(lists...) {
		if h, ok := at[d.Path]; ok {
			h.Score = d.Score
			m.Ranking = append(m.Ranking, h)
		}
	}
	if len(m.Ranking) > 0 && m.Ranking[0].Score > 0 {
		best := m.Ranking[0].Score
		for i := range m.Ranking {
			m.Ranking[i].Score /= best
		}
	}
	return m
}

// named returns a copy of l with its paths inside name, so that the paths of several engines'
// lists differ, as [fulltext.Fuse] wants them.
func named(l fulltext.Lists, name string) fulltext.Lists {
	phrasings := make([][]fulltext.Listed, len(l.Phrasings))
	for i, list := range l.Phrasings {
		phrasings[i] = make([]fulltext.Listed, len(list))
		for j, d := range list {
			d.Path = name + "/" + d.Path
			phrasings[i][j] = d
		}
	}
	l.Phrasings = phrasings
	return l
}
