package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRateLimit(t *testing.T) {
	f := newFixture(t)
	// 10 requests an hour overall, so 5 for each tool: the sixth call to one tool is refused.
	s := start(t, f, nil, "--rate-limit", "10", "--rate-window", "1h")
	for i := 0; i < 5; i++ {
		if res, _ := s.call(reader, access("exists", "notes/a.md")); res["success"] != true {
			t.Fatalf("call %d refused: %v", i, res)
		}
	}
	res, isErr := s.call(reader, access("exists", "notes/a.md"))
	wait, _ := res["retryAfterMs"].(float64)
	if !isErr || res["code"] != "RATE_LIMITED" || wait <= 0 || wait > 3600_000 {
		t.Fatalf("sixth call = %v", res)
	}
	// Another tool has its own budget, and the refused call charged nothing overall.
	if res, _ := s.call(searcher, intent("list", ".", nil)); res["success"] != true {
		t.Errorf("another tool was refused too: %v", res)
	}
}

func TestHardLinks(t *testing.T) {
	f := newFixture(t)
	must(t, os.Link(filepath.Join(f.outside, "secret.md"), filepath.Join(f.root, "hard.md")))
	must(t, os.Link(filepath.Join(f.outside, "secret.md"), filepath.Join(f.root, "full", "hard.md")))
	s := start(t, f, nil, "--allow-write")
	runCases(t, s, []toolCase{
		{name: "read", tool: reader, args: access("read", "hard.md"), code: "HARD_LINK"},
		{name: "update", tool: writer, args: intent("update", "hard.md", map[string]any{"content": "x"}), code: "HARD_LINK"},
		{name: "append", tool: writer, args: intent("append", "hard.md", map[string]any{"content": "x"}), code: "HARD_LINK"},
		{name: "copy", tool: writer, args: copyOf("hard.md", "copied.md", nil), code: "HARD_LINK"},
		{name: "copy of a folder holding one", tool: writer, args: copyOf("full", "full2", map[string]any{"recursive": true}), check: func(t *testing.T, r map[string]any) {
			if _, err := os.Lstat(filepath.Join(f.root, "full2", "hard.md")); err == nil || r["hiddenEntries"] != 1.0 || r["filesCopied"] != 1.0 {
				t.Errorf("the copy of full: %v (full2/hard.md: %v)", r, err)
			}
		}},
	})
	s.checkNoLeak()
	allowed := start(t, f, nil, "--allow-hard-links")
	if res, _ := allowed.call(reader, access("read", "hard.md")); res["content"] != marker+"\n" {
		t.Errorf("--allow-hard-links did not allow the read: %v", res)
	}
}

// TestPathsResolveAgainstTheRoot checks that a relative path never resolves against the server's
// working directory (the test's package directory, which holds e2e_test.go).
func TestPathsResolveAgainstTheRoot(t *testing.T) {
	f := newFixture(t)
	s := start(t, f, nil)
	runCases(t, s, []toolCase{
		{name: "cwd file", tool: reader, args: access("read", "e2e_test.go"), code: "NOT_FOUND"},
		{name: "cwd markdown", tool: reader, args: access("exists", "../../README.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "dot", tool: reader, args: access("exists", "."), check: func(t *testing.T, r map[string]any) {
			if r["type"] != "directory" {
				t.Errorf("root = %v", r)
			}
		}},
	})
}

// TestRootIsASymlink serves a root given through a symbolic link, then re-points the link outside:
// the server keeps serving the directory it opened, and both spellings of the root are inside.
func TestRootIsASymlink(t *testing.T) {
	f := newFixture(t)
	link := filepath.Join(f.dir, "rootlink")
	must(t, os.Symlink(f.root, link))
	g := *f
	g.root = link
	s := start(t, &g, nil)
	runCases(t, s, []toolCase{
		{name: "given spelling", tool: reader, args: access("read", filepath.Join(link, "notes/a.md"))},
		{name: "resolved spelling", tool: reader, args: access("read", filepath.Join(f.root, "notes/a.md"))},
	})
	must(t, os.Remove(link))
	must(t, os.Symlink(f.outside, link))
	runCases(t, s, []toolCase{
		{name: "after re-pointing", tool: reader, args: access("read", "secret.md"), code: "NOT_FOUND"},
		{name: "still the old root", tool: reader, args: access("read", "notes/a.md")},
	})
	s.checkNoLeak()
}

func TestDanglingLinkWrites(t *testing.T) {
	f := newFixture(t)
	s := start(t, f, nil, "--allow-write")
	runCases(t, s, []toolCase{
		{name: "mkdir", tool: writer, args: intent("mkdir", "dangling.md", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "mkdir below", tool: writer, args: intent("mkdir", "dangling.md/x", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "move onto", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "notes/a.md", "destination": "dangling.md"},
			"options": map[string]any{"overwrite": true}}, code: "PATH_OUTSIDE_ROOT"},
		{name: "edit", tool: writer, args: intent("edit", "dangling.md", map[string]any{"edits": []map[string]any{{"oldText": "a", "newText": "b"}}}), code: "PATH_OUTSIDE_ROOT"},
	})
	if _, err := os.Lstat(f.pwned); err == nil {
		t.Fatalf("%s was created", f.pwned)
	}
	s.checkNoLeak()
}

