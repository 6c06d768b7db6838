package serving

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRootNameOf(t *testing.T) {
	tests := []struct{ dir, want string }{
		{"/home/me/notes", "notes"},
		{"/home/me/notes/", "notes"},
		{"/srv/My Notes", "My-Notes"},
		{"/srv/.hidden", "hidden"},
		{"/srv/_x_", "x_"},
		{"/", "root"},
		{"/srv/Заметки", "root"},
		{"/srv/" + strings.Repeat("a", 80), strings.Repeat("a", 64)},
		{"relative/dir", "dir"},
	}
	for _, tt := range tests {
		if got := rootNameOf(tt.dir); got != tt.want {
			t.Errorf("rootNameOf(%q) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}

// TestRootSpecs checks the folders a configuration serves and their names, for the configurations
// TestParseRoots (in cmd/packfs-mcp) reads from the flags and config files.
func TestRootSpecs(t *testing.T) {
	withEq := filepath.Join(t.TempDir(), "a=b")
	tests := []struct {
		name      string
		config    Config
		wantSpecs []rootSpec
	}{
		{name: "one root", config: Config{RootPath: "/srv/notes"}, wantSpecs: []rootSpec{{"notes", "/srv/notes"}}},
		{name: "repeated", config: Config{Roots: []RootConfig{{Path: "/srv/notes"}, {Path: "/srv/work"}}},
			wantSpecs: []rootSpec{{"notes", "/srv/notes"}, {"work", "/srv/work"}}},
		{name: "named", config: Config{Roots: []RootConfig{{Name: "a", Path: "/srv/notes"}, {Name: "b", Path: "/srv/notes2"}}},
			wantSpecs: []rootSpec{{"a", "/srv/notes"}, {"b", "/srv/notes2"}}},
		{name: "one named root", config: Config{Roots: []RootConfig{{Name: "notes", Path: "/srv/x"}}}, wantSpecs: []rootSpec{{"notes", "/srv/x"}}},
		{name: "a folder holding = that exists", config: Config{Roots: []RootConfig{{Path: withEq}, {Name: "x", Path: "/srv/x"}}},
			wantSpecs: []rootSpec{{"a-b", withEq}, {"x", "/srv/x"}}},
		{name: "not a name before =", config: Config{Roots: []RootConfig{{Path: "/srv/a=b"}, {Path: "-x=/y"}}},
			wantSpecs: []rootSpec{{"a-b", "/srv/a=b"}, {"y", "-x=/y"}}},
		{name: "json list beside rootPath", config: Config{RootPath: "/srv/main", Roots: []RootConfig{{Name: "notes", Path: "/srv/n"}, {Path: "/srv/Work Stuff"}}},
			wantSpecs: []rootSpec{{"main", "/srv/main"}, {"notes", "/srv/n"}, {"Work-Stuff", "/srv/Work Stuff"}}},
		{name: "yaml list", config: Config{Roots: []RootConfig{{Name: "notes", Path: "/srv/n"}, {Path: "/srv/w"}}},
			wantSpecs: []rootSpec{{"notes", "/srv/n"}, {"w", "/srv/w"}}},
		{name: "--root replaces the file's roots", config: Config{RootPath: "/srv/only"}, wantSpecs: []rootSpec{{"only", "/srv/only"}}},
		{name: "http with the clients' roots", config: Config{ClientRootsWithin: []string{"/srv/a", "/srv/b"}, HTTP: HTTPConfig{Addr: "127.0.0.1:0"}}},
		{name: "the clients' roots in the file", config: Config{ClientRootsWithin: []string{"/srv/a"}}},
		{name: "http with several", config: Config{Roots: []RootConfig{{Path: "/a"}, {Path: "/b"}}, HTTP: HTTPConfig{Addr: "127.0.0.1:0"}},
			wantSpecs: []rootSpec{{"a", "/a"}, {"b", "/b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := tt.config.rootSpecs()
			must(t, err)
			if d := cmp.Diff(tt.wantSpecs, specs, cmp.AllowUnexported(rootSpec{})); d != "" {
				t.Errorf("roots (-want +got):\n%s", d)
			}
		})
	}
}
