package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// filler reads as an endless run of one byte.
type filler byte

func (f filler) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(f)
	}
	return len(p), nil
}

// deflated returns n zero bytes deflated, made as they stream: 300 MiB of zeros take about 300 KB.
func deflated(t testing.TB, n int64) []byte {
	t.Helper()
	return deflatedOf(t, "", n)
}

// deflatedOf returns head and then n spaces (n zero bytes when head is ""), deflated.
func deflatedOf(t testing.TB, head string, n int64) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	fill := filler(0)
	if head != "" {
		fill = ' '
	}
	io.WriteString(w, head)
	if _, err := io.CopyN(w, fill, n); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// rawZip returns a zip of one entry whose directory says what h says and whose data is raw, as
// it is: the sizes, checksum and flags are the test's to choose.
func rawZip(t testing.TB, h zip.FileHeader, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	if h.CompressedSize64 == 0 {
		h.CompressedSize64 = uint64(len(raw))
	}
	f, err := w.CreateRaw(&h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zeroBomb is a DOCX whose document.xml is 300 MiB of zeros, honestly declared: made once, as it
// takes a second.
var zeroBomb = sync.OnceValue(func() []byte {
	t := &testing.T{}
	return rawZip(t, zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, UncompressedSize64: 300 << 20}, deflated(t, 300<<20))
})

// nested is XML of an element opened n times inside itself, under root.
func nested(root string, n int) string {
	return `<?xml version="1.0"?><` + root + `>` + strings.Repeat("<a>", n) + strings.Repeat("</a>", n) + `</` + root + `>`
}

// TestZipBombs checks that every zip bomb is refused with the error its kind calls for, naming
// the entry, having allocated a bounded amount: a declared size over MaxEntryBytes, 300 MiB of
// deflated zeros, a ratio over MaxZipRatio, an entry that inflates past the size it declares,
// more than MaxZipEntries entries, XML nested past MaxXMLDepth in each format; and an encrypted
// entry, a failed checksum, an unknown compression method and an entry shorter than it says.
func TestZipBombs(t *testing.T) {
	small := []byte("<w:document/>")
	many := func() []byte {
		var b bytes.Buffer
		w := zip.NewWriter(&b)
		for i := range 20_000 {
			if _, err := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("e%d", i), Method: zip.Store}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		return b.Bytes()
	}()
	deep := nested("w:document", 100_000)
	tests := []struct {
		name, ext string
		data      []byte
		want      error
		mentions  string
	}{
		{"declares 2 GiB", "docx", rawZip(t, zip.FileHeader{Name: "word/document.xml", Method: zip.Store, UncompressedSize64: 2 << 30, CRC32: crc32.ChecksumIEEE(small)}, small), ErrTooLarge, "word/document.xml declares 2048 MB"},
		{"300 MiB of zeros", "docx", zeroBomb(), ErrTooLarge, "word/document.xml"},
		{"ratio", "docx", rawZip(t, zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, UncompressedSize64: 10 << 20}, deflated(t, 10<<20)), ErrTooLarge, "word/document.xml inflates more than 200 times"},
		{"lying size", "docx", rawZip(t, zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, UncompressedSize64: 1000}, deflatedOf(t, "<w:document>", 50<<20)), ErrTooLarge, "inflates past the 1000 bytes it declares"},
		{"lying size odt", "odt", rawZip(t, zip.FileHeader{Name: "content.xml", Method: zip.Deflate, UncompressedSize64: 1 << 20}, deflatedOf(t, "<office:document-content>", 50<<20)), ErrTooLarge, "content.xml"},
		{"20,000 entries", "docx", many, ErrTooLarge, "10000 entries"},
		{"deep docx", "docx", zipOf(t, "word/document.xml", deep), ErrTooLarge, "deeper than 256"},
		{"deep styles", "docx", zipOf(t, "word/document.xml", docxBody(""), "word/styles.xml", deep), ErrTooLarge, "word/styles.xml"},
		{"deep core", "docx", zipOf(t, "word/document.xml", docxBody(""), "docProps/core.xml", deep), ErrTooLarge, "docProps/core.xml"},
		{"deep odt", "odt", zipOf(t, "content.xml", deep), ErrTooLarge, "content.xml"},
		{"deep pptx", "pptx", zipOf(t, "ppt/slides/slide1.xml", deep), ErrTooLarge, "ppt/slides/slide1.xml"},
		{"deep epub", "epub", zipOf(t, "META-INF/container.xml", `<container><rootfiles><rootfile full-path="p.opf"/></rootfiles></container>`, "p.opf", deep), ErrTooLarge, "p.opf"},
		{"encrypted entry", "docx", rawZip(t, zip.FileHeader{Name: "word/document.xml", Method: zip.Store, Flags: 1, UncompressedSize64: uint64(len(small))}, small), ErrEncrypted, "word/document.xml"},
		{"checksum", "docx", rawZip(t, zip.FileHeader{Name: "word/document.xml", Method: zip.Store, UncompressedSize64: uint64(len(small)), CRC32: 1}, small), ErrMalformed, "checksum"},
		{"method", "docx", rawZip(t, zip.FileHeader{Name: "word/document.xml", Method: 12, UncompressedSize64: uint64(len(small))}, small), ErrMalformed, "method 12"},
		{"short", "docx", rawZip(t, zip.FileHeader{Name: "word/document.xml", Method: zip.Store, UncompressedSize64: 100, CompressedSize64: uint64(len(small))}, small), ErrMalformed, "ends after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			doc, err := Text(context.Background(), tt.data, tt.ext)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), tt.mentions) {
				t.Errorf("got %v, %v; want %v mentioning %q", doc, err, tt.want, tt.mentions)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
				t.Errorf("allocated %d MB", alloc>>20)
			}
		})
	}
}

