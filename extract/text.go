package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Limits of a document's text.
const (
	// MaxDocumentBytes is the largest document whose text is extracted: documents are parsed whole
	// in memory (a zip's directory sits at its end), so this bounds one extraction's input.
	MaxDocumentBytes = 64 << 20
	// MaxTextBytes is the most text one document yields; past it the text stops at a part's end and
	// Document.Truncated says so. It is more than a model reads in one call: a read pages it.
	MaxTextBytes = 8 << 20
	// MaxParts is the most parts (paragraphs, rows, pages) one document yields.
	MaxParts = 200_000
)

// Errors of an extraction; each is wrapped with what was wrong.
var (
	// ErrEncrypted is a document that needs a password to be read.
	ErrEncrypted = errors.New("encrypted: a password is needed to read it")
	// ErrMalformed is a document that is not what its type says or is broken past repair.
	ErrMalformed = errors.New("malformed")
	// ErrTooLarge is a document, or a part of one, over the limits its text is extracted within:
	// zip bombs, XML nested past reason, more pages or cells than a reader takes.
	ErrTooLarge = errors.New("too large to extract")
)

// Document is the text of a document, in parts, in reading order, with where each part is.
type Document struct {
	Parts []Part
	// Title, Author and Created are the document's own properties, empty or zero when it has none.
	Title, Author string
	Created       time.Time
	// Pages counts the document's pages (PDF), slides (presentations), sheets (spreadsheets) or
	// chapters (EPUB); 0 for formats without them (DOCX, ODT).
	Pages int
	// Truncated says a limit (MaxTextBytes, MaxParts, a page cap) stopped the extraction: the
	// parts are the document's beginning.
	Truncated bool
}

// Part is one paragraph, heading, slide text, table row or page line of a document.
type Part struct {
	// Page is the 1-based page (PDF), slide (presentation) or chapter (EPUB) the part is on; 0
	// when the format has none.
	Page int
	// Sheet is the spreadsheet sheet the part is a row of; Row its 1-based row number.
	Sheet string
	Row   int
	// Heading is the heading level (1 to 6) of a heading, 0 for body text.
	Heading int
	// Text is the part's text on one line or several; a row's cells are joined by " | ".
	Text string
}

// Mark is where a place (a page, a slide, a sheet) begins in a document's rendered text.
type Mark struct {
	// Line is the 1-based line of the rendered text the place begins on.
	Line int
	// Place names it: "page 3", "slide 2", "sheet Totals", "chapter 4".
	Place string
	// N is its number: the page, slide or chapter number, or the sheet's place among the sheets
	// with text (1-based).
	N int
}

// extractor turns one document type's bytes into its text.
type extractor func(ctx context.Context, data []byte) (*Document, error)

// extractors holds the document types by extension, lower case, without the dot; each file of
// the package that reads a type adds it in an init.
var extractors = map[string]extractor{}

// pageWord names the places of each type in rendered text.
var pageWord = map[string]string{}

// Extracts reports whether Text reads documents of the extension ext (lower case, no dot).
func Extracts(ext string) bool {
	_, ok := extractors[strings.ToLower(ext)]
	return ok
}

// Text extracts the text of data, a document of extension ext (lower case, no dot), within the
// package's limits and ctx's deadline.
func Text(ctx context.Context, data []byte, ext string) (*Document, error) {
	ext = strings.ToLower(ext)
	x, ok := extractors[ext]
	if !ok {
		return nil, fmt.Errorf("no text extraction for .%s files", ext)
	}
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("%w: %d MB is more than the %d MB a document's text is read from", ErrTooLarge, len(data)>>20, MaxDocumentBytes>>20)
	}
	return x(ctx, data)
}

// Render gives d's text as a model reads it: headings as Markdown headings, each page, slide,
// sheet or chapter opened by a line that names it, parts apart by a blank line; and where each
// place begins.
func (d *Document) Render(ext string) (string, []Mark) {
	var b strings.Builder
	var marks []Mark
	line := 1
	word := pageWord[strings.ToLower(ext)]
	page, sheet, sheets := 0, "", 0
	write := func(s string) {
		b.WriteString(s)
		line += strings.Count(s, "\n")
	}
	for i, p := range d.Parts {
		place, n := "", 0
		switch {
		case p.Sheet != "" && p.Sheet != sheet:
			sheet, sheets = p.Sheet, sheets+1
			place, n = "sheet "+p.Sheet, sheets
		case p.Page != 0 && p.Page != page && word != "":
			page = p.Page
			place, n = fmt.Sprintf("%s %d", word, p.Page), p.Page
		}
		if i > 0 {
			if p.Row != 0 && place == "" {
				write("\n")
			} else {
				write("\n\n")
			}
		}
		if place != "" {
			marks = append(marks, Mark{Line: line, Place: place, N: n})
			write("[" + place + "]\n\n")
		}
		switch {
		case p.Heading > 0:
			write(strings.Repeat("#", min(p.Heading, 6)) + " " + p.Text)
		case p.Row != 0:
			write(fmt.Sprintf("%d: %s", p.Row, p.Text))
		default:
			write(p.Text)
		}
	}
	if len(d.Parts) > 0 {
		write("\n")
	}
	return b.String(), marks
}

// PlaceOf names the place line (1-based) of rendered text is in, "" before the first mark.
func PlaceOf(marks []Mark, line int) string {
	place := ""
	for _, m := range marks {
		if m.Line > line {
			break
		}
		place = m.Place
	}
	return place
}

// budget counts what an extraction has yielded against the package's limits.
type budget struct {
	bytes, parts int
}

// add reports whether a part of text fits, counting it if so.
func (b *budget) add(text string) bool {
	if b.parts+1 > MaxParts || b.bytes+len(text) > MaxTextBytes {
		return false
	}
	b.parts++
	b.bytes += len(text)
	return true
}
