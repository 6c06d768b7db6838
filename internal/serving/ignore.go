package serving

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
)

// maxGlobalIgnore bounds the global excludes file read, and the git config read to find it.
const maxGlobalIgnore = 1 << 20

// readGlobalIgnore returns the lines of git's global excludes file: core.excludesFile of
// ~/.gitconfig (or $XDG_CONFIG_HOME/git/config) when set, else $XDG_CONFIG_HOME/git/ignore or
// ~/.config/git/ignore, each read through a root of its folder; nil when there is none.
func readGlobalIgnore() []string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" || !filepath.IsAbs(xdg) {
		if home == "" {
			return nil
		}
		xdg = filepath.Join(home, ".config")
	}
	file := filepath.Join(xdg, "git", "ignore")
	for _, config := range []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")} {
		if set := excludesFile(readHostFile(config), home); set != "" {
			file = set // ~/.gitconfig, read last, wins as git has it
		}
	}
	data := readHostFile(file)
	if data == nil {
		return nil
	}
	return strings.Split(string(data), "\n")
}

// excludesFile returns core.excludesFile as a git config file's text sets it, with a leading ~/
// made home, or "".
func excludesFile(config []byte, home string) string {
	section, out := "", ""
	sc := bufio.NewScanner(strings.NewReader(string(config)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "["):
			section = strings.ToLower(strings.Trim(line, "[] \t"))
		case section == "core":
			key, value, ok := strings.Cut(line, "=")
			if ok && strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
				out = strings.Trim(strings.TrimSpace(value), `"`)
			}
		}
	}
	if rest, ok := strings.CutPrefix(out, "~/"); ok && home != "" {
		out = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(out) {
		return ""
	}
	return out
}

// readHostFile reads the file at the host path p through a root of its folder, up to
// maxGlobalIgnore bytes; nil when it cannot.
func readHostFile(p string) []byte {
	if p == "" || !filepath.IsAbs(p) {
		return nil
	}
	r, err := fsroot.Open(filepath.Dir(p), fsroot.Options{})
	if err != nil {
		return nil
	}
	defer r.Close()
	data, _, err := r.ReadFile(context.Background(), filepath.Base(p), maxGlobalIgnore)
	if err != nil {
		return nil
	}
	return data
}

// ignoreAbove returns cfg with what git's rules say of the host folder dir from the folders above
// it: whether dir lies inside a git work tree whose top is above it (a folder above holds .git, a
// folder, or a file for a worktree or a submodule), dir's place in that tree, and the ignore files
// of the folders from the top down to dir's parent. Each folder above is looked at, and each file
// read, through a root of its own, once, at start: a change above the root counts at the next
// start.
func ignoreAbove(dir string, cfg security.IgnoreConfig) security.IgnoreConfig {
	var chain []string // the folders above dir, nearest first, up to the top of the work tree
	top := ""
	for d, up := dir, filepath.Dir(dir); up != d && top == ""; d, up = up, filepath.Dir(up) {
		chain = append(chain, up)
		r, err := fsroot.Open(up, fsroot.Options{})
		if err != nil {
			continue
		}
		if _, err := r.Lstat(".git"); err == nil {
			top = up
		}
		r.Close()
	}
	if top == "" {
		return cfg
	}
	cfg.InRepository = true
	for i := len(chain) - 1; i >= 0; i-- { // from the top down
		folder := chain[i]
		var rel []string
		if i < len(chain)-1 {
			r, _ := filepath.Rel(top, folder)
			rel = strings.Split(filepath.ToSlash(r), "/")
		}
		names := []string{".gitignore", ".ignore", ".rgignore"}
		if i == len(chain)-1 {
			names = append([]string{".git/info/exclude"}, names...)
		}
		for _, name := range names {
			if data := readHostFile(filepath.Join(folder, filepath.FromSlash(name))); data != nil {
				cfg.Above = append(cfg.Above, security.IgnoreFile{Source: strings.Repeat("../", i+1) + name, Dir: rel, Text: string(data)})
			}
		}
	}
	within, _ := filepath.Rel(top, dir)
	cfg.Within = strings.Split(filepath.ToSlash(within), "/")
	return cfg
}
