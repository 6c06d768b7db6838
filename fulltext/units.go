package fulltext

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/packfs/packfs-mcp/markdown"
)

// units splits d into unit records: one per section, or more when a section is longer than
// the chunk size (see [Index.layout]). A unit stores nothing: what a hit shows of it is made again
// from the document when it is shown (see source.go).
func (ix *Index) units(d markdown.Doc) []map[string]any {
	ext := strings.ToLower(path.Ext(d.Path))
	dirs, folder := folderTerms(d.Path), folderKey(d.Path)
	lead := leadOf(d)
	l := ix.layout(d)
	out := make([]map[string]any, 0, len(l.parts))
	for _, p := range l.parts {
		u := map[string]any{
			fieldExt:     ext,
			fieldTitle:   l.title,
			fieldHeading: p.heading,
			fieldText:    l.title + "\n" + l.aliases + "\n" + p.headings + p.text,
		}
		if folder != "" {
			u[fieldDir], u[fieldFolder] = dirs, folder
		}
		if l.aliases != "" {
			u[fieldAliases] = l.aliases
		}
		if lead != "" {
			u[fieldLead] = lead
		}
		if l.names != "" {
			u[fieldNames] = l.names
		}
		out = append(out, u)
	}
	if tags := unitTags(d, len(out)); tags != "" {
		for _, u := range out {
			u[fieldTags] = tags
		}
	}
	return out
}

// layout is how a document is cut into units: the context every unit repeats and each unit's
// own part.
type layout struct {
	title   string // the document's title, cut to the unit's share
	aliases string // the aliases kept, one a line
	names   string // the name keys, one a line
	parts   []part
}

// part is one unit's own: its section's heading, the headings above it and its chunk of text.
type part struct {
	heading  string // the section's heading, cut to the unit's share
	headings string // the heading path (see headingPath)
	text     string // the chunk
	line     int    // the chunk's first line in the file
}

// layout cuts d into its units' parts: one per section, or more when a section is longer than
// the chunk size. A document without sections still gets one unit, so its title is found. Every
// unit repeats the document's context (its title, aliases and name keys, and the section's
// heading and the headings above it), each part cut to the unit's share of [MaxContextCopyBytes].
func (ix *Index) layout(d markdown.Doc) layout {
	sections := d.Sections
	if len(sections) == 0 {
		sections = []markdown.Section{{Line: 1}}
	}
	// The chunks first: their number sets each unit's share of the context.
	type piece struct {
		s      markdown.Section
		path   []string // the headings above s and its own, outermost first
		chunks []textChunk
	}
	var pieces []piece
	n := 0
	var stack []markdown.Section // heading path: the open headings of lower level
	for _, s := range sections {
		for len(stack) > 0 && stack[len(stack)-1].Level >= s.Level {
			stack = stack[:len(stack)-1]
		}
		if s.Level > 0 {
			stack = append(stack, s)
		}
		hp := make([]string, len(stack))
		for i, h := range stack {
			hp[i] = h.Heading
		}
		cs := chunk(joinMnemonics(s.Text), ix.chunk, ix.overlap)
		pieces = append(pieces, piece{s, hp, cs})
		n += len(cs)
	}

	share := contextShare(d.Size, n)
	l := layout{title: clip(d.Title, share), parts: make([]part, 0, n)}
	kept := keptAliases(d.Aliases, share)
	l.aliases = strings.Join(kept, "\n")
	l.names = strings.Join(nameKeys(l.title, d.Path, kept), "\n")
	for _, p := range pieces {
		hp := headingPath(p.path, share)
		heading := clip(p.s.Heading, share)
		for _, c := range p.chunks {
			l.parts = append(l.parts, part{heading: heading, headings: hp, text: c.text, line: p.s.Line + c.line})
		}
	}
	return l
}

