package markdown

import (
	"bytes"
	"path"
	"sort"
	"strings"
)

// MaxRewriteSpan bounds the text a [Rewrite] shows of one link, before and after: a link written
// longer than this (a long link text, a definition with a long title) is shown by its destination
// alone, so that one link cannot fill a move's answer.
const MaxRewriteSpan = 240

// Rewrite is one link a move rewrites: the line its destination is on, and the link as written
// before and after: the whole link ("[text](dest)", "[[Note|alias]]", "![[Note]]", a reference
// definition's line), or its destination alone beyond [MaxRewriteSpan].
type Rewrite struct {
	Line          int
	Before, After string
}

// Moved is one document or folder a move takes, and its new root-relative path.
type Moved struct{ From, To string }

// Dest returns where the document at p is after m, and false when m does not take it.
func (m Moved) Dest(p string) (string, bool) {
	switch {
	case p == m.From:
		return m.To, true
	case strings.HasPrefix(p, m.From+"/"):
		return m.To + p[len(m.From):], true
	}
	return "", false
}

// Move is what a move takes where, and how links to what it takes are written again.
type Move struct {
	From, To string // the document or folder moved, and its new root-relative path
	// Along are the other documents or folders the same move takes, for a move of several at
	// once: a link from one to another reaches it where it goes.
	Along []Moved
	// Unique reports whether a wiki link can name the document moved from p by name alone, name
	// being its new base name with the extension ("Note.md"): whether no other document will answer
	// to it (see [Graph.UniqueAfterMove]). If nil, wiki links get the root-relative path.
	Unique func(p, name string) bool
	// KeepText keeps what a reader sees of a wiki link whose name the move changes: the name it
	// showed becomes its display text ([[Old]] becomes [[New|Old]], [[Old#Part]] becomes
	// [[New#Part|Old > Part]], as Obsidian shows it). A link with display text of its own keeps
	// it, and an embed shows the file rather than text, so neither gets one. If false, the link
	// shows the new name, as Obsidian itself rewrites it.
	KeepText bool
	// Format is how a wiki link is written when the form it had no longer reaches its document:
	// a link by name whose name another document will answer to (see Unique).
	Format LinkFormat
}

// LinkFormat is how a vault writes the paths of the links it makes: Obsidian's "New link
// format" setting (newLinkFormat in .obsidian/app.json).
type LinkFormat string

// The link formats. The zero value is [LinkShortest], Obsidian's default.
const (
	// LinkShortest names a note by name when no other note answers to it, else by its path
	// from the root.
	LinkShortest LinkFormat = "shortest"
	// LinkRelative writes the path from the linking note's folder, starting "./" or "../".
	LinkRelative LinkFormat = "relative"
	// LinkAbsolute writes the path from the root.
	LinkAbsolute LinkFormat = "absolute"
)

// ParseLinkFormat returns the format named s, and false (with [LinkShortest]) for any other
// name.
func ParseLinkFormat(s string) (LinkFormat, bool) {
	switch f := LinkFormat(s); f {
	case LinkShortest, LinkRelative, LinkAbsolute:
		return f, true
	}
	return LinkShortest, false
}

// Dest returns where the document at p is after the move, and false when the move does not take it.
func (m Move) Dest(p string) (string, bool) {
	if to, ok := (Moved{m.From, m.To}).Dest(p); ok {
		return to, true
	}
	return DestOf(m.Along, p)
}

// DestOf returns where the document at p is after moves, and false when none of them takes it.
func DestOf(moves []Moved, p string) (string, bool) {
	for _, m := range moves {
		if to, ok := m.Dest(p); ok {
			return to, true
		}
	}
	return "", false
}

// edit replaces src[start:end] with text; span is the part of src its [Rewrite] shows, around it.
type edit struct {
	start, end int
	text       string
	span       [2]int
}

