package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

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
