package fsroot

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

// TestLookup checks what a lookup reports for names that end in every way a walk can: a file, a
// directory, the root, through links (relative, chained, ending in ".." or a trailing "/"), and
// missing entries, dangling or not.
func TestLookup(t *testing.T) {
	entries := []string{
		"d/", "d/f.md=in d", "d/e/", "f=top",
		"ld => d",
		"d/loop => ..",
		"d/up => ../f",
		"dl => missing.md",
		"lslash => d/",
		"lf => ld/f.md",
	}
	tests := []struct {
		name     string
		path     string
		exists   bool
		dangling bool
		typ      FileType
	}{
		{name: ".", path: ".", exists: true, typ: TypeDir},
		{name: "f", path: "f", exists: true, typ: TypeFile},
		{name: "d", path: "d", exists: true, typ: TypeDir},
		{name: "d/e", path: "d/e", exists: true, typ: TypeDir},
		{name: "ld/f.md", path: "d/f.md", exists: true, typ: TypeFile},
		{name: "lf", path: "d/f.md", exists: true, typ: TypeFile},
		{name: "d/loop", path: ".", exists: true, typ: TypeDir},
		{name: "d/loop/d/loop/f", path: "f", exists: true, typ: TypeFile},
		{name: "d/up", path: "f", exists: true, typ: TypeFile},
		{name: "lslash", path: "d", exists: true, typ: TypeDir},
		{name: "ld/e", path: "d/e", exists: true, typ: TypeDir},
		{name: "nope", path: "nope"},
		{name: "nope/deeper/x", path: "nope/deeper/x"},
		{name: "ld/nope/x", path: "d/nope/x"},
		{name: "dl", path: "missing.md", dangling: true},
	}
	_, r := newTree(t, Options{}, entries...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := r.Lookup(tt.name)
			if err != nil {
				t.Fatalf("Lookup(%q): %v", tt.name, err)
			}
			defer e.Close()
			info, err := e.Info()
			if exists := err == nil; e.Path() != tt.path || exists != tt.exists || e.dangling != tt.dangling || info.Type != tt.typ {
				t.Errorf("Lookup(%q) = path %q, exists %v, dangling %v, type %q; want %q, %v, %v, %q",
					tt.name, e.Path(), exists, e.dangling, info.Type, tt.path, tt.exists, tt.dangling, tt.typ)
			}
			if !tt.exists && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Info() error = %v, want fs.ErrNotExist", err)
			}
			if tt.exists && info.Path != tt.name {
				t.Errorf("Info().Path = %q, want the name looked up, %q", info.Path, tt.name)
			}
			if got, err := r.Resolve(tt.name); err != nil || got != tt.path {
				t.Errorf("Resolve(%q) = %q, %v; want Lookup's path %q", tt.name, got, err, tt.path)
			}
		})
	}
}

