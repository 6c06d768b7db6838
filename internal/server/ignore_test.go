package server

import (
	"os"
	"path/filepath"
	"testing"
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

// TestInRepository checks that a root inside a git work tree whose top is above it is known as
// such (its .git a folder, or a file as in a worktree), and one outside any is not.
func TestInRepository(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"repo/.git", "repo/sub/deep", "wt/inner", "plain/sub"} {
		must(t, os.MkdirAll(filepath.Join(base, filepath.FromSlash(d)), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(base, "wt", ".git"), []byte("gitdir: ../repo/.git/worktrees/wt\n"), 0o644))
	for dir, want := range map[string]bool{"repo/sub/deep": true, "repo/sub": true, "wt/inner": true, "plain/sub": false} {
		if got := inRepository(filepath.Join(base, filepath.FromSlash(dir))); got != want {
			t.Errorf("inRepository(%s) = %v, want %v", dir, got, want)
		}
	}
}
