package tools

import (
	"bytes"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/packfs/packfs-mcp/markdown"
)

// sniffLen is how much of a file decides whether it is text: what http.DetectContentType reads.
const sniffLen = 512

// headIsText reports whether head, the first bytes of a file, is text ([markdown.IsText]); cut
// says head may end inside a character, which is then not judged.
func headIsText(head []byte, cut bool) bool {
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

// textScan judges a file's content piece by piece, as it arrives from [fsroot.Entry.Scan], the way
// [markdown.IsText], splitLines and mediaType judge it whole, while holding only the first sniffLen
// bytes and one incomplete character: what metadata needs of a file up to the size limit, in
// constant memory.
type textScan struct {
	head     []byte // the first sniffLen bytes, for mediaType
	check    markdown.TextCheck
	newlines int
	size     int64
	last     byte // the last byte seen
}

// add judges the next piece of the content.
func (t *textScan) add(p []byte) {
	if len(p) == 0 {
		return
	}
	if room := sniffLen - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(room, len(p))]...)
	}
	t.size += int64(len(p))
	t.newlines += bytes.Count(p, []byte{'\n'})
	t.last = p[len(p)-1]
	t.check.Write(p)
}

// text reports whether the content was text, as [markdown.IsText] would say of it whole.
func (t *textScan) text() bool { return t.check.Text() }

// lines is lineCount of the content: every line ends with a newline but the last, which may not.
func (t *textScan) lines() int {
	if t.size > 0 && t.last != '\n' {
		return t.newlines + 1
	}
	return t.newlines
}

// mediaType names what a file holds: by its extension when the name is telling, else by sniffing.
func mediaType(name string, data []byte, text bool) string {
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
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	return strings.Split(http.DetectContentType(data), ";")[0]
}

// lineCount is len(splitLines(string(data))), counted in place.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// lineLen is the length of the first line of data with its line ending, as splitLines cuts it.
func lineLen(data []byte) int {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1
	}
	return len(data)
}

// splitLines splits text into lines, each keeping its line ending, so joining them gives the text back.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// trimEOL drops a line's ending.
func trimEOL(line string) string {
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r")
}
