package tools

import (
	"slices"
	"testing"
)

// TestRootsMergeWeighs checks that a search of "." ranks the root whose best hit matches the query
// above a root whose best hit matches one word of it: each root's best scores 1 in its own index,
// and the roots are weighed by how much of the query their best hit holds.
func TestRootsMergeWeighs(t *testing.T) {
	e := newRootsEnv(t, map[string][]string{
		"notes": {"b.md=# Bee\naardvark facts\n", "c.md=# Cee\nnothing here\n"},
		"work":  {"w.md=# Work\naardvark burrow budget plans\n", "x.md=# X\nbudget\n"},
	})
	tests := []struct {
		name, args string
		want       []string
	}{
		{"the root that answers first", `{"purpose":"search_semantic","target":{"path":".","query":"aardvark burrow budget"}}`,
			[]string{"work/w.md", "notes/b.md", "work/x.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := e.call(t, SearcherName, tt.args)
			var got []string
			var scores []float64
			files, _ := out["files"].([]any)
			for _, f := range files {
				got = append(got, f.(map[string]any)["path"].(string))
				scores = append(scores, f.(map[string]any)["score"].(float64))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("search of . = %v (scores %v), want %v", got, scores, tt.want)
			}
			for i, sc := range scores {
				if i == 0 && sc != 1 || i > 0 && sc > scores[i-1] {
					t.Errorf("scores %v: want them falling from 1", scores)
					break
				}
			}
		})
	}
}
