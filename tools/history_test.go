package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/tools/errs"
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
	if out.Result["code"] != errs.CodeNotKept || out.Tree["a.md"] != "alpha\n" {
		t.Errorf("update with a broken history: %s, a.md %q; want NOT_KEPT and a.md as it was", out.json(), out.Tree["a.md"])
	}
	out = e.call(t, WriterName, map[string]any{"purpose": "delete", "target": map[string]any{"path": "dir"}, "options": map[string]any{"recursive": true}})
	if out.Result["code"] != errs.CodeNotKept || out.Tree["dir/x.md"] != "x\n" {
		t.Errorf("delete of a folder with a broken history: %s; want NOT_KEPT and the folder as it was", out.json())
	}
}

// TestRestoreFolder checks that a deleted folder's files are kept, each byte for byte, and come
// back in one restore of the folder, subfolders made again; that one there again is a CONFLICT
// before anything is written, unless options.overwrite; and that a file over the size limit is
// named as not kept.
func TestRestoreFolder(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"dir/a.md=alpha\n", "dir/sub/b.md=beta\n", "dir/big.txt=" + strings.Repeat("x", 100), "keep.md=k\n"}})
	withHistory(t, e)
	e.srv.cfg.MaxFileSize = 50
	out := e.call(t, WriterName, map[string]any{"purpose": "delete", "target": map[string]any{"path": "dir"}, "options": map[string]any{"recursive": true}})
	if out.Result["success"] != true || !strings.Contains(fmt.Sprint(out.Result["notKept"]), "dir/big.txt") {
		t.Fatalf("delete: %s, want success naming big.txt as not kept", out.json())
	}
	mustOK(t, os.MkdirAll(filepath.Join(e.root, "dir"), 0o755))
	mustOK(t, os.WriteFile(filepath.Join(e.root, "dir", "a.md"), []byte("again\n"), 0o644))
	restore := map[string]any{"purpose": "restore", "target": map[string]any{"path": "dir"}}
	if out := e.call(t, WriterName, restore); out.Result["code"] != errs.CodeConflict || out.Tree["dir/sub/b.md"] != "" {
		t.Errorf("restore over a file there again: %s; want CONFLICT and nothing written", out.json())
	}
	restore["options"] = map[string]any{"overwrite": true}
	out = e.call(t, WriterName, restore)
	if out.Result["success"] != true {
		t.Fatalf("restore: %s", out.json())
	}
	for p, want := range map[string]string{"dir/a.md": "alpha\n", "dir/sub/b.md": "beta\n", "keep.md": "k\n"} {
		if out.Tree[p] != want {
			t.Errorf("after restore, %s = %q, want %q", p, out.Tree[p], want)
		}
	}
	// What the overwrite replaced is kept: again can come back.
	out = e.call(t, WriterName, map[string]any{"purpose": "restore", "target": map[string]any{"path": "dir/a.md", "version": fsroot.Version([]byte("again\n"))}})
	if out.Tree["dir/a.md"] != "again\n" {
		t.Errorf("restore of what the folder's restore replaced: %s", out.json())
	}
}

