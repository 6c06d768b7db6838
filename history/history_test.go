package history

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/fsroot"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	r, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return Open(r), dir
}

// TestKeep checks that content is kept once under its full SHA-256, read back whole, and that a
// damaged copy is refused rather than restored.
func TestKeep(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t)
	content := []byte("# Note\nold text\n")
	st, err := s.Keep(ctx, content, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	want := State{SHA256: Sum(content), Version: fsroot.Version(content), Size: int64(len(content)), Mode: 0o640}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if st.Version != st.SHA256[:16] {
		t.Errorf("version %s is not the start of the SHA-256 %s", st.Version, st.SHA256)
	}
	if _, err := s.Keep(ctx, content, 0o644); err != nil {
		t.Fatalf("keeping it again: %v", err)
	}
	objects, _ := filepath.Glob(filepath.Join(dir, "objects", "*", "*"))
	if len(objects) != 1 {
		t.Errorf("objects = %v, want one", objects)
	}
	got, err := s.Content(ctx, st.SHA256)
	if err != nil || string(got) != string(content) {
		t.Fatalf("Content = %q, %v", got, err)
	}
	if _, err := s.Content(ctx, Sum([]byte("never kept"))); err != ErrNotKept {
		t.Errorf("Content of what was never kept: %v, want ErrNotKept", err)
	}
	if _, err := s.Content(ctx, "../../etc/passwd"); err != ErrNotKept {
		t.Errorf("Content of a path: %v, want ErrNotKept", err)
	}
	if err := os.WriteFile(objects[0], []byte("# Note\nnew text\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Content(ctx, st.SHA256); err == nil {
		t.Errorf("a damaged content was returned")
	}
}

// TestRecords checks that records come back newest first, filtered by the files they touched.
func TestRecords(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { now = now.Add(time.Second); return now }
	before := &State{SHA256: Sum([]byte("a")), Version: fsroot.Version([]byte("a")), Size: 1}
	calls := []*Record{
		{Purpose: "update", Changes: []Change{{Path: "notes/a.md", Before: before, After: &State{Size: 2}}}},
		{Purpose: "create", Changes: []Change{{Path: "b.md", After: &State{Size: 1}}}},
		{Purpose: "delete", Changes: []Change{{Path: "notes/a.md", Before: before}}},
		{Purpose: "edit", Changes: []Change{{Path: "notes/deep/c.md", Before: before, After: before}, {Path: "b.md", Before: before, After: before}}},
	}
	for _, r := range calls {
		if err := s.Commit(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		dir  bool
		want []string
	}{
		{"notes/a.md", false, []string{"delete", "update"}},
		{"b.md", false, []string{"edit", "create"}},
		{"notes", true, []string{"edit", "delete", "update"}},
		{".", true, []string{"edit", "delete", "create", "update"}},
		{"notes", false, nil},
	} {
		got, truncated, err := s.Records(ctx, Touching(tt.name, tt.dir))
		if err != nil || truncated {
			t.Fatalf("Records(%s): %v, truncated %v", tt.name, err, truncated)
		}
		var purposes []string
		for _, r := range got {
			purposes = append(purposes, r.Purpose)
		}
		if diff := cmp.Diff(tt.want, purposes); diff != "" {
			t.Errorf("Records(%s, dir %v) (-want +got):\n%s", tt.name, tt.dir, diff)
		}
	}
}
