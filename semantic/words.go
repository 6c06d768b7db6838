package semantic

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"
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
	// over is set once the list was found larger than maxWordListBytes; it is then never read
	// again, and Candidates asks the index's own dictionary instead.
	over bool
	// limit is the bound on the list's bytes. If zero, maxWordListBytes (tests set less).
	limit int
}

// maxWordListBytes bounds the memory of the list of indexed words. The tldr pages have about
// 100,000 distinct words (a few MB); the C sources of a kernel tree have millions of identifiers
// and numbers, whose list would cost hundreds of MB for as long as the server runs. Past the
// bound, Candidates matches each run with a regular expression over the index's dictionary:
// slower, but the memory stays that of the index.
const maxWordListBytes = 32 << 20

// words returns the distinct terms of the words field as of generation gen, reading them from the
// index when the list held is older; nil, once they are found too many to hold (see tooLarge).
func (ix *Index) words(gen uint64) ([]string, error) {
	c := &ix.wordList
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return nil, nil
	}
	if c.terms != nil && c.at == gen {
		return c.terms, nil
	}
	r, err := ix.reader()
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
	size := 0
	for {
		e, err := d.Next()
		if err != nil {
			return nil, fmt.Errorf("candidates: %w", err)
		}
		if e == nil {
			break
		}
		// A term costs its bytes, its string header and its slot in the slice.
		if size += len(e.Term) + 2*int(unsafe.Sizeof("")); size > cmp.Or(c.limit, maxWordListBytes) {
			c.over, c.terms = true, nil
			return nil, nil
		}
		terms = append(terms, e.Term)
	}
	if gen == ix.dfs.generation() { // no batch began while the list was read
		c.at, c.terms = gen, terms
	}
	return terms, nil
}

// tooLarge reports whether the list of words was found larger than maxWordListBytes, and is
// no longer held. Once true it stays true.
func (c *wordCache) tooLarge() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.over
}

// maxIncrementalDocs is the largest batch whose words are merged into the list held instead of
// the list being read again: a write through the tools or a reconcile of a few changed files, not
// a build. Reading the list again costs about 50 ms on the 38,000 tldr pages, paid by the next
// search_content.
const maxIncrementalDocs = 32

// advance carries the list held at generation from over one batch, after which the index is at
// generation to: the words of the documents the batch added are merged in (added, sorted and
// distinct). Words of documents it deleted or replaced stay, which only widens the candidates,
// and those are read and checked anyway. It does nothing unless the list held is of generation
// from; the list then gets read again when next needed.
func (c *wordCache) advance(from, to uint64, added []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms == nil || c.at != from {
		return
	}
	// Most edits bring no new word; then the list stays as it is. Otherwise a new slice:
	// searches may still be scanning the old one.
	var fresh []string
	for _, w := range added {
		if _, found := slices.BinarySearch(c.terms, w); !found {
			fresh = append(fresh, w)
		}
	}
	if len(fresh) > 0 {
		c.terms = mergeSorted(c.terms, fresh)
	}
	c.at = to
}

// mergeSorted returns the distinct words of two sorted, distinct lists, sorted.
func mergeSorted(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default: // equal
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// batchWords returns the distinct words the words analyzer makes of texts, sorted.
func (ix *Index) batchWords(texts []string) []string {
	var out []string
	for _, t := range texts {
		out = append(out, ix.terms(wordsAnalyzer, t)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
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