// TestRestore checks that restore puts back what a change replaced, byte for byte: by default the
// version before the last change, or one history lists; that a restore is itself undone by the
// next; that it brings a deleted file back and undoes a create; and that a file changed since the
// change it would undo is a CONFLICT unless options.overwrite.
func TestRestore(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"a.md=one\n", "b.md=bee\n", "d/c.md=sea\n"}})
	withHistory(t, e)
	w := func(purpose, p string, extra map[string]any) optionResult {
		args := map[string]any{"purpose": purpose, "target": map[string]any{"path": p}}
		for k, v := range extra {
			args[k] = v
		}
		return e.call(t, WriterName, args)
	}
	ok := func(out optionResult) optionResult {
		t.Helper()
		if out.Result["success"] != true {
			t.Fatalf("%s", out.json())
		}
		return out
	}
	ok(w("update", "a.md", map[string]any{"content": "two\n"}))
	ok(w("update", "a.md", map[string]any{"content": "three\n"}))
	steps := []struct {
		name string
		out  optionResult
		file string
		want string // "" for gone
	}{
		{"undo the last update", w("restore", "a.md", nil), "a.md", "two\n"},
		{"undo the restore", w("restore", "a.md", nil), "a.md", "three\n"},
		{"a version history lists", w("restore", "a.md", map[string]any{"target": map[string]any{"path": "a.md", "version": fsroot.Version([]byte("one\n"))}}), "a.md", "one\n"},
	}
	ok(w("delete", "d/c.md", nil))
	steps = append(steps, struct {
		name string
		out  optionResult
		file string
		want string
	}{"a deleted file", w("restore", "d/c.md", nil), "d/c.md", "sea\n"})
	ok(w("create", "new.md", map[string]any{"content": "fresh\n"}))
	steps = append(steps, struct {
		name string
		out  optionResult
		file string
		want string
	}{"undo a create", w("restore", "new.md", nil), "new.md", ""})
	for _, s := range steps {
		if s.out.Result["success"] != true {
			t.Errorf("%s: %s", s.name, s.out.json())
			continue
		}
		got, there := s.out.Tree[s.file]
		if s.want == "" && there || s.want != "" && got != s.want {
			t.Errorf("%s: %s holds %q (there %v), want %q", s.name, s.file, got, there, s.want)
		}
	}

	// Changed outside the tools since the last change: CONFLICT, nothing written; overwrite wins.
	ok(w("update", "b.md", map[string]any{"content": "bee two\n"}))
	mustOK(t, os.WriteFile(filepath.Join(e.root, "b.md"), []byte("theirs\n"), 0o644))
	if out := w("restore", "b.md", nil); out.Result["code"] != errs.CodeConflict || out.Tree["b.md"] != "theirs\n" {
		t.Errorf("restore over a change made since: %s, b.md %q; want CONFLICT and theirs", out.json(), out.Tree["b.md"])
	}
	if out := ok(w("restore", "b.md", map[string]any{"options": map[string]any{"overwrite": true}})); out.Tree["b.md"] != "bee\n" {
		t.Errorf("restore with overwrite: b.md %q, want bee", out.Tree["b.md"])
	}
	// What the overwrite replaced is kept too: theirs can come back.
	if out := ok(w("restore", "b.md", map[string]any{"target": map[string]any{"path": "b.md", "version": fsroot.Version([]byte("theirs\n"))}})); out.Tree["b.md"] != "theirs\n" {
		t.Errorf("restore of what an overwrite replaced: b.md %q", out.Tree["b.md"])
	}

	// history lists a folder's changes, the deleted file included, newest first.
	out := e.call(t, ReaderName, map[string]any{"purpose": "history", "target": map[string]any{"path": "d"}})
	var got []string
	for _, h := range out.Result["history"].([]any) {
		m := h.(map[string]any)
		got = append(got, m["purpose"].(string)+" "+m["path"].(string)+" "+fmt.Sprint(m["deleted"] == true))
	}
	if diff := cmp.Diff([]string{"restore d/c.md false", "delete d/c.md true"}, got); diff != "" {
		t.Errorf("history of d (-want +got):\n%s\n%s", diff, out.json())
	}
	for _, p := range []string{".env", ".git/config"} {
		if out := e.call(t, ReaderName, map[string]any{"purpose": "history", "target": map[string]any{"path": p}}); out.Result["code"] != errs.CodeBlocked {
			t.Errorf("history of %s: %s, want PATH_BLOCKED", p, out.json())
		}
	}
}

// TestUndoMove checks that restore on a moved file's old path undoes the move and the link
// rewrites that came with it, putting back the file the move replaced, and that target.call, as
// history lists it, undoes a whole call the same way; each undo is kept, so it can be undone.
func TestUndoMove(t *testing.T) {
	e := newOptionEnv(t, optionTable{engine: true, tree: []string{"a.md=# A\n", "b.md=# B, replaced\n", "link.md=see [a](a.md)\n"}})
	withHistory(t, e)
	move := e.call(t, WriterName, map[string]any{"purpose": "move", "target": map[string]any{"path": "a.md", "destination": "b.md"},
		"options": map[string]any{"overwrite": true, "preserveRelationships": true}})
	if move.Result["success"] != true || move.Tree["link.md"] != "see [a](b.md)\n" {
		t.Fatalf("move: %s, link.md %q", move.json(), move.Tree["link.md"])
	}
	out := e.call(t, WriterName, map[string]any{"purpose": "restore", "target": map[string]any{"path": "a.md"}})
	if out.Result["success"] != true {
		t.Fatalf("restore a.md: %s", out.json())
	}
	want := map[string]string{".": "/", "a.md": "# A\n", "b.md": "# B, replaced\n", "link.md": "see [a](a.md)\n"}
	if diff := cmp.Diff(want, out.Tree); diff != "" {
		t.Errorf("after undoing the move (-want +got):\n%s", diff)
	}
	// The undo is a call of its own: history names it, and target.call undoes it.
	h := e.call(t, ReaderName, map[string]any{"purpose": "history", "target": map[string]any{"path": "a.md"}})
	last := h.Result["history"].([]any)[0].(map[string]any)
	if last["purpose"] != "restore" || last["call"] == nil {
		t.Fatalf("history of a.md: %s", h.json())
	}
	out = e.call(t, WriterName, map[string]any{"purpose": "restore", "target": map[string]any{"call": last["call"]}})
	if out.Result["success"] != true || out.Tree["b.md"] != "# A\n" || out.Tree["link.md"] != "see [a](b.md)\n" {
		t.Errorf("undo of the undo: %s\n%v", out.json(), out.Tree)
	}
	if _, there := out.Tree["a.md"]; there {
		t.Errorf("a.md is back after undoing the undo")
	}
}

