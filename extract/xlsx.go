package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"
)

// Limits of a spreadsheet's text.
const (
	// maxSheetRows is the most rows of one sheet read: a sheet past it is a table dump a model
	// pages through better with a query than as text.
	maxSheetRows = 100_000
	// maxRowCells is the most cells of one row read; the cells past it are dropped.
	maxRowCells = 1_000
	// xlsxUnzipLimit is the most a workbook's parts may take unzipped, all together. It is both
	// excelize's UnzipSizeLimit and its UnzipXMLSizeLimit: excelize writes a worksheet or the
	// shared strings to a temporary file (in TmpDir) exactly when that part's declared size is
	// over UnzipXMLSizeLimit (lib.go, ReadZipReader), and a part over UnzipSizeLimit is refused
	// before that, so with the two equal nothing is ever written to disk and every part is held
	// in memory: this bounds that memory, which peaks at a few times it (excelize reads a part
	// into a buffer that doubles once full). The package touches no filesystem. The limit holds
	// sheets of tens of thousands of rows at a peak of some hundred MB (dev/bench/README.md,
	// Documents read as their text); one workbook is read at a time (workbooks), so that is the
	// bound, not one per reader.
	xlsxUnzipLimit = 24 << 20
	// xlsxXMLPartLimit is the most a part other than a worksheet may take unzipped. excelize
	// streams worksheets row by row but decodes the other XML parts (shared strings, styles,
	// the calculation chain) whole into structs that take many times the XML's size, and take
	// seconds to do it (dev/bench/README.md, Documents read as their text). A workbook's styles
	// take a few MB at most.
	xlsxXMLPartLimit = 4 << 20
	// checkEvery is how many rows are read between two looks at the context.
	checkEvery = 1_000
)

func init() {
	// An .xlsm is an .xlsx with macros, which are not read.
	for _, ext := range []string{"xlsx", "xlsm"} {
		extractors[ext] = xlsxText
		pageWord[ext] = "sheet"
	}
}

// xlsxText reads a workbook's sheets in order, a part per row that has a value.
func xlsxText(ctx context.Context, data []byte) (*Document, error) {
	if err := checkXLSX(data); err != nil {
		return nil, err
	}
	select {
	case workbooks <- struct{}{}:
		defer func() { <-workbooks }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	f, err := openXLSX(data)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := &Document{}
	docProps(f, d)
	sheets := f.GetSheetList()
	d.Pages = len(sheets)
	var b budget
	for _, sheet := range sheets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		more, err := readSheet(ctx, f, sheet, d, &b)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	return d, nil
}

// checkXLSX refuses, before excelize sees them, what it would read at a cost out of proportion
// to the text: an encrypted workbook (excelize would try to decrypt it with an empty password,
// a key derivation of 100,000 hashes), a zip whose parts unzip past xlsxUnzipLimit, an XML part
// other than a worksheet past xlsxXMLPartLimit. The sizes checked are those the zip declares:
// archive/zip fails a part that inflates past its declared size, so they hold.
func checkXLSX(data []byte) error {
	if bytes.HasPrefix(data, oleMagic) {
		return fmt.Errorf("%w: an OLE compound file, as Excel saves a workbook with a password", ErrEncrypted)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("%w: not an xlsx workbook: %v", ErrMalformed, err)
	}
	var total uint64
	for _, zf := range zr.File {
		size := zf.UncompressedSize64
		total += size
		if size > xlsxUnzipLimit || total > xlsxUnzipLimit {
			return fmt.Errorf("%w: its parts unzip to more than %d MB", ErrTooLarge, xlsxUnzipLimit>>20)
		}
		if size > xlsxXMLPartLimit && decodedWhole(zf.Name) {
			return fmt.Errorf("%w: %s unzips to %d MB, more than the %d MB read", ErrTooLarge, zf.Name, size>>20, xlsxXMLPartLimit>>20)
		}
	}
	return nil
}

// decodedWhole reports whether excelize may decode the zip entry name whole into memory: any XML
// part but a worksheet, which it streams.
func decodedWhole(name string) bool {
	name = strings.ToLower(strings.ReplaceAll(name, `\`, "/"))
	switch path.Ext(name) {
	case ".xml", ".rels", ".vml":
	default:
		return false
	}
	return !strings.HasPrefix(name, "xl/worksheets/sheet")
}

// workbooks holds the one workbook read at a time: excelize holds a workbook's parts in memory
// at a few times their size (see xlsxUnzipLimit), and the index's readers would add those up.
var workbooks = make(chan struct{}, 1)

// openXLSX opens data with excelize within xlsxUnzipLimit, all in memory (see xlsxUnzipLimit).
func openXLSX(data []byte) (*excelize.File, error) {
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    xlsxUnzipLimit,
		UnzipXMLSizeLimit: xlsxUnzipLimit,
	})
	if err == nil {
		return f, nil
	}
	if f != nil {
		f.Close() // opened parts of the package before it failed
	}
	switch {
	case errors.Is(err, excelize.ErrWorkbookPassword):
		return nil, fmt.Errorf("%w: %v", ErrEncrypted, err)
	case strings.HasPrefix(err.Error(), "unzip size exceeds"): // excelize has no sentinel for it
		return nil, fmt.Errorf("%w: %v", ErrTooLarge, err)
	}
	return nil, fmt.Errorf("%w: not a readable xlsx workbook: %v", ErrMalformed, err)
}

// docProps copies the workbook's title, author and creation time into d; a workbook without
// them, or with a date that is not RFC 3339, leaves them empty.
func docProps(f *excelize.File, d *Document) {
	p, err := f.GetDocProps()
	if err != nil {
		return
	}
	d.Title, d.Author = p.Title, p.Creator
	if t, err := time.Parse(time.RFC3339, strings.TrimSpace(p.Created)); err == nil {
		d.Created = t
	}
}

// readSheet appends to d a part per row of sheet that has a value, up to maxSheetRows rows and
// the budget b, setting d.Truncated when either stops it. more is false once b is spent: the
// sheets after it are not read.
func readSheet(ctx context.Context, f *excelize.File, sheet string, d *Document, b *budget) (more bool, err error) {
	rows, err := f.Rows(sheet)
	if err != nil {
		if rows != nil {
			rows.Close()
		}
		return false, fmt.Errorf("%w: sheet %q: %v", ErrMalformed, sheet, err)
	}
	defer rows.Close()
	// Next yields every row number up to the last row, those without a <row> element too, so n
	// is the row's number.
	for n := 1; rows.Next(); n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		if n > maxSheetRows {
			d.Truncated = true
			return true, nil
		}
		cells, err := rows.Columns()
		if err != nil {
			return false, fmt.Errorf("%w: sheet %q, row %d: %v", ErrMalformed, sheet, n, err)
		}
		text, cut := rowText(cells)
		if text == "" {
			continue
		}
		if !b.add(text) {
			d.Truncated = true
			return false, nil
		}
		d.Truncated = d.Truncated || cut
		d.Parts = append(d.Parts, Part{Sheet: sheet, Row: n, Text: text})
	}
	if err := rows.Error(); err != nil {
		return false, fmt.Errorf("%w: sheet %q: %v", ErrMalformed, sheet, err)
	}
	return true, nil
}

// rowText joins a row's cells with " | ", empty cells before a value kept so that columns stay
// aligned, those after the last value dropped; "" for a row without a value. cut says cells past
// maxRowCells were dropped.
func rowText(cells []string) (text string, cut bool) {
	if len(cells) > maxRowCells {
		cells, cut = cells[:maxRowCells], true
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	return strings.Join(cells, " | "), cut
}
