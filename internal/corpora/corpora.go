// Package corpora gives tests the shared corpora: real document sets kept as archives in
// ../shared/corpora beside the repository (see its README). Only tests import it; it is the test
// fixtures' one exception to "only fsroot touches the filesystem".
package corpora

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
	"strings"
	"sync"
	"testing"
)

// A test asks for a corpus with [Dir]; the first ask unpacks it into a folder of the test
// binary's own, which [Remove] (called from TestMain) removes. Without the archive the test skips,
// unless PACKFS_REQUIRE_CORPORA=1 (as in CI), where it fails instead.

// archivesDir is where the archives are, relative to the folder of a package beside this one's
// parent (tests run in their package's folder, one level below the repository).
var archivesDir = filepath.Join("..", "..", "shared", "corpora")

// corpusMaxEntry caps one unpacked file: the largest note in either corpus is well under 1 MiB,
// so anything bigger is a damaged archive.
const corpusMaxEntry = 16 << 20

// testCorpora are the corpora the tests know: the archive and the folder inside it that is served.
var testCorpora = map[string]struct{ archive, root string }{
	// 173 notes of the Obsidian Help vault, with wiki links, embeds and frontmatter.
	"obsidian": {"obsidian-help-en.tar.gz", "obsidian-help-en"},
	// The 7,425 English tldr pages (pages.en in the archive is a link, not unpacked).
	"tldr": {"tldr-pages.tar.gz", "tldr/pages"},
}

// unpacked holds the corpora unpacked so far, by name, below dir.
var unpacked struct {
	sync.Mutex
	dir   string
	roots map[string]string
}

// Remove deletes every corpus unpacked so far; a package's TestMain calls it after m.Run.
func Remove() {
	unpacked.Lock()
	defer unpacked.Unlock()
	if unpacked.dir != "" {
		os.RemoveAll(unpacked.dir)
		unpacked.dir, unpacked.roots = "", nil
	}
}

// Dir returns the folder of the named corpus ("obsidian" or "tldr"), unpacking it on first use.
// It skips the test when the archive is absent, or fails it under PACKFS_REQUIRE_CORPORA=1.
func Dir(t testing.TB, name string) string {
	t.Helper()
	c, ok := testCorpora[name]
	if !ok {
		t.Fatalf("unknown corpus %q", name)
	}
	unpacked.Lock()
	defer unpacked.Unlock()
	if dir, ok := unpacked.roots[name]; ok {
		return dir
	}
	archive := filepath.Join(archivesDir, c.archive)
	if _, err := os.Stat(archive); err != nil {
		if os.Getenv("PACKFS_REQUIRE_CORPORA") == "1" {
			t.Fatalf("PACKFS_REQUIRE_CORPORA=1 but the %s corpus is missing: %v", name, err)
		}
		t.Skipf("the %s corpus is absent (%v): put ../shared/corpora beside the repository to run this test", name, err)
	}
	if unpacked.dir == "" {
		dir, err := os.MkdirTemp("", "packfs-test-corpora-")
		if err != nil {
			t.Fatal(err)
		}
		unpacked.dir, unpacked.roots = dir, map[string]string{}
	}
	dst := filepath.Join(unpacked.dir, name)
	if err := unpackCorpus(archive, c.root, dst); err != nil {
		t.Fatalf("unpacking the %s corpus: %v", name, err)
	}
	root := filepath.Join(dst, filepath.FromSlash(c.root))
	unpacked.roots[name] = root
	return root
}

// unpackCorpus extracts the regular files below prefix (a slash path) of the gzipped tar archive
// into dst, keeping their archive paths. Other entries are skipped; unsafe names are refused.
func unpackCorpus(archive, prefix, dst string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(name, prefix+"/") {
			continue
		}
		if !fs.ValidPath(name) || h.Size > corpusMaxEntry {
			return fmt.Errorf("refusing entry %q (%d bytes)", h.Name, h.Size)
		}
		out := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		w, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(w, io.LimitReader(tr, h.Size))
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return errors.New("no files below " + prefix)
	}
	return nil
}
