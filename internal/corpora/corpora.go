// Package corpora gives the tests, the evaluation and the benchmarks the shared corpora: real
// document sets kept as archives in ../shared/corpora beside the repository (see its README).
// Only tests and the commands eval and bench import it (TestCorporaOnlyInTests): it touches the
// filesystem directly, which the server's packages leave to fsroot.
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

// Corpus is one shared document set.
type Corpus struct {
	Name    string // "obsidian", "tldr"
	Archive string // the archive's file name in the corpora folder
	Root    string // slash path, inside the archive, of the folder that is served
}

// The shared corpora.
var (
	// Obsidian is the 173 notes of the Obsidian Help vault, with wiki links, embeds and
	// frontmatter.
	Obsidian = Corpus{Name: "obsidian", Archive: "obsidian-help-en.tar.gz", Root: "obsidian-help-en"}
	// TLDR is the 7,425 English tldr pages; the translations would put 39 near-duplicates of every
	// page in a ranking, and pages.en in the archive is a link, not unpacked.
	TLDR = Corpus{Name: "tldr", Archive: "tldr-pages.tar.gz", Root: "tldr/pages"}
)

// ArchivesDir is where the archives are, relative to the folder of a package one level below the
// repository, where that package's tests run.
var ArchivesDir = filepath.Join("..", "..", "shared", "corpora")

// ErrNoArchive reports that a corpus archive is not where it was looked for.
var ErrNoArchive = errors.New("corpus archive not found")

// maxEntry caps one unpacked file: the largest note in either corpus is well under 1 MiB, so
// anything bigger is a damaged or hostile archive.
const maxEntry = 16 << 20

// Unpack extracts the regular files below prefix (a slash path; "" for all) of the gzipped tar
// archive into dst, keeping their archive paths, and returns how many it wrote. Other entries (the
// tldr archive has a pages.en symbolic link) are skipped; a name that would leave dst, or an entry
// over 16 MiB, is refused. A missing archive is [ErrNoArchive].
func Unpack(archive, prefix, dst string) (int, error) {
	f, err := os.Open(archive)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("%w: looked for %s", ErrNoArchive, archive)
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", archive, err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, fmt.Errorf("%s: %w", archive, err)
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || prefix != "" && !strings.HasPrefix(name, prefix+"/") {
			continue
		}
		if !fs.ValidPath(name) {
			return n, fmt.Errorf("%s: unsafe entry name %q", archive, h.Name)
		}
		if h.Size > maxEntry {
			return n, fmt.Errorf("%s: entry %q is %d bytes, over the %d-byte limit", archive, h.Name, h.Size, maxEntry)
		}
		if err := writeFile(filepath.Join(dst, filepath.FromSlash(name)), io.LimitReader(tr, h.Size)); err != nil {
			return n, fmt.Errorf("%s: %w", archive, err)
		}
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: no files below %q", archive, prefix)
	}
	return n, nil
}

// writeFile creates name (which must not exist) and its folders with the contents of r.
func writeFile(name string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
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

// unpacked holds the corpora [Dir] unpacked so far, by name, below dir.
var unpacked struct {
	sync.Mutex
	dir   string
	roots map[string]string
}

// Dir returns the served folder of c for a test, unpacking it from [ArchivesDir] on first use into
// a folder of the test binary's own, which [Main] removes. Without the archive it skips the test,
// or fails it under PACKFS_REQUIRE_CORPORA=1 (as in CI).
func Dir(t testing.TB, c Corpus) string {
	t.Helper()
	unpacked.Lock()
	defer unpacked.Unlock()
	if dir, ok := unpacked.roots[c.Name]; ok {
		return dir
	}
	if unpacked.dir == "" {
		dir, err := os.MkdirTemp("", "packfs-test-corpora-")
		if err != nil {
			t.Fatal(err)
		}
		unpacked.dir, unpacked.roots = dir, map[string]string{}
	}
	dst := filepath.Join(unpacked.dir, c.Name)
	_, err := Unpack(filepath.Join(ArchivesDir, c.Archive), c.Root, dst)
	if errors.Is(err, ErrNoArchive) {
		if os.Getenv("PACKFS_REQUIRE_CORPORA") == "1" {
			t.Fatalf("PACKFS_REQUIRE_CORPORA=1 but the %s corpus is missing: %v", c.Name, err)
		}
		t.Skipf("the %s corpus is absent (%v): put ../shared/corpora beside the repository to run this test", c.Name, err)
	}
	if err != nil {
		t.Fatalf("unpacking the %s corpus: %v", c.Name, err)
	}
	root := filepath.Join(dst, filepath.FromSlash(c.Root))
	unpacked.roots[c.Name] = root
	return root
}

// Main runs a package's tests and then removes the corpora [Dir] unpacked for them; a package
// whose tests use Dir calls it from its TestMain.
func Main(m *testing.M) {
	code := m.Run()
	unpacked.Lock()
	if unpacked.dir != "" {
		os.RemoveAll(unpacked.dir)
	}
	unpacked.Unlock()
	os.Exit(code)
}
