package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

// The content searches: a word in 3 files of the corpus, a word in 342, and a two-word phrase in 651.
const (
	rareWord   = "xkcd"
	commonWord = "archive"
	phrase     = "list all"
)

// fixtures is the one root every server serves: the generated files and a copy of the corpus.
// Paths are relative to root.
type fixtures struct {
	root        string
	file4K      string
	file1M      string
	dir1000     string
	corpus      string
	corpusFiles int
}

func makeFixtures(root string, cfg config) (fixtures, error) {
	fx := fixtures{
		root:    root,
		file4K:  "fixtures/4k.txt",
		file1M:  "fixtures/1m.txt",
		dir1000: "fixtures/dir1000",
		corpus:  "tldr",
	}
	if err := os.MkdirAll(filepath.Join(root, fx.dir1000), 0o755); err != nil {
		return fx, err
	}
	// 4 KB and 1 MB of short text lines, as a source file or a log would be.
	line := "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 the quick fox\n"
	for _, f := range []struct {
		path string
		size int
	}{{fx.file4K, 4 << 10}, {fx.file1M, 1 << 20}} {
		data := []byte(strings.Repeat(line, f.size/len(line)+1)[:f.size])
		if err := os.WriteFile(filepath.Join(root, f.path), data, 0o644); err != nil {
			return fx, err
		}
	}
	for i := 0; i < 1000; i++ {
		p := filepath.Join(root, fx.dir1000, fmt.Sprintf("note-%04d.md", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nA small file.\n", i)), 0o644); err != nil {
			return fx, err
		}
	}

	var err error
	if cfg.corpusDir != "" {
		fx.corpusFiles, err = copyTree(cfg.corpusDir, filepath.Join(root, fx.corpus))
	} else {
		fx.corpusFiles, err = corpora.Unpack(cfg.archive, "", root)
	}
	if err != nil {
		return fx, fmt.Errorf("corpus: %w (pass --corpus-dir DIR for an unpacked copy)", err)
	}
	if _, err := os.Stat(filepath.Join(root, fx.corpus)); err != nil {
		return fx, fmt.Errorf("corpus: no %s folder after unpacking", fx.corpus)
	}
	return fx, nil
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) (int, error) {
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		n++
		return writeFile(filepath.Join(dst, rel), f)
	})
	return n, err
}

func writeFile(p string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	out, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// semanticQueries reads the judged tldr queries of the search evaluation.
func semanticQueries(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var set struct {
		Queries []struct{ Query string } `json:"queries"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	for _, q := range set.Queries {
		out = append(out, q.Query)
	}
	return out, nil
}
