package fsroot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveAllSpares checks that RemoveAll asks spare about every entry below the folder, by
// its root-relative path, and stops at the first it spares with ErrNotEmpty, leaving it.
func TestRemoveAllSpares(t *testing.T) {
	tests := []struct {
		name  string
		spare string // the entry spared, or ""
		err   error
	}{
		{"none spared", "", nil},
		{"a file spared", "a/keep/x.md", ErrNotEmpty},
		{"a folder spared", "a/keep", ErrNotEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, "a/one.md", "a/keep/x.md", "a/keep/y.md")
			asked := map[string]bool{}
			e, err := r.LookupLink("a")
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			err = e.RemoveAll(func(p string, isDir bool) bool {
				asked[p] = isDir
				return p == tt.spare
			})
			if !errors.Is(err, tt.err) {
				t.Fatalf("RemoveAll = %v, want %v", err, tt.err)
			}
			if tt.spare == "" {
				if len(asked) != 4 || !asked["a/keep"] || asked["a/keep/x.md"] {
					t.Errorf("asked %v, want the 4 entries below a, a/keep as a folder", asked)
				}
				if _, err := os.Lstat(filepath.Join(base, "root", "a")); !os.IsNotExist(err) {
					t.Errorf("a still there: %v", err)
				}
				return
			}
			if _, err := os.Lstat(filepath.Join(base, "root", filepath.FromSlash(tt.spare))); err != nil {
				t.Errorf("%s: %v, want it spared", tt.spare, err)
			}
		})
	}
}
