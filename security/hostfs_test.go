package security

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The helpers of the tests of what may be seen (visible_test.go, ignore_test.go), the tests of
// this package that make trees in real folders.

// makeTree creates entries under dir: "d/" is a directory, "f=text" a file holding text, and
// "l => target" a symbolic link; "{base}" in a target becomes base, for absolute links.
func makeTree(t *testing.T, dir, base string, entries ...string) {
	t.Helper()
	for _, ent := range entries {
		var err error
		switch {
		case strings.Contains(ent, " => "):
			name, target, _ := strings.Cut(ent, " => ")
			p := filepath.Join(dir, name)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = symlink(t, strings.ReplaceAll(target, "{base}", base), p)
			}
		case strings.HasSuffix(ent, "/"):
			err = os.MkdirAll(filepath.Join(dir, ent), 0o755)
		default:
			name, content, _ := strings.Cut(ent, "=")
			p := filepath.Join(dir, name)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.WriteFile(p, []byte(content), 0o644)
			}
		}
		if err != nil {
			t.Fatalf("makeTree %q: %v", ent, err)
		}
	}
}

// mustOK fails the test at once when err is not nil.
func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// symlink is os.Symlink, for tests that need a link: under Wine, whose links are the host's,
// followed by every Windows call and never seen as reparse points, the test skips, since no link
// case means there what it means on Windows.
func symlink(t *testing.T, target, p string) error {
	t.Helper()
	if underWine {
		t.Skip("Wine shows no links: the link cases run on Linux and need a Windows machine for Windows")
	}
	return os.Symlink(target, p)
}
