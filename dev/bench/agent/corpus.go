package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

// corpusDir returns the served folder of c unpacked once below base/corpora, from the archives
// folder: every session copies its root from there, and every verification reads the original
// there.
func corpusDir(base, archives string, c corpora.Corpus) (string, error) {
	dst := filepath.Join(base, "corpora", c.Name)
	served := filepath.Join(dst, filepath.FromSlash(c.Root))
	if _, err := os.Stat(filepath.Join(dst, ".complete")); err == nil {
		return served, nil
	}
	if err := os.MkdirAll(filepath.Join(base, "corpora"), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Join(base, "corpora"), c.Name+".unpacking-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if _, err := corpora.Unpack(filepath.Join(archives, c.Archive), c.Root, tmp); err != nil {
		return "", fmt.Errorf("%w (pass --archives DIR, the folder of %s)", err, c.Archive)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		return "", err
	}
	// Another start may have unpacked it meanwhile: either copy is as good.
	if err := os.Rename(tmp, dst); err != nil {
		if _, serr := os.Stat(filepath.Join(dst, ".complete")); serr != nil {
			return "", err
		}
	}
	return served, nil
}

// originals returns the unpacked original of each of t's folders, by the folder's name ("" for
// the one folder of a task of one).
func originals(base, archives string, t *task) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range t.folders() {
		dir, err := corpusDir(base, archives, f.Corpus)
		if err != nil {
			return nil, err
		}
		out[f.Name] = dir
	}
	return out, nil
}

// foldersUnder returns where t's folders are in a root laid out as a session's: each folder of a
// task of several below its name, the one folder of a task of one as the root itself.
func foldersUnder(root string, t *task) map[string]string {
	out := map[string]string{}
	for _, f := range t.folders() {
		out[f.Name] = filepath.Join(root, f.Name)
	}
	return out
}

// copyTree copies the folders and regular files below src to dst, which must not exist.
func copyTree(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("%s already exists", dst)
	}
	return os.CopyFS(dst, os.DirFS(src))
}
