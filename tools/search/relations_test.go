package search

import (
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/markdown"
)

func TestSourceLine(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes, each rune two
	tests := []struct {
		name  string
		lines []string
		b     markdown.Backlink
		want  string
	}{
		{"short", []string{"a", " [[x]] \r"}, markdown.Backlink{Line: 2}, "[[x]]"},
		{"past the end", []string{"a"}, markdown.Backlink{Line: 2}, ""},
		{"no line", []string{"a"}, markdown.Backlink{}, ""},
		{"long, no offset", []string{long}, markdown.Backlink{Line: 1}, strings.Repeat("é", 80) + "…"},
		{"long, at the end", []string{"ab", long}, markdown.Backlink{Line: 2, Start: 3 + 190}, "…" + strings.Repeat("é", 80)},
		{"long, mid rune", []string{long}, markdown.Backlink{Line: 1, Start: 61 + 20}, "…" + strings.Repeat("é", 80) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sourceLine(tt.lines, tt.b); got != tt.want {
				t.Errorf("sourceLine = %q, want %q", got, tt.want)
			}
		})
	}
}
