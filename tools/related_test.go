package tools

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
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
