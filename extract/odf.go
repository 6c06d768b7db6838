package extract

import (
	"context"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// odfText reads an OpenDocument text or presentation: content.xml's headings, paragraphs and
// table rows (for a presentation, each draw:page a slide), and meta.xml's title, author and
// creation date.
func odfText(ctx context.Context, data []byte) (*Document, error) {
	z, err := openZip(data)
	if err != nil {
		return nil, err
	}
	if err := odfEncrypted(z); err != nil {
		return nil, err
	}
	w := &odfWalk{}
	err = z.walkXML(ctx, "content.xml", w.token)
	doc, err := w.c.finish(require(err, "an OpenDocument file"))
	if err != nil {
		return nil, err
	}
	doc.Pages = w.pages
	props, err := properties(ctx, z, "meta.xml", "title", "initial-creator", "creator", "creation-date")
	if err != nil {
		return nil, err
	}
	doc.Title, doc.Author, doc.Created = props["title"], props["initial-creator"], parseTime(props["creation-date"])
	if doc.Author == "" {
		doc.Author = props["creator"]
	}
	return doc, nil
}

// odfEncrypted returns [ErrEncrypted] for a password-protected OpenDocument file: its entries are
// stored plainly as far as the zip says, and the manifest holds what decrypts them.
func odfEncrypted(z *zipDoc) error {
	if z.file("META-INF/manifest.xml") == nil {
		return nil
	}
	m, err := z.read("META-INF/manifest.xml")
	if err != nil {
		return err
	}
	if strings.Contains(string(m), "encryption-data") {
		return fmt.Errorf("%w: its manifest holds encryption data", ErrEncrypted)
	}
	return nil
}

// odfWalk reads content.xml.
type odfWalk struct {
	c collector
	// heading holds the heading level of each open paragraph or heading.
	heading []int
	// title holds, for each open frame, whether it is a slide's title.
	title []bool
	pages int
}

func (w *odfWalk) token(tok xml.Token, open []string) error {
	switch t := tok.(type) {
	case xml.StartElement:
		return w.start(t)
	case xml.EndElement:
		return w.end(t.Name.Local)
	case xml.CharData:
		if len(w.heading) > 0 {
			w.c.write(collapse(string(t)))
		}
	}
	return w.c.check()
}

// collapse turns each run of XML white space in s into one space, as ODF reads it.
func collapse(s string) string {
	if !strings.ContainsAny(s, " \t\r\n") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

func (w *odfWalk) start(t xml.StartElement) error {
	switch t.Name.Local {
	case "annotation", "note", "notes", "tracked-changes", "covered-table-cell":
		return errSkip // comments, footnotes, speaker notes, deleted text, merged cells
	case "h":
		n, err := strconv.Atoi(attr(t, "outline-level"))
		if err != nil || n < 1 {
			n = 1
		}
		w.heading = append(w.heading, min(n, 6))
	case "p":
		h := 0
		if n := len(w.title); n > 0 && w.title[n-1] {
			h = 1
		}
		w.heading = append(w.heading, h)
	case "s":
		n, err := strconv.Atoi(attr(t, "c"))
		if err != nil || n < 1 {
			n = 1
		}
		w.c.write(strings.Repeat(" ", min(n, maxSpaces)))
	case "tab":
		w.c.write("\t")
	case "line-break":
		w.c.write("\n")
	case "table-row":
		w.c.startRow()
	case "page":
		w.pages++
		w.c.page = w.pages
	case "frame":
		w.title = append(w.title, attr(t, "class") == "title")
	}
	return w.c.check()
}

func (w *odfWalk) end(local string) error {
	switch local {
	case "h", "p":
		h := 0
		if n := len(w.heading); n > 0 {
			h, w.heading = w.heading[n-1], w.heading[:n-1]
		}
		return w.c.endPara(h)
	case "table-cell":
		w.c.endCell()
	case "table-row":
		return w.c.endRow()
	case "frame":
		if n := len(w.title); n > 0 {
			w.title = w.title[:n-1]
		}
	}
	return w.c.check()
}

// --- EPUB ---
