package semantic

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
)

// wordDoc is a Word document of one paragraph.
func wordDoc(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	f, err := w.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:body></w:document>`))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestTextStore checks that the text extracted from documents is kept beside the index, by the
// document, and goes with it: replaced when the document changes, removed when it goes, and
// pruned at a build when the document went while no server ran.
func TestTextStore(t *testing.T) {
	dir := t.TempDir()
	store, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	fsys := fstest.MapFS{
		"a.docx":  {Data: wordDoc(t, "quokkas hop"), ModTime: t0},
		"b.docx":  {Data: wordDoc(t, "wombats dig"), ModTime: t0},
		"note.md": {Data: []byte("# Note\n"), ModTime: t0},
	}
	docs := func(name string) string {
		if strings.HasSuffix(name, ".docx") {
			return "docx"
		}
		return ""
	}
	// A file of a document gone while no server ran: pruned by the build.
	if err := os.WriteFile(filepath.Join(dir, fileOf("gone.docx")), []byte(`{"path":"gone.docx"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e := New(Options{FS: fsys, Allow: allow, Document: docs, TextStore: store})
	defer e.Close()
	ctx := context.Background()
	if err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	kept := func() []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, en := range entries {
			out = append(out, en.Name())
		}
		slices.Sort(out)
		return out
	}
	want := []string{fileOf("a.docx"), fileOf("b.docx")}
	slices.Sort(want)
	if got := kept(); !slices.Equal(got, want) {
		t.Fatalf("after the build the store holds %v, want the two documents' %v", got, want)
	}
	ts := textStore{store}
	if x, ok := ts.Load("a.docx", sha256.Sum256(fsys["a.docx"].Data), "docx"); !ok || !strings.Contains(x.Text, "quokkas hop") {
		t.Errorf("Load(a.docx) = %v, %v; want its text", x, ok)
	}
	if _, ok := ts.Load("a.docx", sha256.Sum256([]byte("other bytes")), "docx"); ok {
		t.Error("the text of other bytes was loaded")
	}
	// A change replaces the text kept; a removal removes it.
	fsys["a.docx"] = &fstest.MapFile{Data: wordDoc(t, "quokkas nap"), ModTime: t0.Add(time.Minute)}
	if err := e.Refresh(ctx, "a.docx"); err != nil {
		t.Fatal(err)
	}
	if x, ok := ts.Load("a.docx", sha256.Sum256(fsys["a.docx"].Data), "docx"); !ok || !strings.Contains(x.Text, "quokkas nap") {
		t.Errorf("after a change: %v, %v; want the new text", x, ok)
	}
	delete(fsys, "b.docx")
	if err := e.Refresh(ctx, "b.docx"); err != nil {
		t.Fatal(err)
	}
	if got := kept(); !slices.Equal(got, []string{fileOf("a.docx")}) {
		t.Errorf("after b.docx went the store holds %v, want a.docx's alone", got)
	}
	// A document that changes into one that cannot be read keeps no text of what it was.
	fsys["a.docx"] = &fstest.MapFile{Data: []byte("PK\x03\x04 broken"), ModTime: t0.Add(2 * time.Minute)}
	if err := e.Refresh(ctx, "a.docx"); err != nil {
		t.Fatal(err)
	}
	if got := kept(); len(got) != 0 {
		t.Errorf("after a.docx broke the store holds %v", got)
	}
	if u := e.Unread("."); len(u) != 1 || u[0].Path != "a.docx" {
		t.Errorf("Unread = %v, want a.docx", u)
	}
	delete(fsys, "a.docx")
	if err := e.Refresh(ctx, "a.docx"); err != nil {
		t.Fatal(err)
	}
	if u := e.Unread("."); len(u) != 0 {
		t.Errorf("Unread = %v after a.docx went, want none", u)
	}
}
