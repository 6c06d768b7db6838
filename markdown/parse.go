package markdown

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/frontmatter"
	"go.abhg.dev/goldmark/wikilink"
	"gopkg.in/yaml.v3"
)

// This file is the only one that knows goldmark: it turns the goldmark AST into [Doc] values.

// MaxParseBytes is how much of a markdown file is parsed as markdown. Goldmark is linear on
// ordinary notes, but a few shapes of input (long runs of unclosed brackets on one line) cost it
// more than linear time; capping the markdown part keeps the worst case bounded. The rest of a
// larger file, from the first line break at or after this size, is kept as plain text: it belongs to
// the last section, and its links, headings and tags are not extracted.
const MaxParseBytes = 1 << 20

// Goldmark's time is quadratic in a few shapes of hostile input: many link openers or emphasis
// delimiters on one line or in one paragraph (each unclosed "[a](" rescans what follows) and deeply nested containers on one
// line ("- - - - ...", "> > > ..."). Before parsing, guard blanks out (as far as goldmark is
// concerned: the text itself is kept) the lines that exceed these limits, which real notes do not
// approach, so their links, headings and tags are not extracted.
const (
	// MaxNestingDepth bounds the list and quote markers opening one line.
	MaxNestingDepth = 32
	// MaxIndent bounds the leading white space of a line, which nests lists as deeply as markers do.
	MaxIndent = 4 * MaxNestingDepth
	// MaxLineCost bounds a line's length times its count of openers: '[', '(', '<' and the emphasis
	// delimiters '*', '_', '~'.
	MaxLineCost = 1 << 21
	// MaxRunOpeners bounds the openers in a run of lines that goldmark parses as one paragraph
	// (lines up to a blank line, or a line opening a list item, quote, table row or heading).
	MaxRunOpeners = 1 << 10
)

// guard returns src, or a copy of it with the lines that exceed [MaxNestingDepth], [MaxIndent], [MaxLineCost] or
// [MaxRunOpeners] replaced by spaces, so byte offsets into the copy are offsets into src.
func guard(src []byte) []byte {
	out := src
	mask := func(start, end int) {
		if &out[0] == &src[0] {
			out = append([]byte(nil), src...)
		}
		for i := start; i < end; i++ {
			if out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	run := 0
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		line := src[start:end]
		depth := nesting(line)
		openers := 0
		for _, c := range line {
			if c == '[' || c == '(' || c == '<' || c == '*' || c == '_' || c == '~' {
				openers++
			}
		}
		if t := bytes.TrimSpace(line); depth > 0 || len(t) == 0 || t[0] == '|' || t[0] == '#' {
			run = 0
		}
		run += openers
		indent := len(line) - len(bytes.TrimLeft(line, " \t"))
		if depth > MaxNestingDepth || indent > MaxIndent || len(line)*openers > MaxLineCost || run > MaxRunOpeners {
			mask(start, end)
		}
		start = end + 1
	}
	return out
}

// nesting counts the list and quote markers that open a line.
func nesting(line []byte) int {
	n := 0
	for {
		i := 0
		for i < len(line) && i < 4 && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		line = line[i:]
		switch {
		case len(line) > 0 && line[0] == '>':
			line = line[1:]
		case len(line) > 1 && (line[0] == '-' || line[0] == '+' || line[0] == '*') && (line[1] == ' ' || line[1] == '\t'):
			line = line[2:]
		default:
			j := 0
			for j < len(line) && j < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j == 0 || j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
				return n
			}
			line = line[j+2:]
		}
		n++
	}
}

// MaxFrontmatterBytes bounds the frontmatter handed to the YAML or TOML decoder. Real frontmatter
// is a few hundred bytes; a larger block is not decoded (the file is parsed as if it had none), so
// a hostile file cannot make the decoder the bottleneck.
const MaxFrontmatterBytes = 64 << 10