// MaxContextCopyBytes is how many bytes of each part of a document's context its units may carry
// in all, whatever its size. Every unit repeats the document's title, its aliases (in the text,
// the aliases field and, as keys, the names field) and the headings above its section, which
// the ranking reads, and every chunk of a section repeats its heading: a note of long context
// and many units would cost their product (a note of one long heading or many aliases over
// thousands of sections took tens of GB to index: dev/bench/README.md, Hostile input). Each part
// gets, on every unit, an equal share of MaxContextCopyBytes or of one byte per contextCopyBytes of
// the document, whichever is more: the title, the section's heading and the headings above it (the
// innermost first) are cut at a word to the share, and the document keeps its first aliases that
// fit in it. What is cut is still in the document's text but is not searched as a title, alias,
// name or heading. Notes have little context: in the corpora, no note repeats more than 4 KB of any
// part over its units, so their units are those of before; a note of 500 sections keeps 32 bytes of
// each part on each unit, or more from 128 KB.
const MaxContextCopyBytes = 16 << 10

// contextCopyBytes is the bytes of a document that pay for one more byte of each part of its
// context on its units past MaxContextCopyBytes: the parts are analysed in five fields of a
// unit (the title in two, the aliases in three), each byte about as dearly as a byte of text,
// so the context costs at most some two thirds of what the document's text does.
const contextCopyBytes = 8

// contextShare returns the bytes of each part of the context each of a document's n units
// carries (see [MaxContextCopyBytes]).
func contextShare(size int64, n int) int {
	return int(max(MaxContextCopyBytes, size/contextCopyBytes) / int64(max(n, 1)))
}

// clip returns s if it is at most n bytes, else its longest prefix of at most n bytes that ends
// before white space, or at a rune boundary when no word ends within the last half of those
// bytes, so that a cut word does not make a term of its own.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := runeStart(s, n)
	if i := lastSpace(s[:cut+1]); i >= cut/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " \t\n\r")
}

// keptAliases returns the first of aliases that fit, joined by line breaks, in n bytes.
func keptAliases(aliases []string, n int) []string {
	used := 0
	for i, a := range aliases {
		if used += len(a) + min(i, 1); used > n {
			return aliases[:i]
		}
	}
	return aliases
}

// headingPath returns the headings of path, each followed by a line break, in at most n bytes:
// the innermost first, cut to what is left of n, and the outer ones left out once it is spent.
func headingPath(path []string, n int) string {
	var kept []string
	for i := len(path) - 1; i >= 0 && n > 1; i-- {
		h := clip(path[i], n-1)
		if h == "" {
			break
		}
		kept = append(kept, h)
		n -= len(h) + 1
	}
	var b strings.Builder
	for i := len(kept) - 1; i >= 0; i-- {
		b.WriteString(kept[i])
		b.WriteByte('\n')
	}
	return b.String()
}

// MaxTagCopies is how many tags a document's units may carry in all, whatever its size: each
// unit carries the document's tags, which the tag filter ([Query].Tags) and the ranking's tag
// bonus read, so a note of many tags and many units would cost their product (tens of GB to
// index for a note under 1 MB: dev/bench/README.md, Hostile input). A document keeps, on every
// unit, its first tags in the order it gives them, as many as fit in MaxTagCopies or in one copy
// per tagCopyBytes of the document, whichever is more; the tags past them are neither filtered nor
// ranked by. Notes carry a handful of tags: 32 tags over 32 units fit whatever the size, and 50
// tags over 200 units fit in a note of 40 KB.
const MaxTagCopies = 1024

// tagCopyBytes is the bytes of a document that pay for one more tag on its units past
// MaxTagCopies: a copy costs the index some hundreds of bytes, so the tags cost at most some tens of
// bytes per byte of the document, as its text does.
const tagCopyBytes = 4

// unitTags returns the tags each of a document's n units carries: its tags, lower-cased, one a
// line, as many as [MaxTagCopies] allows. A tag holding a line break (written in frontmatter) is
// left out: its lines would be terms of their own.
func unitTags(d markdown.Doc, n int) string {
	keep := len(d.Tags)
	if n > 0 {
		keep = min(keep, max(MaxTagCopies, int(d.Size/tagCopyBytes))/n)
	}
	var b strings.Builder
	for _, t := range d.Tags {
		if keep == 0 {
			break
		}
		if strings.Contains(t, "\n") {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.ToLower(t))
		keep--
	}
	return b.String()
}

// maxLead is the most bytes of a document's lead: a paragraph, not a page.
const maxLead = 500

