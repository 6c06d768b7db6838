package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSeveralRootsAttacks runs case J54 of the security cases against the built binary serving two
// roots, the fixture's (named root) and b beside it: paths that climb from one root into another,
// links in one root that point into the other, copies across roots through both policies, and two
// roots that overlap; the same climbs and links as resource URIs (file:///NAME/path). The oracle
// is TestSecurityCases': nothing outside the roots read or changed.
func TestSeveralRootsAttacks(t *testing.T) {
	f := newFixture(t)
	b := filepath.Join(t.TempDir(), "b")
	must(t, os.MkdirAll(filepath.Join(b, "docs"), 0o755))
	must(t, os.WriteFile(filepath.Join(b, "x.md"), []byte("bee\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(b, ".env"), []byte("B_TOKEN=1\n"), 0o644))
	must(t, os.Symlink(b, filepath.Join(f.root, "tob")))
	must(t, os.Symlink(filepath.Join(b, "x.md"), filepath.Join(f.root, "tobx.md")))
	must(t, os.Symlink(filepath.Join(f.root, "notes", "a.md"), filepath.Join(b, "docs", "toroot.md")))
	before := f.snapshot(t)
	s := start(t, f, nil, "--root", "b="+b, "--allow-write")
	copyOf := func(from, to string, recursive bool) map[string]any {
		return map[string]any{"purpose": "copy", "target": map[string]any{"path": from, "destination": to}, "options": map[string]any{"recursive": recursive}}
	}
	absent := func(p string) func(*testing.T, map[string]any) {
		return func(t *testing.T, _ map[string]any) {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s exists", p)
			}
		}
	}
	cases := []toolCase{
		{name: "J54 the roots", tool: searcher, args: intent("list", ".", nil), check: func(t *testing.T, r map[string]any) {
			if r["totalFound"] != 2.0 {
				t.Errorf("list . = %v, want the two roots", r)
			}
		}},
		{name: "J54 a/../b/x", tool: reader, args: access("read", "root/../b/x.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "J54 ../b/x from inside a", tool: reader, args: access("read", "root/notes/../../b/x.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "J54 above the roots", tool: reader, args: access("read", "../b/x.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "J54 no such root", tool: reader, args: access("read", "c/x.md"), code: "NOT_FOUND"},
		{name: "J54 folder link into b", tool: reader, args: access("read", "root/tob/x.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "J54 file link into b", tool: reader, args: access("read", "root/tobx.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "J54 list through a link into b", tool: searcher, args: intent("list", "root/tob", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "J54 link from b into a", tool: reader, args: access("read", "b/docs/toroot.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "J54 b's blocked name", tool: reader, args: access("read", "b/.env"), code: "PATH_BLOCKED"},
		{name: "J54 search of . leaves links into b", tool: searcher, args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "bee"}}, check: func(t *testing.T, r map[string]any) {
			if r["totalFound"] != 1.0 || !strings.Contains(mustJSON(t, r["files"]), `"b/x.md"`) {
				t.Errorf("search of . = %v, want b/x.md alone", r)
			}
		}},
		{name: "J54 copy through a link into b", tool: writer, args: copyOf("root/tobx.md", "root/y.md", false), code: "PATH_OUTSIDE_ROOT", check: absent(filepath.Join(f.root, "y.md"))},
		{name: "J54 copy a blocked file across", tool: writer, args: copyOf("root/.env", "b/env.md", false), code: "PATH_BLOCKED", check: absent(filepath.Join(b, "env.md"))},
		{name: "J54 copy to a blocked name across", tool: writer, args: copyOf("root/notes/a.md", "b/.git/x.md", false), code: "PATH_BLOCKED", check: absent(filepath.Join(b, ".git"))},
		{name: "J54 copy a link out across", tool: writer, args: copyOf("root/abs_out.md", "b/z.md", false), code: "PATH_OUTSIDE_ROOT", check: absent(filepath.Join(b, "z.md"))},
		{name: "J54 copy a FIFO across", tool: writer, args: copyOf("root/fifo.md", "b/f.md", false), code: "NOT_REGULAR_FILE", check: absent(filepath.Join(b, "f.md"))},
		{name: "J54 copy climbing out of b", tool: writer, args: copyOf("root/notes/a.md", "b/../root/w.md", false), code: "PATH_OUTSIDE_ROOT", check: absent(filepath.Join(f.root, "w.md"))},
		{name: "J54 copy a folder across", tool: writer, args: copyOf("root/notes", "b/notes", true), check: func(t *testing.T, r map[string]any) {
			if r["success"] != true {
				t.Fatalf("copy = %v", r)
			}
			if _, err := os.Lstat(filepath.Join(b, "notes", "up.md")); err == nil {
				t.Error("the link out of the root was copied into b")
			}
		}},
		{name: "J54 move across", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "root/notes/a.md", "destination": "b/a.md"}}, code: "INVALID_ARGUMENT", check: absent(filepath.Join(b, "a.md"))},
		{name: "J54 delete a root", tool: writer, args: intent("delete", "b", map[string]any{"options": map[string]any{"recursive": true}}), code: "ROOT_PROTECTED"},
	}
	runCases(t, s, cases)
	// The same climbs as resource URIs, which name a root as a tool's path does: refused alike.
	for _, r := range []struct{ uri, code string }{
		{"file:///root/../b/x.md", "PATH_OUTSIDE_ROOT"},
		{"file:///root/%2e%2e/b/x.md", "PATH_OUTSIDE_ROOT"},
		{"file:///root%2F..%2Fb%2Fx.md", "PATH_OUTSIDE_ROOT"},
		{"file:///root/notes/../../b/x.md", "PATH_OUTSIDE_ROOT"},
		{"file:///../b/x.md", "PATH_OUTSIDE_ROOT"},
		{"file:///%2E%2E%2Fb%2Fx.md", "PATH_OUTSIDE_ROOT"},
		{"file:///" + f.root + "/../outside/secret.md", "PATH_OUTSIDE_ROOT"},
		{"file:///" + f.root + "/tob/x.md", "PATH_OUTSIDE_ROOT"},
		{"file:///c/x.md", "NOT_FOUND"},
		{"file:///root/tob/x.md", "PATH_OUTSIDE_ROOT"},
		{"file:///root/tobx.md", "PATH_OUTSIDE_ROOT"},
		{"file:///b/docs/toroot.md", "PATH_OUTSIDE_ROOT"},
		{"file:///root/dirlink/secret.md", "PATH_OUTSIDE_ROOT"},
		{"file:///b/.env", "PATH_BLOCKED"},
		{"file:///root/.env", "PATH_BLOCKED"},
	} {
		if c, err := readResource(t, s, r.uri); err == nil || !strings.Contains(err.Error(), r.code+": ") {
			t.Errorf("resource %s: %v %v, want %s", r.uri, c, err, r.code)
		}
	}
	names, _, _ := listResources(t, s)
	for _, n := range names {
		if strings.HasPrefix(n, "root/tob") || n == "b/docs/toroot.md" || strings.HasSuffix(n, ".env") || !strings.HasPrefix(n, "root/") && !strings.HasPrefix(n, "b/") {
			t.Errorf("resources/list names %s, which the tools cannot read", n)
		}
	}
	if !slices.Contains(names, "b/x.md") || !slices.Contains(names, "root/notes/a.md") {
		t.Errorf("resources/list: %v, want the files of both roots", names)
	}
	s.checkNoLeak()
	if d := snapshotDiff(before, f.snapshot(t)); d != "" {
		t.Errorf("outside the roots changed: %s", d)
	}
	if got, err := os.ReadFile(filepath.Join(b, "x.md")); err != nil || string(got) != "bee\n" {
		t.Errorf("b/x.md = %q, %v", got, err)
	}

	t.Run("J54 overlapping roots", func(t *testing.T) {
		for _, args := range [][]string{
			{"--root", "a=" + f.root, "--root", "n=" + filepath.Join(f.root, "notes")},
			{"--root", "n=" + filepath.Join(f.root, "notes"), "--root", "a=" + f.root},
			{"--root", "a=" + f.root, "--root", "a=" + b},
		} {
			cmd := exec.Command(binPath, append([]string{"serve"}, args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err == nil {
				t.Errorf("serve %q started; want a refusal", args)
			} else if !strings.Contains(stderr.String(), "root") {
				t.Errorf("serve %q: %s", args, stderr.String())
			}
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}
