package fulltext

import (
	"bytes"
	"cmp"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/packfs/packfs-mcp/markdown"
)

// While the index is being built, a search must not answer "nothing found" for files it has not
// looked at: the caller reads the files not yet indexed directly and scores them with a
// [ScanQuery], roughly: by the share of each phrasing's terms they contain (analysed as the index
// analyses them), with a bonus for the title and the file name, and the index's lift for a file
// the phrasing names (see [NamesIn]) when the file holds the phrasing's other terms.

// scanTitleBonus weighs a phrasing's terms found in a scanned file's title or name against the
// share found anywhere in it (which counts 1).
const scanTitleBonus = 0.5

// ScanQuery is a query prepared for scoring files the index does not hold, read directly. Its
// zero value matches nothing and names no file.
type ScanQuery struct {
	q         Query
	texts     []string        // the phrasings that have terms
	phrasings [][]string      // the analysed terms of each phrasing
	all       map[string]bool // every term of every phrasing
	needles   [][]byte        // the terms, for a cheap look before analysing a file
}

// NewScanQuery prepares q for scoring files read directly.
func NewScanQuery(q Query) *ScanQuery {
	sq := &ScanQuery{q: q, all: map[string]bool{}}
	for _, p := range append([]string{q.Text}, q.Paraphrases...) {
		terms := QueryTerms(p)
		if len(terms) == 0 {
			continue
		}
		sq.texts = append(sq.texts, p)
		sq.phrasings = append(sq.phrasings, terms)
		for _, t := range terms {
			if !sq.all[t] {
				sq.all[t] = true
				sq.needles = append(sq.needles, []byte(t))
			}
		}
	}
	return sq
}

// Empty reports that no phrasing of the query has a term: no file can match it.
func (sq *ScanQuery) Empty() bool { return len(sq.phrasings) == 0 }

// Prefix is the folder the query searches ("" or "." for the whole tree).
func (sq *ScanQuery) Prefix() string { return sq.q.Prefix }

// Named reports whether the file name of p (without its extension) holds a term of the query: a
// word of the name that the term starts, as a stem starts the words made from it.
func (sq *ScanQuery) Named(p string) bool {
	base := strings.ToLower(path.Base(p))
	base = strings.TrimSuffix(base, path.Ext(base))
	for _, w := range strings.FieldsFunc(base, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for t := range sq.all {
			if strings.HasPrefix(w, t) && len(w)-len(t) <= maxSuffix {
				return true
			}
		}
	}
	return false
}

// maxSuffix is the longest ending a stemmer takes off an English word ("-ation" → "-ate" aside):
// "archives" is "archiv" and 2 more bytes.
const maxSuffix = 4

// Admits applies the query's extension, time, size and Keep criteria to the file name with info
// (the folder is where the caller looks).
func (sq *ScanQuery) Admits(name string, info fs.FileInfo) bool {
	q := sq.q
	if q.Keep != nil && !q.Keep(name) {
		return false
	}
	if len(q.Extensions) > 0 && !slices.Contains(q.Extensions, strings.ToLower(path.Ext(name))) {
		return false
	}
	return q.admits(Stamp{Size: info.Size(), ModTime: info.ModTime()})
}

// hasTags reports whether have holds every tag of want, case-insensitively.
func hasTags(have, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, w) }) {
			return false
		}
	}
	return true
}

// MayMatch reports whether the file name, with contents src, may match: its name holds a term,
// or src holds one (a stemmed term is a prefix of its words). A file it refuses need not be parsed.
func (sq *ScanQuery) MayMatch(name string, src []byte) bool {
	if sq.Named(name) {
		return true
	}
	lower := bytes.ToLower(src)
	return slices.ContainsFunc(sq.needles, func(n []byte) bool { return bytes.Contains(lower, n) })
}

// Match scores d, parsed from a file [ScanQuery.MayMatch] let through: ok is false when d lacks a
// tag the query asks for or matches no term.
func (sq *ScanQuery) Match(d markdown.Doc) (Hit, bool) {
	if len(sq.q.Tags) > 0 && !hasTags(d.Tags, sq.q.Tags) {
		return Hit{}, false
	}
	return sq.score(d)
}

// score rates d: for the phrasing it matches best, the share of its terms found anywhere in d
// plus scanTitleBonus times the share found in its title or file name, scaled to at most 1; a
// file the phrasing names, holding its other terms, closes NameBonus times its coverage of the
// gap to 1 (the index's lift, see Index.lift, on a scale that ends at 1). The
// hit shows the section that holds the most terms, or the first one when only the title or the
// name matches.
func (sq *ScanQuery) score(d markdown.Doc) (Hit, bool) {
	title := map[string]bool{}
	named := false
	for _, t := range termsOf(textAnalyzer, d.Title+" "+strings.TrimSuffix(path.Base(d.Path), path.Ext(d.Path))) {
		title[t] = true
		named = named || sq.all[t]
	}
	found := map[string]bool{}
	var best []span // the matches in the best section
	bestAt, bestN, bestText := 0, 0, ""
	for i, s := range d.Sections {
		for _, tok := range analyze(textAnalyzer, s.Heading) {
			if t := string(tok.Term); sq.all[t] {
				found[t] = true
			}
		}
		seen := map[string]bool{}
		var spans []span
		text := joinMnemonics(s.Text) // as the index reads it
		for _, tok := range analyze(textAnalyzer, text) {
			if t := string(tok.Term); sq.all[t] {
				spans = append(spans, span{tok.Start, tok.End})
				seen[t], found[t] = true, true
			}
		}
		if len(seen) > bestN {
			best, bestAt, bestN, bestText = spans, i, len(seen), text
		}
	}
	if len(d.Sections) == 0 || len(found) == 0 && !named {
		return Hit{}, false
	}
	has := func(t string) bool { return found[t] || title[t] }
	keys := NameKeys(d)
	rk := DefaultRanking()
	score := 0.0
	for i, terms := range sq.phrasings {
		in, inTitle := 0, 0
		for _, t := range terms {
			if has(t) {
				in++
			}
			if title[t] {
				inTitle++
			}
		}
		n := float64(len(terms))
		s := (float64(in)/n + scanTitleBonus*float64(inTitle)/n) / (1 + scanTitleBonus)
		if c, ok := scanCoverage(sq.texts[i], keys, has); ok && c >= rk.NameCoverage {
			s += min(1, rk.NameBonus*c) * (1 - s)
		}
		score = max(score, s)
	}
	s := d.Sections[bestAt]
	return Hit{Path: d.Path, Title: d.Title, Score: score, Heading: s.Heading, Line: s.Line,
		Snippet: makeSnippet(cmp.Or(bestText, joinMnemonics(s.Text)), best, snippetMax)}, true
}

// scanCoverage reports whether text names a document whose name keys are keys and, if so, the
// share of the phrasing's terms outside the run that names it that has accepts (1 when there are
// none): the index's coverage (see Index.lift), counted without idf.
func scanCoverage(text string, keys []string, has func(term string) bool) (float64, bool) {
	runs := NamesIn(text, func(k string) bool { return slices.Contains(keys, k) })
	if len(runs) == 0 {
		return 0, false
	}
	best := 0.0
	words := termsInOrder(text)
	for _, run := range runs {
		rest := restTerms(words, run)
		if len(rest) == 0 {
			return 1, true
		}
		in := 0
		for _, t := range rest {
			if has(t) {
				in++
			}
		}
		best = max(best, float64(in)/float64(len(rest)))
	}
	return best, true
}
