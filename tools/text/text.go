// Package text is what the tools do with a file's text that needs no file: whether bytes are text
// and what media type they hold, lines and their endings, the unified diff of a change, and an
// edit's replacements applied in memory with the refusal that says where its text matched or what
// was nearest.
package text

import (
	"bytes"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/packfs/packfs-mcp/markdown"
)

// SniffLen is how much of a file decides whether it is text: what http.DetectContentType reads.
const SniffLen = 512

// HeadIsText reports whether head, the first bytes of a file, is text ([markdown.IsText]); cut
// says head may end inside a character, which is then not judged.
func HeadIsText(head []byte, cut bool) bool {
	if cut {
		for i := 1; i < utf8.UTFMax && i <= len(head); i++ {
			if utf8.RuneStart(head[len(head)-i]) {
				if !utf8.FullRune(head[len(head)-i:]) {
					head = head[:len(head)-i]
				}
				break
			}
		}
	}
	return markdown.IsText(head)
}

// Scan judges a file's content piece by piece, as it arrives from fsroot's Entry.Scan, the way
// [markdown.IsText], SplitLines and MediaType judge it whole, while holding only the first SniffLen
// bytes and one incomplete character: what metadata needs of a file up to the size limit, in
// constant memory.
type Scan struct {
	head     []byte // the first SniffLen bytes, for MediaType
	check    markdown.TextCheck
	newlines int
	size     int64
	last     byte // the last byte seen
}

// Add judges the next piece of the content.
func (t *Scan) Add(p []byte) {
	if len(p) == 0 {
		return
	}
	if room := SniffLen - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(room, len(p))]...)
	}
	t.size += int64(len(p))
	t.newlines += bytes.Count(p, []byte{'\n'})
	t.last = p[len(p)-1]
	t.check.Write(p)
}

// Text reports whether the content was text, as [markdown.IsText] would say of it whole.
func (t *Scan) Text() bool { return t.check.Text() }

// Head is the first SniffLen bytes of the content, for [MediaType].
func (t *Scan) Head() []byte { return t.head }

// EndsLine reports whether the content is empty or ends with a newline, so that text appended to
// it starts a line of its own.
func (t *Scan) EndsLine() bool { return t.size == 0 || t.last == '\n' }

// Lines is LineCount of the content: every line ends with a newline but the last, which may not.
func (t *Scan) Lines() int {
	if t.size > 0 && t.last != '\n' {
		return t.newlines + 1
	}
	return t.newlines
}

// MediaType names what a file holds: by its extension when the name is telling, else by sniffing.
func MediaType(name string, data []byte, text bool) string {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".md", ".markdown", ".mdx":
		return "text/markdown"
	case ".go", ".py", ".rs", ".ts", ".tsx", ".jsx", ".java", ".c", ".h", ".cpp", ".rb", ".sh", ".yaml", ".yml", ".toml":
		return "text/plain"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return strings.Split(t, ";")[0]
	}
	if text {
		return "text/plain"
	}
	if len(data) > SniffLen {
		data = data[:SniffLen]
	}
	return strings.Split(http.DetectContentType(data), ";")[0]
}

// LineCount is len(SplitLines(string(data))), counted in place.
func LineCount(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// LineLen is the length of the first line of data with its line ending, as SplitLines cuts it.
func LineLen(data []byte) int {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1
	}
	return len(data)
}

// SplitLines splits text into lines, each keeping its line ending, so joining them gives the text back.
func SplitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TrimEOL drops a line's ending.
func TrimEOL(line string) string {
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r")
}
