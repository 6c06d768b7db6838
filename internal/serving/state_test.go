package serving

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
)

// TestPlaceState checks where the index and the history go for roots that hold the usual places:
// never inside the root, the operator's folder when it is outside, and nowhere (memory, history
// off) when the root holds every candidate.
func TestPlaceState(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	must(t, os.MkdirAll(filepath.Join(home, ".cache"), 0o755))
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".cache")) // the history beside the index: the same places
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
			for _, kind := range []stateKind{stateIndex, stateHistory} {
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
				if !strings.HasPrefix(p.Dir, tc.inside) || fsroot.HostWithin(p.Dir, tc.root) {
					t.Errorf("%s: placed at %q; want a folder under %s, outside %s", kind, p.Dir, tc.inside, tc.root)
				}
			}
		})
	}
}

// TestMakeDirs checks that the state folders are made as os.MkdirAll(dir, 0o700) made them: every
// missing folder private to the user, those that exist left as they are, and a file or a dangling
// link in the way an error.
func TestMakeDirs(t *testing.T) {
	base := t.TempDir()
	must(t, os.Mkdir(filepath.Join(base, "shared"), 0o755))
	must(t, os.Chmod(filepath.Join(base, "shared"), 0o755)) // whatever the umask
	must(t, os.WriteFile(filepath.Join(base, "file"), nil, 0o644))
	must(t, os.Symlink(filepath.Join(base, "absent"), filepath.Join(base, "dangling")))
	must(t, os.Symlink(filepath.Join(base, "shared"), filepath.Join(base, "link")))
	tests := []struct {
		name    string
		dir     string
		made    []string // the folders that must now exist with mode 0700
		kept    string   // a folder that must keep its mode 0755
		wantErr bool
	}{
		{name: "missing parents", dir: "a/b/c", made: []string{"a", "a/b", "a/b/c"}},
		{name: "under an existing folder", dir: "shared/x/y", made: []string{"shared/x", "shared/x/y"}, kept: "shared"},
		{name: "an existing folder", dir: "shared", kept: "shared"},
		{name: "through a link", dir: "link/z", made: []string{"shared/z"}, kept: "shared"},
		{name: "a file in the way", dir: "file/x", wantErr: true},
		{name: "a file", dir: "file", wantErr: true},
		{name: "a dangling link", dir: "dangling", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := makeDirs(filepath.Join(base, tt.dir))
			if (err != nil) != tt.wantErr {
				t.Fatalf("makeDirs(%s) = %v, want an error: %v", tt.dir, err, tt.wantErr)
			}
			for _, d := range tt.made {
				if info, err := os.Lstat(filepath.Join(base, d)); err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
					t.Errorf("%s: %v, %v; want a folder of mode 0700", d, info, err)
				}
			}
			if tt.kept != "" {
				if info, err := os.Lstat(filepath.Join(base, tt.kept)); err != nil || info.Mode().Perm() != 0o755 {
					t.Errorf("%s: %v, %v; want it left at mode 0755", tt.kept, info, err)
				}
			}
		})
	}
}
