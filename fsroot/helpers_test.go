package fsroot

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

// marker is the content of files outside the root; it must never appear
// in anything fsroot returns.
const marker = "OUTSIDE-SECRET-MARKER"

// outsideEntries populate outside/, the sibling of root/ that no
// operation may touch.
var outsideEntries = []string{
	"secret.txt=" + marker,
	"sub/",
	"sub/secret2.txt=" + marker,
}

// newTree makes a temp dir holding root/ (with entries) and outside/, and
// opens root/. It returns the temp dir and the Root.
func newTree(t *testing.T, opts Options, entries ...string) (string, *Root) {
	t.Helper()
	base := testfs.TempDir(t)
	testfs.Tree(t, filepath.Join(base, "outside"), base, outsideEntries...)
	rootDir := filepath.Join(base, "root")
	if err := os.Mkdir(rootDir, 0o755); err != nil {
		t.Fatal(err)
	}
	testfs.Tree(t, rootDir, base, entries...)
	r, err := Open(rootDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return base, r
}

// snapshot records everything under base except root/: path to kind,
// mode and content or link text. Comparing two snapshots shows any file
// read-modified, created or removed outside the root.
func snapshot(t *testing.T, base string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		if rel == "root" {
			return fs.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			snap[rel] = "link " + target
		case d.IsDir():
			snap[rel] = "dir " + fi.Mode().String()
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			snap[rel] = "file " + fi.Mode().String() + " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// hangGuard is how long an operation on a special file may take before
// the test calls it blocked; it only catches hangs, it times nothing.
const hangGuard = 5 * time.Second

// noHang runs fn and fails the test if it does not return within
// hangGuard.
func noHang(t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangGuard):
		t.Fatal("operation blocked")
		return nil
	}
}

func noHangInfo(t *testing.T, fn func() (Info, error)) (Info, error) {
	t.Helper()
	var info Info
	err := noHang(t, func() error {
		var err error
		info, err = fn()
		return err
	})
	return info, err
}

// newInfo converts fi, os's answer for the root-relative name, to an Info,
// for comparisons with what fsroot answers.
func newInfo(name string, fi fs.FileInfo) Info {
	return Info{
		Path:    name,
		Name:    path.Base(name),
		Type:    fileType(fi.Mode()),
		Size:    fi.Size(),
		ModTime: fi.ModTime(),
		Mode:    fi.Mode(),
		Links:   hostLinks(fi),
	}
}
