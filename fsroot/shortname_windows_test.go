//go:build windows

package fsroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// shortName returns the 8.3 alias the volume gives the last component of the host path p, or ""
// when it gives none (8.3 names off, or the name is one already).
func shortName(t *testing.T, p string) string {
	t.Helper()
	long, err := windows.UTF16PtrFromString(p)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]uint16, 1024)
	n, err := windows.GetShortPathName(long, &buf[0], uint32(len(buf)))
	if err != nil || n == 0 {
		return ""
	}
	short := windows.UTF16ToString(buf[:n])
	base := short[strings.LastIndexAny(short, `\/`)+1:]
	if strings.EqualFold(base, filepath.Base(p)) {
		return ""
	}
	return base
}

// TestLookupStoredNames checks that a name reached through 8.3 aliases, of folders on the way or
// of the last component, has the path of the long names the volume stores: the policy then judges
// .docker, not _DOC~2XZ.
func TestLookupStoredNames(t *testing.T) {
	_, r := newTree(t, Options{}, ".docker/config.json", "node_modules/pkg/README.md", "a long folder/longfilename.markdown")
	host := func(p string) string { return filepath.Join(r.Dir(), filepath.FromSlash(p)) }
	docker, nodeModules := shortName(t, host(".docker")), shortName(t, host("node_modules"))
	long, file := shortName(t, host("a long folder")), shortName(t, host("a long folder/longfilename.markdown"))
	if docker == "" || nodeModules == "" || long == "" || file == "" {
		t.Skipf("this volume gives no 8.3 names (%q %q %q %q): the aliases cannot be tried here", docker, nodeModules, long, file)
	}
	t.Logf("aliases: %s %s %s %s", docker, nodeModules, long, file)
	tests := []struct{ name, want string }{
		{docker + "/config.json", ".docker/config.json"},
		{nodeModules + "/pkg/README.md", "node_modules/pkg/README.md"},
		{long + "/" + file, "a long folder/longfilename.markdown"},
		{docker, ".docker"},
		{docker + "/new.json", ".docker/new.json"},
		{"a long folder/" + file, "a long folder/longfilename.markdown"},
		{"notes.md", "notes.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := r.Lookup(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if e.Path() != tt.want {
				t.Errorf("Lookup(%q).Path() = %q, want %q", tt.name, e.Path(), tt.want)
			}
		})
	}
	if _, err := os.Stat(host(docker)); err != nil {
		t.Errorf("the alias %s does not reach .docker on the host: %v", docker, err)
	}
}
