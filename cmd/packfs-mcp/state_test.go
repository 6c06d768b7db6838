package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
)

// TestPlaceState checks where the index and the backups go for roots that hold the usual places:
// never inside the root, the operator's folder when it is outside, and nowhere (memory, backups
// off) when the root holds every candidate.
func TestPlaceState(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	must(t, os.MkdirAll(filepath.Join(home, ".cache"), 0o755))
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("TMPDIR", filepath.Join(dir, "tmp"))
	must(t, os.MkdirAll(filepath.Join(dir, "tmp"), 0o755))
	open := func(p string) *fsroot.Root {
		r, err := fsroot.Open(p, fsroot.Options{})
		must(t, err)
		t.Cleanup(func() { r.Close() })
		return r
	}
	tests := []struct {
		name       string
		root       string
		configured string
		wantErr    string // a substring of the error, if one is wanted
		inside     string // the folder the place must be under; "" for no place at all
	}{
		{name: "a home folder", root: home, inside: "/var/tmp/packfs-mcp-"},
		{name: "a folder beside the cache", root: dir + "/tmp", inside: filepath.Join(home, ".cache", "packfs-mcp")},
		{name: "the whole filesystem", root: "/", inside: ""},
		{name: "configured outside", root: home, configured: filepath.Join(dir, "idx"), inside: filepath.Join(dir, "idx")},
		{name: "configured inside", root: home, configured: filepath.Join(home, "idx"), wantErr: "inside the root"},
		{name: "configured inside through a link", root: home, configured: filepath.Join(dir, "to-home", "idx"), wantErr: "inside the root"},
	}
	must(t, os.Symlink(home, filepath.Join(dir, "to-home")))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, kind := range []stateKind{stateIndex, stateBackups} {
				p, err := placeState(kind, tc.configured, open(tc.root))
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Errorf("%s: got %v, %v; want an error with %q", kind, p, err, tc.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				if tc.inside == "" {
					if p.Dir != "" {
						t.Errorf("%s: placed at %s; want no place outside the root", kind, p.Dir)
					}
					continue
				}
				if !strings.HasPrefix(p.Dir, tc.inside) || within(p.Dir, tc.root) {
					t.Errorf("%s: placed at %q; want a folder under %s, outside %s", kind, p.Dir, tc.inside, tc.root)
				}
			}
		})
	}
}