// applyEdits applies edits from the end of src backwards, so earlier offsets stay valid. Edits of
// the same range (reference links sharing one definition) are applied once; overlapping ones are
// dropped. It returns the rewrites it made, in source order.
func applyEdits(src []byte, edits []edit) ([]byte, []Rewrite) {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	var applied []edit
	limit := len(src) + 1
	for _, e := range edits {
		if e.end > limit {
			continue // duplicate or overlapping
		}
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
		limit = e.start
		applied = append(applied, e)
	}
	if len(applied) == 0 {
		return out, nil
	}
	lines := newLineIndex(src)
	rw := make([]Rewrite, len(applied))
	for i, e := range applied {
		s, t := e.span[0], e.span[1]
		rw[len(applied)-1-i] = Rewrite{
			Line:   lines.line(e.start),
			Before: string(src[s:t]),
			After:  string(src[s:e.start]) + e.text + string(src[e.end:t]),
		}
	}
	return out, rw
}

// rewritable reports whether l can be edited in place in src: it has offsets inside src and the
// bytes there still decode to its target (so a stale parse is never applied).
func rewritable(src []byte, l Link) bool {
	if l.Start <= 0 || l.End <= l.Start || l.End > len(src) {
		return false
	}
	raw := src[l.Start:l.End]
	if wikiStyle(l) {
		return string(raw) == l.Target
	}
	return decodeDest(raw) == l.Target
}

// RewriteLinks returns src (the document d at d.Path, which m does not take) with every link to a
// document m takes changed to reach it where it goes, the rewrites it made, and how many such links
// it could not change (frontmatter links, which have no offsets, are left for the caller to
// report).
//
// Markdown, reference and image links get the relative path from d.Path's directory to the new
// path (root-relative if they were written with a leading "/"; without ".md" if they were written
// without it). Spaces are escaped as %20 when the original was percent-escaped or when the new path
// has a space and the link is not in <angle brackets>. The fragment, the link text and the rest of
// the syntax are kept, except a link text that is the destination itself ([old.md](old.md)): it
// shows the new destination, as it showed the old. Wiki links get the new base name without ".md"
// when m.Unique says it is unique, else the root-relative path without ".md"; an explicit ".md" is
// kept; m.KeepText says what they show. A wiki link written with a path keeps a path: from the
// root, or from its folder when it starts "./" or "../"; one written by name that no longer
// finds its note by name gets the path m.Format says.
func RewriteLinks(src []byte, d Doc, resolve func(Link) Resolved, m Move) (out []byte, rewrites []Rewrite, skipped int) {
	var edits []edit
	for _, l := range d.Links {
		if l.Kind == KindAutolink || l.Target == "" {
			continue
		}
		r := resolve(l)
		if r.Status != StatusInternal {
			continue
		}
		to, moves := m.Dest(r.To)
		if !moves {
			continue
		}
		if !rewritable(src, l) {
			skipped++
			continue
		}
		var e edit
		var ok bool
		if wikiStyle(l) {
			e, ok = m.wikiEdit(src, l, path.Dir(d.Path), r.To, to)
		} else {
			e, ok = pathEdit(src, l, path.Dir(d.Path), to, &m)
		}
		if ok {
			edits = append(edits, e)
		}
	}
	out, rewrites = applyEdits(src, edits)
	return out, rewrites, skipped
}

// RelinkMoved rewrites the links of a document m takes, now at newPath, so they still reach the
// same documents from its new folder, and reach where they go those that m takes too (itself, or
// its neighbours in a moved folder). src is its text, d its parse under its old path, and
// resolveFromOld resolves d's links as they were. Relative markdown links to documents that stay
// get the relative path from the new folder, and so do wiki links written relative ("../Note");
// root-relative ones, and other wiki links (which resolve by name or from the root), change only
// when their target moves, as in [RewriteLinks].
func RelinkMoved(src []byte, d Doc, newPath string, resolveFromOld func(Link) Resolved, m Move) (out []byte, rewrites []Rewrite) {
	var edits []edit
	for _, l := range d.Links {
		if l.Kind == KindAutolink || l.Kind == KindFrontmatter || l.Target == "" || !rewritable(src, l) {
			continue
		}
		r := resolveFromOld(l)
		if r.Status != StatusInternal {
			continue
		}
		to, moves := m.Dest(r.To)
		var e edit
		var ok bool
		switch {
		case wikiStyle(l) && moves:
			e, ok = m.wikiEdit(src, l, path.Dir(newPath), r.To, to)
		case wikiStyle(l) && relativeWiki(l.Target):
			e, ok = m.wikiEdit(src, l, path.Dir(newPath), r.To, r.To)
		case wikiStyle(l), strings.HasPrefix(l.Target, "/") && !moves:
			continue
		case moves:
			e, ok = pathEdit(src, l, path.Dir(newPath), to, &m)
		default:
			e, ok = pathEdit(src, l, path.Dir(newPath), r.To, nil)
		}
		if ok {
			edits = append(edits, e)
		}
	}
	return applyEdits(src, edits)
}

