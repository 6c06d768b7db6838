package fsroot

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A Watcher reports the paths below a root that change, from the system's file events, so that
// an index can follow other programs' changes without walking the tree. What it reports are
// hints: root-relative paths to look at again through the root, never names to open as given.
// It watches the folders a rooted walk reaches (no symbolic link is followed) and those created
// since, except the ones skip refuses.
type Watcher struct {
	r      *Root
	base   string // the root's folder, cleaned: what event names start with
	w      *fsnotify.Watcher
	skip   func(dir string) bool
	batch  chan []string
	dirs   int // folders watched, counted by the goroutine that adds them
	start  int // folders watched when the Watcher started
	closed chan struct{}
}

// Errors of [Root.Watch].
var (
	// ErrWatchUnsupported says the system's file events are not used here: on macOS they would
	// hold a descriptor open for every file (kqueue), and on Windows they are not yet checked.
	ErrWatchUnsupported = errors.New("file events are not used on this system")
	// ErrWatchLimit says the system allows fewer watched folders than the tree has (on Linux,
	// fs.inotify.max_user_watches).
	ErrWatchLimit = errors.New("the tree has more folders than the system lets one program watch")
)

// All is the path a [Watcher] batch holds when events were lost (the system's queue overflowed):
// anything in the root may have changed.
const All = "."

// watchQuiet and watchMost bound how a Watcher batches events: a batch goes out once no event has
// come for quiet, or most after its first event.
const (
	watchQuiet = 200 * time.Millisecond
	watchMost  = 2 * time.Second
)

// Watch starts watching every folder below the root that skip does not refuse (skip gets
// root-relative slash paths; nil refuses none). Batches of changed paths, each path once, come on
// [Watcher.Changes] until ctx ends or Close is called. It returns [ErrWatchUnsupported] or
// [ErrWatchLimit] when events cannot stand in for walks; then nothing is watched.
func (r *Root) Watch(ctx context.Context, skip func(dir string) bool) (*Watcher, error) {
	if runtime.GOOS != "linux" {
		return nil, ErrWatchUnsupported
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, limitErr(err)
	}
	if skip == nil {
		skip = func(string) bool { return false }
	}
	w := &Watcher{r: r, base: filepath.Clean(r.dir), w: fw, skip: skip, batch: make(chan []string), closed: make(chan struct{})}
	if err := w.addTree(ctx, "."); err != nil {
		fw.Close()
		return nil, err
	}
	w.start = w.dirs
	go w.run(ctx)
	return w, nil
}

// Changes gives the batches of changed root-relative paths; a batch holding [All] means events
// were lost. It is closed when the Watcher ends.
func (w *Watcher) Changes() <-chan []string { return w.batch }

// Folders returns how many folders the Watcher watched when it started.
func (w *Watcher) Folders() int { return w.start }

// Close stops watching.
func (w *Watcher) Close() error {
	select {
	case <-w.closed:
	default:
		close(w.closed)
	}
	return w.w.Close()
}

// addTree watches the folder dir and every folder below it that skip does not refuse.
func (w *Watcher) addTree(ctx context.Context, dir string) error {
	if err := w.add(dir); err != nil {
		return err
	}
	return w.r.Walk(ctx, dir, 0, func(info Info, err error) error {
		if err != nil || info.Type != TypeDir {
			return nil
		}
		if w.skip(info.Path) {
			return fs.SkipDir
		}
		return w.add(info.Path)
	})
}

// add watches the folder dir.
func (w *Watcher) add(dir string) error {
	if err := w.w.Add(filepath.Join(w.base, filepath.FromSlash(dir))); err != nil {
		return limitErr(err)
	}
	w.dirs++
	return nil
}

// limitErr is err, or [ErrWatchLimit] when it says the system's limit of watches or descriptors
// was reached.
func limitErr(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
		return ErrWatchLimit
	}
	return err
}

// run turns events into batches until ctx ends or the Watcher closes.
func (w *Watcher) run(ctx context.Context) {
	defer close(w.batch)
	defer w.w.Close()
	pending := map[string]bool{}
	var quiet, most <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.closed:
			return
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			p, ok := w.rel(ev.Name)
			if !ok {
				continue
			}
			if ev.Has(fsnotify.Create) {
				w.follow(ctx, p)
			}
			if len(pending) == 0 {
				most = time.After(watchMost)
			}
			pending[p] = true
			quiet = time.After(watchQuiet)
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				pending[All] = true
				quiet = time.After(0)
			}
		case <-quiet:
			w.send(ctx, pending)
			pending, quiet, most = map[string]bool{}, nil, nil
		case <-most:
			w.send(ctx, pending)
			pending, quiet, most = map[string]bool{}, nil, nil
		}
	}
}

// follow watches p, just created, when it is a folder the walk would have watched, with the
// folders already inside it.
func (w *Watcher) follow(ctx context.Context, p string) {
	if p == All || w.skip(p) {
		return
	}
	if info, err := w.r.Lstat(p); err == nil && info.Type == TypeDir {
		_ = w.addTree(ctx, p) // past the limit, the folder goes unwatched: the periodic walk finds it
	}
}

// send hands a batch on, unless the Watcher ends first.
func (w *Watcher) send(ctx context.Context, pending map[string]bool) {
	if len(pending) == 0 {
		return
	}
	b := make([]string, 0, len(pending))
	for p := range pending {
		b = append(b, p)
	}
	select {
	case w.batch <- b:
	case <-ctx.Done():
	case <-w.closed:
	}
}

// rel returns the root-relative slash path of an event's host path, and false for one outside the
// root or not a valid path.
func (w *Watcher) rel(name string) (string, bool) {
	if name == w.base {
		return All, true
	}
	p, ok := strings.CutPrefix(name, w.base+string(filepath.Separator))
	if !ok {
		return "", false
	}
	p = filepath.ToSlash(p)
	return p, fs.ValidPath(p)
}
