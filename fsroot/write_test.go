package fsroot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

// readHost reads a file of the test tree directly.
func readHost(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name     string
		entries  []string
		target   string
		want     error
		check    string // host file (under root/) whose content must be "new"
		wantMode fs.FileMode
	}{
		{name: "new file", target: "n.md", check: "n.md", wantMode: 0o644},
		{name: "replace", entries: []string{"f.md"}, target: "f.md", check: "f.md", wantMode: 0o644},
		{name: "through link to file", entries: []string{"d/t.md", "l => d/t.md"}, target: "l", check: "d/t.md", wantMode: 0o644},
		{name: "through linked dir", entries: []string{"d/", "ld => d"}, target: "ld/new.md", check: "d/new.md", wantMode: 0o644},
		{name: "dangling link inside", entries: []string{"l => missing.md"}, target: "l", want: ErrNotRegular},
		{name: "directory", entries: []string{"d/"}, target: "d", want: ErrIsDir},
		{name: "link to directory", entries: []string{"d/", "l => d"}, target: "l", want: ErrNotRegular},
		{name: "missing parent", target: "nope/x.md", want: fs.ErrNotExist},
		{name: "file as parent", entries: []string{"f"}, target: "f/x.md", want: ErrNotDir},
		{name: "root", target: ".", want: ErrIsRoot},
		{name: "link to root", entries: []string{"d/", "d/up => .."}, target: "d/up", want: ErrIsRoot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, tt.entries...)
			root := filepath.Join(base, "root")
			before := snapshot(t, base)
			err := r.WriteFile(context.Background(), tt.target, []byte("new"))
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("error = %v, want %v", err, tt.want)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tt.check != "" {
				p := filepath.Join(root, tt.check)
				if got := readHost(t, p); got != "new" {
					t.Errorf("content = %q, want %q", got, "new")
				}
				fi, _ := os.Lstat(p)
				if !sameMode(fi.Mode(), tt.wantMode) {
					t.Errorf("mode = %v, want %v", fi.Mode(), tt.wantMode)
				}
			}
			if tmp := testfs.TempFiles(t, base, TempPrefix); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
			if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
				t.Errorf("outside changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestWriteFileKeepsModeAndLink(t *testing.T) {
	base, r := newTree(t, Options{}, "d/t.md", "l => d/t.md")
	root := filepath.Join(base, "root")
	if err := os.Chmod(filepath.Join(root, "d/t.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile(context.Background(), "l", []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(root, "d/t.md"))
	if err != nil || fi.Mode() != 0o600 {
		t.Errorf("target mode = %v, %v; want -rw-------", fi.Mode(), err)
	}
	if target, err := os.Readlink(filepath.Join(root, "l")); err != nil || target != "d/t.md" {
		t.Errorf("link = %q, %v; want it kept", target, err)
	}
}

func TestWriteFileFailureLeavesOld(t *testing.T) {
	t.Run("cancelled", func(t *testing.T) {
		base, r := newTree(t, Options{}, "f=old")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := r.WriteFile(ctx, "f", []byte("new")); !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
		if got := readHost(t, filepath.Join(base, "root", "f")); got != "old" {
			t.Errorf("content = %q, want old", got)
		}
		if tmp := testfs.TempFiles(t, base, TempPrefix); len(tmp) > 0 {
			t.Errorf("temp files left: %v", tmp)
		}
	})
	t.Run("read-only directory", func(t *testing.T) {
		skipIfRoot(t)
		base, r := newTree(t, Options{}, "ro/f=old")
		ro := filepath.Join(base, "root", "ro")
		os.Chmod(ro, 0o555)
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		if err := r.WriteFile(context.Background(), "ro/f", []byte("new")); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("error = %v, want fs.ErrPermission", err)
		}
		if got := readHost(t, filepath.Join(ro, "f")); got != "old" {
			t.Errorf("content = %q, want old", got)
		}
	})
}

func TestWriteFileConcurrent(t *testing.T) {
	if testfs.UnderWine {
		t.Skip("Wine has no POSIX rename, so a rename over a file another writer holds open is refused: this case needs a Windows machine")
	}
	const writers = 8
	base, r := newTree(t, Options{}, "f=old")
	contents := make([]string, writers)
	for i := range contents {
		contents[i] = strings.Repeat(fmt.Sprintf("writer %d;", i), 20_000)
	}
	var wg sync.WaitGroup
	for _, c := range contents {
		wg.Go(func() {
			if err := r.WriteFile(context.Background(), "f", []byte(c)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := readHost(t, filepath.Join(base, "root", "f"))
	found := false
	for _, c := range contents {
		found = found || got == c
	}
	if !found {
		t.Errorf("content (%d bytes) is not exactly one writer's", len(got))
	}
	if tmp := testfs.TempFiles(t, base, TempPrefix); len(tmp) > 0 {
		t.Errorf("temp files left: %v", tmp)
	}
}

func TestCreateFile(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		target  string
		perm    fs.FileMode
		want    error
		mode    fs.FileMode
	}{
		{name: "new", target: "n.md", mode: 0o644},
		{name: "new with perm", target: "n.md", perm: 0o600, mode: 0o600},
		{name: "in linked dir", entries: []string{"d/", "ld => d"}, target: "ld/n.md", mode: 0o644},
		{name: "existing file", entries: []string{"f"}, target: "f", want: fs.ErrExist},
		{name: "existing dir", entries: []string{"d/"}, target: "d", want: fs.ErrExist},
		{name: "dangling link outside", entries: []string{"x => {base}/pwned"}, target: "x", want: fs.ErrExist},
		{name: "dangling link inside", entries: []string{"x => missing"}, target: "x", want: fs.ErrExist},
		{name: "missing parent", target: "nope/n.md", want: fs.ErrNotExist},
		{name: "root", target: ".", want: ErrIsRoot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, tt.entries...)
			before := snapshot(t, base)
			err := r.CreateFile(context.Background(), tt.target, []byte("new"), tt.perm)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("error = %v, want %v", err, tt.want)
				}
			} else if err != nil {
				t.Fatal(err)
			} else {
				info, err := r.Lstat(tt.target)
				if err != nil || !sameMode(info.Mode, tt.mode) || info.Links != 1 && info.Links != hostLinksUnknown {
					t.Errorf("created %+v, %v; want mode %v, 1 link", info, err, tt.mode)
				}
			}
			if _, err := os.Lstat(filepath.Join(base, "root", "missing")); err == nil {
				t.Error("dangling link target created")
			}
			if tmp := testfs.TempFiles(t, base, TempPrefix); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
			if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
				t.Errorf("outside changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestAppendFile(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		target  string
		max     int64
		want    error
		check   string
		content string
	}{
		{name: "append", entries: []string{"f=abc"}, target: "f", check: "f", content: "abcdef"},
		{name: "through link", entries: []string{"d/t=abc", "l => d/t"}, target: "l", check: "d/t", content: "abcdef"},
		{name: "exactly max", entries: []string{"f=abc"}, target: "f", max: 6, check: "f", content: "abcdef"},
		{name: "over max", entries: []string{"f=abc"}, target: "f", max: 5, want: ErrTooLarge, check: "f", content: "abc"},
		{name: "data alone over max", entries: []string{"f="}, target: "f", max: 2, want: ErrTooLarge},
		{name: "missing", target: "f", want: fs.ErrNotExist},
		{name: "dangling", entries: []string{"l => missing"}, target: "l", want: fs.ErrNotExist},
		{name: "directory", entries: []string{"d/"}, target: "d", want: ErrIsDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, tt.entries...)
			err := r.AppendFile(context.Background(), tt.target, []byte("def"), tt.max)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("error = %v, want %v", err, tt.want)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tt.check != "" {
				if got := readHost(t, filepath.Join(base, "root", tt.check)); got != tt.content {
					t.Errorf("content = %q, want %q", got, tt.content)
				}
			}
			if _, err := os.Lstat(filepath.Join(base, "root", "missing")); err == nil {
				t.Error("dangling link target created")
			}
			if tmp := testfs.TempFiles(t, base, TempPrefix); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
		})
	}
}

func TestRootProtections(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(r *Root) error
		want error
	}{
		{"Remove", func(r *Root) error { return r.Remove(".", true) }, ErrIsRoot},
		{"Rename from root", func(r *Root) error { return r.Rename(".", "x", true) }, ErrIsRoot},
		{"Rename onto root", func(r *Root) error { return r.Rename("f", ".", true) }, ErrIsRoot},
		{"WriteFile", func(r *Root) error { return r.WriteFile(ctx, ".", []byte("x")) }, ErrIsRoot},
		{"AppendFile", func(r *Root) error { return r.AppendFile(ctx, ".", []byte("x"), 0) }, ErrIsRoot},
		{"CreateFile", func(r *Root) error { return r.CreateFile(ctx, ".", []byte("x"), 0) }, ErrIsRoot},
		{"MkdirAll", func(r *Root) error { return r.MkdirAll(".") }, nil},
		{"Stat", func(r *Root) error { _, err := r.Stat("."); return err }, nil},
		{"ReadDir", func(r *Root) error { _, _, err := r.ReadDir(ctx, ".", 0); return err }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, "f")
			err := tt.run(r)
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(base, "root", "f")); err != nil {
				t.Errorf("root content gone: %v", err)
			}
		})
	}
	t.Run("Stat root info", func(t *testing.T) {
		_, r := newTree(t, Options{})
		info, err := r.Stat(".")
		if err != nil || info.Path != "." || info.Name != "." || info.Type != TypeDir {
			t.Errorf("Stat(.) = %+v, %v", info, err)
		}
	})
}

