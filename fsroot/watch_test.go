package fsroot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestWatch checks that a Watcher reports, as root-relative paths, the files other programs
// write, in folders it watched from the start and in folders created since, and nothing from a
// folder skip refuses, nor from outside the root through a link.
func TestWatch(t *testing.T) {
	base, r := newTree(t, Options{}, "notes/a.md=a", "blocked/", "out => {base}/outside")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := r.Watch(ctx, func(dir string) bool { return dir == "blocked" })
	if runtime.GOOS != "linux" {
		if !errors.Is(err, ErrWatchUnsupported) {
			t.Fatalf("Watch on %s = %v, want ErrWatchUnsupported", runtime.GOOS, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Folders() != 2 { // the root and notes: not blocked, not the link
		t.Errorf("watching %d folders, want 2", w.Folders())
	}
	root := filepath.Join(base, "root")
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Changes seen arrive within watchMost of each other; wait for those wanted, a while at most.
	await := func(want ...string) []string {
		t.Helper()
		var got []string
		limit := time.After(10 * time.Second)
		for {
			select {
			case b := <-w.Changes():
				got = append(got, b...)
				if !slices.ContainsFunc(want, func(p string) bool { return !slices.Contains(got, p) }) {
					return got
				}
			case <-limit:
				t.Fatalf("changes %v, want %v among them", got, want)
				return nil
			}
		}
	}
	write(filepath.Join(root, "blocked", "x.md"))
	write(filepath.Join(base, "outside", "y.md"))
	write(filepath.Join(root, "notes", "b.md"))
	got := await("notes/b.md")
	if err := os.Mkdir(filepath.Join(root, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	got = append(got, await("new")...)
	write(filepath.Join(root, "new", "c.md"))
	got = append(got, await("new/c.md")...)
	for _, p := range got {
		if p == "blocked/x.md" || filepath.Base(p) == "y.md" {
			t.Errorf("reported %q, from a refused folder or outside the root", p)
		}
	}
}
