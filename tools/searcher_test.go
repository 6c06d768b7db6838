package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFilesSearched checks what search_content's filesSearched counts: every text file under the
// path when the search ran to the end, and nothing when the page filled first, when the search
// had not looked at every file; and that criteria which narrow the search say how many files they
// left out, so that two searches of one folder do not give two counts under one name.
func TestFilesSearched(t *testing.T) {
	e := newRaceEnv(t, "a.md=needle\n", "b.md=needle\n", "c.md=needle\n", "d.txt=hay\n", "bin.png=\x89PNG\x00\x00")
	tests := []struct {
		name       string
		maxResults int
		extension  []string
		want       any // filesSearched as decoded, nil when absent
		excluded   any // filesExcluded as decoded, nil when absent
		named      any // excludedFiles as decoded, nil when absent
	}{
		{"to the end", 0, nil, 4.0, nil, nil},
		{"page filled first", 2, nil, nil, nil, nil},
		{"narrowed by extension", 0, []string{"md"}, 3.0, 2.0, []any{"bin.png", "d.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := searchArgs(".", "needle")
			if tt.maxResults > 0 {
				args["options"] = map[string]any{"maxResults": tt.maxResults}
			}
			if tt.extension != nil {
				args["target"].(map[string]any)["criteria"] = map[string]any{"extension": tt.extension}
			}
			out := e.call(SearcherName, args)
			if out["success"] != true || out["filesSearched"] != tt.want || out["filesExcluded"] != tt.excluded {
				t.Errorf("filesSearched = %v, filesExcluded %v; want %v and %v (%v)", out["filesSearched"], out["filesExcluded"], tt.want, tt.excluded, out)
			}
			if diff := cmp.Diff(tt.named, out["excludedFiles"]); diff != "" {
				t.Errorf("excludedFiles (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNameAlternatives checks criteria.name's {a,b} alternatives: one listing finds several
// named files, as "{tar,zip}.md" does in a shell, a "!" alternative leaves names out, and a
// pattern that cannot expand is refused naming the field.
func TestNameAlternatives(t *testing.T) {
	e := newRaceEnv(t, "common/tar.md=t\n", "common/zip.md=z\n", "linux/7z.md=7\n", "common/gzip.md=g\n", "x.txt=x\n")
	tests := []struct {
		name string
		want []string // paths listed; nil: refused
	}{
		{"*.md", []string{"common/gzip.md", "common/tar.md", "common/zip.md", "linux/7z.md"}},
		{"{tar,zip,7z}.md", []string{"common/tar.md", "common/zip.md", "linux/7z.md"}},
		{"{TAR,g*}.{md,txt}", []string{"common/gzip.md", "common/tar.md"}},
		{"{x}.txt", []string{"x.txt"}},
		{"{*.md,!g*}", []string{"common/tar.md", "common/zip.md", "linux/7z.md"}},
		{"!*.md", []string{"common", "linux", "x.txt"}},
		{"{!*.md,!*.txt}", []string{"common", "linux"}},
		{"![.md", nil},
		{"{tar,zip.md", nil},
		{"tar}.md", nil},
		{"{a,{b}}.md", nil},
		{"{a,b,c,d,e,f,g,h,i}{a,b,c,d,e,f,g,h,i}.md", nil},
		{"[.md", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := e.call(SearcherName, map[string]any{"purpose": "list",
				"target":  map[string]any{"path": ".", "criteria": map[string]any{"name": tt.name}},
				"options": map[string]any{"recursive": true}})
			if tt.want == nil {
				if out["success"] != false || out["field"] != "target.criteria.name" {
					t.Fatalf("want a refusal on target.criteria.name, got %v", out)
				}
				return
			}
			var got []string
			files, _ := out["files"].([]any)
			for _, f := range files {
				got = append(got, f.(map[string]any)["path"].(string))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("listed %v, want %v (%v)", got, tt.want, out)
			}
		})
	}
}
