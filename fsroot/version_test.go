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

func TestVersion(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		// The first 16 hex digits of the SHA-256 test vectors.
		{"empty", "", "e3b0c44298fc1c14"},
		{"abc", "abc", "ba7816bf8f01cfea"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Version([]byte(tt.data)); got != tt.want {
				t.Errorf("Version(%q) = %s, want %s", tt.data, got, tt.want)
			}
			var h VersionHash
			for _, c := range []byte(tt.data) {
				h.Write([]byte{c})
			}
			if got := h.Version(); got != tt.want {
				t.Errorf("VersionHash over %q byte by byte = %s, want %s", tt.data, got, tt.want)
			}
		})
	}
}

// conditional is one conditional operation on name, and the content it leaves there on success
// ("" when it removes or moves name away).
type conditional struct {
	op    string
	run   func(r *Root, name, version string, max int64) error
	after string
}

var conditionals = []conditional{
	{"WriteFileIf", func(r *Root, name, version string, max int64) error {
		v, err := r.WriteFileIf(context.Background(), name, []byte("new"), version, max)
		if err == nil && v != Version([]byte("new")) {
			return errors.New("WriteFileIf returned version " + v + ", not the new content's")
		}
		return err
	}, "new"},
	{"AppendFileIf", func(r *Root, name, version string, max int64) error {
		v, err := r.AppendFileIf(context.Background(), name, []byte("+new"), version, max)
		if err == nil && v != Version([]byte("old+new")) {
			return errors.New("AppendFileIf returned version " + v + ", not the new content's")
		}
		return err
	}, "old+new"},
	{"RemoveIf", func(r *Root, name, version string, max int64) error {
		return r.RemoveIf(context.Background(), name, version, max)
	}, ""},
	{"RenameIf", func(r *Root, name, version string, max int64) error {
		return r.RenameIf(context.Background(), name, "moved", false, version, max)
	}, ""},
}

// TestConditional runs every conditional operation on a table of files and versions: the right
// version goes through, any other changes nothing and reports the version found.
func TestConditional(t *testing.T) {
	old := Version([]byte("old"))
	tests := []struct {
		name    string
		entries []string
		target  string
		version string
		max     int64
		want    error
		current string // the version a conflict reports
	}{
		{name: "same version", entries: []string{"f=old"}, target: "f", version: old},
		{name: "no version", entries: []string{"f=old"}, target: "f"},
		{name: "through link", entries: []string{"d/t=old", "l => d/t"}, target: "l", version: old},
		{name: "changed", entries: []string{"f=person's text"}, target: "f", version: old, want: ErrConflict, current: Version([]byte("person's text"))},
		{name: "emptied", entries: []string{"f="}, target: "f", version: old, want: ErrConflict, current: Version(nil)},
		{name: "unknown version", entries: []string{"f=old"}, target: "f", version: "0123456789abcdef", want: ErrConflict, current: old},
		{name: "through link, changed", entries: []string{"d/t=other", "l => d/t"}, target: "l", version: old, want: ErrConflict, current: Version([]byte("other"))},
		{name: "larger than max", entries: []string{"f=" + strings.Repeat("x", 100)}, target: "f", version: old, max: 10, want: ErrConflict},
		{name: "missing", target: "f", version: old, want: fs.ErrNotExist},
		{name: "dangling link", entries: []string{"l => missing"}, target: "l", version: old, want: fs.ErrNotExist},
		{name: "directory", entries: []string{"d/"}, target: "d", version: old, want: ErrIsDir},
		{name: "link to directory", entries: []string{"d/", "l => d"}, target: "l", version: old, want: ErrNotRegular},
		{name: "root", target: ".", version: old, want: ErrIsRoot},
	}
	for _, op := range conditionals {
		t.Run(op.op, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					base, r := newTree(t, Options{}, tt.entries...)
					root := filepath.Join(base, "root")
					before := snapshot(t, base)
					inside := snapshotRoot(t, root)
					err := op.run(r, tt.target, tt.version, tt.max)
					if tt.want == nil {
						if err != nil {
							t.Fatal(err)
						}
						p := filepath.Join(root, tt.target)
						if got, err := os.ReadFile(p); op.after != "" && (err != nil || string(got) != op.after) {
							t.Errorf("content = %q, %v; want %q", got, err, op.after)
						} else if _, err := os.Lstat(p); op.after == "" && err == nil {
							t.Errorf("%s still there", tt.target)
						}
					} else {
						if !errors.Is(err, tt.want) {
							t.Fatalf("error = %v, want %v", err, tt.want)
						}
						var ce *ConflictError
						if errors.As(err, &ce) != (tt.want == ErrConflict) || ce != nil && ce.Current != tt.current {
							t.Errorf("conflict = %+v, want current version %q", ce, tt.current)
						}
						if diff := cmp.Diff(inside, snapshotRoot(t, root)); diff != "" {
							t.Errorf("a failed %s changed the root (-before +after):\n%s", op.op, diff)
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
		})
	}
}

// TestCheckBeforeReplace changes the file after the conditional write has read it and written its
// temporary file, right before the check: the write must see the change and replace nothing, so
// the check is the last step before the rename, not an earlier read.
func TestCheckBeforeReplace(t *testing.T) {
	old := Version([]byte("old"))
	tests := []struct {
		name    string
		change  func(p string) error
		want    error
		current string
		content string // what the file holds afterwards; "" if it is gone
		links   bool   // the change makes a link
	}{
		{name: "person saves", change: func(p string) error { return os.WriteFile(p, []byte("person's text"), 0o644) },
			want: ErrConflict, current: Version([]byte("person's text")), content: "person's text"},
		{name: "editor renames its save over it", change: func(p string) error {
			if err := os.WriteFile(p+".swp", []byte("saved by vim"), 0o644); err != nil {
				return err
			}
			return os.Rename(p+".swp", p)
		}, want: ErrConflict, current: Version([]byte("saved by vim")), content: "saved by vim"},
		{name: "deleted", change: os.Remove, want: fs.ErrNotExist},
		{name: "link swapped in", change: func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Symlink("other", p)
		}, want: ErrNotRegular, content: "other", links: true}, // read through the link, kept
		{name: "saved unchanged", change: func(p string) error { return os.WriteFile(p, []byte("old"), 0o644) }},
	}
	for _, op := range conditionals[:2] { // the two that replace through a temporary file
		t.Run(op.op, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.links {
						testfs.SymlinksOrSkip(t)
					}
					base, r := newTree(t, Options{}, "f=old", "other=other")
					p := filepath.Join(base, "root", "f")
					ran := false
					r.beforeCheck = func() {
						ran = true
						if err := tt.change(p); err != nil {
							t.Fatal(err)
						}
					}
					err := op.run(r, "f", old, 0)
					if !ran {
						t.Fatal("the change was never made: the hook did not run")
					}
					if tt.want == nil {
						if err != nil {
							t.Fatal(err)
						}
						tt.content = op.after
					} else if !errors.Is(err, tt.want) {
						t.Fatalf("error = %v, want %v", err, tt.want)
					}
					var ce *ConflictError
					if errors.As(err, &ce) && ce.Current != tt.current {
						t.Errorf("current version = %q, want %q", ce.Current, tt.current)
					}
					got, rerr := os.ReadFile(p)
					switch {
					case tt.content == "" && rerr == nil:
						t.Errorf("f = %q, want it gone", got)
					case tt.content != "" && string(got) != tt.content:
						t.Errorf("f = %q (%v), want %q", got, rerr, tt.content)
					}
					if tmp := testfs.TempFiles(t, base, TempPrefix); len(tmp) > 0 {
						t.Errorf("temp files left: %v", tmp)
					}
				})
			}
		})
	}
}

