package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strings"
)

// Limits of a zip-based document (DOCX, PPTX, ODT, ODP, EPUB): what reading one costs, whatever its
// directory claims. Each refusal wraps [ErrTooLarge] and names the entry.
const (
	// MaxZipEntries is the most entries a document's zip may hold: Word and LibreOffice write a few
	// dozen, a long EPUB a few thousand, and archive/zip keeps every entry of the directory in
	// memory, several times the zip's size for a zip of empty entries.
	MaxZipEntries = 10_000
	// MaxEntryBytes is the most one entry may declare or inflate to: a MaxDocumentBytes document's
	// XML deflates about 10:1, so no real entry read for text comes near it.
	MaxEntryBytes = 64 << 20
	// MaxZipRatio is the highest compression ratio of an entry over ratioFloor: XML deflates 10 to
	// 30:1, a run of zeros (a zip bomb) about 1000:1.
	MaxZipRatio = 200
	// MaxUnzippedBytes is the most all the entries a document's text is read from may inflate to,
	// counted as they are read: it bounds the time one document takes whatever its entries declare.
	MaxUnzippedBytes = 256 << 20
	// MaxXMLDepth is the deepest an entry's XML may nest: Word nests tables in tables a few levels
	// deep, and encoding/xml keeps a record per open element.
	MaxXMLDepth = 256
	// ratioFloor is the size below which MaxZipRatio is not applied: a small entry of repeated
	// markup may deflate well past it and costs nothing.
	ratioFloor = 1 << 20
	// tokensPerCheck is how many XML tokens are read between looks at the context's deadline.
	tokensPerCheck = 1024
)

// oleMagic opens an OLE compound file: Office writes a password-protected DOCX, XLSX or PPTX as
// one (the package encrypted inside an "EncryptedPackage" stream), under the same extension.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// Sentinels of a walk; neither leaves the package.
var (
	// errStop ends a walk early: the text budget is spent.
	errStop = errors.New("stop")
	// errSkip, returned for a start element, skips the element's content.
	errSkip = errors.New("skip")
	// errMissing is an entry the zip does not hold.
	errMissing = errors.New("missing")
)

// zipDoc is a document's zip, read within the limits above.
type zipDoc struct {
	r     *zip.Reader
	files map[string]*zip.File
	// left is what the document's entries may still inflate to (MaxUnzippedBytes at first).
	left int64
}

// openZip opens data as a zip within MaxZipEntries. An OLE compound file is [ErrEncrypted]: it is
// how Office stores a password-protected document.
func openZip(data []byte) (*zipDoc, error) {
	if bytes.HasPrefix(data, oleMagic) {
		return nil, fmt.Errorf("%w: an OLE compound file, as Office stores a password-protected document", ErrEncrypted)
	}
	// Every directory record archive/zip accepts opens with this signature, so counting it bounds
	// the entries before archive/zip allocates one record each.
	if n := bytes.Count(data, []byte("PK\x01\x02")); n > MaxZipEntries {
		return nil, fmt.Errorf("%w: the zip holds more than %d entries", ErrTooLarge, MaxZipEntries)
	}
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a readable zip: %v", ErrMalformed, err)
	}
	if len(r.File) > MaxZipEntries {
		return nil, fmt.Errorf("%w: the zip holds %d entries, more than %d", ErrTooLarge, len(r.File), MaxZipEntries)
	}
	z := &zipDoc{r: r, files: make(map[string]*zip.File, 2*len(r.File)), left: MaxUnzippedBytes}
	for _, f := range r.File {
		// OPC part names are case-insensitive; the exact name is looked up first.
		for _, k := range []string{f.Name, strings.ToLower(f.Name)} {
			if _, ok := z.files[k]; !ok {
				z.files[k] = f
			}
		}
	}
	return z, nil
}

// file returns the entry name, nil when there is none.
func (z *zipDoc) file(name string) *zip.File {
	if f, ok := z.files[name]; ok {
		return f
	}
	return z.files[strings.ToLower(name)]
}

