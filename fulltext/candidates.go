package fulltext

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/packfs/packfs-mcp/fsroot"
)

// Candidate limits.
const (
	// minCandidateRun is the shortest run Candidates puts in a query: a regexp over a shorter run
	// expands to most of the dictionary and narrows nothing.
	minCandidateRun = 3
	// maxCandidateRuns bounds the regexp queries of one Candidates call.
	maxCandidateRuns = 8
)

// errTooMany is matching's refusal of a query that matches more records than it was allowed.
var errTooMany = errors.New("more matches than allowed")

// Candidates returns the paths of indexed documents that may contain literal as a substring,
// ignoring ASCII case, and ok=false when the index cannot narrow the search (the caller then
// scans every file). It splits literal into maximal runs of ASCII letters and digits; a
// candidate has, for every run, a word containing it. Since the words field is split into runs of
// letters and digits (alnumTokenizer), never inside such a run, every document containing
// literal is a candidate. ok is false for a literal with a non-ASCII byte, without runs, with
// more than 8 runs, or whose runs are all shorter than 3 (they would match nearly every word)
// or found inside more than maxWordTerms words (they narrow nothing worth the query: "reg" is
// inside 5,200 words of the Linux sources). A run of the literal that is inside that many
// words is left out of the query when another run narrows, which only widens the candidates.
// The superset holds for the text the [markdown.Doc] carried when indexed: title, tags, aliases, links,
// headings and sections. Only documents below the folder under are returned ("." for all). When
// most is not 0 and the index would go through more than most of its records to find them, ok
// is false: the caller is better off reading the folder's files than waiting for the index
// to pass over the whole tree's (see [Index.matching]).
func (ix *Index) Candidates(ctx context.Context, literal, under string, most int) ([]string, bool, error) {
	runs, ok := literalRuns(literal)
	if !ok {
		return nil, false, nil
	}
	words, err := ix.words(ix.dfs.generation())
	if err != nil {
		return nil, false, err
	}
	var must []query.Query
	if ix.wordList.tooLarge() {
		for _, r := range runs {
			must = append(must, containingRegexp(r))
		}
	} else if must = narrowing(words, runs); must == nil {
		return nil, false, nil
	}
	paths, err := ix.matching(ctx, query.NewConjunctionQuery(must), under, most)
	if errors.Is(err, errTooMany) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("candidates: %w", err)
	}
	sort.Strings(paths)
	return paths, true, nil
}

// matching returns the paths at or below the folder under of the records q matches, in index
// order. It walks bleve's searcher itself, as [Index.top] does: a search request sized to the
// whole index collected and sorted every match first. The folder is checked here, on the paths
// the records give, not by a term: the records of words carry no folders, and a folder of a big
// tree then sorts only its own candidates. Unless most is 0, it fails with errTooMany before
// reading any when bleve's count of the postings it would go through exceeds most: each costs a
// read of its record's path, whichever folder it is in.
func (ix *Index) matching(ctx context.Context, q query.Query, under string, most int) ([]string, error) {
	r, err := ix.reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := q.Searcher(ctx, r, indexMapping(), bsearch.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if most > 0 && s.Count() > uint64(most) {
		return nil, errTooMany
	}
	var paths []string
	err = eachMatch(ctx, r, s, func(dm *bsearch.DocumentMatch) error {
		id, err := r.ExternalID(dm.IndexInternalID)
		if p := pathOfID(id); err == nil && fsroot.Within(p, under) {
			paths = append(paths, p)
		}
		return err
	})
	return paths, err
}

// narrowing returns the queries of the runs worth asking the index for, those inside at most
// maxWordTerms words; nil when there is none.
func narrowing(words wordList, runs []string) []query.Query {
	var must []query.Query
	for _, r := range runs {
		if matched, ok := words.containing(r); ok {
			must = append(must, wordsQuery(matched))
		}
	}
	return must
}

// wordsQuery matches the documents with one of words in the words field; an empty list matches
// nothing.
func wordsQuery(words []string) query.Query {
	if len(words) == 0 {
		return query.NewMatchNoneQuery()
	}
	terms := make([]query.Query, len(words))
	for i, w := range words {
		tq := query.NewTermQuery(w)
		tq.SetField(fieldWords)
		terms[i] = tq
	}
	return query.NewDisjunctionQuery(terms)
}

// containingRegexp matches the documents with a word containing run through the index's own
// dictionary, when the list of words is too large to hold: a walk of every segment's dictionary,
// seconds per run on a big tree (dev/bench/README.md, Scale).
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
