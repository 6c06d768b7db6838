// Package markdown is the document model: it parses markdown with goldmark into titles, sections
// and links ([Parse]), resolves links to root-relative paths and never beyond the root ([Resolve]),
// keeps the graph of relationships (links, backlinks, frontmatter relations: [Graph]), and rewrites
// links when a document moves ([RewriteLinks], [RelinkMoved]). It does no I/O: callers hand it the
// bytes of a file and, where it must know which files exist, a [Names] set. goldmark types stay
// out of its API.
package markdown

import (
	"bytes"
	"time"
	"unicode/utf8"
)

// Doc is one parsed document: a markdown note, or any other text file taken as plain text.
type Doc struct {
	Path     string // root-relative slash path
	Title    string // frontmatter title, else the first H1, else the file name without extension
	Markdown bool   // parsed as markdown (by extension: .md, .markdown, .mdx)
	Headings []Heading
	Sections []Section // the text split at headings; a plain-text file is one section
	Links    []Link    // every outgoing link, in source order, frontmatter relations included
	Tags     []string  // frontmatter tags (and inline #tags), without '#'
	Aliases  []string  // frontmatter aliases
	Size     int64
	ModTime  time.Time
	// Frontmatter reports that the file may open with frontmatter, whose raw text the index does
	// not keep: a literal search must read such a file rather than trust the index.
	Frontmatter bool
}

// Heading is one heading of a markdown document.
type Heading struct {
	Level   int    // 1 to 6
	Text    string // plain text of the heading
	Anchor  string // GitHub-style slug: lower-case, spaces to '-', punctuation dropped
	Line    int    // 1-based line of the heading
	EndLine int    // last line of its section (before the next heading of the same or higher level)
}

// Section is the text between one heading and the next (any level); the text before the first
// heading is a section with an empty Heading.
type Section struct {
	Heading string // the heading's text, "" for the preamble
	Anchor  string
	Level   int // 0 for the preamble
	Line    int // 1-based first line (the heading's line)
	EndLine int
	Text    string // the section's text as plain as is cheap: markdown source without frontmatter
}

// LinkKind says how a link was written.
type LinkKind string

// The kinds of links.
const (
	KindMarkdown    LinkKind = "markdown"    // [text](dest)
	KindReference   LinkKind = "reference"   // [text][ref] with [ref]: dest
	KindAutolink    LinkKind = "autolink"    // <https://...> or a bare URL (GFM)
	KindWiki        LinkKind = "wiki"        // [[Note]], [[Note#Heading]], [[Note|alias]]
	KindEmbed       LinkKind = "embed"       // ![[Note]] or ![alt](image.png)
	KindFrontmatter LinkKind = "frontmatter" // parent, children or related in frontmatter
)

// Link is one outgoing link as written in the source.
type Link struct {
	Kind     LinkKind
	Rel      string // for KindFrontmatter: "parent", "children" or "related"; else ""
	Target   string // destination without its fragment: "../a.md", "Note Name", "https://x.org"
	Fragment string // heading or block after '#', without the '#'
	Text     string // link text or wiki alias
	Line     int    // 1-based line of the link
	// Start and End are the byte offsets of Target in the source, so a move can rewrite it.
	// Both are 0 when the target cannot be rewritten in place.
	Start, End int
}

// Outline returns d without its sections' text: what the graph keeps. The text lives in the
// full-text index; holding it twice would double the memory a large tree takes.
func (d Doc) Outline() Doc {
	d.Sections = nil
	return d
}

// IsText reports whether src is text the tools read, search and index: valid UTF-8 with no NUL
// byte. A UTF-16 file (with or without its byte-order mark) fails both tests and is taken as
// binary, never mangled. [TextCheck] says the same of content that arrives in pieces.
func IsText(src []byte) bool {
	return utf8.Valid(src) && bytes.IndexByte(src, 0) < 0
}

// TextCheck says what [IsText] says of content written to it in pieces, holding at most one
// character cut off between two pieces. The zero value is ready: content of no bytes is text.
type TextCheck struct {
	invalid bool // a NUL byte or invalid UTF-8 was seen
	// partial holds the first np bytes of a character cut off at the end of the last piece.
	partial [utf8.UTFMax]byte
	np      int
}

// Write judges the next piece of the content.
func (c *TextCheck) Write(p []byte) {
	if c.invalid || len(p) == 0 {
		return
	}
	if bytes.IndexByte(p, 0) >= 0 {
		c.invalid = true
		return
	}
	if c.np > 0 {
		// Complete the character cut off at the end of the last piece.
		var buf [2 * utf8.UTFMax]byte
		n := copy(buf[:], c.partial[:c.np])
		n += copy(buf[n:], p[:min(len(p), utf8.UTFMax)])
		if !utf8.FullRune(buf[:n]) { // still cut off: p is shorter than the rest of it
			c.np = copy(c.partial[:], buf[:n])
			return
		}
		r, size := utf8.DecodeRune(buf[:n])
		if r == utf8.RuneError && size == 1 {
			c.invalid = true
			return
		}
		p = p[size-c.np:]
		c.np = 0
	}
	cut := cutRune(p)
	if !utf8.Valid(p[:len(p)-cut]) {
		c.invalid = true
		return
	}
	c.np = copy(c.partial[:], p[len(p)-cut:])
}

// Text reports whether the content written so far is text.
func (c *TextCheck) Text() bool { return !c.invalid && c.np == 0 }

// cutRune returns how many bytes at the end of p begin a character that p cuts off: 0 when p ends
// on a whole character (or on bytes that are invalid whatever follows).
func cutRune(p []byte) int {
	for i := 1; i < utf8.UTFMax && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if utf8.FullRune(p[len(p)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}