// RelWiki is the [Link.Rel] of a wiki-style embed (![[Note]]), which tells it apart from a markdown
// image (![alt](img.png)): both have Kind [KindEmbed], but one resolves by name and the other by
// path. A frontmatter relation written as a wiki-link (parent: "[[Note]]") is marked instead by
// Text == [FrontmatterWiki], since its Rel holds the relation.
const RelWiki = "wiki"

// FrontmatterWiki is the [Link.Text] of a [KindFrontmatter] link written as a wiki-link
// ("[[Note]]"); a frontmatter link written as a path has Text "".
const FrontmatterWiki = "wiki"

// markdownExts are the extensions parsed as markdown.
var markdownExts = map[string]bool{".md": true, ".markdown": true, ".mdx": true}

// IsMarkdown reports whether name is parsed as markdown, by its extension (case-insensitive).
func IsMarkdown(name string) bool {
	return markdownExts[strings.ToLower(path.Ext(name))]
}

var (
	// mdFront parses documents that begin with well-formed frontmatter; mdPlain parses the rest, so
	// that malformed or unclosed frontmatter is read as ordinary markdown rather than swallowing
	// the document. Goldmark parsers are safe for concurrent use.
	mdFront = newParser(&frontmatter.Extender{})
	mdPlain = newParser()
)

func newParser(ext ...goldmark.Extender) parser.Parser {
	ext = append([]goldmark.Extender{extension.GFM, &wikilink.Extender{}}, ext...)
	return goldmark.New(goldmark.WithExtensions(ext...)).Parser()
}

// Parse parses one file. Markdown (by extension .md .markdown .mdx, case-insensitive) is parsed
// with goldmark (GFM + wikilink + frontmatter); anything else is plain text: one section, no links,
// title from the file name. It never fails and never panics. Only the first [MaxParseBytes] of a
// markdown file are parsed as markdown; the rest is kept as plain text.
func Parse(name string, src []byte, modTime time.Time) Doc {
	d := Doc{
		Path:    name,
		Title:   baseTitle(name),
		Size:    int64(len(src)),
		ModTime: modTime,
	}
	lines := newLineIndex(src)
	if !IsMarkdown(name) {
		d.Sections = []Section{{Line: 1, EndLine: lines.last(), Text: string(src)}}
		return d
	}
	d.Markdown = true
	p := &mdParse{src: src, lines: lines, doc: &d}
	p.run()
	return d
}

// ParseAsMarkdown parses src as Markdown whatever name's extension: the text of a document (a PDF,
// a Word file) rendered as Markdown by package extract, so its headings make sections.
func ParseAsMarkdown(name string, src []byte, modTime time.Time) Doc {
	d := Doc{Path: name, Title: baseTitle(name), Size: int64(len(src)), ModTime: modTime, Markdown: true}
	p := &mdParse{src: src, lines: newLineIndex(src), doc: &d}
	p.run()
	return d
}

// mdParse holds the state of parsing one markdown document.
type mdParse struct {
	src   []byte
	lines lineIndex
	doc   *Doc
	tags  tagSet
}

func (p *mdParse) run() {
	src := p.src
	fm, hasFM := scanFrontmatter(src)
	bodyLine := 1
	var fmTitle string
	var fmLinks []Link
	if hasFM {
		if meta, ok := decodeFrontmatter(fm); ok {
			bodyLine = fm.endLine + 1
			fmTitle = meta.title
			fmLinks = meta.links
			p.doc.Aliases = meta.aliases
			for _, t := range meta.tags {
				p.tags.add(t)
			}
		} else {
			hasFM = false
		}
	}

	head := src
	if len(head) > MaxParseBytes {
		cut := MaxParseBytes
		if i := bytes.IndexByte(head[cut:], '\n'); i >= 0 {
			cut += i + 1
		} else {
			cut = len(head)
		}
		head = head[:cut:cut]
	}
	head = guard(head)
	md := mdPlain
	if hasFM {
		md = mdFront
	}
	root := md.Parse(text.NewReader(head))

	p.doc.Links = fmLinks
	var h1 string
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			h := Heading{Level: n.Level, Text: plainText(n, head), Line: p.lineOfNode(n)}
			if h1 == "" && n.Level == 1 {
				h1 = h.Text
			}
			p.doc.Headings = append(p.doc.Headings, h)
			return ast.WalkSkipChildren, p.linksIn(n, head)
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			p.inlineTags(n, head)
		default:
			p.addLink(n, head)
		}
		return ast.WalkContinue, nil
	})

	switch {
	case fmTitle != "":
		p.doc.Title = fmTitle
	case h1 != "":
		p.doc.Title = h1
	}
	p.doc.Tags = p.tags.list
	p.finishHeadings()
	p.sections(bodyLine)
}

