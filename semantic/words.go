package semantic

import (
	"fmt"
	"strings"
	"sync"
)

// maxWordTerms bounds how many words of the index one candidate run may expand to; a run found
// inside more words than this narrows nothing worth the query, and is left to bleve's regexp
// searcher.
const maxWordTerms = 4096

// wordCache holds the distinct terms of the words field, so that finding the words that contain a
// run of a literal is a substring scan over a slice instead of a walk of every segment's term
// dictionary. It is tied to a generation of the statistics cache ([dfCache]), which every batch
// bumps: a list read under an older generation is never served.
type wordCache struct {
	mu    sync.Mutex
	at    uint64
	terms []string // nil when nothing is held
}

// words returns the distinct terms of the words field as of generation gen, reading them from the
// index when the list held is older.
func (ix *Index) words(gen uint64) ([]string, error) {
	c := &ix.wordList
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms != nil && c.at == gen {
		return c.terms, nil
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	defer r.Close()
	d, err := r.FieldDict(fieldWords)
	if err != nil {
		return nil, fmt.Errorf("candidates: %w", err)
	}
	defer d.Close()
	terms := make([]string, 0, len(c.terms))
	for {
		e, err := d.Next()
		if err != nil {
			return nil, fmt.Errorf("candidates: %w", err)
		}
		if e == nil {
			break
		}
		terms = append(terms, e.Term)
	}
	if gen == ix.dfs.generation() { // no batch began while the list was read
		c.at, c.terms = gen, terms
	}
	return terms, nil
}

// wordsContaining returns the terms of words that contain run, and false when there are more
// than maxWordTerms of them.
func wordsContaining(words []string, run string) ([]string, bool) {
	var out []string
	for _, w := range words {
		if strings.Contains(w, run) {
			if len(out) == maxWordTerms {
				return nil, false
			}
			out = append(out, w)
		}
	}
	return out, true
}
