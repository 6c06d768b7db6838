package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentsEndToEnd serves a folder with an invoice PDF and a Word letter through the built
// binary and checks what a model gets of them: the total from the PDF's text with its page, the
// new rent from the letter, and both found by each search, with the page.
func TestDocumentsEndToEnd(t *testing.T) {
	f := newFixture(t)
	invoice, err := os.ReadFile(filepath.Join("..", "..", "extract", "testdata", "pdf", "invoice.pdf"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(f.root, "invoice.pdf"), invoice, 0o644))
	must(t, os.WriteFile(filepath.Join(f.root, "letter.docx"), wordLetter(t, "From March the rent is 1,450 EUR a month."), 0o644))
	s := start(t, f, nil)

	res, _ := s.call(reader, access("read", "invoice.pdf"))
	if content, _ := res["content"].(string); res["document"] != true || res["pages"] != 3.0 || !strings.Contains(content, "[page 2]\n\n-2-\nTotal due: 1,284.50 EUR") {
		t.Errorf("read invoice.pdf: %v, want its text with its pages", res)
	}
	res, _ = s.call(reader, access("read", "letter.docx"))
	if content, _ := res["content"].(string); !strings.Contains(content, "1,450 EUR") {
		t.Errorf("read letter.docx: %v, want its text", res)
	}
	// hit reports whether res holds path, on place unless that is "".
	hit := func(res map[string]any, path, place string) bool {
		files, _ := res["files"].([]any)
		for _, f := range files {
			f, _ := f.(map[string]any)
			if f["path"] != path {
				continue
			}
			if f["place"] == place || place == "" {
				return true
			}
			matches, _ := f["matches"].([]any)
			for _, m := range matches {
				if m, _ := m.(map[string]any); m["place"] == place {
					return true
				}
			}
		}
		return false
	}
	res, _ = s.call(searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "1,284.50"}})
	if !hit(res, "invoice.pdf", "page 2") {
		t.Errorf("search_content 1,284.50: %v, want invoice.pdf on page 2", res)
	}
	res = eventually(t, s, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "total due"}},
		func(res map[string]any) bool { return hit(res, "invoice.pdf", "page 2") })
	if !hit(res, "invoice.pdf", "page 2") {
		t.Errorf("search_semantic total due: %v, want invoice.pdf on page 2", res)
	}
	res = eventually(t, s, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "rent in March"}},
		func(res map[string]any) bool { return hit(res, "letter.docx", "") })
	if !hit(res, "letter.docx", "") {
		t.Errorf("search_semantic rent in March: %v, want letter.docx", res)
	}
}

// wordLetter is a Word document of one paragraph.
func wordLetter(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	part, err := w.Create("word/document.xml")
	must(t, err)
	_, err = part.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:body></w:document>`))
	must(t, err)
	must(t, w.Close())
	return b.Bytes()
}
