package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHomeNoise serves a home folder with a repository whose .gitignore ignores its build
// output and logs, a source tree with a .gitignore but no .git, a Go module cache and a cache
// folder, with the default flags, through the
// binary: listings and searches leave the ignored and cached files out and count them in hidden,
// the index holds none of them, options.includeIgnored brings them back, and a read of one by
// its path still reads it.
func TestHomeNoise(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	for name, content := range map[string]string{
		"notes/ferns.md":                           "# Ferns\nwater the ferns weekly\n",
		"code/app/.git/HEAD":                       "ref: refs/heads/main\n",
		"code/app/.gitignore":                      "target/\n*.log\n",
		"code/app/main.go":                         "package main // ferns helper\n",
		"code/app/target/debug/out.md":             "# Build\nferns build output\n",
		"code/app/run.log":                         "ferns log line\n",
		"go/pkg/mod/example.com/lib@v1.0.0/lib.go": "package lib // ferns library\n",
		".cache/tool/page.md":                      "# Cached\nferns cached page\n",
		".config/git/ignore":                       "scratch-*\n",
		"code/app/scratch-1.md":                    "ferns scratch\n",
		"sources/.gitignore":                       "/*\n!/debian/\n",
		"sources/kernel/sched.c":                   "/* ferns scheduler */\n",
	} {
		p := filepath.Join(home, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	env := append(homeEnv(home), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	rows := doctorRows(t, env, "--root", home)
	seen := ""
	for line := range strings.SplitSeq(rows["ok"], "\n") {
		if strings.Contains(line, "files seen") {
			seen = line
		}
	}
	if !strings.Contains(seen, "in listings, searches and the index (5 ignored or in caches") {
		t.Errorf("doctor's count does not say what listings and the index see: %q", seen)
	}
	t.Cleanup(func() { os.RemoveAll(strings.Fields(rows["index"])[0]) })
	s := startOn(t, &fixture{dir: home, root: home}, env)
	waitIndexed(t, s)
	// sources is not a repository: its .gitignore (Debian's kernel sources end theirs with "/*")
	// hides nothing, as git, ripgrep and fd leave it alone there.
	shown := []string{"code/app/main.go", "notes/ferns.md", "sources/kernel/sched.c"}
	noise := []string{"code/app/target/debug/out.md", "code/app/run.log", "go/pkg/mod/example.com/lib@v1.0.0/lib.go", ".cache/tool/page.md", "code/app/scratch-1.md"}

	list := func(opts map[string]any) map[string]any {
		o := map[string]any{"recursive": true, "maxResults": 1000}
		for k, v := range opts {
			o[k] = v
		}
		res, _ := s.call(searcher, map[string]any{"purpose": "list", "target": map[string]any{"path": "."}, "options": o})
		return res
	}
	res := list(nil)
	got := paths(res)
	for _, p := range noise {
		if slices.Contains(got, p) {
			t.Errorf("list shows %s", p)
		}
	}
	for _, p := range shown {
		if !slices.Contains(got, p) {
			t.Errorf("list does not show %s: %v", p, got)
		}
	}
	hidden, _ := res["hidden"].(map[string]any)
	if hidden["ignored"] != 3.0 || hidden["cache"] != 2.0 || !strings.Contains(res["hiddenHint"].(string), "options.includeIgnored") {
		t.Errorf("list's hidden = %v, hint %q: want 3 ignored (target, run.log, the scratch note) and 2 cache (go/pkg/mod, .cache)", hidden, res["hiddenHint"])
	}
	all := paths(list(map[string]any{"includeIgnored": true}))
	for _, p := range append(noise, shown...) {
		if !slices.Contains(all, p) {
			t.Errorf("list with includeIgnored does not show %s", p)
		}
	}

	for _, opts := range []map[string]any{nil, {"includeIgnored": true}} {
		res, _ = s.call(searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "ferns"}, "options": opts})
		got, want := paths(res), shown
		if opts != nil {
			want = append(slices.Clone(noise), shown...)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("search_content ferns with %v: %v, want %v", opts, got, want)
		}
		if opts == nil && !strings.Contains(res["hiddenHint"].(string), "options.includeIgnored") {
			t.Errorf("search_content ferns does not say what it left out: %v", res)
		}
	}
	res, _ = s.call(searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "ferns"}})
	for _, p := range paths(res) {
		if slices.Contains(noise, p) {
			t.Errorf("search_semantic finds %s: the index holds noise", p)
		}
	}
	if res, _ := s.call(reader, access("read", "code/app/run.log")); res["content"] != "ferns log line\n" {
		t.Errorf("a read of an ignored file by its path: %v", res)
	}
	if res := paths(func() map[string]any {
		r, _ := s.call(searcher, map[string]any{"purpose": "list", "target": map[string]any{"path": "code/app/target"}, "options": map[string]any{"recursive": true}})
		return r
	}()); !slices.Contains(res, "code/app/target/debug/out.md") {
		t.Errorf("a listing of an ignored folder by its path: %v", res)
	}
	// With the index complete, a search of an ignored folder by its path reads the folder: the
	// index, which holds none of it, does not narrow it to nothing.
	res, _ = s.call(searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": "code/app/target", "query": "ferns"}})
	if got := paths(res); !slices.Equal(got, []string{"code/app/target/debug/out.md"}) {
		t.Errorf("search_content ferns in the ignored folder by its path: %v", res)
	}
}
