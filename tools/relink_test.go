package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// moveTree is a small vault: notes linking to old.md in every form a move rewrites, and files
// other than markdown that name it, some of which the tools cannot see.
var moveTree = []string{
	"notes/old.md=# Old\nsee [one](one.md)\n",
	"notes/one.md=# One\n",
	"index.md=# Index\n- [[old]] is the old note\n- [Old](notes/old.md#Top)\n- ![[old]]\n- [[old|alias]]\n",
	"table.md=| a | b |\n| - | - |\n| [[old]] | x |\n",
	"site.json={\n  \"nav\": [\n    \"notes/old.md\",\n    \"notes/old.md.bak\",\n    \"xnotes/old.md\"\n  ]\n}\n",
	"notes/menu.yaml=- notes/old.md\n",
	"url.txt=https://example.org/notes/old.md and notes/old.md.\n",
	"prose.md=notes/old.md is named here too, but markdown is not a mention\n",
	"image.png=\x89PNG\x00 notes/old.md\n",
	".env=NOTE=notes/old.md\n",
	"node_modules/x.json=\"notes/old.md\"\n",
}

// move calls the writer with purpose move and preserveRelationships, plus the given options.
func move(t *testing.T, e *optionEnv, from, to string, opts map[string]any) optionResult {
	t.Helper()
	o := map[string]any{"preserveRelationships": true}
	for k, v := range opts {
		o[k] = v
	}
	return e.call(t, WriterName, map[string]any{"purpose": "move", "target": map[string]any{"path": from, "destination": to}, "options": o})
}

func TestMoveRewrites(t *testing.T) {
	keep := []LinkRewrite{
		{Path: "archive/new.md", Line: 2, Before: "[one](one.md)", After: "[one](../notes/one.md)"},
		{Path: "index.md", Line: 2, Before: "[[old]]", After: "[[new|old]]"},
		{Path: "index.md", Line: 3, Before: "[Old](notes/old.md#Top)", After: "[Old](archive/new.md#Top)"},
		{Path: "index.md", Line: 4, Before: "![[old]]", After: "![[new]]"},
		{Path: "index.md", Line: 5, Before: "[[old|alias]]", After: "[[new|alias]]"},
		{Path: "table.md", Line: 3, Before: "[[old]]", After: `[[new\|old]]`},
	}
	target := append([]LinkRewrite(nil), keep...)
	target[1].After, target[5].After = "[[new]]", "[[new]]"
	tests := []struct {
		name     string
		opts     map[string]any
		rewrites []LinkRewrite
	}{
		{"dry run keeps the text", map[string]any{"dryRun": true}, keep},
		{"move keeps the text", map[string]any{"createPath": true}, keep},
		{"dry run shows the target", map[string]any{"dryRun": true, "linkText": "target"}, target},
		{"move shows the target", map[string]any{"createPath": true, "linkText": "target"}, target},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: moveTree, engine: true})
			before := e.call(t, ReaderName, map[string]any{"purpose": "exists", "target": map[string]any{"path": "notes/old.md"}}).Tree
			out := move(t, e, "notes/old.md", "archive/new.md", tt.opts)
			if out.Result["success"] != true {
				t.Fatalf("move failed: %s", out.json())
			}
			var rw []LinkRewrite
			var files []string
			field(t, out, "rewrites", &rw)
			field(t, out, "updatedFiles", &files)
			if diff := cmp.Diff(tt.rewrites, rw); diff != "" {
				t.Errorf("rewrites (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"archive/new.md", "index.md", "table.md"}, files); diff != "" {
				t.Errorf("updatedFiles (-want +got):\n%s", diff)
			}
			if _, cut := out.Result["rewritesTotal"]; cut {
				t.Errorf("rewritesTotal on an uncut list: %s", out.json())
			}
			if tt.opts["dryRun"] == true {
				if diff := cmp.Diff(before, out.Tree); diff != "" {
					t.Errorf("the dry run changed files (-before +after):\n%s", diff)
				}
				return
			}
			// Every rewrite listed is in the files, each on its line.
			for _, r := range rw {
				lines := strings.Split(out.Tree[r.Path], "\n")
				if r.Line > len(lines) || !strings.Contains(lines[r.Line-1], r.After) || strings.Contains(lines[r.Line-1], r.Before) {
					t.Errorf("%s:%d does not read %q:\n%s", r.Path, r.Line, r.After, out.Tree[r.Path])
				}
			}
			// The rewritten links all resolve, the table's too.
			for _, p := range []string{"index.md", "table.md"} {
				rel := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": p}})
				if b, ok := rel.Result["broken"]; ok {
					t.Errorf("%s has broken links after the move: %v", p, b)
				}
			}
		})
	}
}

// TestMoveRewritesCapped checks that a much-linked move lists MaxRewrites links and says how many
// there were, while rewriting them all.
func TestMoveRewritesCapped(t *testing.T) {
	const notes = 3
	tree := []string{"old.md=# Old\n"}
	for i := range notes {
		tree = append(tree, fmt.Sprintf("n%d.md=%s", i, strings.Repeat("[[old]]\n", MaxRewrites/2+1)))
	}
	e := newOptionEnv(t, optionTable{tree: tree, engine: true})
	out := move(t, e, "old.md", "new.md", nil)
	var rw []LinkRewrite
	field(t, out, "rewrites", &rw)
	total := notes * (MaxRewrites/2 + 1)
	if len(rw) != MaxRewrites || out.Result["rewritesTotal"] != float64(total) {
		t.Errorf("%d rewrites listed, rewritesTotal %v; want %d and %d", len(rw), out.Result["rewritesTotal"], MaxRewrites, total)
	}
	for i := range notes {
		if got := strings.Count(out.Tree[fmt.Sprintf("n%d.md", i)], "[[new|old]]"); got != MaxRewrites/2+1 {
			t.Errorf("n%d.md has %d rewritten links", i, got)
		}
	}
}

// TestLinkTextNeedsPreserve checks that linkText without preserveRelationships, which would do
// nothing, is refused naming it.
func TestLinkTextNeedsPreserve(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: moveTree, engine: true})
	out := e.call(t, WriterName, map[string]any{"purpose": "move", "target": map[string]any{"path": "notes/old.md", "destination": "x.md"},
		"options": map[string]any{"linkText": "keep"}})
	wantRefused(t, out, "options.linkText")
	out = move(t, e, "notes/old.md", "x.md", map[string]any{"linkText": "alias"})
	wantRefused(t, out, "options.linkText")
	if out.Tree["notes/old.md"] == "" {
		t.Error("a refused move moved the file")
	}
}
