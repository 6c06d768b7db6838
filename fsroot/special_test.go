//go:build unix

package fsroot

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specialTree makes a root holding a FIFO "fifo", a listening Unix socket
// "sock" and ordinary entries.
func specialTree(t *testing.T) (string, *Root) {
	t.Helper()
	base, r := newTree(t, Options{},
		"d/",
		"d/f.md",
		"zero => /dev/zero",
		"stdin => /dev/stdin",
		"environ => /proc/self/environ",
		"passwd => /etc/passwd",
		"rel => d/rel2",
		"d/rel2 => ../../outside/secret.txt",
		"fifolink => fifo",
	)
	root := filepath.Join(base, "root")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return base, r
}

func TestSpecialFiles(t *testing.T) {
	ops := []struct {
		op  string
		run func(r *Root, name string) error
	}{
		{"ReadFile", func(r *Root, name string) error {
			_, _, err := r.ReadFile(context.Background(), name, 1<<20)
			return err
		}},
		{"Lookup", func(r *Root, name string) error {
			e, err := r.Lookup(name)
			if err != nil {
				return err
			}
			defer e.Close()
			_, _, err = e.ReadFile(context.Background(), 1<<20)
			return err
		}},
		{"Scan", func(r *Root, name string) error {
			e, err := r.Lookup(name)
			if err != nil {
				return err
			}
			defer e.Close()
			_, err = e.Scan(context.Background(), 1<<20, func([]byte) error { return nil })
			return err
		}},
		{"AppendFile", func(r *Root, name string) error {
			return r.AppendFile(context.Background(), name, []byte("x"), 1<<20)
		}},
		{"WriteFile", func(r *Root, name string) error {
			return r.WriteFile(context.Background(), name, []byte("x"))
		}},
		{"FSOpen", func(r *Root, name string) error {
			f, err := r.FS().Open(name)
			if err == nil {
				f.Close()
			}
			return err
		}},
	}
	tests := []struct {
		name string
		want error
	}{
		{"fifo", ErrNotRegular},
		{"fifolink", ErrNotRegular},
		{"sock", ErrNotRegular},
		{"zero", ErrEscapes},
		{"stdin", ErrEscapes},
		{"environ", ErrEscapes},
		{"passwd", ErrEscapes},
		{"rel", ErrEscapes},
	}
	for _, tt := range tests {
		for _, op := range ops {
			t.Run(op.op+"/"+tt.name, func(t *testing.T) {
				base, r := specialTree(t)
				before := snapshot(t, base)
				err := noHang(t, func() error { return op.run(r, tt.name) })
				if !errors.Is(err, tt.want) {
					t.Errorf("error = %v, want %v", err, tt.want)
				}
				if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
					t.Errorf("outside changed (-before +after):\n%s", diff)
				}
				fi, err := os.Lstat(filepath.Join(base, "root", "fifo"))
				if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
					t.Errorf("fifo replaced: %v, %v", fi, err)
				}
			})
		}
	}
}

