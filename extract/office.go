package extract

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Office documents, read through one zip reader (zip.go) and encoding/xml: DOCX, PPTX, ODT, ODP
// and EPUB, whose chapters are read as HTML (html.go).
func init() {
	extractors["docx"] = docxText
	extractors["pptx"] = pptxText
	extractors["odt"] = odfText
	extractors["odp"] = odfText
	extractors["epub"] = epubText
	pageWord["pptx"] = "slide"
	pageWord["odp"] = "slide"
	pageWord["epub"] = "chapter"
}

const (
	// maxSpaces is the most spaces one ODF <text:s text:c="N"/> yields: its count is the file's
	// word, and a run wider than a line says nothing more.
	maxSpaces = 256
	// maxProperty is the most bytes of a document property (title, author) kept.
	maxProperty = 1024
)

// collector gathers a document's parts as its XML or HTML is walked, within the text budget:
// paragraphs, table rows (cells joined by " | ") and the page each is on.
type collector struct {
	doc  Document
	b    budget
	page int
	para strings.Builder
	rows []*row // the open rows of tables, the innermost last
	// held counts the bytes written since the last part: a paragraph or a row grows no larger than
	// the budget has left.
	held int
	full bool
}

// row is a table row being read.
type row struct {
	cells []string
	cell  strings.Builder
}

// write adds s to the paragraph being read, or marks the collector full when the budget cannot
// take it.
func (c *collector) write(s string) {
	if c.full || c.b.bytes+c.held+len(s) > MaxTextBytes {
		c.full = true
		return
	}
	c.held += len(s)
	c.para.WriteString(s)
}

// check returns errStop once the budget is spent, for a walk to end.
func (c *collector) check() error {
	if c.full {
		c.doc.Truncated = true
		return errStop
	}
	return nil
}

// endPara ends a paragraph: a part at heading level heading, or the text of a table cell.
func (c *collector) endPara(heading int) error {
	text := strings.TrimSpace(c.para.String())
	c.para.Reset()
	if text == "" {
		return c.check()
	}
	if n := len(c.rows); n > 0 {
		r := c.rows[n-1]
		if r.cell.Len() > 0 {
			r.cell.WriteByte(' ')
		}
		r.cell.WriteString(text)
		return c.check()
	}
	return c.emit(Part{Page: c.page, Heading: heading, Text: text})
}

// startRow opens a table row.
func (c *collector) startRow() {
	c.endPara(0)
	c.rows = append(c.rows, &row{})
}

// endCell ends the cell being read of the innermost row.
func (c *collector) endCell() {
	c.endPara(0)
	if n := len(c.rows); n > 0 {
		r := c.rows[n-1]
		r.cells = append(r.cells, r.cell.String())
		r.cell.Reset()
	}
}

// endRow ends the innermost row: a part, or for a table in a table, the text of the outer cell.
func (c *collector) endRow() error {
	n := len(c.rows)
	if n == 0 {
		return c.endPara(0)
	}
	if c.para.Len() > 0 || c.rows[n-1].cell.Len() > 0 {
		c.endCell()
	}
	r := c.rows[n-1]
	c.rows = c.rows[:n-1]
	for len(r.cells) > 0 && r.cells[len(r.cells)-1] == "" {
		r.cells = r.cells[:len(r.cells)-1]
	}
	c.para.WriteString(strings.Join(r.cells, " | "))
	return c.endPara(0)
}

// emit adds p to the document, or marks it truncated and stops the walk when the budget is spent.
func (c *collector) emit(p Part) error {
	c.held = 0
	if !c.b.add(p.Text) {
		c.full = true
		return c.check()
	}
	c.doc.Parts = append(c.doc.Parts, p)
	return c.check()
}

// finish ends what is open and returns the document, treating a stop for the budget as the end.
func (c *collector) finish(err error) (*Document, error) {
	if err != nil && err != errStop {
		return nil, err
	}
	if err == nil {
		for len(c.rows) > 0 {
			c.endRow()
		}
		c.endPara(0)
	}
	return &c.doc, nil
}

// attr returns the value of t's attribute named local in any namespace.
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// parent returns the innermost element open, "" at the top.
func parent(open []string) string {
	if len(open) == 0 {
		return ""
	}
	return open[len(open)-1]
}

// require returns err as the document's: an entry it must have and lacks is [ErrMalformed].
func require(err error, what string) error {
	if errors.Is(err, errMissing) {
		return fmt.Errorf("%w: %v: not %s", ErrMalformed, err, what)
	}
	return err
}

