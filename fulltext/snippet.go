package fulltext

import (
	"strings"
	"unicode/utf8"
)

// Snippet limits.
const (
	// snippetMax is the most bytes of a snippet: a sentence or two, enough to judge a hit. Snippets
	// are most of a search answer's bytes (dev/bench/README.md, Other timings); a model that wants
	// more reads the hit's lines.
	snippetMax = 200
	// snippetLead is how much text a snippet shows before its first match.
	snippetLead = 40
)

// span is the byte range of a matched word.
type span struct{ start, end int }

// snippet returns the window of body with the most matched terms, each wrapped in ** **, on
// one line and at most snippetMax bytes.
func (ix *Index) snippet(body string, terms map[string]bool, fuzzy bool) string {
	var spans []span
	for _, tok := range analyze(textAnalyzer, body) {
		// Indexing the map with the converted bytes does not copy them.
		if terms[string(tok.Term)] || fuzzy && nearAny(string(tok.Term), terms) {
			spans = append(spans, span{tok.Start, tok.End})
		}
	}
	return makeSnippet(body, spans, snippetMax)
}

// makeSnippet renders the best window of body around spans (sorted, non-overlapping).
func makeSnippet(body string, spans []span, limit int) string {
	const ellipsis = "…"
	// The best window starts at the match after which most matches fit in the limit.
	first, best := 0, 0
	for i := range spans {
		n := 0
		for j := i; j < len(spans) && spans[j].end-spans[i].start <= limit-snippetLead; j++ {
			n++
		}
		if n > best {
			first, best = i, n
		}
	}
	start := 0
	if len(spans) > 0 {
		start = max(0, spans[first].start-snippetLead)
		if start > 0 {
			if i := strings.IndexAny(body[start:spans[first].start], " \t\n"); i >= 0 {
				start += i + 1
			}
			start = runeStart(body, start)
		}
	}
	var b strings.Builder
	budget := limit - len(" "+ellipsis) // room kept for a trailing ellipsis
	if start > 0 {
		b.WriteString(ellipsis)
	}
	space := start > 0
	var lineEnds []int // where in b a line of body ended (its newline collapsed into a space)
	// write appends s with whitespace runs collapsed to one space, up to the budget, and
	// reports whether all of it fit.
	write := func(s string) bool {
		for _, r := range s {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				if r == '\n' && b.Len() > 0 {
					lineEnds = append(lineEnds, b.Len())
				}
				if !space && b.Len() > 0 {
					if b.Len()+1 > budget {
						return false
					}
					b.WriteByte(' ')
				}
				space = true
				continue
			}
			if r == utf8.RuneError {
				r = '\uFFFD'
			}
			if b.Len()+utf8.RuneLen(r) > budget {
				return false
			}
			b.WriteRune(r)
			space = false
		}
		return true
	}
	pos, full := start, true
	for _, s := range spans[first:] {
		if !write(body[pos:s.start]) {
			full = false
			break
		}
		word := strings.Join(strings.Fields(body[s.start:s.end]), " ")
		if !inMarkup(body, s.start) {
			word = "**" + word + "**"
		}
		if b.Len()+len(word) > budget {
			full = false
			break
		}
		b.WriteString(word)
		space = false
		pos = s.end
	}
	if full && !write(body[pos:]) {
		full = false
	}
	out := b.String()
	if !full {
		out = cutAtEnd(out, lineEnds) + ellipsis
	}
	return strings.TrimRight(out, " ")
}

// cutAtEnd ends out, a snippet that stops before its text does, where a sentence or a line of its
// text ends (lineEnds, byte offsets in out) in its second half, so that it does not stop
// mid-sentence; else at its last whole word. What it returns ends in a space when it ends at a
// sentence or line, so the ellipsis after it reads as more text to come.
func cutAtEnd(out string, lineEnds []int) string {
	cut := -1
	for _, i := range lineEnds {
		if i > len(out)/2 && i <= len(out) {
			cut = i
		}
	}
	for i := len(out) - 2; i > len(out)/2 && i+1 > cut; i-- {
		if strings.IndexByte(".!?;:", out[i]) >= 0 && out[i+1] == ' ' {
			cut = i + 1
			break
		}
	}
	if cut > 0 {
		return strings.TrimRight(out[:cut], " ") + " "
	}
	if i := strings.LastIndexByte(out, ' '); i > len(out)/2 {
		out = out[:i] // do not end in a cut word
	}
	return strings.TrimRight(out, " ")
}

// inMarkup reports whether the byte at pos of body lies where marking a match would break the
// markdown around it, judged on its paragraph: inside strong emphasis (after an odd number of
// "**" or "__"), where it is bold already and would show as ****word****; inside a code span
// (after an odd number of "`"), where the marks would show literally; or inside a wiki link
// (more "[[" than "]]"), whose target they would change.
func inMarkup(body string, pos int) bool {
	para := body[:pos]
	if i := strings.LastIndex(para, "\n\n"); i >= 0 {
		para = para[i+2:]
	}
	return strings.Count(para, "**")%2 == 1 || strings.Count(para, "__")%2 == 1 ||
		strings.Count(para, "`")%2 == 1 || strings.Count(para, "[[") > strings.Count(para, "]]")
}

// nearAny reports whether t is within one edit of some term, as a fuzzy match is.
func nearAny(t string, terms map[string]bool) bool {
	for q := range terms {
		if withinOneEdit(t, q) {
			return true
		}
	}
	return false
}

// withinOneEdit reports whether a and b differ by at most one insertion, deletion or
// substitution of a rune, or a transposition of two adjacent runes, as bleve's fuzzy matching
// counts edits.
func withinOneEdit(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	if len(ra)-len(rb) > 1 {
		return false
	}
	i := 0
	for i < len(rb) && ra[i] == rb[i] {
		i++
	}
	if len(ra) != len(rb) {
		return string(ra[i+1:]) == string(rb[i:])
	}
	if i == len(ra) {
		return true
	}
	if string(ra[i+1:]) == string(rb[i+1:]) {
		return true
	}
	return i+1 < len(ra) && ra[i] == rb[i+1] && ra[i+1] == rb[i] && string(ra[i+2:]) == string(rb[i+2:])
}
