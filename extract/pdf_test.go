package extract

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// pdfBound is how long a hostile PDF may take to be refused: it comes back in 2 s here, and CI
// is a loaded 2-core machine under the race detector. Without the memory cap and the page cap
// these take minutes or fill the machine's memory.
const pdfBound = 60 * time.Second

// pdfFixture reads a PDF of testdata/pdf (made by make.py and groff, see there).
func pdfFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "pdf", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// invoiceWant is what invoice.pdf, three pages from groff, holds.
var invoiceWant = &Document{
	Title:   "Invoice 2026-117",
	Author:  "Ada Lovelace",
	Created: time.Date(2026, 12, 7, 1, 16, 6, 0, time.UTC),
	Pages:   3,
	Parts: []Part{
		{Page: 1, Text: "Invoice 2026-117\nPage one lists the consulting work delivered in November."},
		{Page: 2, Text: "-2-\nTotal due: 1,284.50 EUR"},
		{Page: 3, Text: "-3-\nPayment is expected within thirty days of receipt."},
	},
}

// TestPDFText checks the text, page numbers and properties of good PDFs, of one whose cross
// reference table is gone (PDFium rebuilds it), and of page trees that claim a million pages,
// one looping, one empty: what is there is read and the document is marked truncated.
func TestPDFText(t *testing.T) {
	invoice := pdfFixture(t, "invoice.pdf")
	noXref := invoice[:bytes.LastIndex(invoice, []byte("xref"))]
	tests := []struct {
		name  string
		data  []byte
		want  *Document
		check func(t *testing.T, d *Document)
	}{
		{name: "invoice", data: invoice, want: invoiceWant},
		{name: "xref cut off", data: noXref, want: invoiceWant},
		{name: "page tree loop", data: pdfFixture(t, "loop.pdf"), check: func(t *testing.T, d *Document) {
			if d.Pages != 1_000_000 || !d.Truncated || len(d.Parts) == 0 || len(d.Parts) > maxPDFPages {
				t.Errorf("pages %d, truncated %v, %d parts; want 1000000, true, 1 to %d", d.Pages, d.Truncated, len(d.Parts), maxPDFPages)
			}
			if len(d.Parts) > 0 && d.Parts[0] != (Part{Page: 1, Text: "Only this page is real."}) {
				t.Errorf("first part %+v", d.Parts[0])
			}
		}},
		{name: "pages claimed, not there", data: pdfFixture(t, "ghosts.pdf"), want: &Document{
			Pages: 1_000_000, Truncated: true, Parts: []Part{{Page: 1, Text: "The one page there is."}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			d, err := pdfText(context.Background(), tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > pdfBound {
				t.Errorf("took %v, more than %v", took, pdfBound)
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, d); diff != "" {
					t.Errorf("document (-want +got):\n%s", diff)
				}
			}
			if tt.check != nil {
				tt.check(t, d)
			}
		})
	}
}

// TestPDFRender checks that Text reads .pdf files and that their rendered text names the pages.
func TestPDFRender(t *testing.T) {
	if !Extracts("PDF") {
		t.Fatal("pdf is not extracted")
	}
	d, err := Text(context.Background(), pdfFixture(t, "invoice.pdf"), "pdf")
	if err != nil {
		t.Fatal(err)
	}
	text, marks := d.Render("pdf")
	if !strings.Contains(text, "[page 2]\n\n-2-\nTotal due: 1,284.50 EUR\n") {
		t.Errorf("rendered text:\n%s", text)
	}
	if got := PlaceOf(marks, strings.Count(text, "\n")); got != "page 3" {
		t.Errorf("last line is on %q, want page 3", got)
	}
}

// TestPDFErrors checks that each kind of bad PDF comes back as its error, soon, and that the
// instance is thrown away after it and the next good PDF is read by a fresh one.
func TestPDFErrors(t *testing.T) {
	invoice := pdfFixture(t, "invoice.pdf")
	random := make([]byte, 64<<10)
	rand.NewChaCha8([32]byte{1}).Read(random)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrMalformed},
		{"random bytes", random, ErrMalformed},
		{"not a pdf", []byte("%PDF-1.7\nthis is not a document\n"), ErrMalformed},
		{"truncated before its catalog", invoice[:len(invoice)/4], ErrMalformed},
		{"password", pdfFixture(t, "encrypted.pdf"), ErrEncrypted},
		{"content stream bomb", pdfFixture(t, "bomb.pdf"), ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			d, err := pdfText(context.Background(), tt.data)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, %v; want %v", d, err, tt.want)
			}
			if took := time.Since(start); took > pdfBound {
				t.Errorf("took %v, more than %v", took, pdfBound)
			}
			if inst := pdfInstance(); inst != nil {
				t.Error("the instance that failed is kept")
			}
			checkInvoice(t)
		})
	}
}

// pdfInstance returns the package's PDFium instance, nil when there is none.
func pdfInstance() any {
	pdf.mu.Lock()
	defer pdf.mu.Unlock()
	if pdf.inst == nil {
		return nil
	}
	return pdf.inst
}