// leadOf returns the first paragraph of d that is not a heading, at most maxLead bytes.
func leadOf(d markdown.Doc) string {
	for _, s := range d.Sections {
		for _, para := range strings.Split(joinMnemonics(s.Text), "\n\n") {
			para = strings.TrimSpace(para)
			if para == "" || strings.HasPrefix(para, "#") && !strings.Contains(para, "\n") {
				continue
			}
			if len(para) > maxLead {
				para = para[:runeStart(para, maxLead)]
			}
			return para
		}
	}
	return ""
}

// joinMnemonics removes the brackets of a bracketed run of letters glued to a word, as tldr pages
// mark mnemonics ("E[x]tract", "[f]ile", "Lis[t]"), so the word is indexed whole and not as
// "e", "x", "tract". A bracketed run standing alone ("[link]", "[[note]]") is left as it is.
func joinMnemonics(s string) string {
	if !strings.Contains(s, "]") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			j := i + 1
			for j < len(s) && j-i <= maxMnemonic && isLetter(s[j]) {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == ']' &&
				(i > 0 && isLetter(s[i-1]) || j+1 < len(s) && isLetter(s[j+1])) {
				b.WriteString(s[i+1 : j])
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// maxMnemonic is the longest bracketed run joinMnemonics joins: tldr marks one to a few letters.
const maxMnemonic = 4

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// The folder filter ([Query].Prefix) matches a folder the ordinary way by a term: each unit
// carries its ancestor folders (fieldDir), so a search under a folder of 20,000 subfolders looks
// up one term. A unit carries only the ancestors of up to maxDirDepth levels and maxDirBytes
// bytes, though: every ancestor of every unit cost depth times the units, so a note of many
// sections deep in folders took GB to index (dev/bench/README.md, Hostile input). A folder past
// those bounds, which holds few folders in practice, is matched by the prefix of the document's
// folder (fieldFolder) instead, a lookup of every folder below it.
const (
	maxDirDepth = 16
	maxDirBytes = 256
)

// dirTerm reports whether the folder p (slash path, no final slash) is matched by a term of
// fieldDir, within the bounds above; else by the prefix of fieldFolder.
func dirTerm(p string) bool {
	return len(p) <= maxDirBytes && strings.Count(p, "/") < maxDirDepth
}

// folderTerms returns the ancestor folders of the slash path p that dirTerm matches, one a line:
// "a/b/c.md" gives "a\na/b".
func folderTerms(p string) string {
	var b strings.Builder
	for i := 1; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if !dirTerm(p[:i]) {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p[:i])
	}
	return b.String()
}

// folderKey is the folder of the slash path p with a final slash ("a/b/c.md" gives "a/b/"), or ""
// at the top: a search under "a" matches the prefix "a/", which "ab/" does not share.
func folderKey(p string) string {
	if d := path.Dir(p); d != "." && d != "/" {
		return d + "/"
	}
	return ""
}

// textChunk is one piece of a section, starting at byte start after line newlines.
type textChunk struct {
	text        string
	start, line int
}

// chunk splits text into pieces of at most size bytes that overlap by about overlap bytes. It
// cuts at whitespace when it can and always at a rune boundary, so every piece is valid UTF-8
// when text is.
func chunk(text string, size, overlap int) []textChunk {
	if len(text) <= size {
		return []textChunk{{text: text}}
	}
	var out []textChunk
	start, line := 0, 0
	for {
		end := start + size
		if end >= len(text) {
			out = append(out, textChunk{text: text[start:], start: start, line: line})
			return out
		}
		// Cut after the last whitespace of the window, but not in its first half.
		cut := lastSpace(text[start+size/2 : end])
		if cut >= 0 {
			end = start + size/2 + cut + 1
		} else {
			end = runeStart(text, end)
		}
		out = append(out, textChunk{text: text[start:end], start: start, line: line})
		next := end - overlap
		if s := firstSpace(text[next:end]); s >= 0 {
			next += s + 1 // start the overlap at a word
		}
		next = runeStart(text, next)
		if next <= start {
			next = end
		}
		line += strings.Count(text[start:next], "\n")
		start = next
	}
}

func lastSpace(s string) int {
	return strings.LastIndexAny(s, " \t\n\r")
}

func firstSpace(s string) int {
	return strings.IndexAny(s, " \t\n\r")
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
