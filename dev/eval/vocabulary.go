package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// rareShare is the largest share of the pages a word may be found in and still
// count as distinctive in [vocabularyGap].
const rareShare = 0.2

// vocabularyGap returns the ids of the queries that share no distinctive word
// with any page that answers them (grade 2): no query term, as the engine
// analyses it, that is found in that page and in fewer than rareShare of all
// pages. No ranking of words can find those pages from the query alone.
func vocabularyGap(qs *QuerySet, root string, files []string) ([]string, error) {
	pageTerms := make(map[string]map[string]bool, len(files))
	df := map[string]int{}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		d := markdown.Parse(f, src, time.Time{})
		var b strings.Builder
		b.WriteString(d.Title + "\n" + strings.Join(d.Aliases, "\n"))
		for _, s := range d.Sections {
			b.WriteString("\n" + s.Heading + "\n" + s.Text)
		}
		set := map[string]bool{}
		for _, t := range fulltext.QueryTerms(b.String()) {
			set[t] = true
			df[t]++
		}
		pageTerms[f] = set
	}
	var gap []string
	for _, q := range qs.Queries {
		if !sharesRareTerm(fulltext.QueryTerms(q.Query), q.judgments(), pageTerms, df, len(files)) {
			gap = append(gap, q.ID)
		}
	}
	return gap, nil
}

// sharesRareTerm reports whether a page of grade 2 in rel holds one of terms
// that fewer than rareShare of the n pages hold.
func sharesRareTerm(terms []string, rel Judgments, pageTerms map[string]map[string]bool, df map[string]int, n int) bool {
	for p, g := range rel {
		if g != 2 {
			continue
		}
		for _, t := range terms {
			if pageTerms[p][t] && float64(df[t]) < rareShare*float64(n) {
				return true
			}
		}
	}
	return false
}
