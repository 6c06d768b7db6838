package markdown

import (
	"testing"
	"time"
)

// TestAfterMoves resolves links against the graph as a move would leave it: moved documents at
// their new paths and found by their new names, gone from the old ones; the graph unchanged.
func TestAfterMoves(t *testing.T) {
	g := NewGraph()
	for name, src := range map[string]string{
		"x/n.md":   "# N\n",
		"x/a.md":   "[[n]]\n",
		"f/one.md": "---\naliases: [uno]\n---\n# One\n",
		"keep.md":  "# Keep\n",
	} {
		g.Put(Parse(name, []byte(src), time.Time{}))
	}
	v := g.AfterMoves([]Moved{{From: "x/n.md", To: "y/renamed.md"}, {From: "f", To: "g/h"}})
	tests := []struct {
		from string
		link Link
		want string // "" for broken
	}{
		{"x/a.md", Link{Kind: KindWiki, Target: "n"}, ""},
		{"x/a.md", Link{Kind: KindWiki, Target: "renamed"}, "y/renamed.md"},
		{"x/a.md", Link{Kind: KindMarkdown, Target: "../y/renamed.md"}, "y/renamed.md"},
		{"x/a.md", Link{Kind: KindMarkdown, Target: "n.md"}, ""},
		{"keep.md", Link{Kind: KindWiki, Target: "uno"}, "g/h/one.md"},
		{"keep.md", Link{Kind: KindMarkdown, Target: "f/one.md"}, ""},
		{"g/h/one.md", Link{Kind: KindMarkdown, Target: "../../keep.md"}, "keep.md"},
	}
	for _, tt := range tests {
		if got := v.Resolve(tt.from, tt.link).To; got != tt.want {
			t.Errorf("from %s, %s %q reaches %q, want %q", tt.from, tt.link.Kind, tt.link.Target, got, tt.want)
		}
	}
	if links, ok := v.Links("y/renamed.md"); !ok || links != nil {
		t.Errorf("Links of the moved note = %v, %v; want none, and a document", links, ok)
	}
	if r := g.Resolve("x/a.md", Link{Kind: KindWiki, Target: "n"}); r.To != "x/n.md" {
		t.Errorf("the graph itself changed: [[n]] reaches %q", r.To)
	}
}
