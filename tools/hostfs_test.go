package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// symlink is os.Symlink, for tests that need a link: under Wine, whose
// links are the host's, followed by every Windows call and never seen as
// reparse points, the test skips, since no link case means there what it
// means on Windows.
func symlink(t *testing.T, target, p string) error {
	t.Helper()
	if underWine {
		t.Skip("Wine shows no links: the link cases run on Linux and need a Windows machine for Windows")
	}
	return os.Symlink(target, p)
}

// relSlash is p relative to dir with "/" between names, as the tools name files on every system.
func relSlash(dir, p string) string {
	rel, _ := filepath.Rel(dir, p)
	return filepath.ToSlash(rel)
}

// removeTree removes the host folder p and everything in it, deepest entries first, each made
// writable and removed with os.Remove: os.RemoveAll's handle-relative delete answers "Invalid
// function" under Wine 8, and Windows refuses to remove a read-only file.
func removeTree(p string) error {
	var all []string
	filepath.WalkDir(p, func(q string, _ fs.DirEntry, err error) error {
		if err == nil {
			all = append(all, q)
		}
		return nil
	})
	for i := len(all) - 1; i >= 0; i-- {
		if runtime.GOOS == "windows" {
			os.Chmod(all[i], 0o666) // clears the read-only attribute
		}
		if err := os.Remove(all[i]); err != nil {
			return err
		}
	}
	return nil
}
