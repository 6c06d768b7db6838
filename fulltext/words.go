package fulltext

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// maxWordTerms bounds how many words of the index one candidate run may expand to; a run found
// inside more words than this narrows nothing worth the query (see Candidates).
const maxWordTerms = 4096

// wordCache holds the distinct terms of the words field, so that finding the words that contain a
// run of a literal is one substring scan over a block of bytes instead of a walk of every
// segment's term dictionary. It is tied to a generation of the statistics cache ([dfCache]), which
// every batch bumps: a list read under an older generation is never served.
type wordCache struct {
	mu   sync.Mutex
	at   uint64
	list wordList // nil when nothing is held
	// over is set once the list was found larger than maxWordListBytes; it is then never read
	// again, and Candidates asks the index's own dictionary instead.
	over bool
	// limit is the bound on the list's bytes. If zero, maxWordListBytes (tests set less).
	limit int
}

// wordList is a sorted list of distinct words packed into one block, each word followed by a
// newline (no word holds one: the tokenizer splits on white space). Packed, a word costs its
// bytes and one more, where a []string costs a 16-byte header and an allocation each: three to
// four times less for the millions of short identifiers and numbers of a source tree, and one
// bytes.Index scan finds every word containing a run.
type wordList []byte

// maxWordListBytes bounds the memory of the list of indexed words, far above what the tldr pages
// and the Linux sources need once split into runs of letters and digits (split as Unicode words,
// with identifiers and register names whole, the sources needed ten times as much:
// dev/bench/README.md, Speed and Scale). Past the bound, Candidates matches each run with a regular
// expression over the index's dictionary: the memory stays that of the index, but each run costs a
// walk of every segment's dictionary (seconds on a big tree).
const maxWordListBytes = 128 << 20

// WordListBytes is the size of the list of the index's words held in memory, in bytes; 0 when
// none is held.
func (ix *Index) WordListBytes() int {
	ix.wordList.mu.Lock()
	defer ix.wordList.mu.Unlock()
	return len(ix.wordList.list)
}

// LoadWords reads the list of the index's words now, so that the first [Index.Candidates] after
// a build does not wait for it.
func (ix *Index) LoadWords() error {
	_, err := ix.words(ix.dfs.generation())
	return err
}

