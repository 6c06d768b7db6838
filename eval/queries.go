package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// A QuerySet is the judged queries of one corpus, as stored in
// eval/queries/<corpus>.json.
type QuerySet struct {
	Corpus  string  `json:"corpus"`
	Queries []Query `json:"queries"`
}

// A Query is one information need in a user's own words, with the files
// that satisfy it.
type Query struct {
	ID       string    `json:"id"`
	Query    string    `json:"query"`
	Relevant Judgments `json:"relevant"`
}

// loadQuerySet reads and checks a query file: ids must be unique, every
// query must have a judged file of grade 2, and grades must be 1 or 2.
func loadQuerySet(name string) (*QuerySet, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var qs QuerySet
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(qs.Queries) == 0 {
		return nil, fmt.Errorf("%s: no queries", name)
	}
	ids := make(map[string]bool, len(qs.Queries))
	for _, q := range qs.Queries {
		if q.ID == "" || ids[q.ID] {
			return nil, fmt.Errorf("%s: empty or repeated query id %q", name, q.ID)
		}
		ids[q.ID] = true
		if q.Query == "" {
			return nil, fmt.Errorf("%s: query %s is empty", name, q.ID)
		}
		answered := false
		for p, g := range q.Relevant {
			if g != 1 && g != 2 {
				return nil, fmt.Errorf("%s: query %s: %q has grade %d, want 1 or 2", name, q.ID, p, g)
			}
			answered = answered || g == 2
		}
		if !answered {
			return nil, fmt.Errorf("%s: query %s has no file of grade 2", name, q.ID)
		}
	}
	return &qs, nil
}

// missing returns the judged paths of qs that are not in files (sorted), so a
// typo in a judgment cannot silently count as a miss.
func (qs *QuerySet) missing(files []string) []string {
	var out []string
	for _, q := range qs.Queries {
		for p := range q.Relevant {
			if _, ok := slices.BinarySearch(files, p); !ok {
				out = append(out, q.ID+": "+p)
			}
		}
	}
	slices.Sort(out)
	return out
}
