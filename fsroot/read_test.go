package fsroot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/internal/tier"
)

func TestOpen(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Tree(t, base, base, "real/f", "alias => real", "file")
	t.Run("symlinked root", func(t *testing.T) {
		r, err := Open(filepath.Join(base, "alias"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.Dir() != filepath.Join(base, "alias") {
			t.Errorf("Dir = %q", r.Dir())
		}
		want, _ := filepath.EvalSymlinks(filepath.Join(base, "real"))
		if r.ResolvedDir() != want {
			t.Errorf("ResolvedDir = %q, want %q", r.ResolvedDir(), want)
		}
		// Re-pointing the link later does not move the root.
		os.Remove(filepath.Join(base, "alias"))
		testfs.Symlink(t, "/", filepath.Join(base, "alias"))
		if _, err := r.Stat("f"); err != nil {
			t.Errorf("Stat after re-point: %v", err)
		}
		if _, err := r.Stat("etc"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(etc) after re-point: %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("relative dir", func(t *testing.T) {
		t.Chdir(base)
		r, err := Open("real/../real", Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.Dir() != filepath.Join(base, "real") {
			t.Errorf("Dir = %q", r.Dir())
		}
	})
	t.Run("not a directory", func(t *testing.T) {
		if _, err := Open(filepath.Join(base, "file"), Options{}); err == nil {
			t.Error("Open of a file succeeded")
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := Open(filepath.Join(base, "nope"), Options{}); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error = %v, want fs.ErrNotExist", err)
		}
	})
}

func TestResolve(t *testing.T) {
	entries := []string{
		"d/", "d/f.md", "f",
		"ld => d",
		"d/loop => ..",
		"dl => missing.md",
		"dl2 => d/nodir/x",
		"chain => ld/f.md",
		"lf => f",
		"slash => f/",
		"via_missing => nope/../../x",
		"via_missing_in => nope/../f",
	}
	tests := []struct {
		name string
		want string
		err  error
	}{
		{name: ".", want: "."},
		{name: "d/f.md", want: "d/f.md"},
		{name: "ld", want: "d"},
		{name: "ld/f.md", want: "d/f.md"},
		{name: "ld/new/deeper/f.md", want: "d/new/deeper/f.md"},
		{name: "d/loop", want: "."},
		{name: "d/loop/d/loop/d/f.md", want: "d/f.md"},
		{name: "chain", want: "d/f.md"},
		{name: "dl", want: "missing.md"},
		{name: "dl2", want: "d/nodir/x"},
		{name: "nope/x", want: "nope/x"},
		{name: "f/x", err: ErrNotDir},
		{name: "lf/x", err: ErrNotDir},
		{name: "slash", err: ErrNotDir},
		{name: "via_missing", err: ErrEscapes},
		{name: "via_missing_in", err: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := newTree(t, Options{}, entries...)
			got, err := r.Resolve(tt.name)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("Resolve(%q) error = %v, want %v", tt.name, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
		})
	}
}

func TestReadDir(t *testing.T) {
	entries := []string{"d/", "d/b", "d/a", "d/c/", "d/l => b", "d/" + TempPrefix + "x", "ld => d"}
	t.Run("sorted with lstat info", func(t *testing.T) {
		_, r := newTree(t, Options{}, entries...)
		for _, dir := range []string{"d", "ld"} {
			got, truncated, err := r.ReadDir(context.Background(), dir, 0)
			if err != nil || truncated {
				t.Fatalf("ReadDir(%s) = %v, %v", dir, truncated, err)
			}
			type entry struct {
				Path, Name string
				Type       FileType
				Target     string
			}
			var brief []entry
			for _, e := range got {
				brief = append(brief, entry{e.Path, e.Name, e.Type, e.Target})
			}
			want := []entry{
				{dir + "/a", "a", TypeFile, ""},
				{dir + "/b", "b", TypeFile, ""},
				{dir + "/c", "c", TypeDir, ""},
				{dir + "/l", "l", TypeSymlink, "b"},
			}
			if diff := cmp.Diff(want, brief); diff != "" {
				t.Errorf("ReadDir(%s) (-want +got):\n%s", dir, diff)
			}
		}
	})
	tests := []struct {
		max       int
		want      int
		truncated bool
	}{
		{max: 3, want: 3, truncated: true},
		{max: 10, want: 10, truncated: false},
		{max: 11, want: 10, truncated: false},
		{max: 0, want: 10, truncated: false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("max %d", tt.max), func(t *testing.T) {
			var files []string
			for i := range 10 {
				files = append(files, fmt.Sprintf("m/f%02d", i))
			}
			files = append(files, "m/"+TempPrefix+"hidden")
			_, r := newTree(t, Options{}, files...)
			got, truncated, err := r.ReadDir(context.Background(), "m", tt.max)
			if err != nil || len(got) != tt.want || truncated != tt.truncated {
				t.Errorf("ReadDir(max %d) = %d entries, truncated %v, %v; want %d, %v", tt.max, len(got), truncated, err, tt.want, tt.truncated)
			}
		})
	}
	t.Run("large directory in batches", func(t *testing.T) {
		base, r := newTree(t, Options{}, "big/")
		for i := range 3*dirBatch + 7 {
			if err := os.WriteFile(filepath.Join(base, "root", "big", fmt.Sprintf("f%d", i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, truncated, err := r.ReadDir(context.Background(), "big", 0)
		if err != nil || truncated || len(got) != 3*dirBatch+7 {
			t.Fatalf("ReadDir = %d, %v, %v", len(got), truncated, err)
		}
		if !slices.IsSortedFunc(got, func(a, b Info) int { return strings.Compare(a.Name, b.Name) }) {
			t.Error("entries not sorted")
		}
	})
	t.Run("not a directory", func(t *testing.T) {
		_, r := newTree(t, Options{}, "f")
		if _, _, err := r.ReadDir(context.Background(), "f", 0); !errors.Is(err, ErrNotDir) {
			t.Errorf("error = %v, want ErrNotDir", err)
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		skipIfRoot(t)
		base, r := newTree(t, Options{}, "u/f")
		os.Chmod(filepath.Join(base, "root", "u"), 0)
		t.Cleanup(func() { os.Chmod(filepath.Join(base, "root", "u"), 0o755) })
		_, _, err := r.ReadDir(context.Background(), "u", 0)
		if !errors.Is(err, fs.ErrPermission) || strings.Contains(err.Error(), base) {
			t.Errorf("error = %v, want fs.ErrPermission without host path", err)
		}
	})
}

// walkPaths walks name and returns the reported paths, with "!" appended
// to those reported with an error.
func walkPaths(t *testing.T, r *Root, name string, maxDepth int) []string {
	t.Helper()
	var got []string
	err := r.Walk(context.Background(), name, maxDepth, func(info Info, err error) error {
		p := info.Path
		if err != nil {
			p += "!"
		}
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWalk(t *testing.T) {
	entries := []string{
		"a/", "a/b/", "a/b/c.md", "a/z.md", "b.md",
		"a/" + TempPrefix + "tmp",
		"d/", "d/loop => ..", "d/out => ../../outside",
		"ld => a",
	}
	tests := []struct {
		name     string
		start    string
		maxDepth int
		want     []string
	}{
		{"all", ".", 0, []string{"a", "a/b", "a/b/c.md", "a/z.md", "b.md", "d", "d/loop", "d/out", "ld"}},
		{"depth 1", ".", 1, []string{"a", "b.md", "d", "ld"}},
		{"depth 2", ".", 2, []string{"a", "a/b", "a/z.md", "b.md", "d", "d/loop", "d/out", "ld"}},
		{"subdir", "a", 0, []string{"a/b", "a/b/c.md", "a/z.md"}},
		{"start through link", "ld", 0, []string{"ld/b", "ld/b/c.md", "ld/z.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := newTree(t, Options{}, entries...)
			if diff := cmp.Diff(tt.want, walkPaths(t, r, tt.start, tt.maxDepth)); diff != "" {
				t.Errorf("walk (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("SkipDir and SkipAll", func(t *testing.T) {
		_, r := newTree(t, Options{}, entries...)
		var got []string
		err := r.Walk(context.Background(), ".", 0, func(info Info, err error) error {
			got = append(got, info.Path)
			switch info.Path {
			case "a/b":
				return fs.SkipDir
			case "d/loop":
				return fs.SkipAll
			}
			return nil
		})
		want := []string{"a", "a/b", "a/z.md", "b.md", "d", "d/loop"}
		if diff := cmp.Diff(want, got); diff != "" || err != nil {
			t.Errorf("walk err %v (-want +got):\n%s", err, diff)
		}
	})
	t.Run("fn error stops", func(t *testing.T) {
		_, r := newTree(t, Options{}, entries...)
		stop := errors.New("stop")
		err := r.Walk(context.Background(), ".", 0, func(Info, error) error { return stop })
		if !errors.Is(err, stop) {
			t.Errorf("error = %v, want stop", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		_, r := newTree(t, Options{}, entries...)
		ctx, cancel := context.WithCancel(context.Background())
		err := r.Walk(ctx, ".", 0, func(Info, error) error { cancel(); return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	})
	t.Run("unreadable dir reported", func(t *testing.T) {
		skipIfRoot(t)
		base, r := newTree(t, Options{}, "u/f", "v")
		os.Chmod(filepath.Join(base, "root", "u"), 0)
		t.Cleanup(func() { os.Chmod(filepath.Join(base, "root", "u"), 0o755) })
		want := []string{"u", "u!", "v"}
		if diff := cmp.Diff(want, walkPaths(t, r, ".", 0)); diff != "" {
			t.Errorf("walk (-want +got):\n%s", diff)
		}
	})
	t.Run("start errors", func(t *testing.T) {
		_, r := newTree(t, Options{}, entries...)
		for name, want := range map[string]error{"b.md": ErrNotDir, "nope": fs.ErrNotExist, "d/out": ErrEscapes, "..": ErrEscapes} {
			if err := r.Walk(context.Background(), name, 0, func(Info, error) error { return nil }); !errors.Is(err, want) {
				t.Errorf("Walk(%q) = %v, want %v", name, err, want)
			}
		}
	})
}

// mkdirChain makes depth nested directories named name under dir with
// os.Root, one level at a time, so no path grows beyond one component.
func mkdirChain(t *testing.T, dir string, depth int, also func(level *os.Root)) {
	t.Helper()
	cur, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for range depth {
		if also != nil {
			also(cur)
		}
		if err := cur.Mkdir("d", 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := cur.OpenRoot("d")
		cur.Close()
		if err != nil {
			t.Fatal(err)
		}
		cur = next
	}
	cur.Close()
}

func TestWalkDeep(t *testing.T) {
	tier.Full(t, "walks a tree thousands of levels deep")
	if testfs.UnderWine {
		t.Skip("2,000 levels take more than 8 minutes under Wine, each open a round trip to its server; the walk's code is the same on every system")
	}
	const depth = 10_000
	base, r := newTree(t, Options{}, "deep/")
	mkdirChain(t, filepath.Join(base, "root", "deep"), depth, nil)
	count, maxLen := 0, 0
	err := r.Walk(context.Background(), "deep", 0, func(info Info, err error) error {
		if err != nil {
			return err
		}
		count++
		maxLen = max(maxLen, len(info.Path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if count != depth || maxLen != len("deep")+2*depth {
		t.Errorf("walked %d entries, longest path %d; want %d, %d", count, maxLen, depth, len("deep")+2*depth)
	}
}

// TestWalkReopens walks a comb deeper than the open-handle window, where
// each level also has a sibling directory visited after the deep branch,
// so closed handles must be reopened.
func TestWalkReopens(t *testing.T) {
	const depth = 3*walkOpenWindow + 5
	base, r := newTree(t, Options{}, "comb/")
	mkdirChain(t, filepath.Join(base, "root", "comb"), depth, func(level *os.Root) {
		if err := level.Mkdir("e", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := level.WriteFile("e/f", nil, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	var leaves []string
	err := r.Walk(context.Background(), "comb", 0, func(info Info, err error) error {
		if err != nil {
			return err
		}
		if info.Name == "f" {
			leaves = append(leaves, info.Path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(leaves) != depth {
		t.Fatalf("found %d leaves, want %d", len(leaves), depth)
	}
	// The deepest comb tooth is visited first, the shallowest last.
	if want := "comb/e/f"; leaves[len(leaves)-1] != want {
		t.Errorf("last leaf %q, want %q", leaves[len(leaves)-1], want)
	}
}

// TestDifferential checks that ordinary in-root paths give what the os
// package gives on the same files.
func TestDifferential(t *testing.T) {
	entries := []string{"d/", "d/f.md=hello", "d/e/", "d/e/g.txt=world", "d/l => f.md", "empty=", "ld => d"}
	base, r := newTree(t, Options{}, entries...)
	root := filepath.Join(base, "root")
	for _, name := range []string{".", "d", "d/f.md", "d/e", "d/e/g.txt", "d/l", "empty", "ld", "ld/e/g.txt"} {
		t.Run(name, func(t *testing.T) {
			host := filepath.Join(root, filepath.FromSlash(name))
			want, err := os.Stat(host)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			wantInfo := newInfo(name, want)
			if diff := cmp.Diff(wantInfo, got); diff != "" {
				t.Errorf("Stat (-os +fsroot):\n%s", diff)
			}
			e, err := r.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if found, err := e.Info(); err != nil {
				t.Errorf("Lookup info: %v", err)
			} else if diff := cmp.Diff(wantInfo, found); diff != "" {
				t.Errorf("Lookup (-os +fsroot):\n%s", diff)
			}
			if real, err := filepath.EvalSymlinks(host); err != nil || filepath.Join(r.ResolvedDir(), e.Path()) != real {
				t.Errorf("Lookup path %q, want %q (%v)", e.Path(), real, err)
			}
			if want.IsDir() {
				osEntries, err := os.ReadDir(host)
				if err != nil {
					t.Fatal(err)
				}
				entries, _, err := r.ReadDir(context.Background(), name, 0)
				if err != nil {
					t.Fatal(err)
				}
				var wantNames, gotNames []string
				for _, e := range osEntries {
					wantNames = append(wantNames, e.Name())
					fi, _ := e.Info()
					if diff := cmp.Diff(fi.Mode(), entries[len(wantNames)-1].Mode); diff != "" {
						t.Errorf("mode of %s (-os +fsroot):\n%s", e.Name(), diff)
					}
				}
				for _, e := range entries {
					gotNames = append(gotNames, e.Name)
					if e.Path != path.Join(name, e.Name) {
						t.Errorf("entry path %q", e.Path)
					}
				}
				if diff := cmp.Diff(wantNames, gotNames); diff != "" {
					t.Errorf("ReadDir (-os +fsroot):\n%s", diff)
				}
				return
			}
			wantData, err := os.ReadFile(host)
			if err != nil {
				t.Fatal(err)
			}
			data, _, err := r.ReadFile(context.Background(), name, 0)
			if err != nil || !bytes.Equal(data, wantData) {
				t.Errorf("ReadFile = %q, %v; want %q", data, err, wantData)
			}
			var scanned []byte
			if _, err := e.Scan(context.Background(), 0, func(p []byte) error {
				scanned = append(scanned, p...)
				return nil
			}); err != nil || !bytes.Equal(scanned, wantData) {
				t.Errorf("Scan = %q, %v; want %q", scanned, err, wantData)
			}
		})
	}
}

func TestFS(t *testing.T) {
	_, r := newTree(t, Options{}, "a.md", "d/", "d/b.md", "d/e/", "d/e/c.txt=deep", "empty/", "d/"+TempPrefix+"x")
	if err := fstest.TestFS(r.FS(), "a.md", "d/b.md", "d/e/c.txt", "empty"); err != nil {
		t.Fatal(err)
	}
	t.Run("temp hidden", func(t *testing.T) {
		entries, err := fs.ReadDir(r.FS(), "d")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), TempPrefix) {
				t.Errorf("temp entry listed: %s", e.Name())
			}
		}
	})
	t.Run("invalid", func(t *testing.T) {
		if _, err := r.FS().Open("../x"); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("error = %v, want fs.ErrInvalid", err)
		}
	})
}

func TestCleanTemp(t *testing.T) {
	_, r := newTree(t, Options{},
		TempPrefix+"a", "d/"+TempPrefix+"b", "d/e/"+TempPrefix+"c", "d/keep.md",
		"d/"+TempPrefix+"link => keep.md", "out => ../outside",
	)
	n, err := r.CleanTemp(context.Background())
	if err != nil || n != 4 {
		t.Errorf("CleanTemp = %d, %v; want 4", n, err)
	}
	for _, name := range []string{TempPrefix + "a", "d/" + TempPrefix + "b", "d/e/" + TempPrefix + "c", "d/" + TempPrefix + "link"} {
		if _, err := r.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want removed", name, err)
		}
	}
	if _, err := r.Lstat("d/keep.md"); err != nil {
		t.Errorf("keep.md: %v", err)
	}
}

// TestCleanTempOtherWriter checks that CleanTemp leaves alone the
// temporary file of a write in progress in another process (here another
// Root over the folder, whose writes this one does not know), and removes
// it once that write let go.
func TestCleanTempOtherWriter(t *testing.T) {
	base, r := newTree(t, Options{}, "d/")
	other, err := Open(filepath.Join(base, "root"), Options{})
	mustOK(t, err)
	defer other.Close()
	e, err := other.Lookup("d/x")
	mustOK(t, err)
	defer e.Close()
	var tmp string
	err = e.at(func(dir handle, _ string) error {
		var err error
		tmp, err = other.writeTemp(context.Background(), dir, 0o644, []byte("in progress"))
		return err
	})
	mustOK(t, err)
	if n, err := r.CleanTemp(context.Background()); err != nil || n != 0 {
		t.Errorf("CleanTemp = %d, %v during another's write; want 0", n, err)
	}
	if _, err := r.Lstat("d/" + tmp); err != nil {
		t.Fatalf("the write in progress lost its temporary file: %v", err)
	}
	other.done(tmp) // a crash after the sync: the file is left, unlocked
	if n, err := r.CleanTemp(context.Background()); err != nil || n != 1 {
		t.Errorf("CleanTemp = %d, %v after the write let go; want 1", n, err)
	}
}
