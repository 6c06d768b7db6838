package semantic

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/markdown"
)

// parseDocument reads the document name, of extension ext (or a web page), and parses its text as the Markdown
// package extract renders it: its headings and its pages (slides, sheets, chapters) are the
// index's sections, so a hit's line says where in the document it is; its own title is its
// title. The document's bytes may be larger than MaxFileBytes, a bound on text; its text is
// bounded by extract's limits.
func (e *Engine) parseDocument(name, ext string) (markdown.Doc, error) {
	d, err := e.extractDocument(name, ext)
	var why *unreadable
	e.mu.Lock()
	if errors.As(err, &why) {
		e.unread[name] = why.err
	} else {
		delete(e.unread, name)
	}
	e.mu.Unlock()
	if ts, ok := e.store.(textStore); ok && why != nil {
		ts.drop(name) // the text of what it was before it changed
	}
	return d, err
}

// DocumentText is the text of the document name, of extension ext, whose bytes are data: from
// memory, from the store beside the index, or extracted now (and kept there if the index holds
// name: the store's files follow the index's documents, and a document it does not hold, in an
// ignored folder, would leave its text behind when it goes).
func (e *Engine) DocumentText(ctx context.Context, name, ext string, data []byte) (*extract.Extracted, error) {
	store := e.store
	if e.opts.Allow != nil && !e.opts.Allow(name, false) {
		store = nil
	}
	return extract.ReadStored(ctx, name, data, ext, store)
}

// unreadable is a document whose text could not be extracted, and why (package extract's error).
type unreadable struct{ err error }

func (u *unreadable) Error() string { return u.err.Error() }

// Is makes an unreadable document count as errNotText, as a file not indexed.
func (u *unreadable) Is(target error) bool { return target == errNotText }

// Unread is a document the index does not hold because its text could not be extracted.
type Unread struct {
	Path string
	Err  error // package extract's: ErrEncrypted, ErrMalformed, ErrTooLarge, a deadline
}

// Unread returns the documents at or below dir ("." for all) whose text could not be extracted,
// by path.
func (e *Engine) Unread(dir string) []Unread {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Unread
	for p, err := range e.unread {
		if fsroot.Within(p, dir) {
			out = append(out, Unread{p, err})
		}
	}
	slices.SortFunc(out, func(a, b Unread) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// extractDocument is parseDocument's read and extraction.
func (e *Engine) extractDocument(name, ext string) (markdown.Doc, error) {
	f, err := e.opts.FS.Open(name)
	if err != nil {
		return markdown.Doc{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return markdown.Doc{}, err
	}
	limit := int64(extract.MaxDocumentBytes)
	if ext == "html" || ext == "htm" {
		limit = e.opts.MaxFileBytes // a page is text: the bound of any text file
	}
	if !info.Mode().IsRegular() || info.Size() > limit {
		return markdown.Doc{}, errNotText
	}
	data, err := readSized(f, info.Size())
	if err != nil {
		return markdown.Doc{}, err
	}
	if e.opts.Refuse != nil && e.opts.Refuse(data) {
		return markdown.Doc{}, fs.ErrPermission // counted as unreadable
	}
	x, err := e.DocumentText(context.Background(), name, ext, data)
	if err != nil {
		return markdown.Doc{}, &unreadable{err}
	}
	d := markdown.ParseAsMarkdown(name, []byte(x.Text), info.ModTime())
	d.Sections = splitAtMarks(d.Sections, x.Text, x.Marks)
	if x.Doc.Title != "" {
		d.Title = x.Doc.Title
	}
	// A web page is searched by search_content as its source, markup and entities included,
	// which the index of its text cannot vouch for: a literal search reads it always.
	d.Frontmatter = ext == "html" || ext == "htm"
	return d, nil
}

// splitAtMarks cuts sections, of the rendered text, where a page, slide, sheet or chapter begins
// inside one: the part after the cut is a section headed by the place ("page 3").
func splitAtMarks(sections []markdown.Section, text string, marks []extract.Mark) []markdown.Section {
	if len(marks) == 0 {
		return sections
	}
	lines := strings.SplitAfter(text, "\n")
	join := func(from, to int) string { // lines from..to, 1-based, inclusive
		return strings.Join(lines[min(from, len(lines))-1:min(to, len(lines))], "")
	}
	var out []markdown.Section
	for _, sec := range sections {
		cur := sec
		for _, m := range marks {
			if m.Line <= cur.Line || m.Line > cur.EndLine {
				continue
			}
			head := cur
			head.EndLine = m.Line - 1
			head.Text = join(head.Line, head.EndLine)
			out = append(out, head)
			cur = markdown.Section{Heading: m.Place, Level: 0, Line: m.Line, EndLine: sec.EndLine}
		}
		if cur.Line != sec.Line {
			cur.Text = join(cur.Line, cur.EndLine)
		}
		out = append(out, cur)
	}
	return out
}