func TestMkdirAll(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		target  string
		want    []error
		isDir   string
	}{
		{name: "new", target: "a/b/c", isDir: "a/b/c"},
		{name: "existing", entries: []string{"d/"}, target: "d", isDir: "d"},
		{name: "through linked dir", entries: []string{"d/", "ld => d"}, target: "ld/x/y", isDir: "d/x/y"},
		{name: "file at name", entries: []string{"f"}, target: "f", want: []error{ErrNotDir, fs.ErrExist}},
		{name: "file at parent", entries: []string{"f"}, target: "f/x", want: []error{ErrNotDir, fs.ErrExist}},
		{name: "dangling link outside", entries: []string{"x => {base}/pwned"}, target: "x", want: []error{ErrEscapes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, tt.entries...)
			before := snapshot(t, base)
			err := r.MkdirAll(tt.target)
			for _, want := range tt.want {
				if !errors.Is(err, want) {
					t.Errorf("error = %v, want %v", err, want)
				}
			}
			if tt.want == nil && err != nil {
				t.Fatal(err)
			}
			if tt.isDir != "" {
				if fi, err := os.Lstat(filepath.Join(base, "root", tt.isDir)); err != nil || !fi.IsDir() {
					t.Errorf("%s not a directory: %v", tt.isDir, err)
				}
			}
			if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
				t.Errorf("outside changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	tests := []struct {
		name      string
		entries   []string
		target    string
		recursive bool
		want      error
		gone      []string
		kept      []string
	}{
		{name: "file", entries: []string{"f"}, target: "f", gone: []string{"f"}},
		{name: "empty dir", entries: []string{"d/"}, target: "d", gone: []string{"d"}},
		{name: "non-empty dir", entries: []string{"d/f"}, target: "d", want: ErrNotEmpty, kept: []string{"d/f"}},
		{name: "recursive", entries: []string{"d/e/f"}, target: "d", recursive: true, gone: []string{"d"}},
		{name: "link not target", entries: []string{"d/f", "l => d"}, target: "l", recursive: true, gone: []string{"l"}, kept: []string{"d/f"}},
		{name: "link inside recursive", entries: []string{"d/f", "e/l => ../d"}, target: "e", recursive: true, gone: []string{"e"}, kept: []string{"d/f"}},
		{name: "missing", target: "nope", want: fs.ErrNotExist},
		{name: "missing recursive", target: "nope", recursive: true, want: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, tt.entries...)
			err := r.Remove(tt.target, tt.recursive)
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			for _, p := range tt.gone {
				if _, err := os.Lstat(filepath.Join(base, "root", p)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s still there: %v", p, err)
				}
			}
			for _, p := range tt.kept {
				if _, err := os.Lstat(filepath.Join(base, "root", p)); err != nil {
					t.Errorf("%s removed: %v", p, err)
				}
			}
		})
	}
}

