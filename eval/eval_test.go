package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// minQueries is the least number of judged queries a corpus must have for
// its means to say anything.
const minQueries = 55

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"How do I extract a .tar.gz file?", []string{"extract", "tar", "gz", "file"}},
		{"undo undo the LAST commit", []string{"undo", "last", "commit"}},
		{"a b c", nil},
		{"2fa  login-code", []string{"2fa", "login", "code"}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, queryTerms(tt.q)); diff != "" {
				t.Errorf("queryTerms(%q) mismatch (-want +got):\n%s", tt.q, diff)
			}
		})
	}
}

func TestGrepRanker(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a.md":     "Extract an archive. extract, EXTRACT.",
		"b.md":     "extract the tar archive",
		"c.md":     "tar tar tar tar",
		"d/e.md":   "nothing to see",
		"d/tar.md": "extract", // ties with a.md on distinct terms but not on occurrences
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := newGrepRanker(root, []string{"a.md", "b.md", "c.md", "d/e.md", "d/tar.md"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    string
		k    int
		want []string
	}{
		// b has 3 distinct terms; a has 2 (extract x3, archive x1); c and
		// d/tar.md have 1, c with more occurrences.
		{"how to extract a tar archive", 10, []string{"b.md", "a.md", "c.md", "d/tar.md"}},
		{"how to extract a tar archive", 2, []string{"b.md", "a.md"}},
		{"zebra", 10, []string{}},
		{"the of", 10, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, r.Rank(tt.q, tt.k)); diff != "" {
				t.Errorf("Rank(%q, %d) mismatch (-want +got):\n%s", tt.q, tt.k, diff)
			}
		})
	}
}

// TestQuerySets checks the committed query files without the corpora.
func TestQuerySets(t *testing.T) {
	for _, c := range corpora {
		t.Run(c.Name, func(t *testing.T) {
			qs, err := loadQuerySet(filepath.Join("queries", c.Queries))
			if err != nil {
				t.Fatal(err)
			}
			if len(qs.Queries) < minQueries {
				t.Errorf("%d queries, want at least %d", len(qs.Queries), minQueries)
			}
		})
	}
}

// TestJudgedFilesExist unpacks the shared corpora, if present, and checks
// that every judged file is in its corpus.
func TestJudgedFilesExist(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks the corpora; skipped in -short mode")
	}
	archives := filepath.Join("..", "..", "shared", "corpora")
	for _, c := range corpora {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			err := unpack(c, archives, dir)
			if errors.Is(err, errNoArchive) {
				t.Skipf("corpus archive absent, skipping: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			files, err := listMarkdown(filepath.Join(dir, filepath.FromSlash(c.Root)))
			if err != nil {
				t.Fatal(err)
			}
			qs, err := loadQuerySet(filepath.Join("queries", c.Queries))
			if err != nil {
				t.Fatal(err)
			}
			if miss := qs.missing(files); len(miss) > 0 {
				t.Errorf("judged files not in the corpus: %q", miss)
			}
		})
	}
}

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
	c := corpus{Name: "c", Archive: "c.tar.gz", Root: "c/pages"}
	if err := unpack(c, archives, dst); err != nil {
		t.Fatal(err)
	}
	got, err := listMarkdown(filepath.Join(dst, "c", "pages"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.md", "sub/b.md"}, got); diff != "" {
		t.Errorf("unpacked files mismatch (-want +got):\n%s", diff)
	}
	var all []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	if slices.ContainsFunc(all, func(p string) bool { return p != "c/pages/a.md" && p != "c/pages/sub/b.md" }) {
		t.Errorf("unpack wrote entries outside the root or non-regular files: %q", all)
	}

	if err := unpack(corpus{Archive: "missing.tar.gz", Root: "x"}, archives, dst); !errors.Is(err, errNoArchive) {
		t.Errorf("unpack of a missing archive: got %v, want errNoArchive", err)
	}
}
