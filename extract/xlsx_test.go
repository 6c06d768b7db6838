package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"
)

// privateTemp points os.TempDir at a folder of the test's own and fails the test if anything is
// left in it: excelize writes big parts there unless told not to, and the package must not.
func privateTemp(t testing.TB) {
	t.Helper()
	dir := t.TempDir()
	for _, v := range []string{"TMPDIR", "TMP", "TEMP"} {
		t.Setenv(v, dir)
	}
	t.Cleanup(func() {
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			t.Errorf("%d files left in the temp dir, the first %s", len(ents), ents[0].Name())
		}
	})
}

// workbook makes an xlsx with excelize: fill writes it, starting from a book with one empty
// sheet, "Sheet1".
func workbook(t testing.TB, fill func(f *excelize.File) error) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if err := fill(f); err != nil {
		t.Fatal(err)
	}
	b, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// budgetBook is the two-sheet workbook of the tests, with its properties.
func budgetBook(f *excelize.File) error {
	steps := []error{
		f.SetSheetName("Sheet1", "Budget"),
		f.SetSheetRow("Budget", "A1", &[]any{"Item", "Amount"}),
		f.SetSheetRow("Budget", "A2", &[]any{"Rent", 1200}),
		f.SetCellValue("Budget", "A3", "Total"),
		f.SetCellInt("Budget", "B3", 1200), // the value Excel would have computed
		f.SetCellFormula("Budget", "B3", "SUM(B2:B2)"),
		f.SetCellValue("Budget", "A5", "Note"), // row 4 is empty
		f.SetCellValue("Budget", "C5", "see Notes"),
		f.SetCellValue("Budget", "F5", ""), // an empty cell past the last value
	}
	_, err := f.NewSheet("Notes")
	steps = append(steps, err,
		f.SetCellValue("Notes", "B2", "Paid on the 1st"),
		f.SetDocProps(&excelize.DocProperties{
			Title: "Household", Creator: "Ann Lee", Created: "2025-01-02T03:04:05Z",
		}))
	return errors.Join(steps...)
}

// rowsBook has one sheet of n rows of cols numbered cells, written with the StreamWriter.
func rowsBook(n, cols int) func(f *excelize.File) error {
	return func(f *excelize.File) error {
		sw, err := f.NewStreamWriter("Sheet1")
		if err != nil {
			return err
		}
		row := make([]any, cols)
		for r := 1; r <= n; r++ {
			for c := range row {
				row[c] = r*100 + c
			}
			cell, _ := excelize.CoordinatesToCellName(1, r)
			if err := sw.SetRow(cell, row); err != nil {
				return err
			}
		}
		return sw.Flush()
	}
}

// TestXLSXText checks the parts of workbooks: rows in sheet order, numbered as in the sheet,
// empty rows skipped, cells joined with the empty ones before a value kept, the cached value of
// a formula, the properties, and the caps on cells of a row and rows of a sheet.
func TestXLSXText(t *testing.T) {
	privateTemp(t)
	// excelize's template names its author and a date of its own.
	author, created := "xuri", time.Date(2006, 9, 16, 0, 0, 0, 0, time.UTC)
	wide := make([]any, maxRowCells+5)
	for i := range wide {
		wide[i] = "w"
	}
	tests := []struct {
		name      string
		data      []byte
		short     bool // run in -short mode
		want      []Part
		wantN     int // parts, when want is nil
		pages     int
		truncated bool
		title     string
		author    string
		created   time.Time
	}{{
		name:  "two sheets",
		data:  workbook(t, budgetBook),
		short: true,
		want: []Part{
			{Sheet: "Budget", Row: 1, Text: "Item | Amount"},
			{Sheet: "Budget", Row: 2, Text: "Rent | 1200"},
			{Sheet: "Budget", Row: 3, Text: "Total | 1200"},
			{Sheet: "Budget", Row: 5, Text: "Note |  | see Notes"},
			{Sheet: "Notes", Row: 2, Text: " | Paid on the 1st"},
		},
		pages:   2,
		title:   "Household",
		author:  "Ann Lee",
		created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}, {
		name:    "empty sheet",
		data:    workbook(t, func(*excelize.File) error { return nil }),
		short:   true,
		pages:   1,
		author:  author,
		created: created,
	}, {
		name:  "no properties",
		data:  withPart(t, workbook(t, budgetBook), "docProps/core.xml", "<coreProperties/>", " ", 20, 0),
		short: true,
		wantN: 5,
		pages: 2,
	}, {
		name: "wide row",
		data: workbook(t, func(f *excelize.File) error {
			return f.SetSheetRow("Sheet1", "A1", &wide)
		}),
		short:     true,
		want:      []Part{{Sheet: "Sheet1", Row: 1, Text: strings.Repeat("w | ", maxRowCells-1) + "w"}},
		pages:     1,
		truncated: true,
		author:    author,
		created:   created,
	}, {
		name:      "150,000 rows",
		data:      workbook(t, rowsBook(150_000, 1)),
		wantN:     maxSheetRows,
		pages:     1,
		truncated: true,
		author:    author,
		created:   created,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && !tt.short {
				t.Skip("slow")
			}
			d, err := Text(context.Background(), tt.data, "xlsx")
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil || tt.wantN == 0 {
				if diff := cmp.Diff(tt.want, d.Parts); diff != "" {
					t.Errorf("parts (-want +got):\n%s", diff)
				}
			} else if len(d.Parts) != tt.wantN {
				t.Errorf("%d parts, want %d", len(d.Parts), tt.wantN)
			}
			if d.Pages != tt.pages || d.Truncated != tt.truncated {
				t.Errorf("pages %d truncated %v, want %d %v", d.Pages, d.Truncated, tt.pages, tt.truncated)
			}
			if d.Title != tt.title || d.Author != tt.author || !d.Created.Equal(tt.created) {
				t.Errorf("properties %q %q %v, want %q %q %v", d.Title, d.Author, d.Created, tt.title, tt.author, tt.created)
			}
		})
	}
}