// properties returns the text of the elements named in want (by local name, the first of each)
// of entry name: a document's title, author and dates. A document without the entry, or with a
// broken one, has none: its text is still read.
func properties(ctx context.Context, z *zipDoc, name string, want ...string) (map[string]string, error) {
	found := map[string]*strings.Builder{}
	err := z.walkXML(ctx, name, func(tok xml.Token, open []string) error {
		t, ok := tok.(xml.CharData)
		el := parent(open)
		if !ok || !slices.Contains(want, el) {
			return nil
		}
		b := found[el]
		if b == nil {
			b = &strings.Builder{}
			found[el] = b
		}
		if b.Len()+len(t) <= maxProperty {
			b.Write(t)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errMissing) && !errors.Is(err, ErrMalformed) {
		return nil, err
	}
	props := map[string]string{}
	for k, b := range found {
		props[k] = strings.Join(strings.Fields(b.String()), " ")
	}
	return props, nil
}

// parseTime reads a document's date: W3CDTF (OOXML), ODF's dateTime with or without a zone, or a
// date; the zero time when it is none of those.
func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// --- DOCX ---

// builtinHeadings are Word's paragraph style ids of headings, as a document without styles.xml
// (or with an English one) names them.
var builtinHeadings = map[string]int{
	"Title": 1, "Heading1": 1, "Heading2": 2, "Heading3": 3, "Heading4": 4, "Heading5": 5, "Heading6": 6,
}

// docxText reads a Word document: word/document.xml's paragraphs and table rows, headings by
// paragraph style, and docProps/core.xml's title, creator and creation date.
func docxText(ctx context.Context, data []byte) (*Document, error) {
	z, err := openZip(data)
	if err != nil {
		return nil, err
	}
	styles, err := docxStyles(ctx, z)
	if err != nil {
		return nil, err
	}
	w := &docxWalk{styles: styles}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	err = z.walkXML(ctx, "word/document.xml", w.token)
	doc, err := w.c.finish(require(err, "a Word document"))
	if err != nil {
		return nil, err
	}
	props, err := properties(ctx, z, "docProps/core.xml", "title", "creator", "created")
	if err != nil {
		return nil, err
	}
	doc.Title, doc.Author, doc.Created = props["title"], props["creator"], parseTime(props["created"])
	return doc, nil
}

// docxStyles maps word/styles.xml's paragraph style ids to heading levels, by the style's name
// ("heading 1", which Word keeps in English whatever the id: "berschrift1" in German) or outline
// level, over the built-in ids.
func docxStyles(ctx context.Context, z *zipDoc) (map[string]int, error) {
	levels := maps.Clone(builtinHeadings)
	id := ""
	err := z.walkXML(ctx, "word/styles.xml", func(tok xml.Token, open []string) error {
		t, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch t.Name.Local {
		case "style":
			id = attr(t, "styleId")
		case "name":
			name := strings.ToLower(attr(t, "val"))
			if n, err := strconv.Atoi(strings.TrimPrefix(name, "heading ")); err == nil && n >= 1 && n <= 6 {
				levels[id] = n
			} else if name == "title" {
				levels[id] = 1
			}
		case "outlineLvl":
			if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 6 && id != "" {
				levels[id] = n + 1
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errMissing) && !errors.Is(err, ErrMalformed) {
		return nil, err
	}
	return levels, nil
}

// docxWalk reads word/document.xml.
type docxWalk struct {
	c      collector
	styles map[string]int
	// heading holds the heading level of each open paragraph (a text box's paragraphs open inside
	// one).
	heading []int
}

func (w *docxWalk) token(tok xml.Token, open []string) error {
	switch t := tok.(type) {
	case xml.StartElement:
		return w.start(t, open)
	case xml.EndElement:
		return w.end(t.Name.Local)
	case xml.CharData:
		if parent(open) == "t" {
			w.c.write(string(t))
		}
	}
	return w.c.check()
}

func (w *docxWalk) start(t xml.StartElement, open []string) error {
	in := func(el string) bool { return len(open) > 1 && open[len(open)-2] == el }
	switch t.Name.Local {
	case "Fallback": // mc:AlternateContent's copy for old readers of what its Choice holds
		return errSkip
	case "p":
		w.heading = append(w.heading, 0)
	case "pStyle":
		if in("pPr") && len(w.heading) > 0 {
			w.heading[len(w.heading)-1] = w.styles[attr(t, "val")]
		}
	case "outlineLvl":
		n, err := strconv.Atoi(attr(t, "val"))
		if in("pPr") && err == nil && n >= 0 && n < 6 && len(w.heading) > 0 {
			w.heading[len(w.heading)-1] = n + 1
		}
	case "tab":
		if in("r") {
			w.c.write("\t")
		}
	case "br", "cr":
		w.c.write("\n")
	case "tr":
		w.c.startRow()
	}
	return w.c.check()
}

func (w *docxWalk) end(local string) error {
	switch local {
	case "p":
		h := 0
		if n := len(w.heading); n > 0 {
			h, w.heading = w.heading[n-1], w.heading[:n-1]
		}
		return w.c.endPara(h)
	case "tc":
		w.c.endCell()
	case "tr":
		return w.c.endRow()
	}
	return w.c.check()
}

// --- PPTX ---

// pptxText reads a PowerPoint presentation: each slide's paragraphs and table rows in the
// presentation's order, a title placeholder's as a heading.
func pptxText(ctx context.Context, data []byte) (*Document, error) {
	z, err := openZip(data)
	if err != nil {
		return nil, err
	}
	slides, err := pptxSlides(ctx, z)
	if err != nil {
		return nil, err
	}
	w := &pptxWalk{}
	w.c.doc.Pages = len(slides)
	for i, name := range slides {
		if err = ctx.Err(); err != nil {
			break
		}
		w.c.page, w.title = i+1, w.title[:0]
		if err = z.walkXML(ctx, name, w.token); err != nil {
			break
		}
	}
	doc, err := w.c.finish(err)
	if err != nil {
		return nil, err
	}
	props, err := properties(ctx, z, "docProps/core.xml", "title", "creator", "created")
	if err != nil {
		return nil, err
	}
	doc.Title, doc.Author, doc.Created = props["title"], props["creator"], parseTime(props["created"])
	return doc, nil
}

// pptxSlides returns the entries of the slides in the presentation's order: ppt/presentation.xml's
// list of slide ids through its relationships, or when that names none, ppt/slides/slideN.xml by N.
func pptxSlides(ctx context.Context, z *zipDoc) ([]string, error) {
	var ids []string
	err := z.walkXML(ctx, "ppt/presentation.xml", func(tok xml.Token, open []string) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "sldId" {
			for _, a := range t.Attr {
				if a.Name.Local == "id" && a.Name.Space != "" { // r:id; the bare id is a number
					ids = append(ids, a.Value)
				}
			}
		}
		return nil
	})
	missing := errors.Is(err, errMissing) // the slides' names are then the order there is
	if err != nil && !missing {
		return nil, err
	}
	targets := map[string]string{}
	err = z.walkXML(ctx, "ppt/_rels/presentation.xml.rels", func(tok xml.Token, open []string) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "Relationship" {
			targets[attr(t, "Id")] = partName("ppt", attr(t, "Target"))
		}
		return nil
	})
	if err != nil && !errors.Is(err, errMissing) {
		return nil, err
	}
	var slides []string
	for _, id := range ids {
		if name := targets[id]; name != "" && z.file(name) != nil {
			slides = append(slides, name)
		}
	}
	if len(slides) == 0 {
		slides = numbered(z, "ppt/slides/slide", ".xml")
	}
	if len(slides) == 0 && missing {
		return nil, fmt.Errorf("%w: no ppt/presentation.xml and no slides: not a PowerPoint presentation", ErrMalformed)
	}
	return slides, nil
}

// partName resolves an OPC relationship's target against the folder of the part it is from.
func partName(dir, target string) string {
	if strings.HasPrefix(target, "/") {
		return path.Clean(target[1:])
	}
	return path.Join(dir, target)
}

// numbered returns the zip's entries named prefix, a number, suffix, in the numbers' order.
func numbered(z *zipDoc, prefix, suffix string) []string {
	type entry struct {
		name string
		n    int
	}
	var found []entry
	for _, f := range z.r.File {
		num, ok := strings.CutPrefix(f.Name, prefix)
		num, ok2 := strings.CutSuffix(num, suffix)
		if n, err := strconv.Atoi(num); ok && ok2 && err == nil {
			found = append(found, entry{f.Name, n})
		}
	}
	slices.SortFunc(found, func(a, b entry) int { return a.n - b.n })
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = e.name
	}
	return names
}

// pptxWalk reads one slide.
type pptxWalk struct {
	c collector
	// title holds, for each open shape, whether it is the slide's title placeholder.
	title []bool
}

func (w *pptxWalk) token(tok xml.Token, open []string) error {
	switch t := tok.(type) {
	case xml.StartElement:
		switch t.Name.Local {
		case "Fallback":
			return errSkip
		case "sp":
			w.title = append(w.title, false)
		case "ph":
			if ty := attr(t, "type"); (ty == "title" || ty == "ctrTitle") && len(w.title) > 0 {
				w.title[len(w.title)-1] = true
			}
		case "br":
			w.c.write("\n")
		case "tr":
			w.c.startRow()
		}
	case xml.EndElement:
		return w.end(t.Name.Local)
	case xml.CharData:
		if parent(open) == "t" {
			w.c.write(string(t))
		}
	}
	return w.c.check()
}

func (w *pptxWalk) end(local string) error {
	switch local {
	case "sp":
		if n := len(w.title); n > 0 {
			w.title = w.title[:n-1]
		}
	case "p":
		h := 0
		if n := len(w.title); n > 0 && w.title[n-1] {
			h = 1
		}
		return w.c.endPara(h)
	case "tc":
		w.c.endCell()
	case "tr":
		return w.c.endRow()
	}
	return w.c.check()
}

// --- ODT, ODP ---
