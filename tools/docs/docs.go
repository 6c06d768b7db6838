// Package docs is how the tools read documents (PDF, Word, PowerPoint, Excel, OpenDocument, EPUB)
// and web pages: which files they read as a document's text, that text windowed as a read of text
// is, a document's properties, what a search reads of a file, and why a document could not be read,
// in the answer's codes.
package docs

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

// Reader reads documents for the tools, from the bytes they read through what they judged.
type Reader struct {
	Policy *security.Policy
	// Engine keeps a document's text on disk, beside the index, across restarts; nil extracts it
	// again at each read.
	Engine      *semantic.Engine
	MaxFileSize int64
	Show        func(name string) string // a root-relative path as the caller names it
}

// Ext is the extension (lower case, no dot) of name when the tools read it as a document's text
// ([security.OpensDocument]), else "". The extension is looked at before the policy: every file a
// search reads, and every file the index reads, asks, and most are of no document type.
func Ext(p *security.Policy, name string) string {
	if ext := lowerExt(name); extract.Extracts(ext) && !isHTMLExt(ext) && p.Opens(name) == security.OpensDocument {
		return ext
	}
	return ""
}

// lowerExt is name's extension, lower case, without the dot.
func lowerExt(name string) string { return strings.ToLower(strings.TrimPrefix(path.Ext(name), ".")) }

// IsHTML reports whether name is a web page the tools read and edit as its source, and the index
// holds as its text.
func IsHTML(p *security.Policy, name string) bool {
	return isHTMLExt(lowerExt(name)) && p.Opens(name) == security.OpensText
}

func isHTMLExt(ext string) bool { return ext == "html" || ext == "htm" }

// IndexText gives the search index what it holds as extracted text under p: the extension (lower
// case, no dot) of a document (its text, as reads give it) or of a web page (its text, not its
// markup, which a read and search_content still give as it is), else "". It asks the policy once,
// and only of a name of such a type.
func IndexText(p *security.Policy) func(name string) string {
	return func(name string) string {
		ext := lowerExt(name)
		if !extract.Extracts(ext) {
			return ""
		}
		switch p.Opens(name) {
		case security.OpensDocument:
			return ext
		case security.OpensText:
			if isHTMLExt(ext) {
				return ext
			}
		}
		return ""
	}
}

// text is the text of name, a document of extension ext whose bytes are data.
func (r Reader) text(ctx context.Context, name, ext string, data []byte) (*extract.Extracted, error) {
	var x *extract.Extracted
	var err error
	if e := r.Engine; e != nil { // which keeps it on disk, beside the index, across restarts
		x, err = e.DocumentText(ctx, name, ext, data)
	} else {
		x, err = extract.Read(ctx, data, ext)
	}
	if err != nil {
		return nil, extractError(r.Show(name), ext, err)
	}
	return x, nil
}

// UnreadCode is the answer's code for err, why the text of name, a document, could not be read
// (as the index met it), or "" when err says the read was cancelled rather than why.
func UnreadCode(name string, err error) string {
	var ce *errs.Error
	if errors.As(extractError(name, lowerExt(name), err), &ce) {
		return ce.Code
	}
	return ""
}

// extractError turns an extraction's failure into the answer's code and what to do next.
func extractError(shown, ext string, err error) error {
	kind := strings.ToUpper(ext)
	switch {
	case errors.Is(err, extract.ErrEncrypted):
		return errs.New(errs.CodeEncrypted, "%q is a %s that needs a password to open: its text cannot be read here; ask the user for an unprotected copy", shown, kind)
	case errors.Is(err, extract.ErrTooLarge):
		return errs.New(errs.CodeTooLarge, "%q: its text is not read: %v; open it in its own application, or read its bytes with target.encoding base64", shown, err)
	case errors.Is(err, context.DeadlineExceeded):
		return errs.New(errs.CodeTimeout, "%q: reading its text took longer than %s, so it was stopped: the document is too large or too complex to read here", shown, extract.Timeout)
	case errors.Is(err, context.Canceled):
		return err
	}
	return errs.New(errs.CodeMalformed, "%q is not a %s this server can read (%v): open it in its own application, or read its bytes with target.encoding base64", shown, kind, err)
}

// Read answers a read of name, a document of extension ext: its text, windowed by lines as a text
// file's read is (preferences.page starts at a page, slide, sheet or chapter), with the document's
// properties.
func (r Reader) Read(ctx context.Context, name, ext string, data []byte, p intents.AccessPreferences, budget int, first bool, out *result.FileContent) error {
	x, err := r.text(ctx, name, ext, data)
	if err != nil {
		return err
	}
	if p.Page > 0 {
		line, ok := pageLine(x.Marks, p.Page)
		if !ok && ext == "pdf" && p.Page <= x.Doc.Pages {
			return r.pageImage(ctx, name, data, p.Page, x, out)
		}
		if !ok {
			return &errs.Error{Code: errs.CodeInvalidArgument, Field: "preferences.page", Msg: pageRange(x, p.Page)}
		}
		p.Offset = line - 1 + p.Offset
	}
	text.Window(out, []byte(x.Text), p, budget, first)
	out.Encoding = "utf-8"
	describeDocument(out, x)
	return nil
}