// open returns a reader of entry name's inflated bytes. It refuses an encrypted entry, one that
// declares more than MaxEntryBytes or a ratio over MaxZipRatio, and its reader fails with
// [ErrTooLarge] as soon as the entry inflates past what it declares or the document past
// MaxUnzippedBytes: archive/zip's own reader trusts the declared size for neither.
func (z *zipDoc) open(name string) (io.Reader, error) {
	f := z.file(name)
	if f == nil {
		return nil, fmt.Errorf("%w: no %s", errMissing, name)
	}
	if f.Flags&1 != 0 {
		return nil, fmt.Errorf("%w: entry %s is encrypted", ErrEncrypted, f.Name)
	}
	size := f.UncompressedSize64
	if size > MaxEntryBytes {
		return nil, fmt.Errorf("%w: entry %s declares %d MB, more than %d MB", ErrTooLarge, f.Name, size>>20, MaxEntryBytes>>20)
	}
	if size > ratioFloor && size/MaxZipRatio > f.CompressedSize64 {
		return nil, fmt.Errorf("%w: entry %s inflates more than %d times its size", ErrTooLarge, f.Name, MaxZipRatio)
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, fmt.Errorf("%w: entry %s: %v", ErrMalformed, f.Name, err)
	}
	e := &entryReader{z: z, f: f, crc: crc32.NewIEEE()}
	switch f.Method {
	case zip.Store:
		e.r = raw
	case zip.Deflate:
		e.r = flate.NewReader(raw)
	default:
		return nil, fmt.Errorf("%w: entry %s is compressed by method %d, which is not read", ErrMalformed, f.Name, f.Method)
	}
	return e, nil
}

// read returns entry name's bytes, within the limits open keeps.
func (z *zipDoc) read(name string) ([]byte, error) {
	r, err := z.open(name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(int(z.file(name).UncompressedSize64)) // at most MaxEntryBytes, checked by open
	if _, err := b.ReadFrom(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// entryReader inflates one entry, counting what it yields against the entry's declared size and
// the document's budget, and checks the entry's CRC at its end.
type entryReader struct {
	z   *zipDoc
	f   *zip.File
	r   io.Reader
	n   uint64
	crc hash.Hash32
}

func (e *entryReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.n += uint64(n)
	e.z.left -= int64(n)
	e.crc.Write(p[:n])
	switch {
	case e.n > e.f.UncompressedSize64:
		return 0, fmt.Errorf("%w: entry %s inflates past the %d bytes it declares", ErrTooLarge, e.f.Name, e.f.UncompressedSize64)
	case e.z.left < 0:
		return 0, fmt.Errorf("%w: the document inflates past %d MB (at entry %s)", ErrTooLarge, MaxUnzippedBytes>>20, e.f.Name)
	case err == io.EOF:
		return n, e.end()
	case err != nil:
		return 0, fmt.Errorf("%w: entry %s: %v", ErrMalformed, e.f.Name, err)
	}
	return n, nil
}

// end checks what was read of a whole entry against its directory record.
func (e *entryReader) end() error {
	if e.n != e.f.UncompressedSize64 {
		return fmt.Errorf("%w: entry %s ends after %d of the %d bytes it declares", ErrMalformed, e.f.Name, e.n, e.f.UncompressedSize64)
	}
	if e.crc.Sum32() != e.f.CRC32 {
		return fmt.Errorf("%w: entry %s fails its checksum", ErrMalformed, e.f.Name)
	}
	return io.EOF
}

// walkXML reads entry name's XML token by token within MaxXMLDepth, the zip's limits and ctx,
// handing fn each token with the local names of the elements open at it (for a start or an end
// element, the element's own name last). fn returns errSkip for a start element to pass over its
// content, errStop to end the walk (walkXML then returns errStop), or another error to fail it.
//
// The decoder is strict: Word, PowerPoint, LibreOffice and EPUB writers emit well-formed XML, and
// strictness keeps starts and ends balanced, so the depth counted is the depth there is; a broken
// entry is [ErrMalformed] rather than text silently misread. encoding/xml expands only the five
// predefined entities and character references: a DTD is handed over as a directive and never
// interpreted, so no entity expands to more text (billion laughs) or reads a file or URL.
func (z *zipDoc) walkXML(ctx context.Context, name string, fn func(tok xml.Token, open []string) error) error {
	r, err := z.open(name)
	if err != nil {
		return err
	}
	d := xml.NewDecoder(r)
	var open []string
	skipping := 0 // the depth of an element being skipped, 0 when none
	for n := 0; ; n++ {
		if n%tokensPerCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return xmlError(name, err)
		}
		start, isStart := tok.(xml.StartElement)
		if isStart {
			if len(open) == MaxXMLDepth {
				return fmt.Errorf("%w: entry %s nests its XML deeper than %d", ErrTooLarge, name, MaxXMLDepth)
			}
			open = append(open, start.Name.Local)
		}
		_, isEnd := tok.(xml.EndElement)
		if skipping == 0 {
			switch err := fn(tok, open); {
			case err == errSkip && isStart:
				skipping = len(open)
			case err != nil && err != errSkip:
				return err
			}
		} else if isEnd && len(open) == skipping {
			skipping = 0
		}
		if isEnd {
			open = open[:len(open)-1]
		}
	}
}

// xmlError wraps an error of reading entry name's XML: the zip's own refusals as they are, the
// XML's as [ErrMalformed].
func xmlError(name string, err error) error {
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrMalformed) || errors.Is(err, ErrEncrypted) {
		return err
	}
	return fmt.Errorf("%w: entry %s: %v", ErrMalformed, name, err)
}
