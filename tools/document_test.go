package tools

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/packfs/packfs-mcp/tools/errs"
)

// docx is a Word document holding paras, the first as a heading, with the title and author given.
func docx(t *testing.T, title, author string, paras ...string) string {
	t.Helper()
	var body strings.Builder
	for i, p := range paras {
		style := ""
		if i == 0 {
			style = `<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>`
		}
		body.WriteString(`<w:p>` + style + `<w:r><w:t>` + p + `</w:t></w:r></w:p>`)
	}
	return zipOf(t, map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"word/document.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
			`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`,
		"docProps/core.xml": `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
			`<dc:title>` + title + `</dc:title><dc:creator>` + author + `</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">2026-11-02T09:30:00Z</dcterms:created></cp:coreProperties>`,
	})
}

func zipOf(t *testing.T, files map[string]string) string {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for name, content := range files {
		f, err := w.Create(name)
		mustOK(t, err)
		_, err = f.Write([]byte(content))
		mustOK(t, err)
	}
	mustOK(t, w.Close())
	return b.String()
}

// xlsx is a workbook with a sheet Budget (a header, Rent 1200) and a sheet Notes.
func xlsx(t *testing.T) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	mustOK(t, f.SetSheetName("Sheet1", "Budget"))
	mustOK(t, f.SetSheetRow("Budget", "A1", &[]any{"Item", "Cost"}))
	mustOK(t, f.SetSheetRow("Budget", "A2", &[]any{"Rent", 1200}))
	_, err := f.NewSheet("Notes")
	mustOK(t, err)
	mustOK(t, f.SetCellValue("Notes", "A1", "landlord asked for the new rent"))
	var b bytes.Buffer
	mustOK(t, f.Write(&b))
	return b.String()
}

// scanPDF is a PDF of two pages: text on the first, only a drawing on the second, as a scan has
// only its image. It has no cross-reference table, which PDFium rebuilds.
const scanPDF = `%PDF-1.4
1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj
2 0 obj <</Type /Pages /Kids [3 0 R 5 0 R] /Count 2>> endobj
3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources <</Font <</F1 6 0 R>>>> /Contents 4 0 R>> endobj
4 0 obj <</Length 44>> stream
BT /F1 12 Tf 10 50 Td (Scanned letter) Tj ET
endstream endobj
5 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 7 0 R>> endobj
6 0 obj <</Type /Font /Subtype /Type1 /BaseFont /Helvetica>> endobj
7 0 obj <</Length 26>> stream
0 0 1 rg 20 20 100 50 re f
endstream endobj
trailer <</Root 1 0 R>>
%%EOF
`