// TestBlockedPathsAdd checks, through the binary, that a blocked path added by a flag or by the
// config file is blocked besides the defaults, never instead of them, and that taking a default
// off takes a setting of its own, which doctor names.
func TestBlockedPathsAdd(t *testing.T) {
	f := newFixture(t)
	for name, content := range map[string]string{
		"code/x/credentials.json":  `{"token": "` + marker + `"}`,
		"node_modules/lib/x.js":    "module.exports = 1\n",
		"Downloads/invoice.md":     "# Invoice\n",
		"code/x/.ssh/known.txt":    marker + "\n",
		"code/x/deploy/server.key": marker + "\n",
	} {
		p := filepath.Join(f.root, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	config := filepath.Join(f.dir, "config.json")
	must(t, os.WriteFile(config, []byte(`{"security": {"blockedPaths": ["Downloads"]}}`), 0o644))
	secrets := []string{".env", ".git/config", "keys/server.pem", "code/x/credentials.json", "node_modules/lib/x.js",
		"code/x/.ssh/known.txt", "code/x/deploy/server.key"}
	for _, setup := range [][]string{{"--blocked-paths", "Downloads"}, {"--config", config}} {
		t.Run(setup[0], func(t *testing.T) {
			s := start(t, f, nil, setup...)
			for _, p := range append(secrets, "Downloads/invoice.md") {
				if res, _ := s.call(reader, access("read", p)); res["code"] != "PATH_BLOCKED" {
					t.Errorf("read %s: %v, want PATH_BLOCKED", p, res)
				}
			}
			if res, _ := s.call(reader, access("read", "notes/a.md")); res["success"] != true {
				t.Errorf("read notes/a.md: %v", res)
			}
			s.checkNoLeak()
		})
	}
	t.Run("--unblock", func(t *testing.T) {
		s := start(t, f, nil, "--blocked-paths", "Downloads", "--unblock", "node_modules")
		if res, _ := s.call(reader, access("read", "node_modules/lib/x.js")); res["success"] != true {
			t.Errorf("read node_modules/lib/x.js with --unblock node_modules: %v", res)
		}
		for _, p := range slices.DeleteFunc(slices.Clone(secrets), func(p string) bool { return strings.HasPrefix(p, "node_modules/") }) {
			if res, _ := s.call(reader, access("read", p)); res["code"] != "PATH_BLOCKED" {
				t.Errorf("read %s with --unblock node_modules: %v, want PATH_BLOCKED", p, res)
			}
		}
	})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--blocked-paths", "Downloads"}, ""},
		{[]string{"--unblock", "node_modules,*.PEM"}, "NOT blocked  node_modules *.pem"},
		{[]string{"--no-default-blocked"}, "NOT blocked  .git .hg"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"doctor", "--root", f.root}, tt.args...), strings.NewReader(""), &stdout, &stderr)
		out := stdout.String()
		switch {
		case code != 0:
			t.Errorf("doctor %q: exit %d\n%s%s", tt.args, code, out, stderr.String())
		case tt.want == "" && strings.Contains(out, "NOT blocked"):
			t.Errorf("doctor %q names defaults off:\n%s", tt.args, out)
		case tt.want != "" && !strings.Contains(out, tt.want):
			t.Errorf("doctor %q does not say %q:\n%s", tt.args, tt.want, out)
		}
	}
	// The start-up line names a default taken off.
	serve := exec.Command(binPath, "serve", "--root", f.root, "--no-index", "--unblock", "node_modules")
	serve.Env = append(os.Environ(), cacheEnv(f.dir)[1])
	serve.Stdin = strings.NewReader("")
	banner, _ := serve.CombinedOutput()
	if !strings.Contains(string(banner), "(defaults NOT blocked: node_modules)") {
		t.Errorf("the start-up line does not name the default taken off:\n%s", banner)
	}
	var stderr bytes.Buffer
	if code := run([]string{"doctor", "--root", f.root, "--unblock", "drafts"}, strings.NewReader(""), io.Discard, &stderr); code == 0 || !strings.Contains(stderr.String(), `unblock "drafts": not a default blocked pattern`) {
		t.Errorf("doctor --unblock drafts: exit %d, %s", code, stderr.String())
	}
}

// TestAddExtensionsEndToEnd checks, through the binary, that a type not on the list is read when
// its content is text but cannot be created, and that --add-extensions opens it besides the
// defaults, which stay open, so that it can be created too.
func TestAddExtensionsEndToEnd(t *testing.T) {
	f := newFixture(t)
	must(t, os.WriteFile(filepath.Join(f.root, "case.txtar"), []byte("-- a.go --\npackage a\n"), 0o644))
	create := intent("create", "new.txtar", map[string]any{"content": "-- b.go --\n"})
	plain := start(t, f, nil, "--no-index", "--allow-write")
	if res, _ := plain.call(reader, access("read", "case.txtar")); res["success"] != true {
		t.Errorf("read case.txtar by default: %v, want its text", res)
	}
	if res, _ := plain.call(writer, create); res["code"] != "EXTENSION_NOT_ALLOWED" {
		t.Errorf("create new.txtar by default: %v, want EXTENSION_NOT_ALLOWED", res)
	}
	added := start(t, f, nil, "--no-index", "--allow-write", "--add-extensions", ".txtar")
	for _, p := range []string{"case.txtar", "notes/a.md"} {
		if res, _ := added.call(reader, access("read", p)); res["success"] != true {
			t.Errorf("read %s with --add-extensions .txtar: %v", p, res)
		}
	}
	if res, _ := added.call(writer, create); res["success"] != true {
		t.Errorf("create new.txtar with --add-extensions .txtar: %v", res)
	}
}
