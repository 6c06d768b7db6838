package text

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/result"
)

// The budgets of tools' reads (tools.MaxContentBytes, tools.ChunkBytes), which this package's tests
// cannot import.
const (
	maxContentBytes = 256 << 10
	chunkBytes      = 64 << 10
)

// windowOracle is what Window answers, worked out from the text's lines as a list: the lines
// from the offset, as many as the limit allows, while they fit the budget (the first always, when
// first).
func windowOracle(body string, p intents.AccessPreferences, budget int, first bool) result.FileContent {
	lines := SplitLines(body)
	out := result.FileContent{TotalLines: ptr(len(lines))}
	start := min(p.Offset, len(lines))
	end := len(lines)
	if p.Limit > 0 {
		end = min(start+p.Limit, len(lines))
	}
	content, i := "", start
	for ; i < end && (i == start && first || len(content)+len(lines[i]) <= budget); i++ {
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
// and lines longer than the budget; the budget of a single read, and what a read of several files
// leaves for a later one (nothing, or a few lines' worth).
func TestWindow(t *testing.T) {
	long := strings.Repeat("y", chunkBytes+10) + "\n"
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
	for name, text := range texts {
		for _, p := range prefs {
			for _, budget := range []int{maxContentBytes, 0, 5000} {
				if p.ChunkIfLarge {
					budget = min(budget, chunkBytes) // as readEntry does
				}
				for _, first := range []bool{true, false} {
					t.Run(fmt.Sprintf("%s/%+v/%d/first=%v", name, p, budget, first), func(t *testing.T) {
						var got result.FileContent
						Window(&got, []byte(text), p, budget, first)
						if diff := cmp.Diff(windowOracle(text, p, budget, first), got); diff != "" {
							t.Errorf("window (-want +got):\n%s", diff)
						}
					})
				}
			}
		}
	}
}