func TestSpecialFilesListed(t *testing.T) {
	t.Run("Walk skips FIFOs and sockets", func(t *testing.T) {
		_, r := specialTree(t)
		var got []string
		err := noHang(t, func() error {
			return r.Walk(context.Background(), ".", 0, func(info Info, err error) error {
				got = append(got, info.Path)
				return err
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"d", "d/f.md", "d/rel2", "environ", "fifolink", "passwd", "rel", "stdin", "zero"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("walk (-want +got):\n%s", diff)
		}
	})
	t.Run("ReadDir reports them as other", func(t *testing.T) {
		_, r := specialTree(t)
		entries, _, err := r.ReadDir(context.Background(), ".", 0)
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]FileType{}
		for _, e := range entries {
			types[e.Name] = e.Type
		}
		if types["fifo"] != TypeOther || types["sock"] != TypeOther {
			t.Errorf("types = %v, want fifo and sock as %q", types, TypeOther)
		}
	})
	t.Run("listing a FIFO as a directory", func(t *testing.T) {
		_, r := specialTree(t)
		err := noHang(t, func() error {
			_, _, err := r.ReadDir(context.Background(), "fifo", 0)
			return err
		})
		if !errors.Is(err, ErrNotDir) {
			t.Errorf("ReadDir(fifo) = %v, want ErrNotDir", err)
		}
		err = noHang(t, func() error {
			return r.Walk(context.Background(), "fifo", 0, func(Info, error) error { return nil })
		})
		if !errors.Is(err, ErrNotDir) {
			t.Errorf("Walk(fifo) = %v, want ErrNotDir", err)
		}
	})
	t.Run("Stat describes without opening", func(t *testing.T) {
		_, r := specialTree(t)
		info, err := noHangInfo(t, func() (Info, error) { return r.Stat("fifo") })
		if err != nil || info.Type != TypeOther {
			t.Errorf("Stat(fifo) = %v, %v; want type %q", info, err, TypeOther)
		}
	})
}

func TestHardLinks(t *testing.T) {
	ops := []struct {
		op  string
		run func(r *Root) error
	}{
		{"ReadFile", func(r *Root) error {
			_, _, err := r.ReadFile(context.Background(), "hard", 1<<20)
			return err
		}},
		{"WriteFile", func(r *Root) error { return r.WriteFile(context.Background(), "hard", []byte("new")) }},
		{"AppendFile", func(r *Root) error {
			return r.AppendFile(context.Background(), "hard", []byte("new"), 1<<20)
		}},
		{"FSOpen", func(r *Root) error {
			f, err := r.FS().Open("hard")
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"Refuses", func(r *Root) error { // what a listing says of the entry, as doctor asks
			info, err := r.Lstat("hard")
			if err != nil {
				return err
			}
			return r.Refuses(info)
		}},
	}
	for _, op := range ops {
		for _, allow := range []bool{false, true} {
			name := op.op + "/refused"
			var want error = ErrHardLink
			if allow {
				name, want = op.op+"/allowed", nil
			}
			t.Run(name, func(t *testing.T) {
				base, r := newTree(t, Options{AllowHardLinks: allow})
				secret := filepath.Join(base, "outside", "secret.txt")
				if err := os.Link(secret, filepath.Join(base, "root", "hard")); err != nil {
					t.Skipf("hard links unsupported here: %v", err)
				}
				err := op.run(r)
				if !errors.Is(err, want) && !(want == nil && err == nil) {
					t.Errorf("error = %v, want %v", err, want)
				}
				// Even when allowed, a write replaces the name inside the
				// root and leaves the outside file alone.
				data, err := os.ReadFile(secret)
				if err != nil || string(data) != marker {
					t.Errorf("outside file = %q, %v; want unchanged", data, err)
				}
			})
		}
	}
}

// refusalBytes bounds what refusing a file too large to read may allocate: the error and the stat,
// about 1 KB on 2026-11-24; nothing that grows with the file or the limit.
const refusalBytes = 16 << 10

func TestReadFileSize(t *testing.T) {
	const max = 10 << 20
	tests := []struct {
		name string
		size int64
		want error
	}{
		{"empty", 0, nil},
		{"exactly max", max, nil},
		{"max plus one", max + 1, ErrTooLarge},
		{"sparse 10 GB", 10 << 30, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{})
			f, err := os.Create(filepath.Join(base, "root", "big"))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(tt.size); err != nil {
				t.Fatal(err)
			}
			f.Close()
			var data []byte
			var info Info
			bytes := allocated(func() { data, info, err = r.ReadFile(context.Background(), "big", max) })
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
			// Case D28: a file over the limit is refused from its size, before any buffer is made.
			if err != nil && bytes > refusalBytes {
				t.Errorf("refusing a %d-byte file allocated %d bytes, want at most %d", tt.size, bytes, refusalBytes)
			}
			if err == nil && (int64(len(data)) != tt.size || info.Size != tt.size) {
				t.Errorf("read %d bytes, info size %d; want %d", len(data), info.Size, tt.size)
			}
		})
	}
}

// liar reports nothing about its size and never ends, like a file that
// grows during the read or a /proc file that says it is empty.
type liar struct{}

func (liar) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = 'x'
	}
	return len(b), nil
}

func TestReadBoundedIgnoresStatSize(t *testing.T) {
	tests := []struct {
		name string
		r    io.Reader
		size int64
		want error
	}{
		{"endless reader claiming zero", liar{}, 0, ErrTooLarge},
		{"short reader claiming max", strings.NewReader("abc"), 100, nil},
		{"exactly max", strings.NewReader(strings.Repeat("a", 100)), 0, nil},
		{"one over", strings.NewReader(strings.Repeat("a", 101)), 0, ErrTooLarge},
	}
	t.Run("huge max", func(t *testing.T) {
		data, err := readBounded(context.Background(), strings.NewReader("abc"), 3, math.MaxInt64)
		if err != nil || string(data) != "abc" {
			t.Errorf("readBounded = %q, %v", data, err)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := readBounded(context.Background(), tt.r, tt.size, 100)
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
			if len(data) > 100 {
				t.Errorf("read %d bytes, more than max", len(data))
			}
		})
	}
}

func TestReadFilePermission(t *testing.T) {
	skipIfRoot(t)
	base, r := newTree(t, Options{}, "f")
	if err := os.Chmod(filepath.Join(base, "root", "f"), 0); err != nil {
		t.Fatal(err)
	}
	_, _, err := r.ReadFile(context.Background(), "f", 0)
	if !errors.Is(err, fs.ErrPermission) || strings.Contains(err.Error(), base) {
		t.Errorf("error = %v, want fs.ErrPermission without host path", err)
	}
}

func TestReadFileContext(t *testing.T) {
	_, r := newTree(t, Options{}, "f")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := r.ReadFile(ctx, "f", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}