// TestLookupDeep resolves names through a tree deeper than the handles a lookup holds
// (heldDirs), with links whose ".." climb back past the window, so levels closed to save
// descriptors are reopened, and checks both the answers and that no descriptor is left open.
func TestLookupDeep(t *testing.T) {
	const depth = 3*heldDirs + 5
	_, r := newTree(t, Options{}, "target.md=found")
	base := filepath.Join(r.ResolvedDir())
	dir := base
	var deep []string
	for i := range depth {
		deep = append(deep, "n"+strings.Repeat("x", i%3))
		dir = filepath.Join(dir, deep[i])
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// up climbs every level to the root; mid climbs 2*heldDirs+1 levels, below two
	// checkpoints, then comes down again to the deepest directory's parent.
	if err := testfs.Symlink(t, strings.Repeat("../", depth)+"target.md", filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	down := strings.Join(deep[depth-2*heldDirs-1:depth-1], "/")
	if err := testfs.Symlink(t, strings.Repeat("../", 2*heldDirs+1)+down, filepath.Join(dir, "mid")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "..", "here.md"), []byte("here"), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := strings.Join(deep, "/")
	tests := []struct{ name, path, content string }{
		{prefix + "/up", "target.md", "found"},
		{prefix + "/mid/here.md", strings.Join(deep[:depth-1], "/") + "/here.md", "here"},
	}
	before := openFDs(t)
	for _, tt := range tests {
		e, err := r.Lookup(tt.name)
		if err != nil {
			t.Fatalf("Lookup: %v", err)
		}
		if e.Path() != tt.path {
			t.Errorf("Path = %q, want %q", e.Path(), tt.path)
		}
		if held := openFDs(t) - before; held > 1 {
			t.Errorf("an Entry holds %d descriptors, want at most 1 (its directory's)", held)
		}
		data, _, err := e.ReadFile(context.Background(), 0)
		if err != nil || string(data) != tt.content {
			t.Errorf("ReadFile = %q, %v; want %q", data, err, tt.content)
		}
		e.Close()
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open after the lookups, %d before", after, before)
	}
}

// TestLookupErrorsCloseHandles runs every attack of the shared table through Lookup and checks
// that failed lookups and closed entries leave no descriptor open.
func TestLookupErrorsCloseHandles(t *testing.T) {
	base, r := newTree(t, Options{}, attackTree...)
	before := openFDs(t)
	for _, a := range attacks {
		e, err := r.Lookup(strings.ReplaceAll(a.name, "{base}", base))
		if err == nil {
			e.ReadFile(context.Background(), 0)
			e.Close()
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open after the lookups, %d before", after, before)
	}
}

// TestEntryAfterChange changes the tree between a lookup and the read, as a racing process could:
// the read opens the file in the directory the lookup held, never following a link swapped in
// since, so a directory replaced by a link to outside does not lead outside, and a file replaced
// by a link is refused rather than followed.
func TestEntryAfterChange(t *testing.T) {
	tests := []struct {
		name    string
		lookup  string
		change  func(t *testing.T, root, base string) error
		want    string
		wantErr error
	}{
		{"directory swapped for a link to outside", "d/f.md", func(t *testing.T, root, base string) error {
			if err := os.Rename(filepath.Join(root, "d"), filepath.Join(root, "gone")); err != nil {
				return err
			}
			return testfs.Symlink(t, filepath.Join(base, "outside"), filepath.Join(root, "d"))
		}, "inside", nil},
		{"file swapped for a link inside", "d/f.md", func(t *testing.T, root, _ string) error {
			if err := os.Remove(filepath.Join(root, "d", "f.md")); err != nil {
				return err
			}
			return testfs.Symlink(t, "g.md", filepath.Join(root, "d", "f.md"))
		}, "", ErrNotRegular},
		{"file replaced by another file", "d/f.md", func(t *testing.T, root, _ string) error {
			return os.Rename(filepath.Join(root, "d", "g.md"), filepath.Join(root, "d", "f.md"))
		}, "other", nil},
		{"file removed", "d/f.md", func(t *testing.T, root, _ string) error {
			return os.Remove(filepath.Join(root, "d", "f.md"))
		}, "", fs.ErrNotExist},
		{"file replaced by a directory", "d/f.md", func(t *testing.T, root, _ string) error {
			if err := os.Remove(filepath.Join(root, "d", "f.md")); err != nil {
				return err
			}
			return os.Mkdir(filepath.Join(root, "d", "f.md"), 0o755)
		}, "", ErrIsDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, "d/", "d/f.md=inside", "d/g.md=other")
			e, err := r.Lookup(tt.lookup)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := tt.change(t, filepath.Join(base, "root"), base); err != nil {
				t.Fatal(err)
			}
			data, _, err := e.ReadFile(context.Background(), 0)
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("ReadFile error = %v, want %v", err, tt.wantErr)
			case tt.wantErr == nil && (err != nil || string(data) != tt.want):
				t.Errorf("ReadFile = %q, %v; want %q", data, err, tt.want)
			}
			if bytes.Contains(data, []byte(marker)) {
				t.Errorf("read outside data: %q", data)
			}
		})
	}
}

// TestEntryClosed checks that an Entry reads nothing once closed, even a file of the same name
// in the root, where a closed Entry's empty directory stack would otherwise lead.
func TestEntryClosed(t *testing.T) {
	_, r := newTree(t, Options{}, "d/", "d/f.md=in d", "f.md=at the root")
	e, err := r.Lookup("d/f.md")
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	if data, _, err := e.ReadFile(context.Background(), 0); !errors.Is(err, os.ErrClosed) {
		t.Errorf("ReadFile after Close = %q, %v; want os.ErrClosed", data, err)
	}
}

