package tools

import "testing"

// TestFilesSearched checks what search_content's filesSearched counts: every text file under the
// path when the search ran to the end, and nothing when the page filled first, when the search
// had not looked at every file.
func TestFilesSearched(t *testing.T) {
	e := newRaceEnv(t, "a.md=needle\n", "b.md=needle\n", "c.md=needle\n", "d.txt=hay\n", "bin.png=\x89PNG\x00\x00")
	tests := []struct {
		name       string
		maxResults int
		want       any // filesSearched as decoded, nil when absent
	}{
		{"to the end", 0, 4.0},
		{"page filled first", 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := searchArgs(".", "needle")
			if tt.maxResults > 0 {
				args["options"] = map[string]any{"maxResults": tt.maxResults}
			}
			out := e.call(SearcherName, args)
			if out["success"] != true || out["filesSearched"] != tt.want {
				t.Errorf("filesSearched = %v, want %v (%v)", out["filesSearched"], tt.want, out)
			}
		})
	}
}
