package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
)

// TestHistoryEndToEnd checks, through the binary, that a server that writes keeps what each change
// replaces in its history folder, outside the root, byte for byte, with one record per call, that
// a model lists and restores it through the tools, and that --no-history keeps none.
func TestHistoryEndToEnd(t *testing.T) {
	f := newFixture(t)
	hist := filepath.Join(f.dir, "history")
	s := start(t, f, nil, "--no-index", "--allow-write", "--history-dir", hist)
	before, err := os.ReadFile(filepath.Join(f.root, "notes", "a.md"))
	must(t, err)
	gone, err := os.ReadFile(filepath.Join(f.root, "notes", "b.md"))
	must(t, err)
	for _, args := range []map[string]any{
		intent("update", "notes/a.md", map[string]any{"content": "# A\nrewritten\n"}),
		intent("delete", "notes/b.md", nil),
	} {
		if res, _ := s.call(writer, args); res["success"] != true {
			t.Fatalf("%v: %v", args["purpose"], res)
		}
	}
	r, err := fsroot.Open(hist, fsroot.Options{AllowHardLinks: true})
	must(t, err)
	defer r.Close()
	records, _, err := history.Open(r).Records(context.Background(), nil)
	must(t, err)
	if len(records) != 2 || records[0].Purpose != "delete" || records[1].Purpose != "update" {
		t.Fatalf("records = %+v, want the delete and the update", records)
	}
	for i, want := range map[int]string{0: string(gone), 1: string(before)} {
		data, err := history.Open(r).Content(context.Background(), records[i].Changes[0].Before.SHA256)
		if err != nil || string(data) != want {
			t.Errorf("%s kept %q (%v), want %q", records[i].Purpose, data, err, want)
		}
	}

	// A model looks back and undoes both, through the tools.
	res, _ := s.call(reader, access("history", "notes"))
	if h, _ := res["history"].([]any); len(h) != 2 {
		t.Errorf("history of notes: %v, want the delete and the update", res)
	}
	for _, p := range []string{"notes/a.md", "notes/b.md"} {
		if res, _ := s.call(writer, intent("restore", p, nil)); res["success"] != true {
			t.Fatalf("restore %s: %v", p, res)
		}
	}
	for p, want := range map[string]string{"a.md": string(before), "b.md": string(gone)} {
		if got, err := os.ReadFile(filepath.Join(f.root, "notes", p)); err != nil || string(got) != want {
			t.Errorf("after restore, %s holds %q (%v), want %q", p, got, err, want)
		}
	}

	off := start(t, f, nil, "--no-index", "--allow-write", "--no-history", "--history-dir", filepath.Join(f.dir, "none"))
	if res, _ := off.call(writer, intent("update", "notes/a.md", map[string]any{"content": "again\n"})); res["success"] != true {
		t.Fatalf("update with --no-history: %v", res)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "none")); err == nil {
		t.Errorf("--no-history made a history folder")
	}
}

