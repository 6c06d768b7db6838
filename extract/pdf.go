package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/image/draw"
)

// Limits of PDF extraction.
const (
	// maxPDFPages is the most pages whose text is read: PDFium trusts a page tree's /Count, and a
	// tree that loops claims a million pages.
	maxPDFPages = 2000
	// pdfMemoryBytes is the most memory PDFium's WebAssembly instance may have: without it a
	// content stream that inflates to GiB takes the process to several times that
	// (dev/bench/README.md, Documents read as their text), and ordinary documents use a small part
	// of it.
	pdfMemoryBytes = 256 << 20
	// pdfIdle is how long PDFium stays loaded after its last use: an instance holds its memory
	// and compiled code, and starting one again from the compilation cache takes a noticeable
	// fraction of a second.
	pdfIdle = time.Minute
	// maxPDFBadPages is the most pages in a row that may fail to load before the rest are taken
	// as missing too: a page tree that claims a million pages it does not have costs a failed load
	// for each of them.
	maxPDFBadPages = 50
	// maxPDFTime is the longest one call may run whatever its caller's deadline: a 6 KB page
	// that draws one form 100,000 times parses for hours, and every other PDF waits meanwhile.
	// maxPDFPages ordinary pages take well under it.
	maxPDFTime = 2 * time.Minute
	// maxPDFMetaBytes is the most of a title or an author kept: they are shown with every read.
	maxPDFMetaBytes = 1024
)

func init() {
	extractors["pdf"] = pdfText
	pageWord["pdf"] = "page"
}

// ErrNoPage is a page number a PDF does not have.
var ErrNoPage = errors.New("no such page")

// errPDFSlow is the cause of a call stopped at maxPDFTime.
var errPDFSlow = errors.New("pdf read past its time")

// pdf is the package's one PDFium instance. Calls are serialised: one instance costs the memory
// of one document, and parallel reads would add those up.
var pdf pdfEngine

// SetCacheDir sets where wazero's compilation cache keeps PDFium's compiled code, from the next
// time PDFium starts for [Text] or [PDFPageImage]: compiling it takes seconds and hundreds of MB,
// loading it from the cache a fraction of a second (dev/bench/README.md, Documents read as their
// text). dir is called when PDFium starts (so a server that reads no PDF makes no folder) and gives
// the folder, "" to keep none; nil keeps none. The folder holds native code the process runs, so it
// must be private (0700) and outside every root, where no tool can write it. Until SetCacheDir is
// called, a shared private folder in the temporary folder is used (sharedCacheDir), so test
// processes compile PDFium once (slower and larger still under the race detector): a server calls
// it.
func SetCacheDir(dir func() string) {
	pdf.mu.Lock()
	defer pdf.mu.Unlock()
	pdf.cacheDir, pdf.cacheSet = dir, true
}

// pdfText extracts the text of a PDF, one part per page that has text.
func pdfText(ctx context.Context, data []byte) (*Document, error) {
	var doc *Document
	err := pdf.run(ctx, func(p pdfium.Pdfium) (err error) {
		doc, err = readPDF(ctx, p, data)
		return err
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// PDFPageImage renders page (1-based) of the PDF data as a JPEG of MaxEdge pixels on its long
// side (fewer when that would pass MaxSentPixels): what a model reads of a scanned page, which has
// no text. A page the document does not have is ErrNoPage; errors are as Text's.
func PDFPageImage(ctx context.Context, data []byte, page int) (Image, error) {
	var img Image
	err := pdf.run(ctx, func(p pdfium.Pdfium) (err error) {
		img, err = renderPage(p, data, page)
		return err
	})
	return img, err
}

// renderPage renders page (1-based) of data with p.
func renderPage(p pdfium.Pdfium, data []byte, page int) (Image, error) {
	h, pages, err := openPDF(p, data)
	if err != nil {
		return Image{}, err
	}
	defer p.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: h})
	if page < 1 || page > pages {
		return Image{}, fmt.Errorf("pdf: %w: %d of %d pages", ErrNoPage, page, pages)
	}
	at := requests.Page{ByIndex: &requests.PageByIndex{Document: h, Index: page - 1}}
	size, err := p.GetPageSize(&requests.GetPageSize{Page: at})
	if err != nil {
		return Image{}, err
	}
	w, ht := pageFit(size.Width, size.Height)
	r, err := p.RenderPageInPixels(&requests.RenderPageInPixels{Page: at, Width: w, Height: ht})
	if err != nil {
		return Image{}, err
	}
	defer r.Cleanup()
	return pageJPEG(r.Result.RenderedImage)
}

// pageFit returns the pixel size a page of w by h points is rendered at: MaxEdge on its long side
// as fit allows, at least a pixel each way whatever the page's box says.
func pageFit(w, h float64) (int, int) {
	if !(w > 0 && h > 0) || max(w, h)/min(w, h) > MaxEdge {
		return MaxEdge, MaxEdge
	}
	k := MaxEdge / max(w, h)
	return fit(max(1, int(w*k+0.5)), max(1, int(h*k+0.5)))
}

// pageJPEG encodes a rendered page as JPEG on white: PDFium leaves a page with transparency clear.
func pageJPEG(src image.Image) (Image, error) {
	b := src.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, b, src, b.Min, draw.Over)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, dst, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return Image{}, err
	}
	w, h := b.Dx(), b.Dy()
	return Image{Width: w, Height: h, Data: out.Bytes(), MediaType: "image/jpeg", SentWidth: w, SentHeight: h}, nil
}

