package tools

import (
	"cmp"
	"maps"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
)

// manyTree is a vault whose notes name each other by path and by name: inbox/a.md and inbox/b.md
// move together, index.md links to both, and a.md's relative link to b.md is between two notes
// that move together.
var manyTree = []string{
	"inbox/a.md=# A\nsee [b](b.md) and [[inbox/b]]\n",
	"inbox/b.md=# B\nback to [[a]]\n",
	"index.md=[[inbox/a]] [[inbox/b#B|the b]] [A](inbox/a.md)\n",
	"archive/keep.md=kept\n",
	"archive/b.md=taken\n",
}

// TestMoveSeveral checks a move of target.paths into one folder: every file moves or none does,
// the links between the moved notes and to them reach them where they went in the form they were
// written in, and what cannot move is refused naming the field before anything changes.
func TestMoveSeveral(t *testing.T) {
	tests := []struct {
		name    string
		paths   []string
		dest    string
		options map[string]any
		target  map[string]any // more of target
		field   string         // the field a refusal names; "" for a move that succeeds
		code    string         // the refusal's code, when not INVALID_ARGUMENT
		want    map[string]string
	}{
		{name: "two notes keep their links", paths: []string{"inbox/a.md", "inbox/b.md"}, dest: "done",
			options: map[string]any{"createPath": true, "preserveRelationships": true},
			want: map[string]string{
				"done/a.md": "# A\nsee [b](b.md) and [[done/b]]\n",
				"done/b.md": "# B\nback to [[a]]\n",
				"index.md":  "[[done/a]] [[done/b#B|the b]] [A](done/a.md)\n",
			}},
		{name: "a name already there moves none", paths: []string{"inbox/a.md", "inbox/b.md"}, dest: "archive",
			options: map[string]any{"preserveRelationships": true}, field: "target.destination", code: errs.CodeExists},
		{name: "two of one name", paths: []string{"inbox/b.md", "archive/b.md"}, dest: "done",
			options: map[string]any{"createPath": true}, field: "target.paths[1]"},
		{name: "a folder into itself", paths: []string{"inbox"}, dest: "inbox/sub",
			options: map[string]any{"createPath": true}, field: "target.destination"},
		{name: "one version for several", paths: []string{"inbox/a.md"}, dest: "done",
			target: map[string]any{"version": "0123456789abcdef"}, field: "target.version"},
		{name: "path and paths", paths: []string{"inbox/a.md"}, dest: "done",
			target: map[string]any{"path": "inbox/b.md"}, field: "target.paths"},
		{name: "a dry run moves nothing", paths: []string{"inbox/a.md", "inbox/b.md"}, dest: "done",
			options: map[string]any{"createPath": true, "preserveRelationships": true, "dryRun": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: manyTree, engine: true})
			target := map[string]any{"paths": tt.paths, "destination": tt.dest}
			maps.Copy(target, tt.target)
			before := e.call(t, ReaderName, map[string]any{"purpose": "exists", "target": map[string]any{"path": "."}}).Tree
			out := e.call(t, WriterName, map[string]any{"purpose": "move", "target": target, "options": tt.options})
			if tt.field != "" {
				if tt.code == "" {
					wantRefused(t, out, tt.field)
				} else if out.Result["code"] != tt.code || out.Result["field"] != tt.field {
					t.Errorf("want %s naming %s, got %s", tt.code, tt.field, out.json())
				}
				if diff := gocmp.Diff(before, out.Tree); diff != "" {
					t.Errorf("a refused move changed the tree (-before +after):\n%s", diff)
				}
				return
			}
			if out.Result["success"] != true {
				t.Fatalf("move failed: %s", out.json())
			}
			if tt.want == nil { // dry run
				if diff := gocmp.Diff(before, out.Tree); diff != "" {
					t.Errorf("a dry run changed the tree (-before +after):\n%s", diff)
				}
				if out.Result["rewrites"] == nil {
					t.Errorf("a dry run of a move with links shows no rewrites: %s", out.json())
				}
				return
			}
			for p, want := range tt.want {
				if got := out.Tree[p]; got != want {
					t.Errorf("%s = %q, want %q", p, got, want)
				}
			}
			for _, p := range tt.paths {
				if _, ok := out.Tree[p]; ok {
					t.Errorf("%s is still there", p)
				}
			}
			var moved []result.MovedFile
			field(t, out, "moved", &moved)
			if want := []result.MovedFile{{Path: "inbox/a.md", Destination: "done/a.md"}, {Path: "inbox/b.md", Destination: "done/b.md"}}; !gocmp.Equal(want, moved) {
				t.Errorf("moved = %v, want %v", moved, want)
			}
			if lost, ok := out.Result["linksLost"].([]any); !ok || len(lost) > 0 {
				t.Errorf("linksLost = %v, want [] (checked, none lost): %s", out.Result["linksLost"], out.json())
			}
		})
	}
}

