package markdown

import (
	"encoding/binary"
	"errors"
	"time"
)

// A document's outline is stored beside its meta record in a small binary form: a restart decodes
// one per indexed file before the graph is whole, and decoding JSON was most of a restart's CPU
// (dev/bench/README.md, Scale). The form is a version byte, then the fields of [Doc]
// without its sections in a fixed order: strings as a uvarint length and the bytes, numbers as
// varints, lists as a uvarint count and their items.
//
// Links that lead out of the root (URLs) are left out: the graph never keeps them (see outlineOf),
// and nearly every page has one.

// outlineVersion is the first byte of an encoded outline.
const outlineVersion = 1

// errOutline reports an outline that cannot be decoded; the build then reads the file again.
var errOutline = errors.New("markdown: malformed outline")

// EncodeOutline keeps what the relationship graph needs of d, so a restart can rebuild the graph
// without reading the files that did not change.
func EncodeOutline(d Doc) string {
	b := make([]byte, 0, 64+len(d.Path)+len(d.Title)+48*(len(d.Headings)+len(d.Links)))
	b = append(b, outlineVersion)
	b = putString(b, d.Path)
	b = putString(b, d.Title)
	var flags uint64
	if d.Markdown {
		flags |= 1
	}
	if d.Frontmatter {
		flags |= 2
	}
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendVarint(b, d.Size)
	b = binary.AppendVarint(b, d.ModTime.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(d.Headings)))
	for _, h := range d.Headings {
		b = putInts(b, h.Level, h.Line, h.EndLine)
		b = putString(b, h.Text)
		b = putString(b, h.Anchor)
	}
	kept := 0
	for _, l := range d.Links {
		if !external(l) {
			kept++
		}
	}
	b = binary.AppendUvarint(b, uint64(kept))
	for _, l := range d.Links {
		if external(l) {
			continue
		}
		b = putInts(b, l.Line, l.Start, l.End)
		for _, s := range []string{string(l.Kind), l.Rel, l.Target, l.Fragment, l.Text} {
			b = putString(b, s)
		}
	}
	for _, list := range [][]string{d.Tags, d.Aliases} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, s := range list {
			b = putString(b, s)
		}
	}
	return string(b)
}

func putString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func putInts(b []byte, ns ...int) []byte {
	for _, n := range ns {
		b = binary.AppendVarint(b, int64(n))
	}
	return b
}

// DecodeOutline is the inverse of EncodeOutline. The strings of the document it returns share s's
// bytes, so a decoded outline costs one allocation for its text.
func DecodeOutline(s string) (Doc, error) {
	r := outlineReader{s: s}
	if r.byte() != outlineVersion {
		return Doc{}, errOutline
	}
	var d Doc
	d.Path, d.Title = r.string(), r.string()
	flags := r.uvarint()
	d.Markdown, d.Frontmatter = flags&1 != 0, flags&2 != 0
	d.Size = r.varint()
	d.ModTime = time.Unix(0, r.varint())
	if n := r.count(); n > 0 {
		d.Headings = make([]Heading, n)
		for i := range d.Headings {
			h := &d.Headings[i]
			h.Level, h.Line, h.EndLine = r.int(), r.int(), r.int()
			h.Text, h.Anchor = r.string(), r.string()
		}
	}
	if n := r.count(); n > 0 {
		d.Links = make([]Link, n)
		for i := range d.Links {
			l := &d.Links[i]
			l.Line, l.Start, l.End = r.int(), r.int(), r.int()
			l.Kind = LinkKind(r.string())
			l.Rel, l.Target, l.Fragment, l.Text = r.string(), r.string(), r.string(), r.string()
		}
	}
	d.Tags, d.Aliases = r.strings(), r.strings()
	if r.bad || r.i != len(s) || d.Path == "" {
		return Doc{}, errOutline
	}
	return d, nil
}

// outlineReader reads an encoded outline; past the end or on a bad number it sets bad and returns
// zero values, so a decoder checks once at the end.
type outlineReader struct {
	s   string
	i   int
	bad bool
}

func (r *outlineReader) byte() byte {
	if r.i >= len(r.s) {
		r.bad = true
		return 0
	}
	r.i++
	return r.s[r.i-1]
}

func (r *outlineReader) uvarint() uint64 {
	var x uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		if r.bad {
			return 0
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
	r.bad = true
	return 0
}

func (r *outlineReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *outlineReader) int() int { return int(r.varint()) }

// count reads a list's length, which cannot exceed the bytes left (every item takes one or more).
func (r *outlineReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.s)-r.i) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *outlineReader) string() string {
	n := r.count()
	if r.bad {
		return ""
	}
	r.i += n
	return r.s[r.i-n : r.i]
}

func (r *outlineReader) strings() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.string()
	}
	return out
}

// encodeRest encodes what the graph keeps of d besides its links (see node.rest), in the form of
// an outline: aliases first, which a move reads of every document, then tags, the title and the
// headings. A title that is the first heading's text, and an anchor that is its heading's slug,
// as most are, take a byte (see putUnless).
func encodeRest(d Doc) string {
	b := make([]byte, 0, 8+len(d.Title)+8*len(d.Headings))
	for _, list := range [][]string{d.Aliases, d.Tags} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, s := range list {
			b = putString(b, s)
		}
	}
	first := ""
	if len(d.Headings) > 0 {
		first = d.Headings[0].Text
	}
	b = putUnless(b, d.Title, first)
	b = binary.AppendUvarint(b, uint64(len(d.Headings)))
	line := 0
	for _, h := range d.Headings {
		b = putInts(b, h.Level, h.Line-line, h.EndLine-h.Line)
		b = putString(b, h.Text)
		b = putUnless(b, h.Anchor, slug(h.Text))
		line = h.Line
	}
	return string(b)
}

// putUnless puts s, as a string one byte longer, or when it is the string likely, a zero.
func putUnless(b []byte, s, likely string) []byte {
	if s == likely {
		return append(b, 0)
	}
	return append(binary.AppendUvarint(b, uint64(len(s))+1), s...)
}

// decodeRest is the inverse of encodeRest: the outline without its links. Its strings share s's
// bytes, but for the anchors it makes again.
func decodeRest(s string) (docOutline, error) {
	r := outlineReader{s: s}
	var o docOutline
	o.Aliases, o.Tags = r.strings(), r.strings()
	title, ok := r.unless()
	if n := r.count(); n > 0 {
		o.Headings = make([]Heading, n)
		line := 0
		for i := range o.Headings {
			h := &o.Headings[i]
			h.Level, h.Line = r.int(), line+r.int()
			h.EndLine = h.Line + r.int()
			h.Text = r.string()
			if a, ok := r.unless(); ok {
				h.Anchor = a
			} else {
				h.Anchor = slug(h.Text)
			}
			line = h.Line
		}
	}
	o.Title = title
	if !ok && len(o.Headings) > 0 {
		o.Title = o.Headings[0].Text
	}
	if r.bad || r.i != len(s) {
		return docOutline{}, errOutline
	}
	return o, nil
}

// unless reads what putUnless put: the string, or false for the likely one.
func (r *outlineReader) unless() (string, bool) {
	n := r.uvarint()
	if n == 0 || r.bad {
		return "", false
	}
	if n-1 > uint64(len(r.s)-r.i) {
		r.bad = true
		return "", false
	}
	r.i += int(n - 1)
	return r.s[r.i-int(n-1) : r.i], true
}

// aliases returns the aliases of n's document, the first of its rest.
func (n *node) aliases() []string {
	r := outlineReader{s: n.rest}
	return r.strings()
}