// TestDocuments reads, describes and searches documents as their text, and refuses to write text
// over them: a model that read a .docx as text must not write that text back.
func TestDocuments(t *testing.T) {
	letter := docx(t, "Rent review", "Ada Landlord", "Notice of rent", "From March the rent is 1,450 EUR a month.", "Kind regards")
	invoice, err := os.ReadFile(filepath.Join("..", "extract", "testdata", "pdf", "invoice.pdf"))
	mustOK(t, err)
	tree := []string{
		"invoice.pdf=" + string(invoice),
		"scan.pdf=" + scanPDF,
		"letter.docx=" + letter,
		"budget.xlsx=" + xlsx(t),
		"broken.docx=PK\x03\x04 not a zip at all",
		"locked.docx=\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + strings.Repeat("\x00", 600),
		"notes.md=the rent is due\n",
		"trip.html=<html><head><title>Trip</title><style>p{color:red}</style></head><body>\n<h1>Ferry</h1>\n<p class=\"x\">We booked the ferry &amp; the hotel</p>\n</body></html>\n",
	}
	read := func(p string, prefs map[string]any) map[string]any {
		return map[string]any{"purpose": "read", "target": map[string]any{"path": p}, "preferences": prefs}
	}
	write := func(purpose, p string, extra map[string]any) map[string]any {
		args := map[string]any{"purpose": purpose, "target": map[string]any{"path": p}}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	search := func(purpose, query string) map[string]any {
		return map[string]any{"purpose": purpose, "target": map[string]any{"path": ".", "query": query}}
	}
	tests := []struct {
		name, tool string
		args       map[string]any
		code       string   // "" for success
		has        []string // in the answer's JSON
		unchanged  string   // a file the call must leave as it was
		noIndex    bool     // serve without the index: search_content walks every file
		maxFile    int64    // the server's file size limit, when not the default
	}{
		{name: "read docx", tool: ReaderName, args: read("letter.docx", nil),
			has: []string{`"document":true`, `# Notice of rent`, `1,450 EUR`, `"title":"Rent review"`, `"author":"Ada Landlord"`, `"created":"2026-11-02T09:30:00Z"`}},
		{name: "read pdf", tool: ReaderName, args: read("invoice.pdf", nil),
			has: []string{`[page 2]\n\n-2-\nTotal due: 1,284.50 EUR`, `"pages":3`, `"title":"Invoice 2026-117"`}},
		{name: "read pdf from page 3", tool: ReaderName, args: read("invoice.pdf", map[string]any{"page": 3}),
			has: []string{`"content":"[page 3]\n\n-3-\nPayment is expected within thirty days of receipt.\n"`}},
		{name: "a page without text comes as an image", tool: ReaderName, args: read("scan.pdf", map[string]any{"page": 2}),
			has: []string{`"imageSent":"page 2 has no text (a scan): sent as a 1516x758 JPEG image`, `"pages":2`}},
		{name: "a page with text comes as text", tool: ReaderName, args: read("scan.pdf", map[string]any{"page": 1}),
			has: []string{`Scanned letter`}},
		{name: "search_content says the page", tool: SearcherName, args: search("search_content", "total due"),
			has: []string{`"path":"invoice.pdf"`, `"place":"page 2"`}},
		{name: "search_semantic says the page", tool: SearcherName, args: search("search_semantic", "total due"),
			has: []string{`"path":"invoice.pdf"`, `"place":"page 2"`}},
		{name: "read docx lines", tool: ReaderName, args: read("letter.docx", map[string]any{"offset": 2, "limit": 1}),
			has: []string{`"content":"From March the rent is 1,450 EUR a month.\n"`, `"nextOffset":3`}},
		{name: "metadata docx", tool: ReaderName, args: map[string]any{"purpose": "metadata", "target": map[string]any{"path": "letter.docx"}},
			has: []string{`"title":"Rent review"`, `"lines":5`, `"sizeBytes"`}},
		{name: "read xlsx", tool: ReaderName, args: read("budget.xlsx", nil),
			has: []string{`[sheet Budget]`, `2: Rent | 1200`, `[sheet Notes]`, `"pages":2`}},
		{name: "read xlsx from its second sheet", tool: ReaderName, args: read("budget.xlsx", map[string]any{"page": 2}),
			has: []string{`"content":"[sheet Notes]\n\n1: landlord asked for the new rent\n"`}},
		{name: "page past the last", tool: ReaderName, args: read("budget.xlsx", map[string]any{"page": 3}), code: errs.CodeInvalidArgument,
			has: []string{`preferences.page`}},
		{name: "page of a text file", tool: ReaderName, args: read("notes.md", map[string]any{"page": 1}), code: errs.CodeInvalidArgument},
		{name: "read base64 is the bytes", tool: ReaderName, args: map[string]any{"purpose": "read", "target": map[string]any{"path": "letter.docx", "encoding": "base64"}},
			has: []string{`"encoding":"base64"`}},
		{name: "malformed", tool: ReaderName, args: read("broken.docx", nil), code: errs.CodeMalformed},
		{name: "encrypted", tool: ReaderName, args: read("locked.docx", nil), code: errs.CodeEncrypted, has: []string{"password"}},
		{name: "metadata of an encrypted document", tool: ReaderName, args: map[string]any{"purpose": "metadata", "target": map[string]any{"path": "locked.docx"}},
			has: []string{`"sizeBytes":608`, `"textCut":"ENCRYPTED: \"locked.docx\" is a DOCX that needs a password`}},
		{name: "search_content finds the rent in the letter", tool: SearcherName, args: search("search_content", "1,450"),
			has: []string{`"path":"letter.docx"`, `From March the rent`}},
		{name: "search_content names the documents it could not read", tool: SearcherName, args: search("search_content", "nothing like this"), noIndex: true,
			has: []string{`"hidden":{"other":2}`, `broken.docx (its text cannot be read: MALFORMED)`, `locked.docx (its text cannot be read: ENCRYPTED)`}},
		{name: "search_content names a document past the size limit", tool: SearcherName, args: search("search_content", "total due"), noIndex: true, maxFile: 10_000,
			has: []string{`invoice.pdf (its text cannot be read: TOO_LARGE)`}},
		{name: "search_content through the index names them too", tool: SearcherName, args: search("search_content", "nothing like this"),
			has: []string{`"hidden":{"other":2}`, `broken.docx (its text cannot be read: MALFORMED)`, `locked.docx (its text cannot be read: ENCRYPTED)`}},
		{name: "search_content finds a cell", tool: SearcherName, args: search("search_content", "landlord asked"),
			has: []string{`"path":"budget.xlsx"`, `"place":"sheet Notes"`}},
		{name: "search_semantic finds the letter by its words", tool: SearcherName, args: search("search_semantic", "notice of rent 1,450"),
			has: []string{`"path":"letter.docx"`}},
		{name: "search_semantic names the sheet", tool: SearcherName, args: search("search_semantic", "landlord asked"),
			has: []string{`"path":"budget.xlsx"`, `"place":"sheet Notes"`}},
		{name: "search_semantic finds a web page by its text, not its markup", tool: SearcherName, args: search("search_semantic", "booked ferry hotel"),
			has: []string{`{"heading":"Ferry","path":"trip.html","score":1,"snippet":"# **Ferry** We **booked** the **ferry** \u0026 the **hotel**","title":"Trip"}`}}, // no line: the page's text has other lines than its source
		{name: "search_content reads a web page as it is", tool: SearcherName, args: search("search_content", "&amp; the hotel"),
			has: []string{`"path":"trip.html"`, `"line":3`}},
		{name: "a web page as Markdown", tool: ReaderName, args: map[string]any{"purpose": "read", "target": map[string]any{"path": "trip.html", "encoding": "markdown"}},
			has: []string{`"content":"# Ferry\n\nWe booked the ferry \u0026 the hotel\n"`, `"encoding":"markdown"`}},
		{name: "Markdown of what is not a web page", tool: ReaderName, args: map[string]any{"purpose": "read", "target": map[string]any{"path": "notes.md", "encoding": "markdown"}},
			code: errs.CodeInvalidArgument, has: []string{`"field":"target.encoding"`}},
		{name: "read of a web page is its source", tool: ReaderName, args: read("trip.html", nil),
			has: []string{`\u003cp class=\"x\"\u003eWe booked`}},
		{name: "search_content through the index names what criteria left out", tool: SearcherName,
			args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "rent", "criteria": map[string]any{"extension": []string{"md", "pdf", "html"}}}},
			has:  []string{`"excludedFiles":["budget.xlsx","letter.docx"]`, `"filesExcluded":2`}},
		{name: "update refused", tool: WriterName, args: write("update", "letter.docx", map[string]any{"content": "new rent\n"}), code: errs.CodeNotText, unchanged: "letter.docx"},
		{name: "append refused", tool: WriterName, args: write("append", "letter.docx", map[string]any{"content": "more\n"}), code: errs.CodeNotText, unchanged: "letter.docx"},
		{name: "edit refused", tool: WriterName, args: write("edit", "letter.docx", map[string]any{"edits": []any{map[string]any{"oldText": "1,450", "newText": "1,500"}}}), code: errs.CodeNotText, unchanged: "letter.docx"},
		{name: "edit of a document among others refused", tool: WriterName, args: write("edit", "notes.md", map[string]any{"edits": []any{map[string]any{"oldText": "due", "newText": "late"}, map[string]any{"path": "letter.docx", "oldText": "1,450", "newText": "1,500"}}}), code: errs.CodeNotText, unchanged: "notes.md"},
		{name: "create refused", tool: WriterName, args: write("create", "new.docx", map[string]any{"content": "text\n"}), code: errs.CodeNotText},
		{name: "copy works", tool: WriterName, args: write("copy", "letter.docx", map[string]any{"target": map[string]any{"path": "letter.docx", "destination": "copy.docx"}}),
			has: []string{`"success":true`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: tree, engine: !tt.noIndex})
			if tt.maxFile > 0 {
				e.srv.cfg.MaxFileSize = tt.maxFile
			}
			before := map[string]string{}
			for _, f := range tree {
				name, content, _ := strings.Cut(f, "=")
				before[name] = content
			}
			out := e.call(t, tt.tool, tt.args)
			js := out.json()
			if tt.code != "" && out.Result["code"] != tt.code || tt.code == "" && out.Result["success"] != true {
				t.Fatalf("answer %s, want code %q", js, tt.code)
			}
			for _, h := range tt.has {
				if !strings.Contains(js, strings.ReplaceAll(h, "\n", `\n`)) {
					t.Errorf("answer lacks %s: %s", h, js)
				}
			}
			if tt.unchanged != "" && out.Tree[tt.unchanged] != before[tt.unchanged] {
				t.Errorf("%s changed", tt.unchanged)
			}
		})
	}
}
