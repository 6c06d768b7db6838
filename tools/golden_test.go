package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden answers in testdata/golden")

// goldenTree is a small vault every golden call starts from: notes that link by name and by path,
// headings, a tag, a file of another type.
var goldenTree = []string{
	"index.md=---\ntags: [garden]\n---\n# Garden\n\nSee [[ferns]] and [moss](plants/moss.md).\n",
	"plants/ferns.md=# Ferns\n\nFerns grow in shade and keep moist soil.\n\n## Care\n\nWater the ferns weekly.\n",
	"plants/moss.md=# Moss\n\nMoss covers stones in the shade, beside the [[ferns]].\n",
	"plants/photo.jpg=not a picture",
	"log.txt=line one\nline two\nline three\n",
}

// TestGoldenAnswers checks whole answers of a few calls, one of each kind, byte for byte against
// testdata/golden: what a model reads, so that a change to any field, its order or its wording is
// seen in review. `go test ./tools -run TestGoldenAnswers -update` rewrites them; read the diff.
// The time a call took (metadata) is left out, and so is every file's modification time.
func TestGoldenAnswers(t *testing.T) {
	tests := []struct {
		name, tool string
		args       map[string]any
	}{
		{"read", ReaderName, map[string]any{"purpose": "read", "target": map[string]any{"path": "plants/ferns.md"}}},
		{"read-lines", ReaderName, map[string]any{"purpose": "read", "target": map[string]any{"path": "log.txt"},
			"preferences": map[string]any{"offset": 2, "limit": 1}}},
		{"list", SearcherName, map[string]any{"purpose": "list", "target": map[string]any{"path": "."}}},
		{"search-content", SearcherName, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "shade"}}},
		{"search-semantic", SearcherName, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "watering ferns"}}},
		{"relationships", SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": "plants/ferns.md"}}},
		{"edit", WriterName, map[string]any{"purpose": "edit", "target": map[string]any{"path": "log.txt"},
			"edits": []any{map[string]any{"oldText": "line two", "newText": "line 2"}}}},
	}
	env := newOptionEnv(t, optionTable{tree: goldenTree, engine: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := env.call(t, tt.tool, tt.args).Result
			dropTimes(res)
			got, err := json.MarshalIndent(res, "", "  ")
			mustOK(t, err)
			got = append(got, '\n')
			file := filepath.Join("testdata", "golden", tt.name+".json")
			if *update {
				mustOK(t, os.WriteFile(file, got, 0o644))
				return
			}
			want, err := os.ReadFile(file)
			mustOK(t, err)
			if !bytes.Equal(got, want) {
				t.Errorf("%s answered, against %s (rewrite with -update if the change is meant):\n%s", tt.tool, file, got)
			}
		})
	}
}

// dropTimes removes, at any depth, the fields that hold a file's modification time, which a fresh
// tree gives anew on every run.
func dropTimes(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "modified" || k == "mtime" || k == "modTime" {
				delete(v, k)
				continue
			}
			dropTimes(x)
		}
	case []any:
		for _, x := range v {
			dropTimes(x)
		}
	}
}