// openPDF opens the PDF data with p, from memory (no path reaches PDFium), and counts its pages.
// The caller closes the document.
func openPDF(p pdfium.Pdfium, data []byte) (references.FPDF_DOCUMENT, int, error) {
	opened, err := p.FPDF_LoadMemDocument64(&requests.FPDF_LoadMemDocument64{Data: &data})
	if err != nil {
		return "", 0, err
	}
	count, err := p.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: opened.Document})
	if err != nil {
		p.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: opened.Document})
		return "", 0, err
	}
	return opened.Document, count.PageCount, nil
}

// readPDF reads the pages and properties of the PDF data with p.
func readPDF(ctx context.Context, p pdfium.Pdfium, data []byte) (*Document, error) {
	h, pages, err := openPDF(p, data)
	if err != nil {
		return nil, err
	}
	defer p.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: h})
	d := &Document{
		Title:   pdfMeta(p, h, "Title"),
		Author:  pdfMeta(p, h, "Author"),
		Created: pdfDate(pdfMeta(p, h, "CreationDate")),
		Pages:   pages,
	}
	if err := readPages(ctx, p, h, d); err != nil {
		return nil, err
	}
	return d, nil
}

// readPages adds the text of h's pages to d, up to the package's limits.
func readPages(ctx context.Context, p pdfium.Pdfium, h references.FPDF_DOCUMENT, d *Document) error {
	var b budget
	bad := 0
	for i := range min(d.Pages, maxPDFPages) {
		if err := ctx.Err(); err != nil {
			return err
		}
		text, err := pageText(p, h, i)
		if errors.Is(err, pdfiumerrors.ErrPage) {
			if bad++; bad == maxPDFBadPages {
				d.Truncated = true
				return nil
			}
			continue
		}
		if err != nil {
			return err
		}
		bad = 0
		if text == "" {
			continue
		}
		if !b.add(text) {
			d.Truncated = true
			return nil
		}
		d.Parts = append(d.Parts, Part{Page: i + 1, Text: text})
	}
	d.Truncated = d.Pages > maxPDFPages
	return nil
}

// pageText returns the text of page i (0-based) of document h, "" for a page that has none; a
// page PDFium cannot load is pdfiumerrors.ErrPage.
func pageText(p pdfium.Pdfium, h references.FPDF_DOCUMENT, i int) (string, error) {
	page, err := p.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: h, Index: i})
	if err != nil {
		return "", err
	}
	defer p.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := p.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return "", err
	}
	defer p.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := p.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || n.Count <= 0 {
		return "", err
	}
	// A character takes a byte at least, so more than MaxTextBytes never fits the budget.
	count := min(n.Count, MaxTextBytes)
	text, err := p.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, Count: count})
	if err != nil {
		return "", err
	}
	return cleanPDFText(text.Text), nil
}

// pdfTextFixes removes what PDFium puts in a page's text that is not the page's: U+FFFE, its mark
// of a hyphen at a line's end that groff and TeX break words at, the string's terminator, and
// Windows line ends.
var pdfTextFixes = strings.NewReplacer("\uFFFE", "", "\x00", "", "\r\n", "\n", "\r", "\n")

// cleanPDFText makes PDFium's text of a page the page's text: lines end in \n, without trailing
// spaces.
func cleanPDFText(s string) string {
	lines := strings.Split(pdfTextFixes.Replace(strings.ToValidUTF8(s, "\uFFFD")), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// pdfMeta returns the document information entry tag of h, "" when it has none: PDFium's wrapper
// reports an absent entry as an error.
func pdfMeta(p pdfium.Pdfium, h references.FPDF_DOCUMENT, tag string) string {
	m, err := p.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: h, Tag: tag})
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(strings.ToValidUTF8(strings.TrimRight(m.Value, "\x00"), "\uFFFD"))
	if len(s) > maxPDFMetaBytes {
		s = strings.ToValidUTF8(s[:maxPDFMetaBytes], "")
	}
	return s
}

