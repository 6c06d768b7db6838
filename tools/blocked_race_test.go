package tools

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// Blocked files inside the root: a name the policy allows that leads, by now, to a file or folder
// it blocks (.env, .git) must be refused or not followed by every purpose, whatever the index
// still holds of it. The races flip the allowed name between a text file and a link to the
// blocked one while every purpose that reads or writes calls the tools; the stale-index table
// swaps it once and asks at once. The secret is in .env and .git/x.md and nowhere else.

// newBlockedEnv serves base/root, built from the blocked entries (.env and .git/x.md, holding
// the secret) and entries, with every permission and a search index built as the server builds
// it (IndexFS, Indexed). The raceEnv's marker is the secret; nothing outside the root exists.
func newBlockedEnv(t *testing.T, entries ...string) *raceEnv {
	t.Helper()
	if testfs.UnderWine {
		t.Skip("the cases swap links: Wine has no links (a host link is followed by every Windows call)")
	}
	e := &raceEnv{
		t:      t,
		base:   testfs.TempDir(t),
		marker: "SECRET-" + strings.ToUpper(rand.Text()[:12]),
		codes:  map[string]int{},
		calls:  map[string]int{},
		raced:  map[string]int{},
	}
	e.root = filepath.Join(e.base, "root")
	mustOK(t, os.Mkdir(e.root, 0o755))
	secret := "TOKEN=" + e.marker + " needle\n"
	testfs.Tree(t, e.root, e.base, append([]string{".env=" + secret, ".git/x.md=" + secret}, entries...)...)
	e.before = snapshotOutside(t, e.base)

	root, policy := e.open()
	ig := security.NewIgnore(root, policy, security.IgnoreConfig{})
	engine := semantic.New(semantic.Options{FS: security.IndexFS(policy, root), Allow: security.Indexed(policy, root, ig)})
	mustOK(t, engine.Build(context.Background()))
	t.Cleanup(func() { engine.Close() })
	e.serve(Config{Mount: Mount{Root: root, Policy: policy, Ignore: ig, Engine: engine}})
	return e
}

// checkBlockedIntact fails unless .env and .git/x.md hold what they held, and no other file of
// the root holds the secret: no write reached a blocked file, and none carried it elsewhere.
func (e *raceEnv) checkBlockedIntact() {
	t := e.t
	t.Helper()
	secret := "TOKEN=" + e.marker + " needle\n"
	for _, name := range []string{".env", ".git/x.md"} {
		if data, err := os.ReadFile(filepath.Join(e.root, name)); err != nil || string(data) != secret {
			t.Errorf("ESCAPE: %s = %q (%v), want it untouched", name, data, err)
		}
	}
	if entries, err := os.ReadDir(filepath.Join(e.root, ".git")); err != nil || len(entries) != 1 {
		var names []string
		for _, d := range entries {
			names = append(names, d.Name())
		}
		t.Errorf("ESCAPE: .git holds %v (%v), want x.md alone", names, err)
	}
	filepath.WalkDir(e.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && d.Name() != ".env" {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), e.marker) {
				t.Errorf("ESCAPE: %s holds the secret", relSlash(e.root, p))
			}
		}
		return nil
	})
}

// blockedTree is the allowed side of the blocked cases: note.md links to b.md, so that b.md's
// backlinks carry note.md's line, and d/x.md sits where .git/x.md would be reached through d.
var blockedTree = []string{
	"note.md=# Note\n\nThe inside needle, see [b](b.md).\n",
	"b.md=# B\n\nThe b needle.\n",
	"d/x.md=inside x needle\n",
}

