package tools

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRegexIndexOrScan checks that a regular expression searched through the index's candidates
// finds what a scan of every file finds, and reads only the files that hold its literals.
func TestRegexIndexOrScan(t *testing.T) {
	tree := []string{
		"src/a.c=void *p = kmalloc_array(n, size);\nstatic int foo;\n",
		"src/b.c=/* KMALLOC_ARRAY( in a comment */\nint bar;\n",
		"src/c.c=kmalloc(n);\n",
		"src/d.go=func NewServer(cfg Config) *Server {\n",
		"src/e.go=func newthing() {}\n",
		"notes/x.md=# Notes\nstatic long foo and more\n",
		"notes/y.md=nothing at all\n",
	}
	exprs := []string{`kmalloc_array\(`, `func\s+New[A-Z]\w*\(`, `static (int|long) foo`, `[a-z]+_array`, `no(thing|body)`}
	scan := newOptionEnv(t, optionTable{tree: tree})
	indexed := newOptionEnv(t, optionTable{tree: tree, engine: true})
	var read []string
	indexed.srv.beforeSearch = func(p string) { read = append(read, p) }
	for _, src := range exprs {
		for _, cs := range []bool{false, true} {
			args := map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": src},
				"options": map[string]any{"regex": true, "caseSensitive": cs}}
			read = nil
			a, b := indexed.call(t, SearcherName, args), scan.call(t, SearcherName, args)
			if diff := cmp.Diff(b.Result["files"], a.Result["files"]); diff != "" {
				t.Errorf("%s (case-sensitive %v): index (+) and scan (-) differ:\n%s", src, cs, diff)
			}
			if src == `kmalloc_array\(` && len(read) > 2 {
				t.Errorf("%s: read %v, want only the files holding kmalloc and array", src, read)
			}
		}
	}
}

// TestFolderSearchPlan checks that a content search of a small folder reads the folder's files
// when the index would pass over more of the tree's matches than they cost to read, asks the index
// when its matches are few, and finds the same either way.
func TestFolderSearchPlan(t *testing.T) {
	tree := []string{"small/a.md=a common word and a zyzzyva\n", "small/b.md=nothing here\n"}
	for i := range 80 {
		tree = append(tree, fmt.Sprintf("big/n%02d.md=another common line\n", i))
	}
	scan := newOptionEnv(t, optionTable{tree: tree})
	indexed := newOptionEnv(t, optionTable{tree: tree, engine: true})
	var read []string
	indexed.srv.beforeSearch = func(p string) { read = append(read, p) }
	for _, tt := range []struct {
		query string
		read  []string
	}{
		{"common", []string{"small/a.md", "small/b.md"}}, // 81 matches in the tree, 2 files in the folder: walked
		{"zyzzyva", []string{"small/a.md"}},              // 1 match: the index's candidate alone
	} {
		args := map[string]any{"purpose": "search_content", "target": map[string]any{"path": "small", "query": tt.query}}
		read = nil
		a, b := indexed.call(t, SearcherName, args), scan.call(t, SearcherName, args)
		if diff := cmp.Diff(b.Result["files"], a.Result["files"]); diff != "" {
			t.Errorf("%s: index (+) and scan (-) differ:\n%s", tt.query, diff)
		}
		if !slices.Equal(read, tt.read) {
			t.Errorf("%s: read %v, want %v", tt.query, read, tt.read)
		}
	}
}
