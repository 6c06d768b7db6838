package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/intents"
)

// windowOracle is what window answers, worked out from the text's lines as a list: the lines
// from the offset, as many as the limit allows, while they fit the budget (the first always).
func windowOracle(text string, p intents.AccessPreferences) ReaderResult {
	lines := splitLines(text)
	out := ReaderResult{TotalLines: ptr(len(lines))}
	start := min(p.Offset, len(lines))
	end := len(lines)
	if p.Limit > 0 {
		end = min(start+p.Limit, len(lines))
	}
	budget := MaxContentBytes
	if p.ChunkIfLarge {
		budget = ChunkBytes
	}
	content, i := "", start
	for ; i < end && (i == start || len(content)+len(lines[i]) <= budget); i++ {
		content += lines[i]
	}
	out.Content = &content
	if start > 0 || p.Limit > 0 || i < end {
		out.Offset = ptr(start)
	}
	if i < end {
		out.Truncated, out.NextOffset = true, ptr(i)
	} else if end < len(lines) {
		out.NextOffset = ptr(end)
	}
	return out
}

// TestWindow checks the lines a read returns, and the offsets it reports, against windowOracle:
// offsets and limits inside, at and past the end, lines that do and do not end with a newline,
// and lines longer than the budget.
func TestWindow(t *testing.T) {
	long := strings.Repeat("y", ChunkBytes+10) + "\n"
	texts := map[string]string{
		"empty":        "",
		"one line":     "only\n",
		"no final eol": "a\nb\nc",
		"crlf":         "a\r\nb\r\n",
		"blank lines":  "\n\n\n",
		"many":         strings.Repeat("0123456789abcde\n", 300),
		"over budget":  strings.Repeat(strings.Repeat("x", 1000)+"\n", 300),
		"long lines":   long + "short\n" + long + long,
	}
	prefs := []intents.AccessPreferences{
		{},
		{Offset: 1},
		{Offset: 2, Limit: 1},
		{Limit: 2},
		{Offset: 299, Limit: 5},
		{Offset: 1000},
		{ChunkIfLarge: true},
		{Offset: 1, ChunkIfLarge: true},
		{Offset: 3, Limit: 100, ChunkIfLarge: true},
	}
	s := New(Config{})
	for name, text := range texts {
		for _, p := range prefs {
			t.Run(fmt.Sprintf("%s/%+v", name, p), func(t *testing.T) {
				var got ReaderResult
				s.window(&got, []byte(text), p)
				if diff := cmp.Diff(windowOracle(text, p), got); diff != "" {
					t.Errorf("window (-want +got):\n%s", diff)
				}
			})
		}
	}
}