// pageImage answers a read of page n of the PDF name, a page without text (a scan), with the page
// as an image the model can look at.
func (r Reader) pageImage(ctx context.Context, name string, data []byte, n int, x *extract.Extracted, out *result.FileContent) error {
	img, err := extract.PDFPageImage(ctx, data, n)
	if err != nil {
		return extractError(r.Show(name), "pdf", err)
	}
	describeDocument(out, x)
	out.Image = &img
	out.WidthPx, out.HeightPx = img.Width, img.Height
	out.ImageSent = fmt.Sprintf("page %d has no text (a scan): sent as a %dx%d JPEG image, %s", n, img.SentWidth, img.SentHeight, text.Size(int64(len(img.Data))))
	return nil
}

// pageLine is the line page (slide, chapter; the n-th sheet) n of a document begins on.
func pageLine(marks []extract.Mark, n int) (int, bool) {
	for _, m := range marks {
		if m.N == n {
			return m.Line, true
		}
	}
	return 0, false
}

// pageRange says why preferences.page n is not in the document x.
func pageRange(x *extract.Extracted, n int) string {
	if len(x.Marks) == 0 {
		return "preferences.page: this document has no pages, slides, sheets or chapters with text: read it with preferences.offset"
	}
	word := strings.Fields(x.Marks[0].Place)[0]
	if n <= x.Doc.Pages {
		return fmt.Sprintf("preferences.page: %s %d has no text (a scanned page holds only an image): read on from another", word, n)
	}
	return fmt.Sprintf("preferences.page: %d is past the document's last %s (%d)", n, word, max(x.Doc.Pages, x.Marks[len(x.Marks)-1].N))
}

// describeDocument gives out the properties of the document x.
func describeDocument(out *result.FileContent, x *extract.Extracted) {
	out.Document = true
	if x.Doc.Pages > 0 {
		out.Pages = ptr(x.Doc.Pages)
	}
	out.Title, out.Author = x.Doc.Title, x.Doc.Author
	if !x.Doc.Created.IsZero() {
		out.Created = x.Doc.Created.UTC().Format(time.RFC3339)
	}
	if x.Doc.Truncated {
		out.TextCut = "the text stops early: the document holds more than the " + text.Size(extract.MaxTextBytes) + " or pages the server extracts"
	}
}

// WritesText refuses a write of text to name when the tools read it as a document, an image or
// another binary type: a model that read a .docx as text must not write that text over it.
func (r Reader) WritesText(name string) error {
	switch r.Policy.Opens(name) {
	case security.OpensDocument, security.OpensImage, security.OpensBinary:
		return errs.New(errs.CodeNotText, "%q is a %s file, not text: reads give its text or image, but writing text into it would break it; move, copy or delete it, or write the text to a .md or .txt file", r.Show(name), strings.ToUpper(strings.TrimPrefix(path.Ext(name), ".")))
	}
	return nil
}

// Metadata gives out, the metadata of name, a document of extension ext that e reached, what its
// text says of it: its pages, properties and lines of text.
func (r Reader) Metadata(ctx context.Context, name, ext string, e *fsroot.Entry, out *result.FileContent) error {
	data, _, err := e.ReadFile(ctx, min(r.MaxFileSize, extract.MaxDocumentBytes))
	if err != nil {
		return err
	}
	out.Version = fsroot.Version(data)
	out.MediaType = text.MediaType(name, data, false)
	x, err := r.text(ctx, name, ext, data)
	var ce *errs.Error
	if errors.As(err, &ce) { // the file is there all the same: say why its text is not
		out.Document, out.TextCut = true, ce.Code+": "+ce.Msg
		return nil
	}
	if err != nil {
		return err
	}
	describeDocument(out, x)
	out.Lines = ptr(strings.Count(x.Text, "\n"))
	return nil
}

// Searchable is the text a search reads of name, whose read gave data and err: a text file's
// content, a document's extracted text with where its pages begin; ok is false for what is not
// searched (unreadable, binary), and unread says why a document's text could not be read.
func (r Reader) Searchable(ctx context.Context, name string, data []byte, err error) (body string, marks []extract.Mark, ok bool, unread string) {
	ext := Ext(r.Policy, name)
	if err != nil {
		if ext != "" && errors.Is(err, fsroot.ErrTooLarge) {
			return "", nil, false, errs.CodeTooLarge // a document past --max-file-size: not searched, and said so
		}
		return "", nil, false, ""
	}
	if ext != "" {
		x, err := r.text(ctx, name, ext, data)
		if err != nil {
			return "", nil, false, errs.Status(err, name, r.Show).Code
		}
		return x.Text, x.Marks, true, ""
	}
	if !markdown.IsText(data) {
		return "", nil, false, ""
	}
	return string(data), nil, true, ""
}

// Markdown answers a read of name, whose bytes are data, with target.encoding markdown: a web page
// as Markdown, windowed by lines as text is; its version is the page's own, for writes.
func (r Reader) Markdown(ctx context.Context, name string, data []byte, p intents.AccessPreferences, budget int, first bool, out *result.FileContent) error {
	if !IsHTML(r.Policy, name) {
		return &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.encoding", Msg: fmt.Sprintf(
			"target.encoding markdown reads a web page (.html, .htm) as Markdown, and %q is not one: leave target.encoding out", r.Show(name))}
	}
	md, err := extract.HTMLMarkdown(ctx, data)
	if err != nil {
		return extractError(r.Show(name), "html", err)
	}
	text.Window(out, []byte(md), p, budget, first)
	out.Encoding = "markdown"
	return nil
}

func ptr[T any](v T) *T { return &v }
