// This file is the evaluation's third view: whether the page a phrasing names comes first.
// An agent that types "tar" or "ssh-keygen" names a page; the view asks, of each phrasing that
// names a judged page (see fulltext.NamesIn), whether one of the judged pages it names is among
// the query's first namedDepth results (named@3), and, of each phrasing that names a page judged
// an answer (grade 2), whether one of those comes first (answer@1). It reads the names as the
// index does (fulltext.NameKeys), from every file.

package main

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// namedDepth is the cut-off of the named view.
const namedDepth = 3

// corpusNames maps each name key of a corpus to the files it names.
type corpusNames map[string][]string

// readNames parses every file under root and returns their names.
func readNames(root string, files []string) (corpusNames, error) {
	names := corpusNames{}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		for _, k := range fulltext.NameKeys(markdown.Parse(f, src, time.Time{})) {
			names[k] = append(names[k], f)
		}
	}
	return names, nil
}

// named returns, for each phrasing of q (its text, then its paraphrases) that names a file
// judged at least grade, the files so judged it names, sorted; phrasings that name none are
// left out.
func (n corpusNames) named(q Query, paraphrases []string, grade int) map[string][]string {
	rel := q.judgments()
	out := map[string][]string{}
	for _, p := range append([]string{q.Query}, paraphrases...) {
		var files []string
		for _, run := range fulltext.NamesIn(p, func(k string) bool { return n[k] != nil }) {
			for _, f := range n[run.Key] {
				if rel[f] >= grade && !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
		}
		if len(files) > 0 {
			slices.Sort(files)
			out[p] = files
		}
	}
	return out
}

// namedHits returns how many of the phrasings in named have one of their files among the first
// depth files of got.
func namedHits(got []string, named map[string][]string, depth int) int {
	top := got[:min(depth, len(got))]
	hits := 0
	for _, files := range named {
		if slices.ContainsFunc(files, func(f string) bool { return slices.Contains(top, f) }) {
			hits++
		}
	}
	return hits
}
