package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// TestPrune checks that records past the age or the size budget go, oldest first, with the
// contents only they named, while a content just kept and not yet named stays.
func TestPrune(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t)
	now := time.Now()
	s.now = func() time.Time { return now }
	commit := func(path, content string) {
		st, err := s.Keep(ctx, []byte(content), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, &Record{Purpose: "update", Changes: []Change{{Path: path, Before: &st, After: &State{}}}}); err != nil {
			t.Fatal(err)
		}
	}
	old := strings.Repeat("o", 1000)
	commit("a.md", old) // 8 days ago
	now = now.Add(24 * time.Hour)
	commit("a.md", strings.Repeat("b", 1000))
	commit("b.md", old) // the same content, named again: it stays
	commit("c.md", strings.Repeat("c", 3000))
	now = now.Add(7 * 24 * time.Hour)
	// Kept a moment ago by a call not yet committed: no record names it.
	if _, err := s.Keep(ctx, []byte("in flight"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The contents' times are what the grace is judged by, on the store's clock.
	objects, _ := filepath.Glob(filepath.Join(dir, "objects", "*", "*"))
	for _, o := range objects {
		at := now.Add(-time.Hour)
		if data, _ := os.ReadFile(o); string(data) == "in flight" {
			at = now
		}
		if err := os.Chtimes(o, at, at); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.Prune(ctx, Limits{Keep: 7*24*time.Hour + time.Minute, MaxBytes: 4500})
	if err != nil {
		t.Fatal(err)
	}
	// The first record is past the age; the rest name 5,000 bytes, over 4,500: the oldest of them
	// goes too, and with it the b... content; old stays, named by b.md's record.
	if p.Records != 2 || p.KeptRecords != 2 || p.Bytes != 4000 || p.Contents != 1 {
		t.Errorf("pruned %+v, want 2 records and 1 content removed, 2 records of 4,000 bytes left", p)
	}
	left, _, err := s.Records(ctx, nil)
	if err != nil || len(left) != 2 || left[0].Changes[0].Path != "c.md" || left[1].Changes[0].Path != "b.md" {
		t.Fatalf("records left: %+v, %v", left, err)
	}
	for _, c := range []string{old, strings.Repeat("c", 3000), "in flight"} {
		if _, err := s.Content(ctx, Sum([]byte(c))); err != nil {
			t.Errorf("content %.10q: %v, want kept", c, err)
		}
	}
	if _, err := s.Content(ctx, Sum([]byte(strings.Repeat("b", 1000)))); err != ErrNotKept {
		t.Errorf("the pruned content: %v, want ErrNotKept", err)
	}
}

// TestForget checks that forgetting a file removes its records and the contents only they named,
// at once, and leaves the rest.
func TestForget(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	keep := func(path, content string) {
		st, err := s.Keep(ctx, []byte(content), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, &Record{Purpose: "update", Changes: []Change{{Path: path, Before: &st, After: &State{}}}}); err != nil {
			t.Fatal(err)
		}
	}
	keep("secret/a.md", "password=hunter2\n")
	keep("secret/b.md", "shared\n")
	keep("notes.md", "shared\n")
	// One call that changed a secret and a note: the note's change stays.
	both, err := s.Keep(ctx, []byte("token=1\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Keep(ctx, []byte("other\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, &Record{Purpose: "edit", Changes: []Change{{Path: "secret/c.md", Before: &both, After: &State{}}, {Path: "other.md", Before: &other, After: &State{}}}}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Forget(ctx, "secret", true)
	if err != nil || n != 3 {
		t.Fatalf("Forget = %d, %v; want 3 changes", n, err)
	}
	if _, err := s.Content(ctx, Sum([]byte("token=1\n"))); err != ErrNotKept {
		t.Errorf("the forgotten change of a call of two: %v, want ErrNotKept", err)
	}
	if _, err := s.Content(ctx, Sum([]byte("password=hunter2\n"))); err != ErrNotKept {
		t.Errorf("the forgotten content: %v, want ErrNotKept", err)
	}
	if _, err := s.Content(ctx, Sum([]byte("shared\n"))); err != nil {
		t.Errorf("a content another record names: %v, want kept", err)
	}
	left, _, _ := s.Records(ctx, nil)
	if len(left) != 2 || len(left[0].Changes) != 1 || left[0].Changes[0].Path != "other.md" || left[1].Changes[0].Path != "notes.md" {
		t.Errorf("records left: %+v", left)
	}
}