// TestAppendChecksWhatItReads changes the file back to the expected version after AppendFileIf
// read it: the check before the replace then passes, so only the comparison of what was read keeps
// the append from adding to content the caller never saw.
func TestAppendChecksWhatItReads(t *testing.T) {
	base, r := newTree(t, Options{}, "f=changed")
	p := filepath.Join(base, "root", "f")
	r.beforeCheck = func() { os.WriteFile(p, []byte("old"), 0o644) }
	_, err := r.AppendFileIf(context.Background(), "f", []byte("+new"), Version([]byte("old")), 0)
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Current != Version([]byte("changed")) {
		t.Fatalf("error = %v, want a conflict with the version of what was read", err)
	}
	if got := readHost(t, p); got != "changed" {
		t.Errorf("f = %q, want it untouched", got)
	}
}

// snapshotRoot records every entry under root: path to content, link text, or "/" for a
// directory.
func snapshotRoot(t *testing.T, root string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			snap[rel] = "=> " + target
			return err
		case d.IsDir():
			snap[rel] = "/"
		default:
			b, err := os.ReadFile(p)
			snap[rel] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// BenchmarkConditionalWrite measures what a version costs a write of a 4 KiB and a 1 MiB file:
// WriteFile, WriteFileIf (the same plus the check), and the check alone, which with the rename
// after it is the window in which a save by someone else is still lost. Compare WriteFile with
// WriteFileIf, and read check as the window's length.
func BenchmarkConditionalWrite(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{4 << 10, 1 << 20} {
		content := []byte(strings.Repeat("0123456789abcde\n", size/16))
		version := Version(content)
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.md"), content, 0o644); err != nil {
			b.Fatal(err)
		}
		r, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		name := map[int]string{4 << 10: "4KiB", 1 << 20: "1MiB"}[size]
		b.Run(name+"/WriteFile", func(b *testing.B) {
			for b.Loop() {
				if err := r.WriteFile(ctx, "f.md", content); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/WriteFileIf", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.WriteFileIf(ctx, "f.md", content, version, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/check", func(b *testing.B) {
			for b.Loop() {
				if err := r.atRoot(func(dir handle) error { return r.holds(ctx, dir, "f.md", cond{version, 0}) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
