package main

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// maxEntryBytes caps one unpacked file: the largest note in either corpus is
// well under 1 MiB, so anything bigger is a damaged or hostile archive.
const maxEntryBytes = 16 << 20

// A corpus is one document collection that the evaluation ranks.
type corpus struct {
	Name    string // flag value and query file name: "obsidian", "tldr"
	Archive string // archive name in the shared corpora folder
	Root    string // slash path of the index root inside the unpacked archive
	Queries string // query file name in the queries folder
}

// corpora are the collections known to the evaluation, in report order.
var corpora = []corpus{
	{Name: "obsidian", Archive: "obsidian-help-en.tar.gz", Root: "obsidian-help-en", Queries: "obsidian.json"},
	// Only the English pages: the translations would put 39 near-duplicates
	// of every page in the ranking.
	{Name: "tldr", Archive: "tldr-pages.tar.gz", Root: "tldr/pages", Queries: "tldr.json"},
}

// errNoArchive reports that a corpus archive is not where it was looked for.
var errNoArchive = errors.New("corpus archive not found")

// unpack extracts the regular files under c.Root from the archive in
// archiveDir into dst, keeping their archive paths. Entries
// that are not regular files or directories (the tldr archive has a
// pages.en symbolic link) are skipped, and names that would leave dst are
// refused.
func unpack(c corpus, archiveDir, dst string) error {
	name := filepath.Join(archiveDir, c.Archive)
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: looked for %s (pass --corpus-dir with the archives unpacked, or put them there)", errNoArchive, name)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Archive, err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	prefix := c.Root + "/"
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.Archive, err)
		}
		clean := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(clean, prefix) {
			continue
		}
		if !fs.ValidPath(clean) {
			return fmt.Errorf("%s: unsafe entry name %q", c.Archive, h.Name)
		}
		if h.Size > maxEntryBytes {
			return fmt.Errorf("%s: entry %q is %d bytes, over the %d-byte limit", c.Archive, h.Name, h.Size, maxEntryBytes)
		}
		out := filepath.Join(dst, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := writeFile(out, io.LimitReader(tr, h.Size)); err != nil {
			return fmt.Errorf("%s: %w", c.Archive, err)
		}
	}
}

// writeFile creates name (which must not exist) with the contents of r.
func writeFile(name string, r io.Reader) error {
	w, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
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

// queriesDir returns dir, or the module's eval/queries when dir is empty.
func queriesDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	mod, err := workingModule()
	if err != nil {
		return "", err
	}
	return filepath.Join(mod, "eval", "queries"), nil
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