// words returns the distinct terms of the words field as of generation gen, reading them from the
// index when the list held is older; nil, once they are found too many to hold (see tooLarge).
func (ix *Index) words(gen uint64) (wordList, error) {
	c := &ix.wordList
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return nil, nil
	}
	if c.list != nil && c.at == gen {
		return c.list, nil
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
	list := make(wordList, 0, len(c.list))
	limit := cmp.Or(c.limit, maxWordListBytes)
	for {
		e, err := d.Next()
		if err != nil {
			return nil, fmt.Errorf("candidates: %w", err)
		}
		if e == nil {
			break
		}
		if len(list)+len(e.Term)+1 > limit {
			c.over, c.list = true, nil
			return nil, nil
		}
		list = append(append(list, e.Term...), '\n')
	}
	// A list that grew by appending may hold up to twice its bytes; held for long, it is copied
	// to its size (and is never nil: an empty list read is held all the same).
	list = append(make(wordList, 0, len(list)), list...)
	if gen == ix.dfs.generation() { // no batch began while the list was read
		c.at, c.list = gen, list
	}
	return list, nil
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
// a build. Reading the list again costs far more than merging a few files' words, and the next
// search_content pays it (dev/bench/README.md, Speed).
const maxIncrementalDocs = 32

// advance carries the list held at generation from over one batch, after which the index is at
// generation to: the words of the documents the batch added are merged in (added, sorted and
// distinct). Words of documents it deleted or replaced stay, which only widens the candidates,
// and those are read and checked anyway. It does nothing unless the list held is of generation
// from; the list then gets read again when next needed.
func (c *wordCache) advance(from, to uint64, added []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.list == nil || c.at != from {
		return
	}
	// Most edits bring no new word; then the list stays as it is. Otherwise a new list:
	// searches may still be scanning the old one.
	var fresh []string
	for _, w := range added {
		if !c.list.has(w) {
			fresh = append(fresh, w)
		}
	}
	if len(fresh) > 0 {
		c.list = c.list.merge(fresh)
	}
	c.at = to
}

// wordAt returns the word that holds byte i of l, and the offsets of its first byte and of the
// newline after it.
func (l wordList) wordAt(i int) (w []byte, start, end int) {
	start = bytes.LastIndexByte(l[:i], '\n') + 1
	end = i + bytes.IndexByte(l[i:], '\n')
	return l[start:end], start, end
}

// has reports whether l holds w, by binary search over bytes: a probe lands anywhere in a word
// and reads the whole word around it.
func (l wordList) has(w string) bool {
	lo, hi := 0, len(l) // the words starting in [lo, hi) are left to search
	for lo < hi {
		word, start, end := l.wordAt(lo + (hi-lo)/2)
		switch c := strings.Compare(string(word), w); {
		case c == 0:
			return true
		case c < 0:
			lo = end + 1
		default:
			hi = start
		}
	}
	return false
}

// merge returns the words of l and of the sorted, distinct words, none of which l holds, as a
// new list.
func (l wordList) merge(words []string) wordList {
	n := len(l)
	for _, w := range words {
		n += len(w) + 1
	}
	out := make(wordList, 0, n)
	i := 0
	for _, w := range words {
		for i < len(l) {
			word, _, end := l.wordAt(i)
			if string(word) > w {
				break
			}
			out = append(out, l[i:end+1]...)
			i = end + 1
		}
		out = append(append(out, w...), '\n')
	}
	return append(out, l[i:]...)
}

// containing returns the words of l that contain run (which holds no newline), in order, and
// false when there are more than maxWordTerms of them.
func (l wordList) containing(run string) ([]string, bool) {
	var out []string
	r := []byte(run)
	for i := 0; ; {
		j := bytes.Index(l[i:], r)
		if j < 0 {
			return out, true
		}
		word, _, end := l.wordAt(i + j)
		if len(out) == maxWordTerms {
			return nil, false
		}
		out = append(out, string(word))
		i = end + 1
	}
}

// alnumTokenizer names the tokenizer of the words field: every maximal run of letters, digits and
// marks is a term. Candidates needs only that no run of ASCII letters and digits is split, and
// the unicode tokenizer's word segmentation (UAX #29) cost a sixth of a build's CPU on the Linux
// sources, while keeping "spin_lock_irqsave", "0x1f,0x2a" and "subtest.num_set_len" whole: 4.5
// million distinct words there, where their parts are far fewer.
const alnumTokenizer = "packfs_alnum"

// linesTokenizer names the tokenizer of the fields of lines: every line is a term, as the keyword
// analyzer makes one term of a whole value. A unit's tags are one value of lines rather than a
// list of values, because bleve makes a field of each value of a list: a kilobyte each, where a
// term of a line costs a small part of it (see [MaxTagCopies]).
const linesTokenizer = "packfs_lines"

func init() {
	// bleve finds tokenizers by name in its registry, as it does its own.
	registry.RegisterTokenizer(alnumTokenizer, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return runTokenizer(isWordRune), nil
	})
	registry.RegisterTokenizer(linesTokenizer, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return runTokenizer(func(r rune) bool { return r != '\n' }), nil
	})
}

// runTokenizer makes a term of every maximal run of the runes it keeps; an invalid byte is the
// rune utf8.RuneError. bleve's character tokenizer does the same, but it stops at the first
// invalid byte or U+FFFD, which the text of PDFs and web pages holds for what did not decode (no
// word after one was a candidate for a literal search), and it gives every value room for 1,024
// tokens, 8 KB for each unit's one-line folder, tags and names fields, which a build holds for a
// whole batch (dev/bench/README.md, The words' own tokenizer). This one counts the terms first and
// holds them in one array.
type runTokenizer func(rune) bool

// Tokenize implements [analysis.Tokenizer].
func (keep runTokenizer) Tokenize(input []byte) analysis.TokenStream {
	n := 0
	keep.runs(input, func(int, int) { n++ })
	if n == 0 {
		return nil
	}
	tokens := make([]analysis.Token, 0, n)
	out := make(analysis.TokenStream, 0, n)
	keep.runs(input, func(start, end int) {
		tokens = append(tokens, analysis.Token{Term: input[start:end], Start: start, End: end,
			Position: len(tokens) + 1, Type: analysis.AlphaNumeric})
		out = append(out, &tokens[len(tokens)-1])
	})
	return out
}

// runs calls fn with the bounds of every maximal run of kept runes of input, in order.
func (keep runTokenizer) runs(input []byte, fn func(start, end int)) {
	start := -1
	for i := 0; i < len(input); {
		r, size := utf8.DecodeRune(input[i:])
		switch kept := keep(r); {
		case kept && start < 0:
			start = i
		case !kept && start >= 0:
			fn(start, i)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(start, len(input))
	}
}

// isWordRune reports whether r belongs inside a term of the words field.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// batchWords returns the distinct words the literal analyzer makes of texts, sorted.
func (ix *Index) batchWords(texts []string) []string {
	var out []string
	for _, t := range texts {
		out = append(out, termsOf(literalAnalyzer, t)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
