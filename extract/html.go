package extract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTML pages, and EPUB chapters (office.go), read token by token.
func init() {
	extractors["html"] = HTMLText
	extractors["htm"] = HTMLText
}

// htmlBlocks are the elements that end the paragraph before them and their own: what a browser
// lays out as a block of its own.
var htmlBlocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Body: true,
	atom.Caption: true, atom.Dd: true, atom.Details: true, atom.Dialog: true, atom.Div: true,
	atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true,
	atom.Footer: true, atom.Form: true, atom.Header: true, atom.Hgroup: true, atom.Hr: true,
	atom.Html: true, atom.Legend: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true,
	atom.P: true, atom.Section: true, atom.Summary: true, atom.Ul: true,
}

// htmlHidden are the elements whose content is not text a reader sees.
var htmlHidden = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
}

// htmlHead are the elements a page's head holds; any other ends the head.
var htmlHead = map[atom.Atom]bool{
	atom.Html: true, atom.Head: true, atom.Title: true, atom.Meta: true, atom.Link: true,
	atom.Base: true, atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
}

// HTMLText extracts the text of an HTML (or XHTML) page: headings h1 to h6 as headings;
// paragraphs, list items, quotes, preformatted blocks and other blocks as parts, white space
// collapsed except in pre; each table row a part of its cells joined by " | "; the title and
// <meta name="author"> as the document's. Scripts, styles, templates and the head are left out.
//
// It reads the page token by token (golang.org/x/net/html's Tokenizer) rather than parsing it into
// a tree: the tree of a page of tiny elements takes many times its size (dev/bench/README.md,
// Documents read as their text), while the tokens take the page's size, and paragraphs need no
// tree, only where blocks begin and end. So no nesting depth limits it (html.Parse refuses more
// than 512), and misnested markup costs nothing. The page is read as UTF-8.
func HTMLText(ctx context.Context, data []byte) (*Document, error) {
	c := &collector{}
	var m htmlMeta
	doc, err := c.finish(htmlInto(ctx, data, c, &m))
	if err != nil {
		return nil, err
	}
	doc.Title, doc.Author = m.title, m.author
	return doc, nil
}

// htmlMeta is what a page's head says of it.
type htmlMeta struct {
	title, author string
}

// htmlInto adds the parts of the page data to c, and its title and author to meta unless nil.
func htmlInto(ctx context.Context, data []byte, c *collector, meta *htmlMeta) error {
	z := html.NewTokenizer(bytes.NewReader(data))
	z.AllowCDATA(true) // XHTML's CDATA sections are text
	w := &htmlWalk{c: c, meta: meta}
	for n := 0; ; n++ {
		if n%tokensPerCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return fmt.Errorf("%w: %v", ErrMalformed, z.Err())
			}
			w.close()
			return c.check()
		case html.TextToken:
			w.text(z.Text())
		case html.StartTagToken:
			w.start(z)
		case html.SelfClosingTagToken: // XHTML's <p/>, <br/>, <script src="…"/>
			z.NextIsNotRawText()
			w.end(w.start(z))
		case html.EndTagToken:
			name, _ := z.TagName()
			w.end(atom.Lookup(name))
		}
		if err := c.check(); err != nil {
			return err
		}
	}
}

// htmlWalk reads one page's tokens.
type htmlWalk struct {
	c    *collector
	meta *htmlMeta
	// hidden counts the open elements whose content is hidden; pre the open pre elements.
	hidden, pre int
	heading     int  // the level of the open heading, 0 when none
	head, title bool // whether in the head, in a title
	keepTitle   bool // whether the title is the page's first
	tables      []htmlTable
}

// htmlTable is what of an open table is open.
type htmlTable struct {
	row, cell bool
}

func (w *htmlWalk) text(b []byte) {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	switch {
	case w.title:
		if w.keepTitle && len(w.meta.title)+len(s) <= maxProperty {
			w.meta.title = strings.TrimSpace(collapse(w.meta.title + s))
		}
	case w.hidden > 0 || w.head:
	case w.pre > 0:
		w.c.write(s)
	default:
		w.c.write(collapse(s))
	}
}