// pdfDate parses a PDF date, D:YYYYMMDDHHmmSSOHH'mm' where every part after the year is optional,
// as the zero time when it is not one. A date without a zone is taken as UTC.
func pdfDate(s string) time.Time {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	n := 0
	for n < len(s) && n < 14 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n < 4 || n%2 != 0 {
		return time.Time{}
	}
	t, err := time.Parse("20060102150405"[:n], s[:n])
	if err != nil {
		return time.Time{}
	}
	loc, ok := pdfZone(s[n:])
	if !ok {
		return time.Time{}
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc)
}

// pdfZone parses the zone of a PDF date: "", "Z", or +HH'mm' or -HH'mm' with the minutes and
// apostrophes optional.
func pdfZone(z string) (*time.Location, bool) {
	if z == "" || z[0] == 'Z' {
		return time.UTC, true
	}
	sign := map[byte]int{'+': 1, '-': -1}[z[0]]
	digits := strings.ReplaceAll(z[1:], "'", "")
	if sign == 0 || (len(digits) != 2 && len(digits) != 4) || strings.Trim(digits, "0123456789") != "" {
		return nil, false
	}
	hh, err1 := strconv.Atoi(digits[:2])
	mm, err2 := strconv.Atoi("0" + digits[2:])
	if err1 != nil || err2 != nil || hh > 23 || mm > 59 {
		return nil, false
	}
	if hh == 0 && mm == 0 {
		return time.UTC, true
	}
	return time.FixedZone("", sign*(hh*3600+mm*60)), true
}

// pdfEngine holds PDFium's pool and its one instance, made on first use so the server's start
// does not pay for it, and closed when idle.
type pdfEngine struct {
	mu       sync.Mutex
	cacheDir func() string
	cacheSet bool // SetCacheDir was called: a nil cacheDir, or "", means no cache
	cache    wazero.CompilationCache
	pool     pdfium.Pool
	inst     pdfium.Pdfium
	memory   pdfAllocator
	idle     *time.Timer
	uses     int
}

// run calls fn with the instance, under ctx's deadline and maxPDFTime: when either ends, the
// instance is killed, which stops PDFium where it is. After any error the instance is thrown
// away, as PDFium's state after a failure is not trusted; the next call makes a fresh one.
func (e *pdfEngine) run(ctx context.Context, fn func(pdfium.Pdfium) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pdf: %w", err)
	}
	inst, err := e.instance()
	if err != nil {
		return err
	}
	defer e.arm()
	e.memory.refused.Store(false)
	limit, cancel := context.WithTimeoutCause(ctx, maxPDFTime, errPDFSlow)
	defer cancel()
	killed := make(chan struct{})
	stop := context.AfterFunc(limit, func() {
		inst.Kill()
		close(killed)
	})
	err = fn(inst)
	if !stop() {
		<-killed
		e.inst = nil
		return stoppedError(ctx, limit, err)
	}
	if err != nil {
		inst.Kill()
		e.inst = nil
		return e.classify(err)
	}
	return nil
}

// stoppedError is what a call that limit stopped returns: nil when it had finished, ErrTooLarge
// at maxPDFTime, else ctx's error.
func stoppedError(ctx, limit context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case context.Cause(limit) == errPDFSlow:
		return fmt.Errorf("%w: the pdf takes more than %v to read", ErrTooLarge, maxPDFTime)
	default:
		return fmt.Errorf("pdf: %w", ctx.Err())
	}
}

// classify wraps an error of PDFium in the package's error it is.
func (e *pdfEngine) classify(err error) error {
	switch {
	case errors.Is(err, ErrNoPage):
		return err
	case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
		return fmt.Errorf("pdf: %w", ErrEncrypted)
	case e.memory.refused.Load():
		return fmt.Errorf("%w: the pdf needs more than the %d MB of memory it is read within",
			ErrTooLarge, pdfMemoryBytes>>20)
	default:
		// A trap's message goes on with WebAssembly's stack: its first line says what it was.
		reason, _, _ := strings.Cut(err.Error(), "\n")
		return fmt.Errorf("%w pdf: %s", ErrMalformed, reason)
	}
}

