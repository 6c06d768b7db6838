package corpora

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUnpack checks that only the regular files below the prefix are written (links, entries
// elsewhere and a name that climbs out of it are left out), and that a missing archive is ErrNoArchive.
func TestUnpack(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	entries := []struct {
		hdr  tar.Header
		body string
	}{
		{tar.Header{Name: "c/", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
		{tar.Header{Name: "c/pages/a.md", Typeflag: tar.TypeReg, Mode: 0o644}, "a"},
		{tar.Header{Name: "c/pages/sub/b.md", Typeflag: tar.TypeReg, Mode: 0o644}, "b"},
		{tar.Header{Name: "c/pages.en", Typeflag: tar.TypeSymlink, Linkname: "pages"}, ""},
		{tar.Header{Name: "c/pages/link.md", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, ""},
		{tar.Header{Name: "c/other/x.md", Typeflag: tar.TypeReg, Mode: 0o644}, "x"},
		{tar.Header{Name: "c/pages/../../evil.md", Typeflag: tar.TypeReg, Mode: 0o644}, "evil"},
	}
	for _, e := range entries {
		e.hdr.Size = int64(len(e.body))
		if err := tw.WriteHeader(&e.hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	archives, dst := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(archives, "c.tar.gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := Unpack(filepath.Join(archives, "c.tar.gz"), "c/pages", dst); err != nil || n != 2 {
		t.Fatalf("Unpack = %d, %v; want 2 files", n, err)
	}
	var all []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	if !slices.Equal(all, []string{"c/pages/a.md", "c/pages/sub/b.md"}) {
		t.Errorf("unpacked %q, want only the regular files below c/pages", all)
	}
	if _, err := Unpack(filepath.Join(archives, "missing.tar.gz"), "x", dst); !errors.Is(err, ErrNoArchive) {
		t.Errorf("Unpack of a missing archive: got %v, want ErrNoArchive", err)
	}
}
