package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// zipOf returns a zip of entries, given as name, content pairs, deflated as Word and LibreOffice
// write them.
func zipOf(t testing.TB, entries ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for i := 0; i+1 < len(entries); i += 2 {
		f, err := w.Create(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(entries[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const (
	xmlHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	wNS     = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`
	coreXML = xmlHead + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		`<dc:title>Quarterly report</dc:title><dc:creator>Ada Lovelace</dc:creator><cp:lastModifiedBy>Bob</cp:lastModifiedBy>` +
		`<dcterms:created xsi:type="dcterms:W3CDTF">2024-03-05T10:20:30Z</dcterms:created></cp:coreProperties>`
)

// docxBody wraps body, word/document.xml's paragraphs and tables, as Word writes them.
func docxBody(body string) string {
	return xmlHead + `<w:document ` + wNS + `><w:body>` + body + `<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>`
}

// para is a Word paragraph of style (none if "") holding text in one run.
func para(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

// cell is a Word table cell of paragraphs texts.
func cell(texts ...string) string {
	s := `<w:tc><w:tcPr><w:tcW w:w="4675" w:type="dxa"/></w:tcPr>`
	for _, t := range texts {
		s += para("", t)
	}
	return s + `</w:tc>`
}

func docxOf(t testing.TB, body string) []byte {
	t.Helper()
	styles := xmlHead + `<w:styles ` + wNS + `>` +
		`<w:style w:type="paragraph" w:default="1" w:styleId="Standard"><w:name w:val="Normal"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/><w:basedOn w:val="Standard"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Custom"><w:name w:val="My Heading"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>` +
		`</w:styles>`
	return zipOf(t,
		"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>`,
		"word/document.xml", docxBody(body),
		"word/styles.xml", styles,
		"docProps/core.xml", coreXML)
}

// TestDOCX checks a Word document's paragraphs, headings by style id, by styles.xml's names and by
// outline level, runs, tabs and breaks, table rows (a table in a table too), what is not text
// (mc:Fallback's copy, deleted text, field codes, tab stops), and core.xml's properties.
func TestDOCX(t *testing.T) {
	body := para("Title", "Report") +
		para("berschrift2", "Zweite") +
		para("Heading1", "Intro") +
		para("Custom", "Outlined") +
		`<w:p><w:r><w:t xml:space="preserve">Hello </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>world</w:t></w:r>` +
		`<w:r><w:tab/><w:t>after tab</w:t><w:br/><w:t>line two</w:t></w:r></w:p>` +
		`<w:p/><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr></w:p>` +
		`<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>tab stops</w:t></w:r></w:p>` +
		`<w:tbl><w:tblPr/><w:tr>` + cell("a") + cell("b") + `</w:tr><w:tr>` + cell("c") + cell("d", "e") + `</w:tr>` +
		`<w:tr>` + cell("outer") + `<w:tc><w:tbl><w:tr>` + cell("in1") + cell("in2") + `</w:tr></w:tbl></w:tc></w:tr></w:tbl>` +
		`<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:t>boxed</w:t></mc:Choice><mc:Fallback><w:t>boxed</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
		`<w:p><w:del w:id="1"><w:r><w:delText>gone</w:delText></w:r></w:del><w:r><w:instrText>PAGE</w:instrText><w:t>kept</w:t></w:r></w:p>` +
		`<w:p><w:hyperlink r:id="rId9"><w:r><w:t>a link</w:t></w:r></w:hyperlink></w:p>`
	doc, err := Text(context.Background(), docxOf(t, body), "docx")
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{
		Title: "Quarterly report", Author: "Ada Lovelace", Created: time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC),
		Parts: []Part{
			{Heading: 1, Text: "Report"},
			{Heading: 2, Text: "Zweite"},
			{Heading: 1, Text: "Intro"},
			{Heading: 3, Text: "Outlined"},
			{Text: "Hello world\tafter tab\nline two"},
			{Text: "tab stops"},
			{Text: "a | b"},
			{Text: "c | d e"},
			{Text: "outer | in1 | in2"},
			{Text: "boxed"},
			{Text: "kept"},
			{Text: "a link"},
		},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("docx (-want +got):\n%s", diff)
	}
}

// TestDOCXWithoutStyles checks that a document without styles.xml or core.xml still has its
// built-in headings and text.
func TestDOCXWithoutStyles(t *testing.T) {
	data := zipOf(t, "word/document.xml", docxBody(para("Heading3", "Three")+para("berschrift2", "Unknown id")))
	doc, err := Text(context.Background(), data, "docx")
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{Parts: []Part{{Heading: 3, Text: "Three"}, {Text: "Unknown id"}}}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// noise returns n (at least 2) letters and spaces that deflate about as well as prose (2 to 3:1), so that a
// large test document is not refused as a zip bomb.
func noise(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyz      "[rand.IntN(32)]
	}
	b[0], b[n-1] = 'a', 'z' // nothing for a part's trimming to take
	return string(b)
}

// TestDOCXLimits checks that a document past MaxTextBytes or MaxParts yields its beginning, marked
// truncated, within the limit, and that a paragraph larger than the text budget stops it.
func TestDOCXLimits(t *testing.T) {
	kb := noise(1023)
	var numbered strings.Builder
	for i := range MaxParts + 5 {
		fmt.Fprintf(&numbered, `<w:p><w:r><w:t>%d</w:t></w:r></w:p>`, i)
	}
	var runs strings.Builder
	for range MaxTextBytes/1023 + 10 {
		runs.WriteString(`<w:r><w:t>` + noise(1023) + `</w:t></w:r>`)
	}
	tests := []struct {
		name      string
		body      string
		wantParts int
	}{
		{"text", strings.Repeat(para("", kb)+para("", noise(1023)), MaxTextBytes/2046+10), MaxTextBytes / 1023},
		{"parts", numbered.String(), MaxParts},
		{"one paragraph", para("", "small") + `<w:p>` + runs.String() + `</w:p>`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Text(context.Background(), docxOf(t, tt.body), "docx")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, p := range doc.Parts {
				n += len(p.Text)
			}
			if !doc.Truncated || len(doc.Parts) != tt.wantParts || n > MaxTextBytes {
				t.Errorf("truncated %v, %d parts of %d bytes; want truncated, %d parts", doc.Truncated, len(doc.Parts), n, tt.wantParts)
			}
		})
	}
}

const (
	pNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
)

// slide is a PowerPoint slide of a title placeholder of type titleType and body paragraphs.
func slide(titleType, title string, body ...string) string {
	s := xmlHead + `<p:sld ` + pNS + `><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` +
		`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr/><p:nvPr><p:ph type="` + titleType + `"/></p:nvPr></p:nvSpPr><p:spPr/>` +
		`<p:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US"/><a:t>` + title + `</a:t></a:r></a:p></p:txBody></p:sp>` +
		`<p:sp><p:nvSpPr><p:cNvPr id="3" name="Content 2"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>`
	for _, b := range body {
		s += `<a:p><a:r><a:t>` + b + `</a:t></a:r></a:p>`
	}
	return s + `</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`
}

func pptxOf(t testing.TB) []byte {
	t.Helper()
	table := strings.Replace(slide("title", "Numbers"), `</p:spTree>`,
		`<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr h="370840"><a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>q1</a:t></a:r></a:p></a:txBody></a:tc>`+
			`<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>10</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame></p:spTree>`, 1)
	return zipOf(t,
		"ppt/presentation.xml", xmlHead+`<p:presentation `+pNS+`><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>`+
			`<p:sldIdLst><p:sldId id="256" r:id="rId3"/><p:sldId id="257" r:id="rId2"/><p:sldId id="258" r:id="rId4"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels", xmlHead+`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideMaster" Target="slideMasters/slideMaster1.xml"/>`+
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/>`+
			`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide2.xml"/>`+
			`<Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="/ppt/slides/slide3.xml"/></Relationships>`,
		"ppt/slides/slide1.xml", slide("title", "Second", "point one", "point two"),
		"ppt/slides/slide2.xml", slide("ctrTitle", "Opening", "subtitle"),
		"ppt/slides/slide3.xml", table,
		"docProps/core.xml", coreXML)
}

// TestPPTX checks slides in the presentation's order (not the entries'), each paragraph a part on
// its slide, title placeholders as headings, a table's rows, the slide count and the properties;
// and without presentation.xml, slides in the order of their numbers.
func TestPPTX(t *testing.T) {
	doc, err := Text(context.Background(), pptxOf(t), "pptx")
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{
		Title: "Quarterly report", Author: "Ada Lovelace", Created: time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC), Pages: 3,
		Parts: []Part{
			{Page: 1, Heading: 1, Text: "Opening"},
			{Page: 1, Text: "subtitle"},
			{Page: 2, Heading: 1, Text: "Second"},
			{Page: 2, Text: "point one"},
			{Page: 2, Text: "point two"},
			{Page: 3, Heading: 1, Text: "Numbers"},
			{Page: 3, Text: "q1 | 10"},
		},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("pptx (-want +got):\n%s", diff)
	}
	text, marks := doc.Render("pptx")
	if !strings.HasPrefix(text, "[slide 1]\n\n# Opening\n\nsubtitle\n\n[slide 2]") || len(marks) != 3 {
		t.Errorf("rendered %q, marks %v", text, marks)
	}

	data := zipOf(t,
		"ppt/slides/slide10.xml", slide("title", "Ten"),
		"ppt/slides/slide2.xml", slide("title", "Two"),
		"ppt/slides/slide1.xml", slide("title", "One"),
		"ppt/slides/_rels/slide1.xml.rels", "<x/>")
	doc, err = Text(context.Background(), data, "pptx")
	if err != nil {
		t.Fatal(err)
	}
	want = &Document{Pages: 3, Parts: []Part{{Page: 1, Heading: 1, Text: "One"}, {Page: 2, Heading: 1, Text: "Two"}, {Page: 3, Heading: 1, Text: "Ten"}}}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("pptx by numbers (-want +got):\n%s", diff)
	}
}

const (
	odfNS   = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" office:version="1.3"`
	metaXML = xmlHead + `<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.3">` +
		`<office:meta><meta:initial-creator>Grace Hopper</meta:initial-creator><dc:creator>Someone Else</dc:creator><dc:title>ODF title</dc:title>` +
		`<meta:creation-date>2023-11-02T08:09:10.5</meta:creation-date></office:meta></office:document-meta>`
)

func odfOf(t testing.TB, mime, body string, extra ...string) []byte {
	t.Helper()
	content := xmlHead + `<office:document-content ` + odfNS + `><office:automatic-styles><style:style xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" style:name="P1"/></office:automatic-styles><office:body>` + body + `</office:body></office:document-content>`
	return zipOf(t, append([]string{"mimetype", mime, "content.xml", content, "meta.xml", metaXML}, extra...)...)
}

// TestODT checks an OpenDocument text's headings by outline level, spaces, tabs and line breaks,
// spans, lists, table rows, what is not text (footnotes, comments, deleted text), meta.xml's
// properties; an OpenDocument presentation's slides and titles; and that an encrypted one is
// refused.
func TestODT(t *testing.T) {
	text := `<office:text><text:sequence-decls/><text:tracked-changes><text:changed-region><text:deletion><text:p>deleted</text:p></text:deletion></text:changed-region></text:tracked-changes>` +
		`<text:h text:style-name="Heading_20_1" text:outline-level="1">Title here</text:h>` +
		`<text:p text:style-name="P1">Hello<text:s text:c="3"/>world<text:tab/>tab<text:line-break/>next <text:span text:style-name="T1">span</text:span>` + "\n  wrapped</text:p>" +
		`<text:p/><text:h text:outline-level="2">Sub</text:h>` +
		`<text:list><text:list-item><text:p>item one</text:p></text:list-item></text:list>` +
		`<table:table table:name="T"><table:table-column/><table:table-row><table:table-cell office:value-type="string"><text:p>a</text:p></table:table-cell>` +
		`<table:table-cell table:number-columns-spanned="2"><text:p>b</text:p></table:table-cell><table:covered-table-cell/></table:table-row></table:table>` +
		`<text:p>note<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>foot</text:p></text:note-body></text:note> end` +
		`<office:annotation><text:p>comment</text:p></office:annotation></text:p>` +
		`<text:h text:outline-level="12">Deep</text:h></office:text>`
	pres := `<office:presentation><draw:page draw:name="p1"><draw:frame presentation:class="title"><draw:text-box><text:p>First slide</text:p></draw:text-box></draw:frame>` +
		`<draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>bullet</text:p></text:list-item></text:list></draw:text-box></draw:frame>` +
		`<presentation:notes><draw:frame><draw:text-box><text:p>speaker notes</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>` +
		`<draw:page draw:name="p2"><draw:frame presentation:class="title"><draw:text-box><text:p>Second slide</text:p></draw:text-box></draw:frame></draw:page></office:presentation>`
	created := time.Date(2023, 11, 2, 8, 9, 10, 5e8, time.UTC)
	tests := []struct {
		name, ext string
		data      []byte
		want      *Document
	}{
		{"odt", "odt", odfOf(t, "application/vnd.oasis.opendocument.text", text), &Document{
			Title: "ODF title", Author: "Grace Hopper", Created: created,
			Parts: []Part{
				{Heading: 1, Text: "Title here"},
				{Text: "Hello   world\ttab\nnext span wrapped"},
				{Heading: 2, Text: "Sub"},
				{Text: "item one"},
				{Text: "a | b"},
				{Text: "note end"},
				{Heading: 6, Text: "Deep"},
			},
		}},
		{"odp", "odp", odfOf(t, "application/vnd.oasis.opendocument.presentation", pres), &Document{
			Title: "ODF title", Author: "Grace Hopper", Created: created, Pages: 2,
			Parts: []Part{
				{Page: 1, Heading: 1, Text: "First slide"},
				{Page: 1, Text: "bullet"},
				{Page: 2, Heading: 1, Text: "Second slide"},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Text(context.Background(), tt.data, tt.ext)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, doc); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// epubOf returns an EPUB whose spine reads chapter 2 before chapter 1; chapter 2's file name is
// percent-escaped in the manifest.
func epubOf(t testing.TB) []byte {
	t.Helper()
	chapter := func(title, body string) string {
		return xmlHead + `<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>` + title +
			`</title><link rel="stylesheet" href="style.css"/><script src="x.js"/></head><body>` + body + `</body></html>`
	}
	return zipOf(t,
		"mimetype", "application/epub+zip",
		"META-INF/container.xml", xmlHead+`<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"OEBPS/content.opf", xmlHead+`<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">`+
			`<dc:identifier id="id">urn:uuid:1</dc:identifier><dc:title>The Book</dc:title><dc:creator>Jane Doe</dc:creator><dc:creator>John Roe</dc:creator><dc:language>en</dc:language></metadata>`+
			`<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="css" href="style.css" media-type="text/css"/>`+
			`<item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/ch%202.xhtml#start" media-type="application/xhtml+xml"/>`+
			`<item id="gone" href="text/missing.xhtml" media-type="application/xhtml+xml"/></manifest>`+
			`<spine><itemref idref="c2"/><itemref idref="gone"/><itemref idref="c1"/><itemref idref="css"/></spine></package>`,
		"OEBPS/style.css", "p { color: red }",
		"OEBPS/text/ch1.xhtml", chapter("One", `<section epub:type="chapter"><h1>Chapter One</h1><p>It was a <em>dark</em> night.</p><table><tr><td>x</td><td>y</td></tr></table></section>`),
		"OEBPS/text/ch 2.xhtml", chapter("Two", `<h2 id="start">Prologue</h2><p>Before <![CDATA[all]]>.</p><p>Open`))
}

// TestEPUB checks chapters in spine order (a chapter the spine names but the zip lacks skipped, a
// stylesheet in the spine not read), each chapter's parts on its page, the chapter count, a
// chapter's unclosed paragraph kept to itself, and the package's title and creators.
func TestEPUB(t *testing.T) {
	doc, err := Text(context.Background(), epubOf(t), "epub")
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{
		Title: "The Book", Author: "Jane Doe, John Roe", Pages: 3,
		Parts: []Part{
			{Page: 1, Heading: 2, Text: "Prologue"},
			{Page: 1, Text: "Before all."},
			{Page: 1, Text: "Open"},
			{Page: 3, Heading: 1, Text: "Chapter One"},
			{Page: 3, Text: "It was a dark night."},
			{Page: 3, Text: "x | y"},
		},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("epub (-want +got):\n%s", diff)
	}
}

// TestOfficeRefusals checks what each format refuses and with which error: an OLE file (how
// Office stores a password-protected document), an encrypted ODF, bytes that are no zip, a zip
// without the format's main entry (named in the error), broken XML, a cut zip and a cancelled
// context.
func TestOfficeRefusals(t *testing.T) {
	ole := append(append([]byte{}, oleMagic...), make([]byte, 4096)...)
	random := []byte("PK\x03\x04 this is not really a zip file at all, just bytes \x00\x01\x02")
	noDoc := zipOf(t, "word/styles.xml", "<w:styles/>")
	cut := docxOf(t, para("", "text"))
	cut = cut[:len(cut)/2]
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name, ext string
		data      []byte
		ctx       context.Context
		want      error
		mentions  string
	}{
		{"ole docx", "docx", ole, nil, ErrEncrypted, "OLE"},
		{"ole pptx", "pptx", ole, nil, ErrEncrypted, "OLE"},
		{"encrypted odt", "odt", odfOf(t, "application/vnd.oasis.opendocument.text", "<office:text/>",
			"META-INF/manifest.xml", `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1"/></manifest:file-entry></manifest:manifest>`),
			nil, ErrEncrypted, "encryption"},
		{"random docx", "docx", random, nil, ErrMalformed, "zip"},
		{"random pptx", "pptx", random, nil, ErrMalformed, "zip"},
		{"random odt", "odt", random, nil, ErrMalformed, "zip"},
		{"random odp", "odp", random, nil, ErrMalformed, "zip"},
		{"random epub", "epub", random, nil, ErrMalformed, "zip"},
		{"no document.xml", "docx", noDoc, nil, ErrMalformed, "word/document.xml"},
		{"no content.xml", "odt", noDoc, nil, ErrMalformed, "content.xml"},
		{"no container.xml", "epub", noDoc, nil, ErrMalformed, "META-INF/container.xml"},
		{"no slides", "pptx", noDoc, nil, ErrMalformed, "presentation.xml"},
		{"no package", "epub", zipOf(t, "META-INF/container.xml", `<container><rootfiles><rootfile full-path="x.opf"/></rootfiles></container>`), nil, ErrMalformed, "x.opf"},
		{"broken xml", "docx", zipOf(t, "word/document.xml", `<w:document `+wNS+`><w:body><w:p></w:body>`), nil, ErrMalformed, "word/document.xml"},
		{"undeclared entity", "docx", zipOf(t, "word/document.xml", `<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d>&x;</d>`), nil, ErrMalformed, "word/document.xml"},
		{"cut zip", "docx", cut, nil, ErrMalformed, "zip"},
		{"cancelled", "docx", docxOf(t, para("", "text")), cancelled, context.Canceled, ""},
		{"cancelled epub", "epub", epubOf(t), cancelled, context.Canceled, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			doc, err := Text(ctx, tt.data, tt.ext)
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), tt.mentions) {
				t.Errorf("got %v, %v; want %v mentioning %q", doc, err, tt.want, tt.mentions)
			}
		})
	}
}

// BenchmarkDOCX measures the text of a DOCX of about 1 MB of text in 10,000 paragraphs.
func BenchmarkDOCX(b *testing.B) {
	var body strings.Builder
	for i := range 10_000 {
		if i%50 == 0 {
			body.WriteString(para("Heading2", fmt.Sprintf("Section %d", i/50)))
		}
		body.WriteString(`<w:p><w:r><w:t xml:space="preserve">` + strings.Repeat("lorem ipsum ", 5) + `</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>` + strings.Repeat("dolor sit ", 4) + `</w:t></w:r></w:p>`)
	}
	data := docxOf(b, body.String())
	doc, err := Text(context.Background(), data, "docx")
	if err != nil {
		b.Fatal(err)
	}
	text := 0
	for _, p := range doc.Parts {
		text += len(p.Text)
	}
	b.ReportAllocs()
	b.SetBytes(int64(text))
	for b.Loop() {
		doc, err := Text(context.Background(), data, "docx")
		if err != nil || len(doc.Parts) != 10_200 {
			b.Fatal(err, len(doc.Parts))
		}
	}
	b.ReportMetric(float64(text)/1e6, "MBtext") // after the loop, which resets metrics
	b.ReportMetric(float64(len(data))/1e6, "MBzip")
}
