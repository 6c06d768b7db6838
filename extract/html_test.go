package extract

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHTMLText checks a page's headings, blocks, white space (collapsed but in pre), lists left
// open, table rows (cells and rows left open, a table in a cell), what is hidden (head, script,
// style, noscript, template, an XHTML self-closed script), entities, bad UTF-8, and the title and
// author.
func TestHTMLText(t *testing.T) {
	tests := []struct {
		name, page string
		want       *Document
	}{
		{"page", `<!DOCTYPE html><html><head><title>Page  Title</title><meta charset="utf-8"><meta name="Author" content="Ann  Smith">` +
			`<style>p { color: red }</style><script>var x = "<p>no</p>";</script></head><body>` +
			"<h1>Main</h1><p>Hello   <b>bold</b>\n world &amp; more</p><ul><li>one<li>two</ul><blockquote>quoted</blockquote>" +
			"<pre>  code\n    indented</pre><noscript>enable js</noscript><template><p>tpl</p></template>" +
			"<div>div text<p>inner</p>tail</div><p>line<br>break</p><h7>not a heading</h7>", &Document{
			Title: "Page Title", Author: "Ann Smith",
			Parts: []Part{
				{Heading: 1, Text: "Main"}, {Text: "Hello bold world & more"}, {Text: "one"}, {Text: "two"}, {Text: "quoted"},
				{Text: "code\n    indented"}, {Text: "div text"}, {Text: "inner"}, {Text: "tail"}, {Text: "line\nbreak"}, {Text: "not a heading"},
			},
		}},
		{"headings", `<h1>1</h1><h2>2</h2><h3>3</h3><h4>4</h4><h5>5</h5><h6>6 <a href="#">link</a></h6>`, &Document{
			Parts: []Part{{Heading: 1, Text: "1"}, {Heading: 2, Text: "2"}, {Heading: 3, Text: "3"}, {Heading: 4, Text: "4"}, {Heading: 5, Text: "5"}, {Heading: 6, Text: "6 link"}},
		}},
		{"tables", `<table><thead><tr><th>h1</th><th>h2</th></tr></thead><tr><td>a<td>b<tr><td>c<td><p>d</p><p>e</p></td><td></td>` +
			`<tr><td>outer</td><td><table><tr><td>in1</td><td>in2</td></tr></table></td></tr></table><td>stray</td>`, &Document{
			Parts: []Part{{Text: "h1 | h2"}, {Text: "a | b"}, {Text: "c | d e"}, {Text: "outer | in1 | in2"}, {Text: "stray"}},
		}},
		{"no markup", "plain   text<p>para", &Document{Parts: []Part{{Text: "plain text"}, {Text: "para"}}}},
		{"xhtml", `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title><script src="a.js"/></head>` +
			`<body><p/><p>visible<br/>after</p><div/></body></html>`, &Document{Title: "X", Parts: []Part{{Text: "visible\nafter"}}}},
		{"bad utf-8", "<p>a\xffb</p>", &Document{Parts: []Part{{Text: "a\uFFFDb"}}}},
		{"svg title", `<title>Doc</title><body><svg><title>icon</title></svg><p>x</p>`, &Document{Title: "Doc", Parts: []Part{{Text: "x"}}}},
		{"empty", "", &Document{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Text(context.Background(), []byte(tt.page), "html")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, doc); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestHTMLLimits checks that a page nested 100,000 deep, or left open 100,000 times, is read in
// bounded memory, and that a page of more than MaxParts paragraphs is truncated at MaxParts; and
// a cancelled context.
func TestHTMLLimits(t *testing.T) {
	tests := []struct {
		name, page string
		parts      int
		truncated  bool
	}{
		{"deep", strings.Repeat("<div><span>", 100_000) + "bottom" + strings.Repeat("</span></div>", 100_000), 1, false},
		{"open", strings.Repeat("<b><i>", 100_000) + "text", 1, false},
		{"parts", strings.Repeat("<p>x", MaxParts+10), MaxParts, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			doc, err := HTMLText(context.Background(), []byte(tt.page))
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Parts) != tt.parts || doc.Truncated != tt.truncated {
				t.Errorf("%d parts, truncated %v; want %d, %v", len(doc.Parts), doc.Truncated, tt.parts, tt.truncated)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
				t.Errorf("allocated %d MB", alloc>>20)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := HTMLText(ctx, []byte("<p>x")); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// FuzzHTMLText checks that no page makes HTMLText fail, panic or exceed its limits. Run it with
// go test ./extract -run '^$' -fuzz FuzzHTMLText -fuzztime 20s.
func FuzzHTMLText(f *testing.F) {
	f.Add([]byte(`<html><head><title>t</title><meta name=author content=a></head><body><h2>h</h2><p>p<table><tr><td>a<td>b</table><pre> x </pre>`))
	f.Add([]byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><script/><p><![CDATA[c]]></p></body></html>`))
	f.Add([]byte("<td></tr></table><tr><th>x</h1></pre>\xff"))
	f.Fuzz(func(t *testing.T, page []byte) {
		doc, err := HTMLText(context.Background(), page)
		if err != nil {
			t.Fatal(err)
		}
		checkLimits(t, doc)
	})
}