// TestXLSXRender checks that a workbook renders with a line that names each sheet.
func TestXLSXRender(t *testing.T) {
	d, err := Text(context.Background(), workbook(t, budgetBook), "xlsm")
	if err != nil {
		t.Fatal(err)
	}
	got, marks := d.Render("xlsm")
	want := "[sheet Budget]\n\n1: Item | Amount\n2: Rent | 1200\n3: Total | 1200\n5: Note |  | see Notes\n\n" +
		"[sheet Notes]\n\n2:  | Paid on the 1st\n"
	if got != want {
		t.Errorf("rendered\n%s\nwant\n%s", got, want)
	}
	if len(marks) != 2 || marks[1] != (Mark{Line: 8, Place: "sheet Notes", N: 2}) {
		t.Errorf("marks %v", marks)
	}
}

// withPart is the workbook data with its entry name's contents replaced by head and then unit
// repeated, size bytes in all, deflated as it is streamed; declared is the size the zip says it
// has (size when 0). The other entries are copied raw.
func withPart(t testing.TB, data []byte, name, head, unit string, size, declared int64) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, zf := range zr.File {
		if zf.Name != name {
			if err := zw.Copy(zf); err != nil {
				t.Fatal(err)
			}
			continue
		}
		deflated := deflateRepeat(head, unit, size)
		if declared == 0 {
			declared = size
		}
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: name, Method: zip.Deflate,
			CompressedSize64: uint64(deflated.Len()), UncompressedSize64: uint64(declared),
		})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(deflated.Bytes())
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// deflateRepeat is a raw deflate stream of head and then unit repeated, size bytes in all. Each
// MiB is deflated once and flushed, which ends it on a byte with no reference past it, so the
// stream is that block copied: a GiB takes milliseconds, even under the race detector.
func deflateRepeat(head, unit string, size int64) *bytes.Buffer {
	block := func(s string) []byte {
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, flate.BestSpeed)
		io.WriteString(fw, s)
		fw.Flush()
		return b.Bytes()
	}
	var out bytes.Buffer
	out.Write(block(head))
	chunk := strings.Repeat(unit, (1<<20)/len(unit))
	full := block(chunk)
	left := size - int64(len(head))
	for ; left >= int64(len(chunk)); left -= int64(len(chunk)) {
		out.Write(full)
	}
	out.Write(block(chunk[:left]))
	out.Write([]byte{3, 0}) // an empty final block
	return &out
}

// heapDuring runs f and returns the most the heap held above what it held before, sampled every
// millisecond (runtime/metrics reads it without stopping the world).
func heapDuring(f func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(s); return s[0].Value.Uint64() }
	base, peak := read(), uint64(0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	for tick := time.NewTicker(time.Millisecond); ; {
		select {
		case <-done:
			tick.Stop()
			if peak = max(peak, read()); peak < base {
				return 0
			}
			return peak - base
		case <-tick.C:
			peak = max(peak, read())
		}
	}
}

