package semantic

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Candidate limits.
const (
	// minCandidateRun is the shortest run Candidates puts in a query: a regexp over a shorter run
	// expands to most of the dictionary and narrows nothing.
	minCandidateRun = 3
	// maxCandidateRuns bounds the regexp queries of one Candidates call.
	maxCandidateRuns = 8
)

// Candidates returns the paths of indexed documents that may contain literal as a substring,
// ignoring ASCII case, and ok=false when the index cannot narrow the search (the caller then
// scans every file). It splits literal into maximal runs of ASCII letters and digits; a
// candidate has, for every run, a word containing it. Since the words field is split like
// bleve's unicode tokenizer, which never splits inside such a run, every document containing
// literal is a candidate. ok is false for a literal with a non-ASCII byte, without runs, with
// more than 8 runs, or whose runs are all shorter than 3 (they would match nearly every word).
// The superset holds for the text the [Doc] carried when indexed: title, tags, aliases, links,
// headings and sections.
func (ix *Index) Candidates(ctx context.Context, literal string) ([]string, bool, error) {
	runs, ok := literalRuns(literal)
	if !ok {
		return nil, false, nil
	}
	words, err := ix.words(ix.dfs.generation())
	if err != nil {
		return nil, false, err
	}
	over := ix.wordList.tooLarge()
	var must []query.Query
	for _, r := range runs {
		if over {
			must = append(must, containingRegexp(r))
			continue
		}
		must = append(must, containing(words, r))
	}
	n, err := ix.Count()
	if err != nil || n == 0 {
		return nil, true, err
	}
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery(must), n, 0, false)
	req.Score = "none"
	res, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		return nil, false, fmt.Errorf("candidates: %w", err)
	}
	var paths []string
	for _, h := range res.Hits {
		paths = append(paths, pathOfID(h.ID))
	}
	sort.Strings(paths)
	return paths, true, nil
}

// containing returns a query for the documents with a word containing run: the words of the
// index that contain it, found in the cached list, as term queries; or, for a run inside too many
// words, a regular expression over the words field. An empty list of words matches nothing.
func containing(words []string, run string) query.Query {
	matched, ok := wordsContaining(words, run)
	if !ok {
		return containingRegexp(run)
	}
	if len(matched) == 0 {
		return query.NewMatchNoneQuery()
	}
	terms := make([]query.Query, len(matched))
	for i, w := range matched {
		tq := query.NewTermQuery(w)
		tq.SetField(fieldWords)
		terms[i] = tq
	}
	return query.NewDisjunctionQuery(terms)
}

// containingRegexp matches the documents with a word containing run through the index's own
// dictionary, for a run inside too many words or when the list of words is too large to hold.
func containingRegexp(run string) query.Query {
	rq := query.NewRegexpQuery(".*" + run + ".*")
	rq.SetField(fieldWords)
	return rq
}

// literalRuns returns the distinct lower-case runs of ASCII letters and digits of literal worth
// a query, longest first, dropping runs contained in another; ok is false when the index
// cannot narrow a search for literal.
func literalRuns(literal string) ([]string, bool) {
	var runs []string
	cur := -1
	flush := func(i int) {
		if cur >= 0 {
			runs = append(runs, strings.ToLower(literal[cur:i]))
			cur = -1
		}
	}
	for i := 0; i < len(literal); i++ {
		c := literal[i]
		switch {
		case c >= utf8.RuneSelf:
			return nil, false
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			if cur < 0 {
				cur = i
			}
		default:
			flush(i)
		}
	}
	flush(len(literal))
	if len(runs) == 0 || len(runs) > maxCandidateRuns {
		return nil, false
	}
	sort.Slice(runs, func(i, j int) bool { return len(runs[i]) > len(runs[j]) })
	var keep []string
	for _, r := range runs {
		if len(r) < minCandidateRun {
			continue
		}
		if !slices.ContainsFunc(keep, func(k string) bool { return strings.Contains(k, r) }) {
			keep = append(keep, r)
		}
	}
	return keep, len(keep) > 0
}