// flush ends the paragraph being read.
func (w *htmlWalk) flush() { w.c.endPara(w.heading) }

// start reads a start tag and returns its element.
func (w *htmlWalk) start(z *html.Tokenizer) atom.Atom {
	name, hasAttr := z.TagName()
	a := atom.Lookup(name)
	if !htmlHead[a] {
		w.head = false
	}
	switch {
	case htmlHidden[a]:
		w.hidden++
	case a == atom.Head:
		w.head = true
	case a == atom.Title: // the page's, or an SVG image's, never shown as text
		w.title, w.keepTitle = true, w.meta != nil && w.meta.title == ""
	case a == atom.Meta && hasAttr:
		w.author(z)
	case a == atom.Br:
		w.c.write("\n")
	case a == atom.Pre:
		w.flush()
		w.pre++
	case headingLevel(a) > 0:
		w.flush()
		w.heading = headingLevel(a)
	case a == atom.Table, a == atom.Tr, a == atom.Td, a == atom.Th:
		w.startTable(a)
	case htmlBlocks[a]:
		w.flush()
	}
	return a
}

// end reads the end tag of element a.
func (w *htmlWalk) end(a atom.Atom) {
	switch {
	case htmlHidden[a]:
		w.hidden = max(0, w.hidden-1)
	case a == atom.Head:
		w.head = false
	case a == atom.Title:
		w.title = false
	case a == atom.Pre:
		w.flush()
		w.pre = max(0, w.pre-1)
	case headingLevel(a) > 0:
		w.flush()
		w.heading = 0
	case a == atom.Table, a == atom.Tr, a == atom.Td, a == atom.Th:
		w.endTable(a)
	case htmlBlocks[a]:
		w.flush()
	}
}

// startTable reads the start of a table, a row or a cell; a row or a cell left open by the markup
// ends where the next begins.
func (w *htmlWalk) startTable(a atom.Atom) {
	if a == atom.Table {
		w.flush()
		w.tables = append(w.tables, htmlTable{})
		return
	}
	if len(w.tables) == 0 {
		w.flush() // a row or cell outside a table: a block
		return
	}
	t := &w.tables[len(w.tables)-1]
	if a == atom.Tr || !t.row {
		w.endRow(t)
		w.c.startRow()
		t.row = true
	}
	if a != atom.Tr {
		if t.cell {
			w.c.endCell()
		}
		t.cell = true
	}
}

// endTable reads the end of a table, a row or a cell.
func (w *htmlWalk) endTable(a atom.Atom) {
	if len(w.tables) == 0 {
		w.flush()
		return
	}
	t := &w.tables[len(w.tables)-1]
	switch a {
	case atom.Td, atom.Th:
		if t.cell {
			w.c.endCell()
			t.cell = false
		}
	case atom.Tr:
		w.endRow(t)
	case atom.Table:
		w.endRow(t)
		w.tables = w.tables[:len(w.tables)-1]
	}
}

// endRow ends t's open row, if any.
func (w *htmlWalk) endRow(t *htmlTable) {
	if !t.row {
		return
	}
	if t.cell {
		w.c.endCell()
	}
	w.c.endRow()
	t.row, t.cell = false, false
}

// close ends what the page leaves open, so that nothing of it runs into the next chapter.
func (w *htmlWalk) close() {
	for i := len(w.tables) - 1; i >= 0; i-- {
		w.endRow(&w.tables[i])
	}
	w.flush()
}

// author keeps the content of <meta name="author">.
func (w *htmlWalk) author(z *html.Tokenizer) {
	var name, content string
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "name":
			name = string(v)
		case "content":
			content = string(v)
		}
	}
	if w.meta != nil && w.meta.author == "" && strings.EqualFold(name, "author") && len(content) <= maxProperty {
		w.meta.author = strings.TrimSpace(collapse(strings.ToValidUTF8(content, "\uFFFD")))
	}
}

// headingLevel returns the level of a heading element, 0 for another.
func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}