// checkInvoice checks that invoice.pdf reads as it should.
func checkInvoice(t *testing.T) {
	t.Helper()
	d, err := pdfText(context.Background(), pdfFixture(t, "invoice.pdf"))
	if err != nil {
		t.Fatalf("the next pdf: %v", err)
	}
	if diff := cmp.Diff(invoiceWant, d); diff != "" {
		t.Errorf("the next pdf (-want +got):\n%s", diff)
	}
}

// TestPDFDeadline checks that a deadline stops PDFium in the middle of a call: spin.pdf parses
// for hours in one call, with no host call where a closed module would be noticed, so only
// WithCloseOnContextDone stops it; the bomb spends seconds in one call growing memory. A context
// that has ended stops PDFium before it starts.
func TestPDFDeadline(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	soon := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 200*time.Millisecond)
	}
	tests := []struct {
		name string
		data []byte
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"parsing for hours", pdfFixture(t, "spin.pdf"), soon, context.DeadlineExceeded},
		{"memory bomb", pdfFixture(t, "bomb.pdf"), soon, context.DeadlineExceeded},
		{"canceled before", pdfFixture(t, "spin.pdf"), func() (context.Context, context.CancelFunc) {
			return done, func() {}
		}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := pdfText(ctx, tt.data)
				errc <- err
			}()
			select {
			case err := <-errc:
				if !errors.Is(err, tt.want) {
					t.Fatalf("got %v; want %v", err, tt.want)
				}
			case <-time.After(pdfBound):
				t.Fatalf("still running %v after the deadline", pdfBound)
			}
			if pdf.memory.refused.Load() {
				t.Error("the bomb ran until it hit the memory cap")
			}
			checkInvoice(t)
		})
	}
}

// TestPDFIdle checks that PDFium is closed when idle, not while it is used, and starts again.
func TestPDFIdle(t *testing.T) {
	checkInvoice(t)
	pdf.mu.Lock()
	use := pdf.uses
	pdf.mu.Unlock()
	pdf.closeIdle(use - 1)
	if pdfInstance() == nil {
		t.Fatal("a timer of an earlier use closed pdfium")
	}
	pdf.closeIdle(use)
	pdf.mu.Lock()
	closed := pdf.pool == nil && pdf.inst == nil && pdf.cache == nil
	pdf.mu.Unlock()
	if !closed {
		t.Fatal("pdfium is still open when idle")
	}
	checkInvoice(t)
}

// TestPDFAllocator checks that an instance's memory grows within its block and is refused past
// it, that the next instance gets the same block zeroed, and that two instances never share one.
func TestPDFAllocator(t *testing.T) {
	var a pdfAllocator
	// zero looks at the ends and the first MiB: the whole 256 MiB takes seconds under -race.
	zero := func(b []byte) bool {
		return b[len(b)-1] == 0 && !bytes.ContainsFunc(b[:min(len(b), 1<<20)], func(r rune) bool { return r != 0 })
	}
	m := a.Allocate(0, 4<<30)
	if got := m.Reallocate(1 << 20); len(got) != 1<<20 || !zero(got) {
		t.Fatalf("grow to 1 MiB: %d bytes", len(got))
	}
	first := m.Reallocate(pdfMemoryBytes)
	if len(first) != pdfMemoryBytes || a.refused.Load() {
		t.Fatalf("grow to the cap: %d bytes, refused %v", len(first), a.refused.Load())
	}
	if got := m.Reallocate(pdfMemoryBytes + 64<<10); got != nil || !a.refused.Load() {
		t.Fatalf("grow past the cap: %d bytes, refused %v", len(got), a.refused.Load())
	}
	first[0], first[1000], first[pdfMemoryBytes-1] = 1, 1, 1
	m.Free()
	second := a.Allocate(0, 4<<30).Reallocate(pdfMemoryBytes)
	if &second[0] != &first[0] || !zero(second) {
		t.Errorf("the next instance: same block %v, zeroed %v", &second[0] == &first[0], zero(second))
	}
	third := a.Allocate(0, 4<<30).Reallocate(1)
	if &third[0] == &second[0] {
		t.Error("two instances share a block")
	}
}

