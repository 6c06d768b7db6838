package fsroot

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

// watchingSystem reports whether this system uses file events (see [ErrWatchUnsupported]).
var watchingSystem = runtime.GOOS == "linux" || runtime.GOOS == "windows"

// startWatch starts watching r with skip, and returns the Watcher and a function that waits for
// the paths wanted to be reported (a while at most), returning every path reported meanwhile. On
// a system without file events it checks that Watch says so, and skips.
func startWatch(t *testing.T, r *Root, skip func(string) bool) (*Watcher, func(want ...string) []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := r.Watch(ctx, skip)
	if !watchingSystem {
		if !errors.Is(err, ErrWatchUnsupported) {
			t.Fatalf("Watch on %s = %v, want ErrWatchUnsupported", runtime.GOOS, err)
		}
		t.Skipf("file events are not used on %s", runtime.GOOS)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	// Changes seen arrive within watchMost of each other; wait for those wanted, a while at most.
	await := func(want ...string) []string {
		t.Helper()
		var got []string
		limit := time.After(10 * time.Second)
		for {
			select {
			case b := <-w.Changes():
				got = append(got, b...)
				if !slices.ContainsFunc(want, func(p string) bool { return !slices.Contains(got, p) }) {
					return got
				}
			case <-limit:
				t.Fatalf("changes %v, want %v among them", got, want)
				return nil
			}
		}
	}
	return w, await
}

// writeHost writes p as another program would, making its folders.
func writeHost(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wineOldFolders says why a case skips under Wine: Wine 8's recursive watch reports changes in
// the watched folder and in folders created since the watch began, never in folders that were
// there before it (it does not walk them to watch them). Windows watches them all.
const wineOldFolders = "Wine 8's recursive watch misses folders that existed before it began: this case needs a Windows machine"

// TestWatch checks that a Watcher reports, as root-relative paths, the files other programs
// write, in folders it watched from the start and in folders created since, and nothing from a
// folder skip refuses (there from the start, or created since), nor (on Linux) from outside the
// root through a link.
func TestWatch(t *testing.T) {
	base, r := newTree(t, Options{}, "notes/a.md=a", "blocked/")
	if runtime.GOOS == "linux" {
		testfs.Tree(t, filepath.Join(base, "root"), base, "out => {base}/outside")
	}
	w, await := startWatch(t, r, func(dir string) bool { return path.Base(dir) == "blocked" })
	// Linux watches the root and notes (not blocked, not the link); Windows one tree.
	if want := map[string]int{"linux": 2, "windows": 1}[runtime.GOOS]; w.Folders() != want {
		t.Errorf("watching %d folders, want %d", w.Folders(), want)
	}
	root := filepath.Join(base, "root")
	writeHost(t, filepath.Join(root, "blocked", "x.md"), "x")
	writeHost(t, filepath.Join(root, "blocked", "deeper", "z.md"), "z")
	writeHost(t, filepath.Join(base, "outside", "y.md"), "y")
	got := []string{}
	if testfs.UnderWine {
		t.Log("notes/b.md not checked: " + wineOldFolders)
	} else {
		writeHost(t, filepath.Join(root, "notes", "b.md"), "b")
		got = append(got, await("notes/b.md")...)
	}
	if err := os.Mkdir(filepath.Join(root, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	got = append(got, await("new")...)
	if err := os.Mkdir(filepath.Join(root, "new", "blocked"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeHost(t, filepath.Join(root, "new", "blocked", "x.md"), "x")
	writeHost(t, filepath.Join(root, "new", "c.md"), "c")
	got = append(got, await("new/c.md")...)
	// A folder under watch is renamed all the same: the watch keeps no one from it.
	if err := os.Rename(filepath.Join(root, "new"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	got = append(got, await("new", "moved")...)
	writeHost(t, filepath.Join(root, "top.md"), "t") // after the rest: what they report came before
	got = append(got, await("top.md")...)
	for _, p := range got {
		if strings.HasPrefix(p, "blocked/") || strings.Contains(p, "/blocked/") || path.Base(p) == "y.md" {
			t.Errorf("reported %q, from a refused folder or outside the root", p)
		}
	}
}

// TestWatchChanges checks that a Watcher reports a file changed in place, a file removed, and
// both names of a file renamed, in the root's folder and in a folder below it.
func TestWatchChanges(t *testing.T) {
	for _, dir := range []string{".", "notes"} {
		t.Run(dir, func(t *testing.T) {
			if testfs.UnderWine && dir != "." {
				t.Skip(wineOldFolders)
			}
			base, r := newTree(t, Options{}, "notes/", "a.md=a", "gone.md=g", "old.md=o",
				"notes/a.md=a", "notes/gone.md=g", "notes/old.md=o")
			_, await := startWatch(t, r, nil)
			host := func(name string) string { return filepath.Join(base, "root", dir, name) }
			rel := func(name string) string { return path.Join(dir, name) }
			writeHost(t, host("a.md"), "changed")
			await(rel("a.md"))
			if err := os.Remove(host("gone.md")); err != nil {
				t.Fatal(err)
			}
			await(rel("gone.md"))
			if err := os.Rename(host("old.md"), host("renamed.md")); err != nil {
				t.Fatal(err)
			}
			await(rel("old.md"), rel("renamed.md"))
		})
	}
}

// TestWatchClose checks that Close ends Changes, and may be called again, and that the end of
// the context ends them too.
func TestWatchClose(t *testing.T) {
	_, r := newTree(t, Options{}, "a.md")
	w, _ := startWatch(t, r, nil)
	if err := w.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	awaitEnd(t, w)
	if err := w.Close(); err != nil {
		t.Errorf("Close again = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	w, err := r.Watch(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	awaitEnd(t, w)
	if err := w.Close(); err != nil {
		t.Errorf("Close after the context ended = %v", err)
	}
	if w, err := r.Watch(ctx, nil); err == nil {
		w.Close()
		t.Error("Watch with a context already ended succeeded")
	}
}

// awaitEnd waits for w's Changes to be closed, a while at most.
func awaitEnd(t *testing.T, w *Watcher) {
	t.Helper()
	limit := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-w.Changes():
			if !ok {
				return
			}
		case <-limit:
			t.Fatal("Changes still open")
		}
	}
}

// TestWatchEndsAfterAll checks that when the system's watch ends by itself (on Windows, a read
// that failed), the [All] it sent last still goes out before Changes closes, and the batching
// never holds a path twice.
func TestWatchEndsAfterAll(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &Watcher{batch: make(chan []string), cancel: cancel, ended: make(chan struct{})}
	paths := make(chan string)
	go w.run(ctx, paths)
	go func() {
		for _, p := range []string{"a.md", "a.md", All} {
			paths <- p
		}
		close(paths)
	}()
	var got []string
	for b := range w.Changes() {
		got = append(got, b...)
	}
	slices.Sort(got)
	if want := []string{All, "a.md"}; !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
	<-w.ended
}

// TestNotifyPaths checks the reading of ReadDirectoryChangesW's records, on every system: names
// with backslashes become slash paths, and a component that cannot stand as spelled is reported
// as its folder.
func TestNotifyPaths(t *testing.T) {
	keep := func(elem string) bool { return !strings.Contains(elem, "~") }
	names := [][]uint16{
		utf16Of(`notes\a.md`),
		utf16Of(`été\ü.md`),
		utf16Of(`emoji\😀.md`),
		append(utf16Of(`bad\`), 0xD800, 'x'), // an unpaired surrogate
		append(utf16Of(`end\`), 0xDC00),
		utf16Of(`a\..\b`),
		utf16Of(`a\b/c`),
		utf16Of(`a\\b`),
		utf16Of(`PROGRA~1\x.md`),
		utf16Of(`x\NOTES~1.MD`),
		utf16Of(`nul` + "\x00"),
		utf16Of(`.`),
	}
	want := []string{"notes/a.md", "été/ü.md", "emoji/😀.md", "bad", "end", "a", "a", "a", ".", "x", ".", "."}
	got, ok := notifyPaths(notifyRecords(names...), keep)
	if !ok || !slices.Equal(got, want) {
		t.Errorf("notifyPaths = %q, %v, want %q, true", got, ok, want)
	}
	whole := notifyRecords(utf16Of(`a.md`))
	for _, buf := range [][]byte{nil, whole[:5], whole[:len(whole)-2]} {
		if _, ok := notifyPaths(buf, keep); ok {
			t.Errorf("notifyPaths(% x) ok, want malformed", buf)
		}
	}
	past := notifyRecords(utf16Of(`a.md`), utf16Of(`b.md`))
	past[0] = 0xff // the first record's next offset past the end
	if got, ok := notifyPaths(past, keep); ok || !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("notifyPaths with an offset past the end = %q, %v, want [a.md], false", got, ok)
	}
}

// utf16Of is s in UTF-16, unit by unit.
func utf16Of(s string) []uint16 {
	var u []uint16
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			u = append(u, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			u = append(u, uint16(r))
		}
	}
	return u
}

// notifyRecords lays out names as ReadDirectoryChangesW does: one FILE_NOTIFY_INFORMATION each,
// DWORD-aligned, the last with a next offset of 0.
func notifyRecords(names ...[]uint16) []byte {
	var buf []byte
	for i, n := range names {
		size := notifyHeader + 2*len(n)
		size += (4 - size%4) % 4
		next := size
		if i == len(names)-1 {
			next = 0
		}
		rec := make([]byte, size)
		putUint32(rec, uint32(next))
		putUint32(rec[4:], 1) // FILE_ACTION_ADDED
		putUint32(rec[8:], uint32(2*len(n)))
		for j, c := range n {
			rec[notifyHeader+2*j], rec[notifyHeader+2*j+1] = byte(c), byte(c>>8)
		}
		buf = append(buf, rec...)
	}
	return buf
}

// putUint32 writes v little-endian at b.
func putUint32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
