//go:build semantic

// This file plugs the project's search engine into the evaluation. It is
// behind the "semantic" build tag while the engine's API settles:
//
//	go run -tags semantic ./eval
//
// It is written against the expected API of package semantic: Parse,
// OpenIndex (IndexOptions{Dir: ""} is in memory), (*Index).PutBatch and
// (*Index).Search returning section hits.

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/packfs/packfs-mcp/semantic"
)

func init() {
	rankers = append(rankers, rankerFactory{name: "semantic", build: newSemanticRanker})
}

// semanticHitsPerResult is how many hits to ask for per wanted file: the
// engine returns one hit per matching section, so several hits may name the
// same file.
const semanticHitsPerResult = 5

// semanticRanker ranks files with the project's bleve index.
type semanticRanker struct {
	ix *semantic.Index
}

// newSemanticRanker parses every file under root and indexes them in an
// in-memory index.
func newSemanticRanker(root string, files []string) (Ranker, error) {
	ix, err := semantic.OpenIndex(semantic.IndexOptions{})
	if err != nil {
		return nil, fmt.Errorf("semantic ranker: %w", err)
	}
	docs := make([]semantic.Doc, 0, len(files))
	for _, f := range files {
		name := filepath.Join(root, filepath.FromSlash(f))
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("semantic ranker: %w", err)
		}
		fi, err := os.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("semantic ranker: %w", err)
		}
		docs = append(docs, semantic.Parse(f, src, fi.ModTime()))
	}
	if err := ix.PutBatch(docs); err != nil {
		return nil, fmt.Errorf("semantic ranker: %w", err)
	}
	return &semanticRanker{ix: ix}, nil
}

// Rank implements [Ranker]: it returns the files of the best hits, each
// once, in the order of their best hit. A search error yields no results,
// so it counts as a miss rather than stopping the evaluation; it is logged
// to stderr.
func (s *semanticRanker) Rank(query string, k int) []string {
	hits, _, err := s.ix.Search(context.Background(), semantic.Query{Text: query, Max: k * semanticHitsPerResult})
	if err != nil {
		fmt.Fprintf(os.Stderr, "eval: semantic search %q: %v\n", query, err)
		return nil
	}
	seen := make(map[string]bool, k)
	out := make([]string, 0, k)
	for _, h := range hits {
		if len(out) == k {
			break
		}
		if !seen[h.Path] {
			seen[h.Path] = true
			out = append(out, h.Path)
		}
	}
	return out
}