// wikiEdit returns the edit that makes the wiki link l, written in the folder dir, to the
// document from, name it at to; false when the name it has still finds it.
func (m Move) wikiEdit(src []byte, l Link, dir, from, to string) (edit, bool) {
	// A link written with a path keeps a path, the new one: a vault that names notes by path
	// keeps its style. One written by name keeps a name while the name alone finds the note.
	byPath := strings.Contains(l.Target, "/")
	name := to
	switch {
	case relativeWiki(l.Target), !byPath && m.Format == LinkRelative && (m.Unique == nil || !m.Unique(from, path.Base(to))):
		name = relPath(dir, to)
		if !strings.HasPrefix(name, "../") {
			name = "./" + name
		}
	case !byPath && m.Unique != nil && m.Unique(from, path.Base(to)):
		name = path.Base(to)
	}
	if hasMarkdownExt(name) {
		name = strings.TrimSuffix(name, path.Ext(name))
	}
	if hasMarkdownExt(l.Target) && !hasMarkdownExt(name) {
		name += ".md"
	}
	old := l.Target
	if name == old || !strings.Contains(name+old, "/") && strings.EqualFold(name, old) {
		return edit{}, false // names resolve ignoring case
	}
	e := edit{start: l.Start, end: l.End, text: name, span: [2]int{l.Start, l.End}}
	end := wikiEnd(src, l)
	if end < 0 {
		return e, true
	}
	e.span = [2]int{l.Start - len("[["), end + len("]]")}
	if l.Kind == KindEmbed {
		e.span[0]--
	}
	rest := string(src[l.End:end]) // "#Part", "|alias" or "\|alias" in a table, or ""
	// A path link whose note keeps its name only changed folder: its text is not what changed.
	renamed := !byPath || !strings.EqualFold(strings.TrimSuffix(path.Base(old), path.Ext(old)), strings.TrimSuffix(path.Base(name), path.Ext(name)))
	if m.KeepText && l.Kind == KindWiki && !strings.Contains(rest, "|") && renamed {
		sep := "|"
		if inTable(src, l.Start) {
			sep = `\|` // an unescaped bar would end the table cell
		}
		e.end, e.text = end, name+rest+sep+old+strings.ReplaceAll(rest, "#", " > ")
	}
	if e.span[1]-e.span[0] > MaxRewriteSpan {
		e.span = [2]int{e.start, e.end}
	}
	return e, true
}

