package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/packfs/packfs-mcp/fulltext"
)

// stopWords are dropped from queries by [grepRanker]: words so common that
// matching them says nothing about a file.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "any": true, "are": true, "as": true, "at": true,
	"be": true, "by": true, "can": true, "do": true, "does": true, "for": true, "from": true,
	"get": true, "how": true, "i": true, "if": true, "in": true, "into": true, "is": true,
	"it": true, "its": true, "me": true, "my": true, "of": true, "on": true, "or": true,
	"so": true, "that": true, "the": true, "there": true, "this": true, "to": true,
	"what": true, "when": true, "where": true, "which": true, "who": true, "why": true,
	"will": true, "with": true, "without": true, "you": true, "your": true, "we": true,
	"was": true, "all": true, "some": true, "way": true, "than": true,
}

// queryTerms splits a query into its distinct lower-case words of letters and
// digits, at least two characters long, without stop words, in query order.
func queryTerms(q string) []string {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var terms []string
	for _, w := range words {
		if len([]rune(w)) < 2 || stopWords[w] || slices.Contains(terms, w) {
			continue
		}
		terms = append(terms, w)
	}
	return terms
}

// grepRanker is the baseline: it ranks files by how many distinct query terms
// they contain as case-insensitive substrings, then by the total number of
// occurrences of those terms, then by path. It is what a user gets from grep
// without a ranking engine.
type grepRanker struct {
	paths []string // root-relative slash paths, sorted
	texts []string // lower-cased file contents, parallel to paths
}

// newGrepRanker reads every file under root once into memory.
func newGrepRanker(root string, files []string) (Ranker, error) {
	g := &grepRanker{paths: files, texts: make([]string, len(files))}
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, fmt.Errorf("grep ranker: %w", err)
		}
		g.texts[i] = strings.ToLower(string(b))
	}
	return g, nil
}

// Rank implements [Ranker]. Files that contain no query term are not returned.
// With paraphrases, each phrasing is ranked on its own and the lists are fused
// by reciprocal rank fusion with the engine's constant, so that the two
// rankers are compared on the same phrasings, fused the same way.
func (g *grepRanker) Rank(query string, paraphrases []string, k int) []string {
	if len(paraphrases) == 0 {
		return g.rank(query, k)
	}
	lists := [][]string{g.rank(query, rrfDepth)}
	for _, p := range paraphrases {
		lists = append(lists, g.rank(p, rrfDepth))
	}
	return fuseRanks(lists, k)
}

// rrfDepth is how many files of each phrasing's list the baseline fuses.
const rrfDepth = 100

// fuseRanks merges ranked lists of paths by reciprocal rank fusion and
// returns the best k, ties broken by path.
func fuseRanks(lists [][]string, k int) []string {
	score := map[string]float64{}
	for _, list := range lists {
		for i, p := range list {
			score[p] += 1 / float64(fulltext.FusionK+i+1)
		}
	}
	out := keysByValue(score)
	return out[:min(k, len(out))]
}

// rank ranks the files for one phrasing.
func (g *grepRanker) rank(query string, k int) []string {
	terms := queryTerms(query)
	type scored struct {
		path            string
		distinct, total int
	}
	var hits []scored
	for i, text := range g.texts {
		s := scored{path: g.paths[i]}
		for _, t := range terms {
			if n := strings.Count(text, t); n > 0 {
				s.distinct++
				s.total += n
			}
		}
		if s.distinct > 0 {
			hits = append(hits, s)
		}
	}
	slices.SortFunc(hits, func(a, b scored) int {
		if c := cmp.Compare(b.distinct, a.distinct); c != 0 {
			return c
		}
		if c := cmp.Compare(b.total, a.total); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	out := make([]string, 0, min(k, len(hits)))
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.path)
	}
	return out
}
