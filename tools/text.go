package tools

import (
	"bytes"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file decides whether it is text: what http.DetectContentType reads.
const sniffLen = 512

// isText reports whether data is UTF-8 text: valid UTF-8 with no NUL byte. A UTF-16 file (with or
// without its byte-order mark) fails both tests and is reported as binary, never mangled.
func isText(data []byte) bool {
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}

// textScan judges a file's content piece by piece, as it arrives from [fsroot.Entry.Scan], the way
// isText, splitLines and mediaType judge it whole, while holding only the first sniffLen bytes and
// one incomplete character: what metadata needs of a file up to the size limit, in constant memory.
type textScan struct {
	head    []byte // the first sniffLen bytes, for mediaType
	invalid bool   // a NUL byte or invalid UTF-8 was seen
	// partial holds the first np bytes of a character cut off at the end of the last piece.
	partial  [utf8.UTFMax]byte
	np       int
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
	if t.invalid {
		return
	}
	if bytes.IndexByte(p, 0) >= 0 {
		t.invalid = true
		return
	}
	if t.np > 0 {
		// Complete the character cut off at the end of the last piece.
		var buf [2 * utf8.UTFMax]byte
		n := copy(buf[:], t.partial[:t.np])
		n += copy(buf[n:], p[:min(len(p), utf8.UTFMax)])
		if !utf8.FullRune(buf[:n]) { // still cut off: p is shorter than the rest of it
			t.np = copy(t.partial[:], buf[:n])
			return
		}
		r, size := utf8.DecodeRune(buf[:n])
		if r == utf8.RuneError && size == 1 {
			t.invalid = true
			return
		}
		p = p[size-t.np:]
		t.np = 0
	}
	cut := cutRune(p)
	if !utf8.Valid(p[:len(p)-cut]) {
		t.invalid = true
		return
	}
	t.np = copy(t.partial[:], p[len(p)-cut:])
}

// text reports whether the content was UTF-8 text, as isText would say of it whole.
func (t *textScan) text() bool { return !t.invalid && t.np == 0 }

// lines is lineCount of the content: every line ends with a newline but the last, which may not.
func (t *textScan) lines() int {
	if t.size > 0 && t.last != '\n' {
		return t.newlines + 1
	}
	return t.newlines
}

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