// TestMoveEach checks a move of target.moves, each file to its own new path: renames in one call,
// all or none, links kept as a single move keeps them; a chain, a swap or two files to one path
// are refused naming the field, before anything changes.
func TestMoveEach(t *testing.T) {
	type pair = map[string]any
	tests := []struct {
		name  string
		moves []pair
		field string // the field a refusal names; "" for a move that succeeds
		code  string // the refusal's code, when not INVALID_ARGUMENT
	}{
		{name: "renamed to their dates", moves: []pair{{"path": "inbox/a.md", "destination": "journal/2026-01-01.md"}, {"path": "inbox/b.md", "destination": "journal/2026-01-02.md"}}},
		{name: "a swap", moves: []pair{{"path": "inbox/a.md", "destination": "inbox/b.md"}, {"path": "inbox/b.md", "destination": "inbox/a.md"}},
			field: "target.moves[0].destination"},
		{name: "a chain", moves: []pair{{"path": "inbox/b.md", "destination": "x.md"}, {"path": "inbox/a.md", "destination": "inbox/b.md"}},
			field: "target.moves[1].destination"},
		{name: "two to one path", moves: []pair{{"path": "inbox/a.md", "destination": "x.md"}, {"path": "inbox/b.md", "destination": "x.md"}},
			field: "target.moves[1].destination"},
		{name: "a folder and what is in it", moves: []pair{{"path": "inbox", "destination": "box"}, {"path": "inbox/a.md", "destination": "a.md"}},
			field: "target.moves[1].path"},
		{name: "a destination taken moves none", moves: []pair{{"path": "inbox/a.md", "destination": "x.md"}, {"path": "inbox/b.md", "destination": "archive/keep.md"}},
			field: "target.moves[1].destination", code: errs.CodeExists},
		{name: "outside the root", moves: []pair{{"path": "inbox/a.md", "destination": "../x.md"}},
			field: "target.moves[0].destination", code: errs.CodeOutsideRoot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: manyTree, engine: true})
			before := e.call(t, ReaderName, map[string]any{"purpose": "exists", "target": map[string]any{"path": "."}}).Tree
			out := e.call(t, WriterName, map[string]any{"purpose": "move", "target": map[string]any{"moves": tt.moves},
				"options": map[string]any{"createPath": true, "preserveRelationships": true}})
			if tt.field != "" {
				if code := cmp.Or(tt.code, errs.CodeInvalidArgument); out.Result["code"] != code || out.Result["field"] != tt.field {
					t.Errorf("want %s naming %s, got %s", code, tt.field, out.json())
				}
				if diff := gocmp.Diff(before, out.Tree); diff != "" {
					t.Errorf("a refused move changed the tree (-before +after):\n%s", diff)
				}
				return
			}
			if out.Result["success"] != true {
				t.Fatalf("move failed: %s", out.json())
			}
			for _, m := range tt.moves {
				from, to := m["path"].(string), m["destination"].(string)
				if _, ok := out.Tree[from]; ok || !strings.HasPrefix(out.Tree[to], before[from][:4]) {
					t.Errorf("%s is not at %s: %s", from, to, out.json())
				}
			}
			if index := out.Tree["index.md"]; strings.Contains(index, "[[inbox") || strings.Contains(index, "(inbox") {
				t.Errorf("index.md still links into inbox: %q", index)
			}
			if lost, ok := out.Result["linksLost"].([]any); !ok || len(lost) > 0 || out.Result["linksChecked"] == 0.0 {
				t.Errorf("linksChecked %v, linksLost %v; want links checked and none lost: %s", out.Result["linksChecked"], out.Result["linksLost"], out.json())
			}
		})
	}
}
