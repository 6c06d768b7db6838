package tools

import (
	"mime"
	"net/http"
	"path"
	"strings"
)

// sniffLen is how much of a file decides whether it is text: what http.DetectContentType reads.
const sniffLen = 512

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
