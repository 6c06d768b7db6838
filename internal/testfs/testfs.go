// Package testfs holds the helpers the tests of several packages share to make and read host
// files: a tree of files, folders and links, a FIFO, a temporary folder, the temporary files a
// write left behind, a JSON Lines file, an endless reader.
//
// Only tests import it (internal/boundary fails when any other file does), and it may touch the
// host's filesystem as a test does; the server's packages go through fsroot. It imports no package
// of the module: fsroot's own tests import it, so it cannot import fsroot or anything that does.
package testfs

import (
	"bufio"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tree builds entries under dir, making the folders they need: "d/" is a folder, "f" a file
// holding "content of f", "f=text" a file holding text, and "l => target" a symbolic link made by
// Symlink (so a test with one skips under Wine); "{base}" in a target becomes base, so that a test
// can make absolute links into its temporary folder. It fails the test on the first entry it
// cannot make.
func Tree(t testing.TB, dir, base string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		var err error
		switch {
		case strings.Contains(e, " => "):
			name, target, _ := strings.Cut(e, " => ")
			target = strings.ReplaceAll(target, "{base}", base)
			p := filepath.Join(dir, name)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = Symlink(t, target, p)
			}
		case strings.HasSuffix(e, "/"):
			err = os.MkdirAll(filepath.Join(dir, e), 0o755)
		default:
			name, content, ok := strings.Cut(e, "=")
			if !ok {
				content = "content of " + name
			}
			p := filepath.Join(dir, name)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.WriteFile(p, []byte(content), 0o644)
			}
		}
		if err != nil {
			t.Fatalf("testfs.Tree %q: %v", e, err)
		}
	}
}

// Symlink is os.Symlink, for tests that need a link: under Wine, whose links are the host's,
// followed by every Windows call and never seen as reparse points, the test skips (see
// SymlinksOrSkip), since no link case means there what it means on Windows.
func Symlink(t testing.TB, target, p string) error {
	t.Helper()
	SymlinksOrSkip(t)
	return os.Symlink(target, p)
}

// SymlinksOrSkip skips the test under Wine, where links are not what they are on Windows (see
// Symlink), for a test that meets links it did not make with Symlink.
func SymlinksOrSkip(t testing.TB) {
	t.Helper()
	if UnderWine {
		t.Skip("Wine shows no links: the link cases run on Linux and need a Windows machine for Windows")
	}
}

// TempFiles lists, relative to dir and with "/" between names, the entries below dir whose name
// starts with prefix: the temporary files a write left behind when prefix is fsroot.TempPrefix,
// which the caller passes since testfs cannot import fsroot. It walks with os, never following
// links, and fails the test if the walk does.
func TempFiles(t testing.TB, dir, prefix string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), prefix) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", dir, err)
	}
	return out
}

// ReadJSONLines reads the JSON Lines file at file, one T a line, failing the test on a line that
// check refuses (for a journal, audit.Check: the line is whole and in the AI SDK's UIMessage
// shape) or that does not decode. Lines may be up to 16 MiB.
func ReadJSONLines[T any](t testing.TB, file string, check func([]byte) error) []T {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if err := check(sc.Bytes()); err != nil {
			t.Fatalf("%s line %d: %v\n%s", filepath.Base(file), len(out)+1, err, sc.Text())
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Endless is a reader of n bytes of one long line of 'x', then of rest (a newline and what
// follows, say), that never holds the line: a test can feed a line far over a bound without the
// memory of it.
func Endless(n int, rest string) io.Reader { return &endless{n: n, rest: rest} }

type endless struct {
	n    int
	rest string
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n > 0 {
		k := min(len(p), e.n)
		for i := range k {
			p[i] = 'x'
		}
		e.n -= k
		return k, nil
	}
	if e.rest == "" {
		return 0, io.EOF
	}
	k := copy(p, e.rest)
	e.rest = e.rest[k:]
	return k, nil
}