// instance returns the instance, making the pool and the instance that are missing.
func (e *pdfEngine) instance() (pdfium.Pdfium, error) {
	if e.pool == nil {
		pool, err := e.newPool()
		if err != nil {
			e.shutdown()
			return nil, fmt.Errorf("pdf: starting pdfium: %w", err)
		}
		e.pool = pool
	}
	if e.inst == nil {
		inst, err := e.pool.GetInstance(time.Minute)
		if err != nil {
			e.shutdown()
			return nil, fmt.Errorf("pdf: starting pdfium: %w", err)
		}
		e.inst = inst
	}
	return e.inst, nil
}

// newPool starts PDFium's WebAssembly build with one instance at most, its memory capped, no
// host filesystem, its output discarded (stdout is the MCP channel), and calls that stop when
// their context ends.
func (e *pdfEngine) newPool() (pdfium.Pool, error) {
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true)
	if e.cache = e.compilationCache(); e.cache != nil {
		rc = rc.WithCompilationCache(e.cache)
	}
	return webassembly.Init(webassembly.Config{
		Context:       experimental.WithMemoryAllocator(context.Background(), &e.memory),
		MaxIdle:       1,
		MaxTotal:      1,
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
}

// compilationCache opens the compilation cache in the folder set by SetCacheDir, or in the
// shared one; nil when it cannot, and PDFium is compiled anew.
func (e *pdfEngine) compilationCache() wazero.CompilationCache {
	dir := ""
	switch {
	case !e.cacheSet:
		dir = sharedCacheDir()
	case e.cacheDir != nil:
		dir = e.cacheDir()
	}
	if dir == "" {
		return nil
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil
	}
	return c
}

// arm (re)starts the idle timer after a use.
func (e *pdfEngine) arm() {
	e.uses++
	use := e.uses
	if e.idle != nil {
		e.idle.Stop()
	}
	e.idle = time.AfterFunc(pdfIdle, func() { e.closeIdle(use) })
}

// closeIdle closes PDFium if it has not been used since use.
func (e *pdfEngine) closeIdle(use int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if use == e.uses {
		e.shutdown()
	}
}

// shutdown closes the pool, its instance and the compilation cache's compiled code in memory, and
// lets PDFium's memory go.
func (e *pdfEngine) shutdown() {
	if e.pool != nil {
		e.pool.Close()
	}
	if e.cache != nil {
		e.cache.Close(context.Background())
	}
	e.memory.release()
	e.pool, e.inst, e.cache = nil, nil, nil
}

// pdfAllocator backs an instance's memory with one block of pdfMemoryBytes reserved up front:
// wazero otherwise grows memory by copying it, which took several times the cap. The block is
// taken from the OS untouched, so what PDFium does not use costs no RAM, and it is kept for the
// next instance: a fresh block after each bomb would hold the process at a multiple of the cap
// until the garbage collector ran.
type pdfAllocator struct {
	// refused says an instance asked for more than the cap since it was last reset.
	refused atomic.Bool

	mu    sync.Mutex
	block []byte
	used  uint64 // the most of block an instance had: what the next one must find zeroed
	gen   int    // counts the instances block was given to
	taken bool   // an instance has block
}

// Allocate implements experimental.MemoryAllocator.
func (a *pdfAllocator) Allocate(_, maxBytes uint64) experimental.LinearMemory {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.block == nil || a.taken {
		a.block, a.used = make([]byte, 0, pdfMemoryBytes), 0
	}
	clear(a.block[:a.used])
	a.gen++
	a.taken = true
	return &pdfMemory{a: a, gen: a.gen, buf: a.block[:0:min(maxBytes, pdfMemoryBytes)]}
}

// release lets the block go, for the garbage collector to take back when PDFium is closed.
func (a *pdfAllocator) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.block, a.used, a.taken = nil, 0, false
}

// pdfMemory is one instance's memory.
type pdfMemory struct {
	a   *pdfAllocator
	gen int
	buf []byte
}

// Reallocate implements experimental.LinearMemory: it grows within the block, never past it.
func (m *pdfMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		m.a.refused.Store(true)
		return nil
	}
	m.buf = m.buf[:size]
	m.a.mu.Lock()
	if m.gen == m.a.gen {
		m.a.used = max(m.a.used, size)
	}
	m.a.mu.Unlock()
	return m.buf
}

// Free implements experimental.LinearMemory: the block is free for the next instance, which
// starts after this one's last call has returned (calls are serialised).
func (m *pdfMemory) Free() {
	m.a.mu.Lock()
	defer m.a.mu.Unlock()
	if m.gen == m.a.gen {
		m.a.taken = false
	}
}