// TestZipBudget checks that what a document's entries inflate to is counted across entries,
// whatever each declares, and that the entry that spends the budget is named.
func TestZipBudget(t *testing.T) {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, name := range []string{"one", "two"} {
		f, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		f.Write(make([]byte, 1<<20))
	}
	w.Close()
	z, err := openZip(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	z.left = 3 << 19 // 1.5 MiB
	if _, err := z.read("one"); err != nil {
		t.Fatalf("one: %v", err)
	}
	if _, err := z.read("two"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "two") {
		t.Errorf("two: %v, want %v naming it", err, ErrTooLarge)
	}
	if _, err := z.read("three"); !errors.Is(err, errMissing) {
		t.Errorf("three: %v, want %v", err, errMissing)
	}
}

// TestWalkXML checks what a walk hands its function: each token with the elements open at it, a
// skipped element's content and end left out, a stop ended at once, case-insensitive entry names.
func TestWalkXML(t *testing.T) {
	z, err := openZip(zipOf(t, "Doc.xml", `<r xmlns:x="urn:x"><x:a>1<skip><x:a>2</x:a></skip>3</x:a><stop/><after/></r>`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = z.walkXML(context.Background(), "doc.xml", func(tok xml.Token, open []string) error {
		switch t := tok.(type) {
		case xml.StartElement:
			got = append(got, "<"+strings.Join(open, "/"))
			switch t.Name.Local {
			case "skip":
				return errSkip
			case "stop":
				return errStop
			}
		case xml.EndElement:
			got = append(got, ">"+strings.Join(open, "/"))
		case xml.CharData:
			got = append(got, string(t)+"@"+strings.Join(open, "/"))
		}
		return nil
	})
	if err != errStop {
		t.Errorf("walk: %v, want errStop", err)
	}
	want := []string{"<r", "<r/a", "1@r/a", "<r/a/skip", "3@r/a", ">r/a", "<r/stop"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzZipText checks that no input makes an office extractor panic or exceed its limits. Run it
// with go test ./extract -run '^$' -fuzz FuzzZipText -fuzztime 20s.
func FuzzZipText(f *testing.F) {
	f.Add(docxOf(f, para("Heading1", "Title")+`<w:tbl><w:tr>`+cell("a")+cell("b")+`</w:tr></w:tbl>`))
	f.Add(pptxOf(f))
	f.Add(odfOf(f, "application/vnd.oasis.opendocument.text", `<office:text><text:h text:outline-level="2">H</text:h><text:p>p<text:s text:c="9"/></text:p></office:text>`))
	f.Add(epubOf(f))
	f.Add(zipOf(f, "word/document.xml", nested("w:document", 300)))
	f.Add(oleMagic)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ext := range []string{"docx", "pptx", "odt", "odp", "epub"} {
			doc, err := Text(context.Background(), data, ext)
			if err != nil {
				if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrEncrypted) {
					t.Errorf("%s: error %v wraps none of the package's", ext, err)
				}
				continue
			}
			checkLimits(t, doc)
		}
	})
}

// checkLimits fails t if doc is past the package's limits.
func checkLimits(t *testing.T, doc *Document) {
	t.Helper()
	n := 0
	for _, p := range doc.Parts {
		n += len(p.Text)
		if p.Text == "" || p.Heading < 0 || p.Heading > 6 {
			t.Errorf("part %+v", p)
		}
	}
	if n > MaxTextBytes || len(doc.Parts) > MaxParts {
		t.Errorf("%d parts of %d bytes", len(doc.Parts), n)
	}
}