// TestScan checks that Scan hands over the whole file in pieces, bounded by the limit whatever the
// reported size, and stops on fn's error and on a cancelled context.
func TestScan(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 3*readChunk/16+5) // several pieces
	_, r := newTree(t, Options{}, "big="+big, "small=abc", "empty=")
	stop := errors.New("stop")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		file    string
		ctx     context.Context
		limit   int64
		fnErr   error
		want    string
		wantErr error
	}{
		{name: "several pieces", file: "big", want: big},
		{name: "one piece", file: "small", want: "abc"},
		{name: "empty", file: "empty", want: ""},
		{name: "exactly the limit", file: "small", limit: 3, want: "abc"},
		{name: "over the limit", file: "small", limit: 2, wantErr: ErrTooLarge},
		{name: "fn fails", file: "big", fnErr: stop, wantErr: stop},
		{name: "cancelled", file: "big", ctx: cancelled, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := r.Lookup(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			var got []byte
			pieces := 0
			info, err := e.Scan(ctx, tt.limit, func(p []byte) error {
				if len(p) == 0 || len(p) > readChunk {
					t.Errorf("piece of %d bytes", len(p))
				}
				pieces++
				got = append(got, p...)
				return tt.fnErr
			})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want || info.Size != int64(len(tt.want)) {
				t.Errorf("Scan = %d bytes in %d pieces, size %d, %v; want %d bytes", len(got), pieces, info.Size, err, len(tt.want))
			}
		})
	}
}

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(fds)
}

// TestRootClosed checks that a lookup on a closed Root fails with os.ErrClosed, which callers map
// to a stable code, rather than with the poller's own "use of closed file".
func TestRootClosed(t *testing.T) {
	_, r := newTree(t, Options{}, "f.md=x")
	r.Close()
	if _, err := r.Lookup("f.md"); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Lookup after Close = %v, want os.ErrClosed", err)
	}
}

// TestEntryWritesWhatWasJudged checks the writes of an Entry: each acts in the directory the
// lookup held, so a directory renamed and replaced by a link to outside after the lookup (what a
// caller judged by [Entry.Path] is then no longer what the name leads to) takes the write where
// the lookup found it, and outside stays as it was.
func TestEntryWritesWhatWasJudged(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		lookup string
		write  func(e *Entry) error
		want   string // content of gone/<base of lookup> afterwards
	}{
		{"write", "d/f.md", func(e *Entry) error { _, err := e.WriteFileIf(ctx, []byte("new"), "", 0); return err }, "new"},
		{"write if", "d/f.md", func(e *Entry) error {
			_, err := e.WriteFileIf(ctx, []byte("new"), Version([]byte("inside")), 0)
			return err
		}, "new"},
		{"append", "d/f.md", func(e *Entry) error { _, err := e.AppendFileIf(ctx, []byte("+more"), "", 0); return err }, "inside+more"},
		{"create", "d/new.md", func(e *Entry) error { return e.CreateFile(ctx, []byte("made"), 0) }, "made"},
		{"write a new file", "d/secret.txt", func(e *Entry) error { _, err := e.WriteFileIf(ctx, []byte("new"), "", 0); return err }, "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, "d/", "d/f.md=inside")
			root := filepath.Join(base, "root")
			before := snapshot(t, base)
			e, err := r.Lookup(tt.lookup)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := os.Rename(filepath.Join(root, "d"), filepath.Join(root, "gone")); err != nil {
				t.Fatal(err)
			}
			if err := testfs.Symlink(t, filepath.Join(base, "outside"), filepath.Join(root, "d")); err != nil {
				t.Fatal(err)
			}
			if err := tt.write(e); err != nil {
				t.Fatalf("write through the entry: %v", err)
			}
			got, err := os.ReadFile(filepath.Join(root, "gone", path.Base(tt.lookup)))
			if err != nil || string(got) != tt.want {
				t.Errorf("gone/%s = %q, %v; want %q", path.Base(tt.lookup), got, err, tt.want)
			}
			if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
				t.Errorf("outside changed (-before +after):\n%s", diff)
			}
		})
	}
}