// blockedCalls are the calls of every purpose that reads or writes, each with the name that the
// cases flip: note.md (a file) and d (a folder).
func blockedCalls(marker string) map[string]struct {
	tool string
	args map[string]any
} {
	type c = struct {
		tool string
		args map[string]any
	}
	search := func(purpose, path string, include bool) map[string]any {
		return map[string]any{"purpose": purpose, "target": map[string]any{"path": path, "query": "needle"},
			"options": map[string]any{"includeContent": include}}
	}
	return map[string]c{
		"read":                    {ReaderName, toolArgs("read", "note.md", nil)},
		"read-in-d":               {ReaderName, toolArgs("read", "d/x.md", nil)},
		"metadata":                {ReaderName, toolArgs("metadata", "note.md", nil)},
		"search_content":          {SearcherName, search("search_content", ".", false)},
		"search_content-include":  {SearcherName, search("search_content", ".", true)},
		"search_content-file":     {SearcherName, search("search_content", "note.md", false)},
		"search_content-d":        {SearcherName, search("search_content", "d", true)},
		"search_semantic":         {SearcherName, search("search_semantic", ".", false)},
		"search_semantic-include": {SearcherName, search("search_semantic", ".", true)},
		"list-content": {SearcherName, map[string]any{"purpose": "list", "target": map[string]any{"path": ".",
			"criteria": map[string]any{"content": marker}}, "options": map[string]any{"recursive": true}}},
		"relationships": {SearcherName, toolArgs("relationships", "b.md", nil)},
		"edit": {WriterName, toolArgs("edit", "note.md", map[string]any{"edits": []any{
			map[string]any{"oldText": "TOKEN=", "newText": "TOKEN="}}})},
		"edit-in-d": {WriterName, toolArgs("edit", "d/x.md", map[string]any{"edits": []any{
			map[string]any{"oldText": "needle", "newText": "needle"}}})},
		"update": {WriterName, writeArgs("update", "note.md", "# Note\n\nThe inside needle, see [b](b.md).\n", false)},
		"append": {WriterName, writeArgs("append", "d/x.md", "", false)},
		"copy":   {WriterName, toolArgs("copy", "note.md", map[string]any{"target": map[string]any{"path": "note.md", "destination": "copy.md"}, "options": map[string]any{"overwrite": true}})},
		"copy-into-d": {WriterName, toolArgs("copy", "b.md", map[string]any{"target": map[string]any{"path": "b.md", "destination": "d/copied.md"},
			"options": map[string]any{"overwrite": true}})},
		"create-in-d": {WriterName, writeArgs("create", "d/new.md", "new\n", false)},
		"mkdir-in-d":  {WriterName, toolArgs("mkdir", "d/sub", nil)},
		"move-into-d": {WriterName, toolArgs("move", "b.md", map[string]any{"target": map[string]any{"path": "b.md", "destination": "d/moved.md"}})},
		"move-out-d":  {WriterName, toolArgs("move", "d/moved.md", map[string]any{"target": map[string]any{"path": "d/moved.md", "destination": "b.md"}})},
	}
}

// listedAny reports whether a list answer names any file: a list whose criteria.content is the
// secret tells where it is by naming the file that holds it, without the secret in the answer.
func listedAny(out map[string]any) bool {
	files, _ := out["files"].([]any)
	return len(files) > 0
}

// TestRaceBlockedFlip flips note.md between its text and a link to .env, and exchanges d, a
// folder, with a link to .git, while every purpose that reads or writes calls the tools: no answer holds
// the secret, no list names a file by it, no write reaches a blocked file, and each purpose ran
// during the flips.
func TestRaceBlockedFlip(t *testing.T) {
	e := newBlockedEnv(t, append(blockedTree, ".swap-d => .git")...)
	note, d := filepath.Join(e.root, "note.md"), filepath.Join(e.root, "d")
	text := strings.TrimPrefix(blockedTree[0], "note.md=")
	var listed atomic.Int64
	bodies := map[string]func(int){
		"flip-note": func(i int) {
			mustOK(t, replaceWith(note, filepath.Join(e.root, ".swap-note"), i%2 == 0, ".env", text))
			e.changed()
		},
		"flip-d": func(int) {
			// d and .swap-d, a link to .git, trade places at once: d is the folder or the link.
			mustOK(t, exchange(d, filepath.Join(e.root, ".swap-d")))
			e.changed()
		},
	}
	for name, c := range blockedCalls(e.marker) {
		bodies[name] = func(int) {
			if out := e.call(c.tool, c.args); name == "list-content" && listedAny(out) {
				listed.Add(1)
			}
		}
	}
	e.runRace(raceDuration(t), bodies)
	if n := listed.Load(); n > 0 {
		t.Errorf("ESCAPE: %d lists by the secret named a file", n)
	}
	e.checkBlockedIntact()
	e.verify(append(raceCodes, errs.CodeBlocked, errs.CodeExtension, errs.CodeNotText, errs.CodeEditNotFound, errs.CodeConflict)...)
}

// TestStaleIndexBlocked swaps note.md for a link to .env, and d for a link to .git, after the
// index was built and before it could see the change, then calls every purpose once: the index
// still holds note.md's and d/x.md's words, but nothing shows the blocked files' text.
func TestStaleIndexBlocked(t *testing.T) {
	e := newBlockedEnv(t, blockedTree...)
	before, _ := json.Marshal(e.call(SearcherName, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "inside"}}))
	if hits := string(before); !strings.Contains(hits, `"note.md"`) || !strings.Contains(hits, `"d/x.md"`) {
		t.Fatalf("before the swap, search_semantic inside = %s, want note.md and d/x.md", hits)
	}
	mustOK(t, replaceWith(filepath.Join(e.root, "note.md"), filepath.Join(e.root, ".swap"), true, ".env", ""))
	mustOK(t, removeTree(filepath.Join(e.root, "d")))
	mustOK(t, os.Symlink(".git", filepath.Join(e.root, "d")))
	for name, c := range blockedCalls(e.marker) {
		t.Run(name, func(t *testing.T) {
			if out := e.call(c.tool, c.args); name == "list-content" && listedAny(out) {
				t.Errorf("ESCAPE: a list by the secret named %v", out["files"])
			}
		})
	}
	e.checkBlockedIntact()
	if e.nleak > 0 {
		t.Errorf("ESCAPE: %d answers held the secret; first ones:\n%s", e.nleak, strings.Join(e.leaks, "\n"))
	}
}
