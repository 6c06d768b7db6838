package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/markdown"
)

// TestRelationshipsVia checks that each related document of relationships and of
// followRelationships says how it is related: the kind of link, the frontmatter field, or a
// backlink. relationships leaves out from, which would repeat target.path on every entry.
func TestRelationshipsVia(t *testing.T) {
	e := newOptionEnv(t, optionTable{engine: true, tree: []string{
		"a.md=# Aardvark\n[md](b.md) [[c]] ![[d]] [ref][r] [again](c.md)\n\n[r]: e.md\n",
		"b.md=# B\n", "c.md=# C\n", "d.md=# D\n", "e.md=# E\n",
		"fm.md=---\nrelated: [\"[[b]]\"]\n---\n# FM\n[[c]]\n",
		"back.md=# Back\nsee [[a]]\n",
	}})
	tests := []struct {
		path string
		want []RelatedEntry
	}{
		{"a.md", []RelatedEntry{
			{Path: "b.md", Via: "markdown"}, {Path: "c.md", Via: "wiki"},
			{Path: "d.md", Via: "embed"}, {Path: "e.md", Via: "reference"},
		}},
		{"fm.md", []RelatedEntry{{Path: "b.md", Via: "frontmatter:related"}}}, // from is the target: left out
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			out := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": tt.path}})
			var got []RelatedEntry
			field(t, out, "related", &got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("related (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("followRelationships", func(t *testing.T) {
		out := e.call(t, SearcherName, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "aardvark"},
			"options": map[string]any{"followRelationships": true, "maxResults": 1}})
		var got []RelatedEntry
		field(t, out, "related", &got)
		via := map[string]string{}
		for _, r := range got {
			via[r.Path] = r.Via
		}
		want := map[string]string{"b.md": "markdown", "c.md": "wiki", "d.md": "embed", "e.md": "reference", "back.md": "backlink"}
		if diff := cmp.Diff(want, via); diff != "" {
			t.Errorf("via (-want +got):\n%s\n%s", diff, out.json())
		}
	})
}

// field decodes one field of a result into v.
func field(t *testing.T, r optionResult, name string, v any) {
	t.Helper()
	b, _ := json.Marshal(r.Result[name])
	mustOK(t, json.Unmarshal(b, v))
}

// TestBacklinkSources checks that each backlink carries the line it is on, as written, so a caller
// can edit the link without reading the linking file: a long line cut around the link, and a file
// that changed since it was indexed read as it is now.
func TestBacklinkSources(t *testing.T) {
	long := strings.Repeat("word ", 40) + "then [[t]] and " + strings.Repeat("more ", 40)
	e := newOptionEnv(t, optionTable{engine: true, tree: []string{
		"t.md=# T\n",
		"a.md=# A\n  see [[t|the target]] here  \n\n- [t again](t.md)\n",
		"long.md=" + long + "\n",
		"fm.md=---\nparent: \"[[t]]\"\n---\nbody\n",
	}})
	out := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": "t.md"}})
	var got []BacklinkEntry
	field(t, out, "backlinks", &got)
	sources := map[string]string{}
	for _, b := range got {
		sources[fmt.Sprintf("%s:%d", b.Path, b.Line)] = b.Source
	}
	i := strings.Index(long, "[[t]]") + 2
	want := map[string]string{
		"a.md:2":    "see [[t|the target]] here",
		"a.md:4":    "- [t again](t.md)",
		"fm.md:2":   `parent: "[[t]]"`,
		"long.md:1": "…" + strings.TrimSpace(long[i-sourceBefore:i-sourceBefore+maxSourceBytes]) + "…",
	}
	if diff := cmp.Diff(want, sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestSourcesCapped checks that only the first MaxSources backlinks of a hub carry their line, so
// a note that hundreds link to does not cost a read of each of them.
func TestSourcesCapped(t *testing.T) {
	tree := []string{"hub.md=# Hub\n", "many.md=" + strings.Repeat("see [[hub]]\n", MaxSources+1)}
	e := newOptionEnv(t, optionTable{engine: true, tree: tree})
	out := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": "hub.md"}})
	var got []BacklinkEntry
	field(t, out, "backlinks", &got)
	if len(got) != MaxSources+1 {
		t.Fatalf("%d backlinks, want %d", len(got), MaxSources+1)
	}
	for i, b := range got {
		if want := i < MaxSources; (b.Source != "") != want {
			t.Errorf("backlink %d (line %d): source %q, want one: %v", i, b.Line, b.Source, want)
		}
	}
}

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