// TestXLSXBombs checks that a workbook whose parts unzip past the limits is refused, or read in
// part, in little time and memory, with no temporary file written.
func TestXLSXBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a GiB through deflate")
	}
	privateTemp(t)
	book := workbook(t, budgetBook)
	const gib = 1 << 30
	row := `<row><c t="inlineStr"><is><t>x</t></is></c></row>`
	head := `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`
	const mb = 1 << 20
	sst := `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`
	tests := []struct {
		name      string
		data      []byte
		err       error
		truncated bool
		heap      uint64 // the most the heap may grow
	}{
		{"1 GiB of rows", withPart(t, book, "xl/worksheets/sheet1.xml", head, row, gib, 0), ErrTooLarge, false, 150 * mb},
		{"1 GiB of zeros", withPart(t, book, "xl/worksheets/sheet1.xml", "", "\x00", gib, 0), ErrTooLarge, false, 150 * mb},
		// archive/zip stops at the declared size and excelize takes what was read
		{"1 GiB declared as 1 KiB", withPart(t, book, "xl/worksheets/sheet1.xml", head, row, gib, 1<<10), nil, false, 150 * mb},
		{"shared strings of 17 MiB", withPart(t, book, "xl/sharedStrings.xml", sst, "<si><t>a</t></si>", 17*mb, 0), ErrTooLarge, false, 150 * mb},
		{"styles of 17 MiB", withPart(t, book, "xl/styles.xml", "<styleSheet><cellXfs>", "<xf/>", 17*mb, 0), ErrTooLarge, false, 150 * mb},
		// what the limits let through costs several times its size: excelize holds every part
		// in memory, reading each into a buffer that doubles once it is full, and decodes the
		// shared strings whole (these lack their end tag: malformed, once decoded). The heap
		// sampled counts garbage not yet collected: 23 MiB of rows took +232 MB, +278 MB under
		// the race detector.
		{"rows under the size limit", withPart(t, book, "xl/worksheets/sheet1.xml", head, row, xlsxUnzipLimit-mb, 0), nil, true, 100*mb + 12*xlsxUnzipLimit},
		{"shared strings under the limit", withPart(t, book, "xl/sharedStrings.xml", sst, "<si><t>a</t></si>", xlsxXMLPartLimit-mb, 0), ErrMalformed, false, 100*mb + 30*xlsxXMLPartLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d *Document
			var err error
			start := time.Now()
			heap := heapDuring(func() { d, err = Text(context.Background(), tt.data, "xlsx") })
			took := time.Since(start)
			t.Logf("%d KB zipped: %v in %v, heap +%d MB", len(tt.data)>>10, err, took, heap>>20)
			switch {
			case tt.err != nil && !errors.Is(err, tt.err):
				t.Errorf("error %v, want %v", err, tt.err)
			case tt.err == nil && (err != nil || d.Truncated != tt.truncated):
				t.Errorf("error %v, want a document truncated %v", err, tt.truncated)
			}
			if took > 20*time.Second || heap > tt.heap { // 1-2 s, 5-10 under the race detector
				t.Errorf("took %v and %d MB of heap, want under 20 s and %d MB", took, heap>>20, tt.heap>>20)
			}
		})
	}
}

// TestXLSXRefused checks what is not a readable workbook: the errors say why.
func TestXLSXRefused(t *testing.T) {
	privateTemp(t)
	var encrypted bytes.Buffer
	f := excelize.NewFile()
	f.SetCellValue("Sheet1", "A1", "secret")
	if err := f.Write(&encrypted, excelize.Options{Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	noise := make([]byte, 4096)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	tests := []struct {
		name string
		data []byte
		err  error
	}{
		{"encrypted by excelize", encrypted.Bytes(), ErrEncrypted},
		{"OLE magic", append(bytes.Clone(oleMagic), noise...), ErrEncrypted},
		{"random bytes", noise, ErrMalformed},
		{"empty", nil, ErrMalformed},
		{"a zip of text", zipOf(t, "a.txt", "hello"), ErrMalformed},
		{"broken workbook.xml", withPart(t, workbook(t, budgetBook), "xl/workbook.xml", "<workbook><sheets><", " ", 200, 0), ErrMalformed},
		{"too large", make([]byte, MaxDocumentBytes+1), ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Text(context.Background(), tt.data, "xlsx")
			if !errors.Is(err, tt.err) {
				t.Errorf("got %v, %v; want %v", d, err, tt.err)
			}
		})
	}
}

// TestXLSXContext checks that a cancelled context stops a read.
func TestXLSXContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Text(ctx, workbook(t, budgetBook), "xlsx"); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// FuzzXLSXText checks that no input panics or yields past the limits, and that every error is
// one of the package's. Run it by hand: go test ./extract -run '^$' -fuzz FuzzXLSXText.
func FuzzXLSXText(f *testing.F) {
	book := workbook(f, budgetBook)
	f.Add(book)
	f.Add(workbook(f, rowsBook(20, 3)))
	f.Add(withPart(f, book, "xl/sharedStrings.xml", "<sst>", "<si><t>a</t></si>", 1<<10, 0))
	f.Add(append(bytes.Clone(oleMagic), 0, 1, 2))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := xlsxText(context.Background(), data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error of no kind: %v", err)
			}
			return
		}
		if len(d.Parts) > MaxParts {
			t.Fatalf("%d parts", len(d.Parts))
		}
	})
}

// BenchmarkXLSXText reads a sheet of 50,000 rows of 10 numbers, reporting the heap's peak.
func BenchmarkXLSXText(b *testing.B) {
	data := workbook(b, rowsBook(50_000, 10))
	var peak uint64
	for b.Loop() {
		peak = max(peak, heapDuring(func() {
			d, err := Text(context.Background(), data, "xlsx")
			if err != nil || len(d.Parts) != 50_000 {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "MB-peak")
	b.ReportMetric(float64(len(data))/(1<<20), "MB-file")
}
