package fsroot

import (
	"context"
	"errors"
	"time"
)

// This file holds what every system shares of [Root.Watch]: the Watcher, its errors and the
// batching of changed paths. Each system gives, in a file of its own, the type sysWatch with
// watchSystem (start watching, or say why not), folders and feed (send root-relative paths until
// the context ends, then release the watch): fsnotify, one inotify watch per folder, on Linux
// (watch_linux.go); one ReadDirectoryChangesW over the whole tree on Windows
// (watch_windows.go); none elsewhere (watch_other.go).

// A Watcher reports the paths below a root that change, from the system's file events, so that
// an index can follow other programs' changes without walking the tree. What it reports are
// hints: root-relative paths to look at again through the root, never names to open as given.
// On Linux it watches the folders a rooted walk reaches (no symbolic link is followed) and those
// created since, except the ones skip refuses; on Windows one watch covers the root's folder
// and every folder below it (a junction or link is not entered), and what skip refuses is
// dropped from what it reports.
type Watcher struct {
	batch  chan []string
	start  int
	cancel context.CancelFunc
	ended  chan struct{} // closed once the Watcher's goroutines are done
	err    error         // what ended the system's watch, written before ended is closed
}

// Errors of [Root.Watch].
var (
	// ErrWatchUnsupported says the system's file events are not used here. They are used on
	// Linux (inotify) and Windows (ReadDirectoryChangesW). macOS's kqueue would hold a
	// descriptor open for every file, and its FSEvents needs CoreServices through cgo, which
	// fsroot does not build with and no machine here can test; the BSDs have only kqueue.
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
// [ErrWatchLimit] when events cannot stand in for walks, and ctx's error when it has ended; then
// nothing is watched.
func (r *Root) Watch(ctx context.Context, skip func(dir string) bool) (*Watcher, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if skip == nil {
		skip = func(string) bool { return false }
	}
	ctx, cancel := context.WithCancel(ctx)
	sys, err := r.watchSystem(ctx, skip)
	if err != nil {
		cancel()
		return nil, err
	}
	w := &Watcher{batch: make(chan []string), start: sys.folders(), cancel: cancel, ended: make(chan struct{})}
	paths := make(chan string)
	go func() {
		w.err = sys.feed(ctx, paths)
		close(paths)
	}()
	go w.run(ctx, paths)
	return w, nil
}

// Changes gives the batches of changed root-relative paths; a batch holding [All] means events
// were lost. It is closed when the Watcher ends: when ctx ends or Close is called, or, on
// Windows, when a read of the changes fails (the root's folder removed, a network share gone),
// after a batch holding [All]; Close then says why.
func (w *Watcher) Changes() <-chan []string { return w.batch }

// Folders returns how many folders the Watcher watched when it started: on Linux each folder
// has a watch of its own; on Windows one watch covers the tree, and Folders is 1.
func (w *Watcher) Folders() int { return w.start }

// Close stops watching and waits until the system's watch is released, so that no goroutine or
// handle of the Watcher outlives it. It returns the error that ended the watch early or that
// releasing it gave, if any; calling it again returns the same.
func (w *Watcher) Close() error {
	w.cancel()
	<-w.ended
	return w.err
}

// run turns the paths the system's watch sends into batches until it stops sending (once ctx
// ends, or when the watch failed: then what it sent last, [All], still goes out).
func (w *Watcher) run(ctx context.Context, paths <-chan string) {
	defer close(w.ended)
	defer close(w.batch)
	pending := map[string]bool{}
	var quiet, most <-chan time.Time
	for {
		select {
		case p, ok := <-paths:
			if !ok {
				w.send(ctx, pending)
				return
			}
			if len(pending) == 0 {
				most = time.After(watchMost)
			}
			pending[p] = true
			quiet = time.After(watchQuiet)
			if p == All { // a walk is due: no use waiting for more
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

// send hands a batch on, unless the Watcher ends first.
func (w *Watcher) send(ctx context.Context, pending map[string]bool) {
	if len(pending) == 0 || ctx.Err() != nil {
		return
	}
	b := make([]string, 0, len(pending))
	for p := range pending {
		b = append(b, p)
	}
	select {
	case w.batch <- b:
	case <-ctx.Done():
	}
}

// emit hands the changed path p to the Watcher's batching, and reports false once ctx has ended
// (then the system's watch stops).
func emit(ctx context.Context, out chan<- string, p string) bool {
	select {
	case out <- p:
		return true
	case <-ctx.Done():
		return false
	}
}
