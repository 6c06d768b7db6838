package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

// A corpus is one document collection that the evaluation ranks: a shared corpus and its
// judged queries.
type corpus struct {
	corpora.Corpus
	Queries string // query file name in the queries folder
}

// collections are the corpora known to the evaluation, in report order.
var collections = []corpus{
	{corpora.Obsidian, "obsidian.json"},
	{corpora.TLDR, "tldr.json"},
}

// unpack extracts the served folder of c from its archive in archiveDir into dst, keeping the
// archive's paths (see [corpora.Unpack]).
func unpack(c corpus, archiveDir, dst string) error {
	_, err := corpora.Unpack(filepath.Join(archiveDir, c.Archive), c.Root, dst)
	if errors.Is(err, corpora.ErrNoArchive) {
		return fmt.Errorf("%w (pass --corpus-dir with the archives unpacked, or put them there)", err)
	}
	return err
}

// listMarkdown returns the root-relative slash paths of the regular .md files
// under root, sorted. Symbolic links are not followed.
func listMarkdown(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no markdown files under %s", root)
	}
	slices.Sort(files)
	return files, nil
}

// workingModule returns the module root at or above the working directory.
func workingModule() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return moduleRoot(wd)
}

// queriesDir returns dir, or the module's dev/eval/queries when dir is empty.
func queriesDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	mod, err := workingModule()
	if err != nil {
		return "", err
	}
	return filepath.Join(mod, "dev", "eval", "queries"), nil
}

// moduleRoot returns the nearest directory at or above dir that holds go.mod.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
		d = parent
	}
}