// TestRestoreCopy checks that a copy over an existing file keeps what it replaced, and that a copy
// to a new path is undone by removing it.
func TestRestoreCopy(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"a.md=alpha\n", "b.md=beta\n"}})
	withHistory(t, e)
	for _, dest := range []string{"b.md", "c.md"} {
		if out := e.call(t, WriterName, map[string]any{"purpose": "copy", "target": map[string]any{"path": "a.md", "destination": dest}, "options": map[string]any{"overwrite": true}}); out.Result["success"] != true {
			t.Fatalf("copy to %s: %s", dest, out.json())
		}
	}
	for _, dest := range []string{"b.md", "c.md"} {
		if out := e.call(t, WriterName, map[string]any{"purpose": "restore", "target": map[string]any{"path": dest}}); out.Result["success"] != true {
			t.Fatalf("restore %s: %s", dest, out.json())
		}
	}
	out := e.call(t, ReaderName, map[string]any{"purpose": "exists", "target": map[string]any{"path": "c.md"}})
	if out.Tree["b.md"] != "beta\n" || out.Result["exists"] != false {
		t.Errorf("after restoring the copies: b.md %q, c.md exists %v", out.Tree["b.md"], out.Result["exists"])
	}
}

// TestRestoreRacesWrites runs restores of a file while appends to it go on: they take turns on the
// file's lock, and no acknowledged append is lost: each is in the file at the end or in a content
// the history keeps (what a restore replaced), so it can come back.
func TestRestoreRacesWrites(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"a.md=start\n"}})
	h, _ := withHistory(t, e)
	const appends = 40
	var acked []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	started := make(chan struct{}) // closed once an append is kept: from then on a restore has work
	start := sync.OnceFunc(func() { close(started) })
	var done atomic.Bool
	wg.Go(func() {
		defer start() // even when no append was kept: the restores then end at once
		defer done.Store(true)
		for i := range appends {
			line := fmt.Sprintf("append %d\n", i)
			out := e.call(t, WriterName, map[string]any{"purpose": "append", "target": map[string]any{"path": "a.md"}, "content": line})
			for try := 0; busy(out) && try < 20; try++ {
				// Windows cannot replace a file another handle holds open: the client retries.
				out = e.call(t, WriterName, map[string]any{"purpose": "append", "target": map[string]any{"path": "a.md"}, "content": line})
			}
			if out.Result["success"] != true {
				t.Errorf("append: %s", out.json())
			}
			if out.Result["success"] == true {
				mu.Lock()
				acked = append(acked, line)
				start()
				mu.Unlock()
			}
		}
	})
	restores := 0
	wg.Go(func() {
		<-started
		for first := true; first || !done.Load(); first = false {
			out := e.call(t, WriterName, map[string]any{"purpose": "restore", "target": map[string]any{"path": "a.md"}, "options": map[string]any{"overwrite": true}})
			switch {
			case out.Result["success"] == true:
				restores++
			case !busy(out): // Windows: another handle held it; tried again
				t.Errorf("restore: %s", out.json())
			}
		}
	})
	wg.Wait()
	data, err := os.ReadFile(filepath.Join(e.root, "a.md"))
	mustOK(t, err)
	kept := []string{string(data)}
	records, _, err := h.Records(context.Background(), nil)
	mustOK(t, err)
	for _, r := range records {
		for _, c := range r.Changes {
			if c.Before != nil {
				b, err := h.Content(context.Background(), c.Before.SHA256)
				mustOK(t, err)
				kept = append(kept, string(b))
			}
		}
	}
	all := strings.Join(kept, "")
	for _, line := range acked {
		if !strings.Contains(all, line) {
			t.Errorf("%q was acknowledged, and is neither in the file nor in the history", line)
		}
	}
	if len(acked) != appends || restores == 0 {
		t.Errorf("%d of %d appends acknowledged, %d restores: the race did not happen", len(acked), appends, restores)
	}
}

// TestNoHistorySaysSo checks that without a history, an answer that replaced something says the
// change cannot be undone, and one that made something new says nothing of it.
func TestNoHistorySaysSo(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"a.md=alpha\n"}})
	if out := e.call(t, WriterName, map[string]any{"purpose": "update", "target": map[string]any{"path": "a.md"}, "content": "beta\n"}); !strings.Contains(fmt.Sprint(out.Result["notKept"]), "cannot be undone") {
		t.Errorf("update without a history: %s, want notKept", out.json())
	}
	if out := e.call(t, WriterName, map[string]any{"purpose": "create", "target": map[string]any{"path": "b.md"}, "content": "new\n"}); out.Result["notKept"] != nil {
		t.Errorf("create without a history: %s, want no notKept", out.json())
	}
}

// busy reports whether out is a refusal Windows gives a write of a file another handle holds or
// is still letting go of (Wine answers the latter ACCESS_DENIED, as a file pending deletion): the
// client tries again.
func busy(out optionResult) bool {
	return out.Result["code"] == errs.CodeInUse || testfs.UnderWine && out.Result["code"] == errs.CodeAccess
}
