package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
)

// maxGlobalIgnore bounds the global excludes file read.
const maxGlobalIgnore = 1 << 20

// readGlobalIgnore returns the lines of git's global excludes file at its default place,
// $XDG_CONFIG_HOME/git/ignore or else ~/.config/git/ignore, read through a root of its folder; nil
// when there is none. A core.excludesFile set in ~/.gitconfig is not read.
func readGlobalIgnore() []string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(home, ".config")
	}
	r, err := fsroot.Open(filepath.Join(dir, "git"), fsroot.Options{})
	if err != nil {
		return nil
	}
	defer r.Close()
	data, _, err := r.ReadFile(context.Background(), "ignore", maxGlobalIgnore)
	if err != nil {
		return nil
	}
	return strings.Split(string(data), "\n")
}
