package relink

import (
	"strings"
	"testing"
)

func TestNamesPath(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"notes/old.md", true},
		{`"notes/old.md",`, true},
		{"/notes/old.md", true},
		{"notes/old.md#part", true},
		{"see notes/old.md.", true},
		{"notes/old.md/inside", true},
		{"xnotes/old.md", false},
		{"notes/old.md.bak", false},
		{"notes/old.mdx", false},
		{"notes/old.md-2", false},
		{"énotes/old.md", false},
		{"nothing here", false},
		{"xnotes/old.md and notes/old.md", true},
	}
	for _, tt := range tests {
		if _, got := namesPath([]byte(tt.line), []string{"notes/old.md"}); got != tt.want {
			t.Errorf("namesPath(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestAround(t *testing.T) {
	long := strings.Repeat("a", 300) + "notes/old.md" + strings.Repeat("b", 300)
	got := around([]byte(long), 300)
	if !strings.Contains(got, "notes/old.md") || len(got) > maxMentionText+2*len("…") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("around = %q", got)
	}
	if got := around([]byte("  short notes/old.md \r"), 8); got != "short notes/old.md" {
		t.Errorf("around = %q", got)
	}
}
