package fsroot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

func TestCopyFile(t *testing.T) {
	const data = "the source's bytes\n"
	tests := []struct {
		name      string
		entries   []string
		setup     func(t *testing.T, root string) // for what testfs.Tree cannot make
		src, dst  string
		overwrite bool
		max       int64
		want      error
		wantPath  string            // the name the error carries: src's or dst's
		mode      fs.FileMode       // of the copy
		through   string            // the file the copy lands in, when not dst
		after     map[string]string // other files and their content after the copy
	}{
		{name: "new", src: "s.md", dst: "c.md", mode: 0o644},
		{name: "keeps the permission bits", src: "s.md", dst: "c.md", mode: 0o640,
			setup: func(t *testing.T, root string) { chmod(t, filepath.Join(root, "s.md"), 0o640) }},
		{name: "drops setuid, setgid and sticky", src: "s.md", dst: "c.md", mode: 0o755,
			setup: func(t *testing.T, root string) {
				chmod(t, filepath.Join(root, "s.md"), 0o755|os.ModeSetuid|os.ModeSetgid|os.ModeSticky)
			}},
		{name: "into a linked folder", entries: []string{"d/", "ld => d"}, src: "s.md", dst: "ld/c.md", mode: 0o644, through: "d/c.md"},
		{name: "through a source link", entries: []string{"ls.md => s.md"}, src: "ls.md", dst: "c.md", mode: 0o644},
		{name: "existing file", entries: []string{"c.md=old"}, src: "s.md", dst: "c.md", want: fs.ErrExist, wantPath: "c.md"},
		{name: "existing dir", entries: []string{"c/"}, src: "s.md", dst: "c", want: fs.ErrExist, wantPath: "c"},
		{name: "dangling link outside", entries: []string{"x => {base}/pwned"}, src: "s.md", dst: "x", want: fs.ErrExist, wantPath: "x"},
		{name: "overwrite a file", entries: []string{"c.md=old"}, src: "s.md", dst: "c.md", overwrite: true, mode: 0o644},
		{name: "overwrite where nothing is", src: "s.md", dst: "c.md", overwrite: true, mode: 0o644},
		{name: "overwrite an inner link replaces the link", entries: []string{"t.md=old", "c.md => t.md"}, src: "s.md", dst: "c.md", overwrite: true, mode: 0o644,
			after: map[string]string{"t.md": "old"}},
		{name: "overwrite a dir", entries: []string{"c/"}, src: "s.md", dst: "c", overwrite: true, want: ErrIsDir, wantPath: "c"},
		{name: "overwrite a dangling link replaces the link", entries: []string{"x => {base}/pwned"}, src: "s.md", dst: "x", overwrite: true, mode: 0o644},
		{name: "overwrite a link out replaces the link", entries: []string{"x => ../outside/secret.txt"}, src: "s.md", dst: "x", overwrite: true, mode: 0o644},
		{name: "overwrite a hard link replaces one name", entries: []string{"c.md=old"}, src: "s.md", dst: "c.md", overwrite: true, mode: 0o644,
			setup: func(t *testing.T, root string) { link(t, filepath.Join(root, "c.md"), filepath.Join(root, "c2.md")) },
			after: map[string]string{"c2.md": "old"}},
		{name: "missing parent", src: "s.md", dst: "nope/c.md", want: fs.ErrNotExist, wantPath: "nope/c.md"},
		{name: "parent out", entries: []string{"out => ../outside"}, src: "s.md", dst: "out/c.md", want: ErrEscapes, wantPath: "out/c.md"},
		{name: "onto the root", src: "s.md", dst: ".", overwrite: true, want: ErrIsRoot, wantPath: "."},
		{name: "invalid name", src: "s.md", dst: "../c.md", want: ErrEscapes, wantPath: "../c.md"},
		{name: "too large", src: "s.md", dst: "c.md", max: int64(len(data)) - 1, want: ErrTooLarge, wantPath: "s.md"},
		{name: "exactly the limit", src: "s.md", dst: "c.md", max: int64(len(data)), mode: 0o644},
		{name: "source is a dir", entries: []string{"sd/"}, src: "sd", dst: "c.md", want: ErrIsDir, wantPath: "sd"},
		{name: "source FIFO", src: "fifo", dst: "c.md", want: ErrNotRegular, wantPath: "fifo",
			setup: func(t *testing.T, root string) { testfs.Mkfifo(t, filepath.Join(root, "fifo")) }},
		{name: "source socket", src: "sock", dst: "c.md", want: ErrNotRegular, wantPath: "sock",
			setup: func(t *testing.T, root string) { listen(t, filepath.Join(root, "sock")) }},
		{name: "source hard link", src: "s.md", dst: "c.md", want: ErrHardLink, wantPath: "s.md",
			setup: func(t *testing.T, root string) { link(t, filepath.Join(root, "s.md"), filepath.Join(root, "s2.md")) }},
		{name: "source missing", src: "none.md", dst: "c.md", want: fs.ErrNotExist, wantPath: "none.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, append([]string{"s.md=" + data}, tt.entries...)...)
			root := filepath.Join(base, "root")
			if tt.setup != nil {
				tt.setup(t, root)
			}
			before, inside := snapshot(t, base), hostTree(t, root)
			var (
				version string
				n       int64
				err     error
			)
			noHang(t, func() error {
				var src *Entry
				src, err = r.Lookup(tt.src)
				if err != nil {
					return err
				}
				defer src.Close()
				version, n, err = r.CopyFile(context.Background(), src, tt.dst, tt.overwrite, tt.max)
				return err
			})
			if tt.want != nil {
				var pe *fs.PathError
				if !errors.Is(err, tt.want) || !errors.As(err, &pe) || pe.Path != tt.wantPath {
					t.Fatalf("error = %v, want %v about %q", err, tt.want, tt.wantPath)
				}
				if diff := cmp.Diff(inside, hostTree(t, root)); diff != "" {
					t.Errorf("a refused copy changed the root (-before +after):\n%s", diff)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				landed := tt.dst
				if tt.through != "" {
					landed = tt.through
				}
				b, rerr := os.ReadFile(filepath.Join(root, landed))
				fi, serr := os.Lstat(filepath.Join(root, landed))
				if rerr != nil || serr != nil || string(b) != data || !sameMode(fi.Mode(), tt.mode) || version != Version([]byte(data)) || n != int64(len(data)) {
					t.Errorf("copy %s = %q, mode %v (%v, %v), version %s, %d bytes; want the source's %d bytes, mode %v, version %s",
						landed, b, fi.Mode(), rerr, serr, version, n, len(data), tt.mode, Version([]byte(data)))
				}
				if n := hostLinks(fi); n > 1 {
					t.Errorf("the copy has %d links, want 1", n)
				}
				for name, want := range tt.after {
					if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != want {
						t.Errorf("%s = %q, %v; want %q", name, b, err, want)
					}
				}
			}
			if tmp := testfs.TempFiles(t, base, TempPrefix); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
			if _, err := os.Lstat(filepath.Join(base, "pwned")); err == nil {
				t.Error("a dangling link's target was created")
			}
			if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
				t.Errorf("outside changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestCopyFileAcrossRoots copies from one Root into another: the source is read through the Entry
// its own Root looked up, judged by that Root's options, and the copy lands in the receiver.
func TestCopyFileAcrossRoots(t *testing.T) {
	baseA, a := newTree(t, Options{AllowHardLinks: true}, "s.md=from a")
	link(t, filepath.Join(baseA, "root", "s.md"), filepath.Join(baseA, "root", "s2.md"))
	baseB, b := newTree(t, Options{})
	src, err := a.Lookup("s.md")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, _, err := b.CopyFile(context.Background(), src, "c.md", false, 0); err != nil {
		t.Fatalf("copy from a root that allows hard links: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(baseB, "root", "c.md")); err != nil || string(got) != "from a" {
		t.Errorf("copy in b = %q, %v", got, err)
	}
	if _, err := os.Lstat(filepath.Join(baseA, "root", "c.md")); err == nil {
		t.Error("the copy landed in the source's root")
	}
}

// TestCopyFileContext checks that a cancelled copy writes nothing.
func TestCopyFileContext(t *testing.T) {
	base, r := newTree(t, Options{}, "s.md="+strings.Repeat("x", 3*readChunk))
	src, err := r.Lookup("s.md")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := r.CopyFile(ctx, src, "c.md", false, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if _, err := os.Lstat(filepath.Join(base, "root", "c.md")); err == nil {
		t.Error("a cancelled copy created its file")
	}
	if tmp := testfs.TempFiles(t, base, TempPrefix); len(tmp) > 0 {
		t.Errorf("temp files left: %v", tmp)
	}
}

// TestCopyBoundedGrowth checks the bound on bytes read, which catches a file that grew past max
// after its size was checked.
func TestCopyBoundedGrowth(t *testing.T) {
	var h VersionHash
	var sink strings.Builder
	n, err := copyBounded(context.Background(), &sink, strings.NewReader(strings.Repeat("y", 100)), &h, 10, 50)
	if !errors.Is(err, ErrTooLarge) || n <= 50 || sink.Len() > 50 {
		t.Errorf("copyBounded of 100 bytes with limit 50 = %d, %v, wrote %d; want ErrTooLarge before writing past 50", n, err, sink.Len())
	}
}

func TestMkdir(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		target  string
		want    error
	}{
		{name: "new", target: "d"},
		{name: "in a linked folder", entries: []string{"p/", "lp => p"}, target: "lp/d"},
		{name: "existing dir", entries: []string{"d/"}, target: "d", want: fs.ErrExist},
		{name: "existing file", entries: []string{"d"}, target: "d", want: fs.ErrExist},
		{name: "link to a dir", entries: []string{"p/", "d => p"}, target: "d", want: fs.ErrExist},
		{name: "dangling link outside", entries: []string{"d => {base}/pwned"}, target: "d", want: fs.ErrExist},
		{name: "missing parent", target: "nope/d", want: fs.ErrNotExist},
		{name: "parent out", entries: []string{"out => ../outside"}, target: "out/d", want: ErrEscapes},
		{name: "root", target: ".", want: fs.ErrExist},
		{name: "escaping name", target: "../d", want: ErrEscapes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, tt.entries...)
			before := snapshot(t, base)
			err := r.Mkdir(tt.target)
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("error = %v, want %v", err, tt.want)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if info, err := r.Stat(tt.target); err != nil || info.Type != TypeDir {
				t.Errorf("made %+v, %v; want a directory", info, err)
			}
			if _, err := os.Lstat(filepath.Join(base, "pwned")); err == nil {
				t.Error("a dangling link's target was created")
			}
			if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
				t.Errorf("outside changed (-before +after):\n%s", diff)
			}
		})
	}
}

// hostTree records everything under dir: path to kind, mode and content or link text.
func hostTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			v += " " + target
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func chmod(t *testing.T, p string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, oldname, newname string) {
	t.Helper()
	if err := os.Link(oldname, newname); err != nil {
		t.Fatal(err)
	}
}