// linksIn adds the links inside a heading, whose text is not walked for tags.
func (p *mdParse) linksIn(h ast.Node, src []byte) error {
	return ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n != h {
			if _, ok := n.(*ast.CodeSpan); ok {
				return ast.WalkSkipChildren, nil
			}
			p.addLink(n, src)
		}
		return ast.WalkContinue, nil
	})
}

// addLink appends the link n is, if it is one.
func (p *mdParse) addLink(n ast.Node, src []byte) {
	switch n := n.(type) {
	case *wikilink.Node:
		// The wikilink parser splits at the last '#', Obsidian at the first ([[Note#H1#H2]]); in a
		// table the '|' before an alias is escaped as "\|", which leaves a '\' behind.
		full := string(n.Target)
		if n.Fragment != nil {
			full += "#" + string(n.Fragment)
		}
		target, frag, _ := strings.Cut(strings.TrimSuffix(full, `\`), "#")
		l := Link{Kind: KindWiki, Target: target, Fragment: frag}
		if n.Embed {
			l.Kind, l.Rel = KindEmbed, RelWiki
		}
		// The wikilink parser copies the target, but the node starts at "[[" or "![[".
		l.Line = p.lineOfNode(n)
		start := n.Pos() + len("[[")
		if n.Embed {
			start = n.Pos() + len("![[")
		}
		if n.Pos() >= 0 && target != "" && bytes.HasPrefix(src[min(start, len(src)):], []byte(target)) {
			l.Start, l.End = start, start+len(target)
		}
		// The label is the target itself unless there was a '|': then it starts after the target.
		if t, ok := n.FirstChild().(*ast.Text); ok && n.Pos() >= 0 && t.Segment.Start > start {
			l.Text = plainText(n, src)
		}
		p.doc.Links = append(p.doc.Links, l)
	case *ast.Link:
		p.destLink(n, KindMarkdown, n.Destination, n.Reference, src)
	case *ast.Image:
		p.destLink(n, KindEmbed, n.Destination, n.Reference, src)
	case *ast.AutoLink:
		p.doc.Links = append(p.doc.Links, Link{
			Kind:   KindAutolink,
			Target: string(n.URL(src)),
			Text:   string(n.Label(src)),
			Line:   p.lineOfNode(n),
		})
	}
}

// destLink appends a markdown link or image with destination dest.
func (p *mdParse) destLink(n ast.Node, kind LinkKind, dest []byte, ref *ast.ReferenceLink, src []byte) {
	if ref != nil && kind == KindMarkdown {
		kind = KindReference
	}
	raw, frag, _ := bytes.Cut(dest, []byte("#"))
	l := Link{
		Kind:     kind,
		Target:   decodeDest(raw),
		Fragment: decodeDest(frag),
		Text:     plainText(n, src),
		Line:     p.lineOfNode(n),
	}
	if start, ok := offsetIn(src, raw); ok && len(raw) > 0 {
		l.Start, l.End = start, start+len(raw)
	}
	p.doc.Links = append(p.doc.Links, l)
}

// decodeDest undoes markdown backslash escapes and URL percent-encoding in a link destination.
// An invalid percent-encoding is kept as written.
func decodeDest(b []byte) string {
	s := string(b)
	if strings.IndexByte(s, '\\') >= 0 {
		var sb strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
				i++
			}
			sb.WriteByte(s[i])
		}
		s = sb.String()
	}
	if strings.IndexByte(s, '%') >= 0 {
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
	}
	return s
}

func isASCIIPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

// offsetIn returns the offset of sub in src when sub is a slice of src's backing array, as goldmark
// hands out destinations and wiki targets: the offset follows from the capacities, and comparing
// element addresses proves the two share memory. It reports false for a copy.
func offsetIn(src, sub []byte) (int, bool) {
	if cap(sub) == 0 {
		return 0, false
	}
	full := src[:cap(src)]
	off := cap(src) - cap(sub)
	if off < 0 || off >= len(full) || off+len(sub) > len(src) || &full[off] != &sub[:1][0] {
		return 0, false
	}
	return off, true
}

// lineOfNode returns the 1-based line where n starts, or 1 when goldmark did not record it.
func (p *mdParse) lineOfNode(n ast.Node) int {
	if pos := n.Pos(); pos >= 0 {
		return p.lines.line(pos)
	}
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return p.lines.line(n.Lines().At(0).Start)
	}
	return 1
}

// plainText returns the text of n's descendants without markup.
func plainText(n ast.Node, src []byte) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(c.Value)
		case *ast.AutoLink:
			sb.Write(c.Label(src))
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(sb.String())
}

// inlineTags adds the #tags written in a text node (goldmark leaves no text inside code, and
// headings are not walked, so neither contributes).
func (p *mdParse) inlineTags(n *ast.Text, src []byte) {
	if _, ok := n.Parent().(*wikilink.Node); ok {
		return // [[#Heading]] is a link, not a tag
	}
	seg := n.Segment
	s := src[seg.Start:seg.Stop]
	for i := bytes.IndexByte(s, '#'); i >= 0; {
		abs := seg.Start + i
		j := i + 1
		if (abs == 0 || !isTagBoundaryBlocker(src[abs-1])) && j < len(s) && isASCIILetter(s[j]) {
			// Read on in src: goldmark splits text at '_', which a tag may contain.
			e := abs + 1
			for e < len(src) && isTagByte(src[e]) {
				e++
			}
			p.tags.add(string(src[abs+1 : e]))
			j = min(e-seg.Start, len(s))
		}
		k := bytes.IndexByte(s[j:], '#')
		if k < 0 {
			break
		}
		i = j + k
	}
}

// isTagBoundaryBlocker reports whether a '#' preceded by c is part of a word, a URL or an HTML
// entity rather than the start of a tag.
func isTagBoundaryBlocker(c byte) bool {
	return isTagByte(c) || c == '#' || c == '&' || c == '[' || c >= utf8.RuneSelf
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isTagByte(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' || c == '/' || c == '-'
}

// tagSet collects tags without '#', deduplicated, in first-seen order.
type tagSet struct {
	seen map[string]bool
	list []string
}

func (t *tagSet) add(tag string) {
	tag = strings.TrimLeft(strings.TrimSpace(tag), "#")
	if tag == "" || t.seen[tag] {
		return
	}
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	t.seen[tag] = true
	t.list = append(t.list, tag)
}

// finishHeadings sets anchors and end lines. A heading ends before the next heading of the same or
// a higher level; a stack keeps this linear however the levels are ordered.
func (p *mdParse) finishHeadings() {
	hs := p.doc.Headings
	seen := map[string]int{}
	var open []int
	for i := range hs {
		hs[i].Anchor = uniqueAnchor(slug(hs[i].Text), seen)
		for len(open) > 0 && hs[open[len(open)-1]].Level >= hs[i].Level {
			top := open[len(open)-1]
			hs[top].EndLine = max(hs[i].Line-1, hs[top].Line)
			open = open[:len(open)-1]
		}
		open = append(open, i)
	}
	for _, i := range open {
		hs[i].EndLine = max(p.lines.last(), hs[i].Line)
	}
}

// slug returns the GitHub-style anchor of a heading: lower-case, spaces to '-', and everything but
// letters, digits, '-' and '_' dropped.
func slug(s string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			sb.WriteByte('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z':
			sb.WriteRune(r)
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// uniqueAnchor suffixes repeated anchors with -1, -2, ... as GitHub does.
func uniqueAnchor(a string, seen map[string]int) string {
	n, dup := seen[a]
	seen[a] = n + 1
	if !dup {
		return a
	}
	return fmt.Sprintf("%s-%d", a, n)
}

// sections splits the body (from line bodyLine) at every heading.
func (p *mdParse) sections(bodyLine int) {
	last := p.lines.last()
	first := last + 1
	if len(p.doc.Headings) > 0 {
		first = p.doc.Headings[0].Line
	}
	if bodyLine < first {
		if t := p.lines.text(p.src, bodyLine, first-1); strings.TrimSpace(t) != "" {
			p.doc.Sections = append(p.doc.Sections, Section{Line: bodyLine, EndLine: first - 1, Text: t})
		}
	}
	hs := p.doc.Headings
	for i, h := range hs {
		end := last
		if i+1 < len(hs) {
			end = max(hs[i+1].Line-1, h.Line)
		}
		p.doc.Sections = append(p.doc.Sections, Section{
			Heading: h.Text, Anchor: h.Anchor, Level: h.Level,
			Line: h.Line, EndLine: end, Text: p.lines.text(p.src, h.Line, end),
		})
	}
}

// lineIndex maps byte offsets to 1-based lines.
type lineIndex []int // start offset of each line

func newLineIndex(src []byte) lineIndex {
	li := lineIndex{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			li = append(li, i+1)
		}
	}
	return li
}

// line returns the 1-based line holding offset off.
func (li lineIndex) line(off int) int {
	return sort.Search(len(li), func(i int) bool { return li[i] > off })
}

// last returns the number of the last line (1 for an empty file).
func (li lineIndex) last() int { return len(li) }

// text returns lines a to b (1-based, inclusive) of src without the final line break.
func (li lineIndex) text(src []byte, a, b int) string {
	if a < 1 || b < a || a > len(li) {
		return ""
	}
	end := len(src)
	if b < len(li) {
		end = li[b]
	}
	t := src[li[a-1]:end]
	t = bytes.TrimSuffix(t, []byte("\n"))
	return string(bytes.TrimSuffix(t, []byte("\r")))
}

// baseTitle returns the file name without its extension.
func baseTitle(name string) string {
	b := path.Base(name)
	return strings.TrimSuffix(b, path.Ext(b))
}

// frontmatterBlock is the raw frontmatter at the top of a file.
type frontmatterBlock struct {
	raw     []byte
	toml    bool
	endLine int // line of the closing delimiter
}

// scanFrontmatter finds frontmatter the way the goldmark extension does: a first line of three or
// more '-' (YAML) or '+' (TOML), closed by a line of the same delimiter repeated as many times.
func scanFrontmatter(src []byte) (frontmatterBlock, bool) {
	line, rest, ok := bytes.Cut(src, []byte("\n"))
	if !ok {
		return frontmatterBlock{}, false
	}
	delim, n := delimLine(line)
	if delim != '-' && delim != '+' {
		return frontmatterBlock{}, false
	}
	start := len(src) - len(rest)
	for ln := 2; len(rest) > 0; ln++ {
		off := len(src) - len(rest)
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if d, m := delimLine(line); d == delim && m == n {
			if off-start > MaxFrontmatterBytes {
				return frontmatterBlock{}, false
			}
			return frontmatterBlock{raw: src[start:off], toml: delim == '+', endLine: ln}, true
		}
	}
	return frontmatterBlock{}, false
}

// delimLine returns the delimiter byte of a line made of three or more of one byte, and how many.
func delimLine(line []byte) (byte, int) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) < 3 {
		return 0, 0
	}
	for _, c := range line[1:] {
		if c != line[0] {
			return 0, 0
		}
	}
	return line[0], len(line)
}

// frontmatterMeta is what Parse takes from frontmatter.
type frontmatterMeta struct {
	title   string
	tags    []string
	aliases []string
	links   []Link
}

// fmField is one top-level frontmatter key with its decoded value and the line it is on.
type fmField struct {
	key   string
	value any
	line  int
}

// decodeFrontmatter decodes fm; it reports false when fm is not a YAML or TOML mapping.
func decodeFrontmatter(fm frontmatterBlock) (frontmatterMeta, bool) {
	var fields []fmField
	var ok bool
	if fm.toml {
		fields, ok = tomlFields(fm.raw)
	} else {
		fields, ok = yamlFields(fm.raw)
	}
	if !ok {
		return frontmatterMeta{}, false
	}
	var m frontmatterMeta
	for _, f := range fields {
		switch strings.ToLower(f.key) {
		case "title":
			if s, ok := f.value.(string); ok {
				m.title = strings.TrimSpace(s)
			}
		case "tags", "tag":
			for _, v := range fmItems(f.value) {
				if s, ok := fmScalar(v); ok {
					m.tags = append(m.tags, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })...)
				}
			}
		case "aliases", "alias":
			for _, v := range fmItems(f.value) {
				if s, ok := fmScalar(v); ok && strings.TrimSpace(s) != "" {
					m.aliases = append(m.aliases, strings.TrimSpace(s))
				}
			}
		case "parent", "children", "related":
			for _, v := range fmItems(f.value) {
				if l, ok := fmLink(v); ok {
					l.Rel, l.Line = strings.ToLower(f.key), f.line
					m.links = append(m.links, l)
				}
			}
		}
	}
	return m, true
}

// yamlFields decodes YAML frontmatter; lines are those of the file (the YAML starts on line 2).
func yamlFields(raw []byte) ([]fmField, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, false
	}
	if doc.Kind == 0 {
		return nil, true // empty frontmatter
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	m := doc.Content[0]
	var fields []fmField
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		var val any
		if k.Kind != yaml.ScalarNode || v.Decode(&val) != nil {
			continue
		}
		fields = append(fields, fmField{key: k.Value, value: val, line: k.Line + 1})
	}
	return fields, true
}

// tomlFields decodes TOML frontmatter; a key's line is found by scanning for "key =".
func tomlFields(raw []byte) ([]fmField, bool) {
	var m map[string]any
	if err := frontmatter.TOML.Unmarshal(raw, &m); err != nil {
		return nil, false
	}
	lines := strings.Split(string(raw), "\n")
	var fields []fmField
	for i, ln := range lines {
		k, _, ok := strings.Cut(ln, "=")
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		if v, found := m[k]; ok && found {
			fields = append(fields, fmField{key: k, value: v, line: i + 2})
			delete(m, k)
		}
	}
	return fields, true
}

// fmItems returns the items of a list value, or the value itself.
func fmItems(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

// fmScalar returns a scalar value as a string.
func fmScalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case nil, []any, map[string]any:
		return "", false
	default:
		return fmt.Sprint(v), true
	}
}

// fmLink turns one relation item into a link: a path ("../x.md"), a quoted wiki-link ("[[Note]]")
// or an unquoted YAML wiki-link, which YAML reads as a list holding a one-item list.
func fmLink(v any) (Link, bool) {
	if l, ok := v.([]any); ok && len(l) == 1 {
		if s, ok := fmScalar(l[0]); ok {
			return wikiTarget(s), true
		}
	}
	s, ok := fmScalar(v)
	s = strings.TrimSpace(s)
	if !ok || s == "" {
		return Link{}, false
	}
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") && len(s) > 4 {
		return wikiTarget(s[2 : len(s)-2]), true
	}
	target, frag, _ := strings.Cut(s, "#")
	return Link{Kind: KindFrontmatter, Target: target, Fragment: frag}, true
}

// wikiTarget splits the inside of a wiki-link, "Note#Heading|alias", into a frontmatter link.
func wikiTarget(s string) Link {
	s, _, _ = strings.Cut(s, "|")
	target, frag := s, ""
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		target, frag = s[:i], s[i+1:]
	}
	return Link{Kind: KindFrontmatter, Target: strings.TrimSpace(target), Fragment: frag, Text: FrontmatterWiki}
}
