package security

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
)

func newIgnore(t *testing.T, global []string, tree ...string) (string, *Ignore) {
	t.Helper()
	dir := testfs.TempDir(t)
	testfs.Tree(t, dir, dir, tree...)
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := NewPolicy(PolicyConfig{})
	mustOK(t, err)
	return dir, NewIgnore(root, policy, IgnoreConfig{Global: global, InRepository: true})
}

func TestIgnoreHidden(t *testing.T) {
	_, ig := newIgnore(t, []string{"*.swp"},
		".gitignore=build/\n*.log\n!keep.log\n/top-only.md\n",
		"code/.gitignore=target\n# a comment\n\n",
		"code/.ignore=*.gen.go\n",
		"code/.git/info/exclude=local.md\n",
		"code/x.go=x", "code/build.go=x", "notes/a.md=a")
	tests := []struct {
		name  string
		isDir bool
		want  string
	}{
		{"build", true, HiddenIgnored},
		{"build/out.md", false, HiddenIgnored},
		{"notes/build", true, HiddenIgnored},
		{"notes/build", false, ""}, // build/ names folders only
		{"app.log", false, HiddenIgnored},
		{"deep/down/app.log", false, HiddenIgnored},
		{"keep.log", false, ""},
		{"build/keep.log", false, HiddenIgnored}, // no file comes back from an ignored folder
		{"top-only.md", false, HiddenIgnored},
		{"notes/top-only.md", false, ""},
		{"code/target", true, HiddenIgnored},
		{"code/target/debug/app", false, HiddenIgnored},
		{"target", true, ""}, // code/.gitignore applies in code only
		{"code/api.gen.go", false, HiddenIgnored},
		{"code/local.md", false, HiddenIgnored},
		{"local.md", false, ""},
		{"notes/.a.md.swp", false, HiddenIgnored},
		{"go/pkg/mod/x@v1/x.go", false, HiddenCache},
		{".cache", true, HiddenCache},
		{"code/x.go", false, ""},
		{"notes/a.md", false, ""},
		{".", true, ""},
	}
	for _, tt := range tests {
		if got := ig.Hidden(tt.name, tt.isDir); got != tt.want {
			t.Errorf("Hidden(%q, %v) = %q, want %q", tt.name, tt.isDir, got, tt.want)
		}
	}
}

// TestIgnoreChanges checks that an edit to an ignore file counts once the folder's files are
// looked at again, for the folder's verdicts and those of the folders below it.
func TestIgnoreChanges(t *testing.T) {
	dir, ig := newIgnore(t, nil, ".gitignore=old/\n", "old/a.md=a", "new/b.md=b", "new/deep/c.md=c")
	now := time.Now()
	ig.now = func() time.Time { return now }
	if ig.Hidden("old/a.md", false) != HiddenIgnored || ig.Hidden("new/deep/c.md", false) != "" {
		t.Fatal("the first verdicts are wrong")
	}
	mustOK(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("new/\n"), 0o644))
	future := time.Now().Add(time.Hour)
	mustOK(t, os.Chtimes(filepath.Join(dir, ".gitignore"), future, future))
	if ig.Hidden("new/deep/c.md", false) != "" {
		t.Error("the edit counted before the files were looked at again")
	}
	now = now.Add(ignoreRecheck)
	if got := ig.Hidden("new/deep/c.md", false); got != HiddenIgnored {
		t.Errorf("new/deep/c.md after the edit: %q, want ignored", got)
	}
	if got := ig.Hidden("old/a.md", false); got != "" {
		t.Errorf("old/a.md after the edit: %q, want shown", got)
	}
}

// TestIgnoreDeep checks that the ignore files of a folder below maxIgnoreDepth are not read,
// while those above still apply there.
func TestIgnoreDeep(t *testing.T) {
	deep := strings.Repeat("d/", maxIgnoreDepth+1)
	_, ig := newIgnore(t, nil, ".gitignore=*.tmp.md\n", deep+".gitignore=*.md\n", deep+"x.md=x", deep+"y.tmp.md=y")
	if got := ig.Hidden(deep+"x.md", false); got != "" {
		t.Errorf("a file below the depth bound is ignored by its folder's .gitignore: %q", got)
	}
	if got := ig.Hidden(deep+"y.tmp.md", false); got != HiddenIgnored {
		t.Errorf("the root's .gitignore does not apply below the depth bound: %q", got)
	}
}

