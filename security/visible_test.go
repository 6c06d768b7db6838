package security

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
)

// TestVisible checks the one rule for what the tools can see, on a real folder: the listing, the
// index and doctor all ask it.
func TestVisible(t *testing.T) {
	dir := testfs.TempDir(t)
	outside := testfs.TempDir(t)
	write := func(name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a.md", ".env", "tool.exe", "h1.md", "notes/b.md"} {
		write(name)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Link(filepath.Join(dir, "h1.md"), filepath.Join(dir, "h2.md")))
	must(os.WriteFile(filepath.Join(outside, "o.md"), []byte("x\n"), 0o644))
	must(testfs.Symlink(t, "a.md", filepath.Join(dir, "to-a.md")))
	must(testfs.Symlink(t, "tool.exe", filepath.Join(dir, "to-tool.md")))
	must(testfs.Symlink(t, ".env", filepath.Join(dir, "to-env.md")))
	must(testfs.Symlink(t, filepath.Join(outside, "o.md"), filepath.Join(dir, "to-outside.md")))
	must(testfs.Symlink(t, "gone.md", filepath.Join(dir, "to-nothing.md")))
	testfs.Mkfifo(t, filepath.Join(dir, "pipe.md"))

	for _, allow := range []bool{false, true} {
		root, err := fsroot.Open(dir, fsroot.Options{AllowHardLinks: allow})
		must(err)
		defer root.Close()
		policy, err := NewPolicy(PolicyConfig{RootDir: dir})
		must(err)
		tests := []struct {
			name string
			want error // nil: visible; else the error it must match (errAny: any error)
		}{
			{"a.md", nil},
			{"notes", nil},
			{"notes/b.md", nil},
			{".env", ErrBlocked},
			{"tool.exe", nil}, // named, though not opened
			{"to-tool.md", nil},
			{"h1.md", fsroot.ErrHardLink},
			{"to-a.md", nil},
			{"to-env.md", ErrBlocked},
			{"to-outside.md", errAny},
			{"to-nothing.md", errAny},
			{"pipe.md", fsroot.ErrNotRegular},
		}
		for _, tt := range tests {
			info, err := root.Lstat(tt.name)
			must(err)
			got := Visible(policy, root, info)
			want := tt.want
			if allow && want == fsroot.ErrHardLink {
				want = nil
			}
			switch {
			case want == nil && got != nil:
				t.Errorf("allowHardLinks=%v: %s is hidden (%v), want visible", allow, tt.name, got)
			case want == errAny && got == nil, want != nil && want != errAny && !errors.Is(got, want):
				t.Errorf("allowHardLinks=%v: Visible(%s) = %v, want %v", allow, tt.name, got, want)
			}
		}
	}
}

// errAny stands for any error in TestVisible.
var errAny = errors.New("any error")

// TestIndexed checks what the index may hold, by name: text, documents and files of other types
// that may be text, and not what it never holds (images and binary types, which every walk would
// read again to find that out), nor what the tools cannot open, nor noise.
func TestIndexed(t *testing.T) {
	dir := testfs.TempDir(t)
	testfs.Tree(t, dir, dir, ".gitignore=build/\n", "a.md=x", "photo.jpg=x", "archive.zip=x", "letter.pdf=x", "Makefile=x", "data.xyz=x", "tool.exe=x", "build/out.md=x")
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	defer root.Close()
	policy, err := NewPolicy(PolicyConfig{RootDir: dir})
	mustOK(t, err)
	indexed := Indexed(policy, root, NewIgnore(root, policy, IgnoreConfig{InRepository: true}))
	tests := []struct {
		name  string
		isDir bool
		want  bool
	}{
		{"a.md", false, true},
		{"letter.pdf", false, true}, // a document: the index holds its text
		{"Makefile", false, true},   // no extension: text by its content
		{"data.xyz", false, true},   // a type not on the list: text by its content
		{"photo.jpg", false, false},
		{"archive.zip", false, false},
		{"tool.exe", false, false},
		{".env", false, false},
		{"notes", true, true},
		{".git", true, false},
		{"build", true, false},
	}
	for _, tt := range tests {
		if got := indexed(tt.name, tt.isDir); got != tt.want {
			t.Errorf("Indexed(%q, %v) = %v, want %v", tt.name, tt.isDir, got, tt.want)
		}
	}
}
