package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
)

// withHistory gives e's server a history store in a folder beside its root, and returns it with
// the folder.
func withHistory(t *testing.T, e *optionEnv) (*history.Store, string) {
	t.Helper()
	dir := filepath.Join(filepath.Dir(e.root), "history")
	mustOK(t, os.Mkdir(dir, 0o700))
	r, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { r.Close() })
	h := history.Open(r)
	e.srv.cfg.History = h
	return h, dir
}

// TestHistoryKeepsEveryChange checks that each writing purpose of this slice keeps what it
// replaces, byte for byte, before it changes it, and records the call: a multi-file edit as one
// record, a create with nothing before, a delete with nothing after.
func TestHistoryKeepsEveryChange(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"a.md=alpha one\n", "b.md=beta one\n", "c.md=gamma\n"}})
	h, _ := withHistory(t, e)
	edit := func(p, from, to string) map[string]any {
		return map[string]any{"path": p, "oldText": from, "newText": to}
	}
	calls := []map[string]any{
		{"purpose": "update", "target": map[string]any{"path": "a.md"}, "content": "alpha two\n"},
		{"purpose": "edit", "target": map[string]any{"path": "a.md"}, "edits": []any{edit("a.md", "two", "three"), edit("b.md", "one", "two")}},
		{"purpose": "append", "target": map[string]any{"path": "b.md"}, "content": "more\n"},
		{"purpose": "create", "target": map[string]any{"path": "d.md"}, "content": "delta\n"},
		{"purpose": "delete", "target": map[string]any{"path": "c.md"}},
	}
	for _, args := range calls {
		if out := e.call(t, WriterName, args); out.Result["success"] != true {
			t.Fatalf("%v: %s", args["purpose"], out.json())
		}
	}
	records, _, err := h.Records(context.Background(), nil)
	mustOK(t, err)
	type side struct{ path, before, after string }
	var got [][]side
	for _, r := range records {
		var sides []side
		for _, c := range r.Changes {
			s := side{path: c.Path}
			if c.Before != nil {
				data, err := h.Content(context.Background(), c.Before.SHA256)
				mustOK(t, err)
				s.before = string(data)
			}
			if c.After != nil {
				s.after = c.After.Version
			}
			sides = append(sides, s)
		}
		got = append([][]side{sides}, got...) // oldest first
	}
	v := func(s string) string { return fsroot.Version([]byte(s)) }
	want := [][]side{
		{{"a.md", "alpha one\n", v("alpha two\n")}},
		{{"a.md", "alpha two\n", v("alpha three\n")}, {"b.md", "beta one\n", v("beta two\n")}},
		{{"b.md", "beta two\n", v("beta two\nmore\n")}},
		{{"d.md", "", v("delta\n")}},
		{{"c.md", "gamma\n", ""}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(side{})); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

// TestHistoryNotKept checks that a change whose old content cannot be kept does not happen, and
// that a change the history cannot cover says so.
func TestHistoryNotKept(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"a.md=alpha\n", "dir/x.md=x\n"}})
	_, dir := withHistory(t, e)
	mustOK(t, os.WriteFile(filepath.Join(dir, "objects"), []byte("in the way\n"), 0o600))
	out := e.call(t, WriterName, map[string]any{"purpose": "update", "target": map[string]any{"path": "a.md"}, "content": "beta\n"})
	if out.Result["code"] != CodeNotKept || out.Tree["a.md"] != "alpha\n" {
		t.Errorf("update with a broken history: %s, a.md %q; want NOT_KEPT and a.md as it was", out.json(), out.Tree["a.md"])
	}
	out = e.call(t, WriterName, map[string]any{"purpose": "delete", "target": map[string]any{"path": "dir"}, "options": map[string]any{"recursive": true}})
	if out.Result["success"] != true || out.Result["notKept"] == nil {
		t.Errorf("delete of a folder: %s, want success saying it cannot be undone", out.json())
	}
}