// wikiEnd returns the offset of the "]]" that closes the wiki link l, or -1.
func wikiEnd(src []byte, l Link) int {
	line := src[l.End:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if i := bytes.Index(line, []byte("]]")); i >= 0 {
		return l.End + i
	}
	return -1
}

// inTable reports whether the line holding offset off is a table row: it opens with '|', as the
// rows Obsidian writes do.
func inTable(src []byte, off int) bool {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return bytes.HasPrefix(bytes.TrimLeft(src[start:off], " \t"), []byte("|"))
}

// pathEdit returns the edit that makes the markdown link l, written in fromDir, reach to; false
// when it already does as written. When m is the move that takes l's target, a link whose text is
// its destination shows the new one: always when the text is a path or a file name
// ([old.md](old.md)), else when m does not keep the text ([Old](Old), as a wiki link [[Old]]).
func pathEdit(src []byte, l Link, fromDir, to string, m *Move) (edit, bool) {
	t := pathTarget(src, l, fromDir, to)
	raw := string(src[l.Start:l.End])
	if t == raw {
		return edit{}, false
	}
	e := edit{start: l.Start, end: l.End, text: t, span: [2]int{l.Start, l.End}}
	in, ok := inlineAt(src, l)
	if !ok {
		e.span = definitionAt(src, l)
		return e, true
	}
	e.span = [2]int{in.open, in.close}
	text := string(src[in.textStart:in.textEnd])
	if m != nil && (text == raw || text == l.Target) && (!m.KeepText || strings.Contains(text, "/") || path.Ext(text) != "") {
		shown := t
		if text != raw {
			shown = decodeDest([]byte(t))
		}
		e.start, e.text = in.textStart, shown+string(src[in.textEnd:l.Start])+t
	}
	if e.span[1]-e.span[0] > MaxRewriteSpan {
		e.span = [2]int{e.start, e.end}
	}
	return e, true
}

// inline is where an inline link or image is written: "![text](dest)" from open to close, the text
// from textStart to textEnd.
type inline struct {
	open, textStart, textEnd, close int
}

// inlineAt finds the inline link or image whose destination is l's, looking no further than
// [MaxRewriteSpan] each way; false for a reference definition, or a link it cannot bound.
func inlineAt(src []byte, l Link) (inline, bool) {
	p := l.Start
	if p > 0 && src[p-1] == '<' {
		p--
	}
	if p < 2 || src[p-1] != '(' || src[p-2] != ']' {
		return inline{}, false
	}
	in := inline{textEnd: p - 2, open: -1}
	depth := 0
	for i := p - 2; i >= max(0, p-2-MaxRewriteSpan) && in.open < 0; i-- {
		if i > 0 && src[i-1] == '\\' {
			continue
		}
		switch src[i] {
		case ']':
			depth++
		case '[':
			if depth--; depth == 0 {
				in.open, in.textStart = i, i+1
			}
		}
	}
	if in.open < 0 {
		return inline{}, false
	}
	if in.open > 0 && src[in.open-1] == '!' {
		in.open--
	}
	depth = 1
	for i := l.End; i < min(len(src), l.End+MaxRewriteSpan); i++ {
		switch src[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				in.close = i + 1
				return in, true
			}
		}
	}
	return inline{}, false
}

// definitionAt returns the span of the reference definition ("[r]: dest") holding l's destination:
// its line without surrounding space, or the destination alone when that line is not one.
func definitionAt(src []byte, l Link) [2]int {
	start := bytes.LastIndexByte(src[:l.Start], '\n') + 1
	end := len(src)
	if i := bytes.IndexByte(src[l.End:], '\n'); i >= 0 {
		end = l.End + i
	}
	line := src[start:end]
	trimmed := bytes.TrimLeft(line, " \t")
	start += len(line) - len(trimmed)
	end -= len(trimmed) - len(bytes.TrimRight(trimmed, " \t\r"))
	if !bytes.HasPrefix(trimmed, []byte("[")) || end-start > MaxRewriteSpan {
		return [2]int{l.Start, l.End}
	}
	return [2]int{start, end}
}

// pathTarget returns the destination text for a markdown link l in src, written in fromDir, that
// must now reach to.
func pathTarget(src []byte, l Link, fromDir, to string) string {
	raw := string(src[l.Start:l.End])
	var t string
	if strings.HasPrefix(l.Target, "/") {
		t = "/" + to
	} else {
		t = relPath(fromDir, to)
	}
	if !hasMarkdownExt(l.Target) && hasMarkdownExt(t) && path.Ext(l.Target) == "" {
		t = strings.TrimSuffix(t, path.Ext(t))
	}
	angled := l.Start > 0 && src[l.Start-1] == '<'
	if strings.Contains(raw, "%") || strings.Contains(t, " ") && !angled {
		t = strings.ReplaceAll(t, " ", "%20")
	}
	return t
}

// relPath returns the relative slash path from directory dir ("." for the root) to p.
func relPath(dir, p string) string {
	var from []string
	if dir != "." && dir != "" {
		from = strings.Split(dir, "/")
	}
	to := strings.Split(p, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	parts := make([]string, 0, len(from)-i+len(to)-i)
	for range from[i:] {
		parts = append(parts, "..")
	}
	return strings.Join(append(parts, to[i:]...), "/")
}