// TestPDFPageImage checks that a page renders as a JPEG of the model's size, of the page's shape,
// with its text on it, and that a page the document lacks and a locked document are refused.
func TestPDFPageImage(t *testing.T) {
	invoice := pdfFixture(t, "invoice.pdf")
	tests := []struct {
		name string
		data []byte
		page int
		want error
	}{
		{"page 2", invoice, 2, nil},
		{"page 0", invoice, 0, ErrNoPage},
		{"past the end", invoice, 4, ErrNoPage},
		{"password", pdfFixture(t, "encrypted.pdf"), 1, ErrEncrypted},
		{"not a pdf", []byte("hello"), 1, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := PDFPageImage(context.Background(), tt.data, tt.page)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v; want %v", err, tt.want)
			}
			if err != nil {
				return
			}
			src, err := jpeg.Decode(bytes.NewReader(img.Data))
			if err != nil || img.MediaType != "image/jpeg" {
				t.Fatalf("%s: %v", img.MediaType, err)
			}
			w, h := src.Bounds().Dx(), src.Bounds().Dy()
			if w != img.SentWidth || h != img.SentHeight || max(w, h) > MaxEdge || w*h > MaxSentPixels {
				t.Errorf("%dx%d, said %dx%d", w, h, img.SentWidth, img.SentHeight)
			}
			if shape := float64(w) / float64(h); math.Abs(shape-1/math.Sqrt2) > 0.01 {
				t.Errorf("%dx%d is not the shape of an A4 page (groff's)", w, h)
			}
			if dark := darkPixels(src); dark < 100 {
				t.Errorf("%d dark pixels: no text rendered", dark)
			}
		})
	}
}

// darkPixels counts the pixels of img darker than mid grey.
func darkPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x8000 {
				n++
			}
		}
	}
	return n
}

// TestPDFPageFit checks the pixel size pages are rendered at, whatever their box says.
func TestPDFPageFit(t *testing.T) {
	tests := []struct {
		w, h         float64
		wantW, wantH int
	}{
		{612, 792, 942, 1219},
		{792, 612, 1219, 942},
		{100, 100, 1072, 1072},
		{1000, 100, 1568, 157},
		{0, 792, MaxEdge, MaxEdge},
		{-5, 792, MaxEdge, MaxEdge},
		{math.NaN(), 792, MaxEdge, MaxEdge},
		{math.Inf(1), 792, MaxEdge, MaxEdge},
		{1, 1e6, MaxEdge, MaxEdge},
	}
	for _, tt := range tests {
		if w, h := pageFit(tt.w, tt.h); w != tt.wantW || h != tt.wantH {
			t.Errorf("pageFit(%v, %v) = %d, %d; want %d, %d", tt.w, tt.h, w, h, tt.wantW, tt.wantH)
		}
	}
}

// TestPDFDate checks PDF dates in their full, short, zoned and broken forms.
func TestPDFDate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"D:20261207011606+00'00'", time.Date(2026, 12, 7, 1, 16, 6, 0, time.UTC)},
		{"D:20261207011606Z", time.Date(2026, 12, 7, 1, 16, 6, 0, time.UTC)},
		{"D:20261207011606", time.Date(2026, 12, 7, 1, 16, 6, 0, time.UTC)},
		{"D:20240229", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"D:2024", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"20261207120000+02'00'", time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)},
		{"D:20261207120000-05'30", time.Date(2026, 12, 7, 17, 30, 0, 0, time.UTC)},
		{"D:20261207120000-05", time.Date(2026, 12, 7, 17, 0, 0, 0, time.UTC)},
		{"", time.Time{}},
		{"D:", time.Time{}},
		{"D:202", time.Time{}},
		{"D:20261", time.Time{}},
		{"D:20231301", time.Time{}},
		{"D:20230230", time.Time{}},
		{"D:20261207120000+25'00'", time.Time{}},
		{"D:20261207120000 junk", time.Time{}},
		{"D:20261207120000-+5'00", time.Time{}},
		{"Tuesday", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := pdfDate(tt.in); !got.Equal(tt.want) {
				t.Errorf("pdfDate(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestPDFCleanText checks what is taken out of PDFium's text of a page.
func TestPDFCleanText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "one\ntwo", "one\ntwo"},
		{"windows line ends", "one\r\ntwo\r\n", "one\ntwo"},
		{"hyphen mark", "extrac\uFFFE\r\ntion", "extrac\ntion"},
		{"trailing spaces", "one  \r\ntwo \t\r\n  ", "one\ntwo"},
		{"terminator", "one\x00", "one"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanPDFText(tt.in); got != tt.want {
				t.Errorf("cleanPDFText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestPDFSharedCacheDir checks that the shared cache folder is made private, and that one
// another user could have made, open to others, is not used.
func TestPDFSharedCacheDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := sharedCacheDir()
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache folder %q: %v, %v", dir, fi, err)
	}
	if want := filepath.Join(tmp, "packfs-mcp-wazero-"+strconv.Itoa(os.Getuid())); dir != want {
		t.Errorf("cache folder %q, want %q", dir, want)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if got := sharedCacheDir(); got != "" {
		t.Errorf("an open folder is used: %q", got)
	}
}

// FuzzPDFText checks that no input makes the extraction panic or hang. Run it by hand:
// go test ./extract -run '^$' -fuzz FuzzPDFText -fuzztime 20s
func FuzzPDFText(f *testing.F) {
	for _, name := range []string{"invoice.pdf", "encrypted.pdf", "loop.pdf"} {
		f.Add(pdfFixture(f, name))
	}
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		d, err := pdfText(ctx, data)
		if err == nil && (d.Pages < 0 || len(d.Parts) > maxPDFPages) {
			t.Errorf("pages %d, %d parts", d.Pages, len(d.Parts))
		}
	})
}