func TestRename(t *testing.T) {
	tests := []struct {
		name      string
		entries   []string
		old, new  string
		overwrite bool
		want      error
		content   map[string]string // host path under root/ -> content ("" for a link: check it is a link)
	}{
		{name: "file", entries: []string{"a=A"}, old: "a", new: "b", content: map[string]string{"b": "A"}},
		{name: "into dir", entries: []string{"a=A", "d/"}, old: "a", new: "d/a", content: map[string]string{"d/a": "A"}},
		{name: "dir", entries: []string{"d/f=F"}, old: "d", new: "e", content: map[string]string{"e/f": "F"}},
		{name: "exists", entries: []string{"a=A", "b=B"}, old: "a", new: "b", want: fs.ErrExist, content: map[string]string{"b": "B"}},
		{name: "overwrite", entries: []string{"a=A", "b=B"}, old: "a", new: "b", overwrite: true, content: map[string]string{"b": "A"}},
		{name: "overwrite dir", entries: []string{"a=A", "d/"}, old: "a", new: "d", overwrite: true, want: ErrIsDir},
		{name: "onto link replaces link", entries: []string{"a=A", "t=T", "l => t"}, old: "a", new: "l", overwrite: true, content: map[string]string{"l": "A", "t": "T"}},
		{name: "onto outside link replaces link", entries: []string{"a=A", "l => ../outside/secret.txt"}, old: "a", new: "l", overwrite: true, content: map[string]string{"l": "A"}},
		{name: "link moved as link", entries: []string{"t=T", "l => t"}, old: "l", new: "m", content: map[string]string{"m": "", "t": "T"}},
		{name: "missing source", old: "a", new: "b", want: fs.ErrNotExist},
		{name: "missing parent", entries: []string{"a=A"}, old: "a", new: "nope/b", want: fs.ErrNotExist},
		{name: "dir into itself", entries: []string{"d/"}, old: "d", new: "d/e", want: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, tt.entries...)
			before := snapshot(t, base)
			err := r.Rename(tt.old, tt.new, tt.overwrite)
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			for p, want := range tt.content {
				hp := filepath.Join(base, "root", p)
				if want == "" {
					if fi, err := os.Lstat(hp); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
						t.Errorf("%s is not a link: %v", p, err)
					}
					continue
				}
				fi, err := os.Lstat(hp)
				if err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s is not a regular file: %v", p, err)
					continue
				}
				if got := readHost(t, hp); got != want {
					t.Errorf("%s = %q, want %q", p, got, want)
				}
			}
			if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
				t.Errorf("outside changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestInUse holds the system's answer for a file another program keeps
// from being changed (a Windows sharing violation, Unix's ETXTBSY) to
// ErrInUse, whatever os wrapped it in, with the name and no host path.
func TestInUse(t *testing.T) {
	base, r := newTree(t, Options{})
	err := r.pathErr("write", "a.md", &os.PathError{Op: "rename", Path: filepath.Join(base, "root", "a.md"), Err: errnoInUse})
	if !errors.Is(err, ErrInUse) || strings.Contains(err.Error(), base) {
		t.Errorf("pathErr = %v, want ErrInUse without the host path", err)
	}
}