// TestIgnoreGitOnlyInWorkTrees checks that git's ignore files and global excludes apply only
// inside a git work tree (a .git folder or file at a folder, or the root inside a repository),
// as git, ripgrep and fd apply them, while .ignore and .rgignore apply everywhere: a source tree
// shipped with its .gitignore but no .git (Debian's kernel sources end theirs with "/*") shows
// its files.
func TestIgnoreGitOnlyInWorkTrees(t *testing.T) {
	tree := []string{
		".gitignore=*.o\n/*\n!/debian/\n",
		".ignore=*.tmp\n",
		".rgignore=*.bak\n",
		"kernel/sched.c=x", "kernel/sched.o=x", "debian/rules=x", "a.tmp=x", "a.bak=x", "notes.swp=x",
		"repo/.git/HEAD=ref\n", "repo/.gitignore=build/\n", "repo/build/out.md=x", "repo/x.swp=x",
		"repo/.git/info/exclude=local.md\n", "repo/local.md=x",
		"wt/.git=gitdir: ../repo/.git/worktrees/wt\n", "wt/.gitignore=dist/\n", "wt/dist/x.md=x",
	}
	tests := []struct {
		name   string
		isDir  bool
		inRepo bool // the root lies in a work tree above it
		want   string
		why    string
	}{
		{"kernel", true, false, "", ""},
		{"kernel/sched.c", false, false, "", ""},
		{"kernel/sched.o", false, false, "", ""},
		{"a.tmp", false, false, HiddenIgnored, `.ignore line 1 "*.tmp"`},
		{"a.bak", false, false, HiddenIgnored, `.rgignore line 1 "*.bak"`},
		{"notes.swp", false, false, "", ""},
		{"repo/build", true, false, HiddenIgnored, `repo/.gitignore line 1 "build/"`},
		{"repo/build/out.md", false, false, HiddenIgnored, `repo/.gitignore line 1 "build/"`},
		{"repo/local.md", false, false, HiddenIgnored, `repo/.git/info/exclude line 1 "local.md"`},
		{"repo/x.swp", false, false, HiddenIgnored, globalSource + ` line 1 "*.swp"`},
		{"wt/dist/x.md", false, false, HiddenIgnored, `wt/.gitignore line 1 "dist/"`},
		{"kernel", true, true, HiddenIgnored, `.gitignore line 2 "/*"`},
		{"kernel/sched.c", false, true, HiddenIgnored, `.gitignore line 2 "/*"`},
		{"debian/rules", false, true, "", ""},
		{"go/pkg/mod/x.go", false, false, HiddenCache, "a cache (go/pkg/mod)"},
	}
	for _, inRepo := range []bool{false, true} {
		dir := testfs.TempDir(t)
		testfs.Tree(t, dir, dir, tree...)
		root, err := fsroot.Open(dir, fsroot.Options{})
		mustOK(t, err)
		defer root.Close()
		policy, err := NewPolicy(PolicyConfig{})
		mustOK(t, err)
		ig := NewIgnore(root, policy, IgnoreConfig{Global: []string{"*.swp"}, InRepository: inRepo})
		for _, tt := range tests {
			if tt.inRepo != inRepo && tt.name != "go/pkg/mod/x.go" {
				continue
			}
			if got := ig.Hidden(tt.name, tt.isDir); got != tt.want {
				t.Errorf("in a repository %v: Hidden(%q) = %q, want %q", inRepo, tt.name, got, tt.want)
			}
			if got := ig.Why(tt.name, tt.isDir); got != tt.why {
				t.Errorf("in a repository %v: Why(%q) = %q, want %q", inRepo, tt.name, got, tt.why)
			}
		}
	}
}

// TestIgnoreGitInit checks that a git init in a served tree counts once its folder is looked at
// again: its .gitignore then applies.
func TestIgnoreGitInit(t *testing.T) {
	dir := testfs.TempDir(t)
	testfs.Tree(t, dir, dir, ".gitignore=build/\n", "build/x.md=x")
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	defer root.Close()
	policy, err := NewPolicy(PolicyConfig{})
	mustOK(t, err)
	ig := NewIgnore(root, policy, IgnoreConfig{})
	now := time.Now()
	ig.now = func() time.Time { return now }
	if got := ig.Hidden("build/x.md", false); got != "" {
		t.Fatalf("before git init: %q, want shown", got)
	}
	mustOK(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	now = now.Add(ignoreRecheck)
	if got := ig.Hidden("build/x.md", false); got != HiddenIgnored {
		t.Errorf("after git init: %q, want ignored", got)
	}
}
