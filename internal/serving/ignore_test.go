package serving

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
)

func TestExcludesFile(t *testing.T) {
	for _, tt := range []struct{ config, want string }{
		{"[core]\n\texcludesFile = ~/.gitignore_global\n", "/home/u/.gitignore_global"},
		{"[user]\n\tname = x\n[core]\n  excludesfile = \"/etc/ignore\"\n", "/etc/ignore"},
		{"[alias]\n\texcludesFile = /not/core\n", ""},
		{"[core]\n\texcludesFile = relative\n", ""},
		{"", ""},
	} {
		if got := excludesFile([]byte(tt.config), "/home/u"); got != tt.want {
			t.Errorf("excludesFile(%q) = %q, want %q", tt.config, got, tt.want)
		}
	}
}

// TestReadGlobalIgnore checks where the global excludes file is found: core.excludesFile of
// ~/.gitconfig when set, which replaces git's default file, else the default file.
func TestReadGlobalIgnore(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	must(t, os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755))
	must(t, os.WriteFile(filepath.Join(home, ".config", "git", "ignore"), []byte("default-*\n"), 0o644))
	if got := readGlobalIgnore(); len(got) == 0 || got[0] != "default-*" {
		t.Errorf("without core.excludesFile: %q, want the default file's lines", got)
	}
	must(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/.gitignore_global\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(home, ".gitignore_global"), []byte("global-*\n"), 0o644))
	if got := readGlobalIgnore(); len(got) == 0 || got[0] != "global-*" {
		t.Errorf("with core.excludesFile: %q, want that file's lines", got)
	}
}

// TestIgnoreAbove checks that a root inside a git work tree whose top is above it is known as such
// (its .git a folder, or a file as in a worktree), and one outside any is not, and that the ignore
// files of the folders above apply below the root as git applies them: anchored patterns from
// their own folder, the nearer folder's rules over the farther's, the root's own over both, and an
// answer names the file above ("../.gitignore").
func TestIgnoreAbove(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"repo/.git/info", "repo/sub/deep/out", "repo/sub/out", "wt/inner", "plain/sub"} {
		must(t, os.MkdirAll(filepath.Join(base, filepath.FromSlash(d)), 0o755))
	}
	files := map[string]string{
		"wt/.git":                  "gitdir: ../repo/.git/worktrees/wt\n",
		"repo/.gitignore":          "*.log\n/sub/out/\n/sub/deep/gen/\nown.md\n",
		"repo/.git/info/exclude":   "scratch.md\n",
		"repo/sub/.gitignore":      "!keep.log\n",
		"repo/sub/deep/.gitignore": "!own.md\n",
		"plain/.gitignore":         "*\n",
	}
	for name, text := range files {
		must(t, os.WriteFile(filepath.Join(base, filepath.FromSlash(name)), []byte(text), 0o644))
	}
	for dir, want := range map[string]bool{"repo/sub/deep": true, "repo/sub": true, "wt/inner": true, "plain/sub": false} {
		if got := ignoreAbove(filepath.Join(base, filepath.FromSlash(dir)), security.IgnoreConfig{}).InRepository; got != want {
			t.Errorf("ignoreAbove(%s).InRepository = %v, want %v", dir, got, want)
		}
	}
	dir := filepath.Join(base, "repo", "sub", "deep")
	root, err := fsroot.Open(dir, fsroot.Options{})
	must(t, err)
	defer root.Close()
	policy, err := security.NewPolicy(security.PolicyConfig{})
	must(t, err)
	ig := security.NewIgnore(root, policy, ignoreAbove(dir, security.IgnoreConfig{Global: []string{"/sub/deep/g.md"}}))
	tests := []struct {
		name  string
		isDir bool
		why   string
	}{
		{"a.log", false, `../../.gitignore line 1 "*.log"`},
		{"keep.log", false, ""}, // ../.gitignore re-includes it
		{"out", true, ""},       // /sub/out/ is another folder
		{"gen", true, `../../.gitignore line 3 "/sub/deep/gen/"`},
		{"gen/x.md", false, `../../.gitignore line 3 "/sub/deep/gen/"`},
		{"own.md", false, ""}, // the root's own .gitignore re-includes it
		{"scratch.md", false, `../../.git/info/exclude line 1 "scratch.md"`},
		{"g.md", false, `git's global excludes file line 1 "/sub/deep/g.md"`},
		{"notes.md", false, ""},
	}
	for _, tt := range tests {
		if got := ig.Why(tt.name, tt.isDir); got != tt.why {
			t.Errorf("Why(%q) = %q, want %q", tt.name, got, tt.why)
		}
	}
}