// TestHistoryCommands checks that a person lists and undoes the tools' changes from a shell:
// history prints what is kept, restore puts it back (and is kept too), a path the history does not
// know exits 1, and a restore without a path exits 2.
func TestHistoryCommands(t *testing.T) {
	dir := t.TempDir()
	root, hist := filepath.Join(dir, "root"), filepath.Join(dir, "history")
	must(t, os.MkdirAll(filepath.Join(root, "notes"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "notes", "a.md"), []byte("one\n"), 0o644))
	flags := []string{"--root", root, "--history-dir", hist}
	runs := func(stdin string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb)
		return code, out.String() + errb.String()
	}
	update := `{"name": "packfs-file-writer", "arguments": {"purpose": "update", "target": {"path": "notes/a.md"}, "content": "two\n"}}`
	if code, out := runs(update, append([]string{"call", "--allow-write", "--no-index"}, flags...)...); code != 0 {
		t.Fatalf("call update: exit %d: %s", code, out)
	}
	code, out := runs("", append([]string{"history", "notes"}, flags...)...)
	if code != 0 || !strings.Contains(out, "update") || !strings.Contains(out, "notes/a.md") || !strings.Contains(out, fsroot.Version([]byte("one\n"))) {
		t.Errorf("history: exit %d:\n%s", code, out)
	}
	if code, out := runs("", append([]string{"restore", "notes/a.md"}, flags...)...); code != 0 || !strings.Contains(out, "restored notes/a.md") {
		t.Errorf("restore: exit %d: %s", code, out)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "notes", "a.md")); string(data) != "one\n" {
		t.Errorf("after restore: %q, want one", data)
	}
	if code, out := runs("", append([]string{"history", "notes/a.md"}, flags...)...); code != 0 || !strings.Contains(out, "restore") {
		t.Errorf("the restore is not in the history: exit %d:\n%s", code, out)
	}
	if code, out := runs("", append([]string{"restore", "notes/never.md"}, flags...)...); code != 1 || !strings.Contains(out, "NOT_FOUND") {
		t.Errorf("restore of a path the history does not know: exit %d: %s", code, out)
	}
	if code, out := runs("", append([]string{"restore"}, flags...)...); code != 2 {
		t.Errorf("restore without a path: exit %d: %s", code, out)
	}
}

// TestUndoAndPurgeCommands checks that undo undoes the last call whole (a two-file edit), that the
// undo is undone by the next, and that history --purge forgets a path's changes for good.
func TestUndoAndPurgeCommands(t *testing.T) {
	dir := t.TempDir()
	root, hist := filepath.Join(dir, "root"), filepath.Join(dir, "history")
	must(t, os.MkdirAll(root, 0o755))
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("alpha\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "b.md"), []byte("beta\n"), 0o644))
	flags := []string{"--root", root, "--history-dir", hist}
	runs := func(stdin string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb)
		return code, out.String() + errb.String()
	}
	edit := `{"name": "packfs-file-writer", "arguments": {"purpose": "edit", "target": {"path": "a.md"}, "edits": [{"oldText": "alpha", "newText": "ALPHA"}, {"path": "b.md", "oldText": "beta", "newText": "BETA"}]}}`
	if code, out := runs(edit, append([]string{"call", "--allow-write", "--no-index"}, flags...)...); code != 0 {
		t.Fatalf("call edit: exit %d: %s", code, out)
	}
	read := func(name string) string {
		data, _ := os.ReadFile(filepath.Join(root, name))
		return string(data)
	}
	if code, out := runs("", append([]string{"undo"}, flags...)...); code != 0 || read("a.md") != "alpha\n" || read("b.md") != "beta\n" {
		t.Fatalf("undo: exit %d: %s; a.md %q, b.md %q", code, out, read("a.md"), read("b.md"))
	}
	if code, out := runs("", append([]string{"undo"}, flags...)...); code != 0 || read("a.md") != "ALPHA\n" || read("b.md") != "BETA\n" {
		t.Fatalf("undo of the undo: exit %d: %s; a.md %q, b.md %q", code, out, read("a.md"), read("b.md"))
	}
	if code, out := runs("", append([]string{"history", "--purge", "a.md"}, flags...)...); code != 0 || !strings.Contains(out, "forgot 3 changes of a.md") {
		t.Errorf("history --purge a.md: exit %d: %s", code, out)
	}
	if code, out := runs("", append([]string{"history", "a.md"}, flags...)...); code != 0 || !strings.Contains(out, "no change kept") {
		t.Errorf("history a.md after the purge: exit %d: %s", code, out)
	}
	if code, out := runs("", append([]string{"history", "b.md"}, flags...)...); code != 0 || strings.Count(out, "b.md") != 3 {
		t.Errorf("history b.md after a.md's purge, want its 3 changes: exit %d: %s", code, out)
	}
	if code, out := runs("", append([]string{"restore", "a.md"}, flags...)...); code != 1 {
		t.Errorf("restore after the purge: exit %d: %s", code, out)
	}
}
