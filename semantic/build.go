package semantic

import (
	"cmp"
	"context"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// pendingFiles are the files a build reads, in order; those from index base on are not yet indexed
// while [Engine.Status] says Done is below base+len(files).
type pendingFiles struct {
	files []string
	base  int64
}

// walkedFiles are the files a walk under way has found so far that the index does not hold.
type walkedFiles struct {
	mu    sync.Mutex
	paths []string
	done  bool
}

func (w *walkedFiles) add(p string) {
	w.mu.Lock()
	w.paths = append(w.paths, p)
	w.mu.Unlock()
}

func (w *walkedFiles) finish() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}

// from returns the files found after the first i, and whether the walk is over.
func (w *walkedFiles) from(i int) ([]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.paths[min(i, len(w.paths)):], w.done
}

// file is one indexable file found by a walk.
type file struct {
	path  string
	stamp fulltext.Stamp
}

// walk lists the files the policy allows, without following symbolic links or reading special files.
// When count is set, [Engine.Status] counts the files as they are found, and searches are told of
// those the index does not hold (see eachUnindexed).
func (e *Engine) walk(ctx context.Context, dir string, count bool) ([]file, error) {
	var files []file
	var unheld *walkedFiles
	ix := e.index()
	if dir == "." && ix != nil {
		if n, err := ix.Count(); err == nil {
			files = make([]file, 0, n+n/16) // grown one doubling at a time, it was much of a walk's garbage
		}
	}
	if count && ix != nil {
		unheld = &walkedFiles{}
		e.unheld.Store(unheld)
		defer unheld.finish()
	}
	err := fs.WalkDir(e.opts.FS, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable folder is left out, as the tools could not read it either
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if ok, err := e.admit(p, d); !ok {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if info.Size() > e.opts.MaxFileBytes {
			e.mark(p, true)
			return nil
		}
		files = append(files, file{p, fulltext.Stamp{Size: info.Size(), ModTime: info.ModTime()}})
		if count {
			e.total.Add(1)
		}
		if unheld != nil && !ix.Holds(p) {
			unheld.add(p)
		}
		return nil
	})
	return files, err
}

// Build walks the root, brings the index in step with the files (reading only the files whose size
// or modification time changed since the index was written) and builds the graph. Searches work
// while it runs, over what is indexed so far, and say so through [Engine.Status].
func (e *Engine) Build(ctx context.Context) error {
	e.buildMu.Lock()
	defer e.buildMu.Unlock()
	e.complete.Store(false)
	e.done.Store(0)
	e.total.Store(0)
	e.reused.Store(0)
	e.hardLinks.Store(0)
	e.unreadable.Store(0)
	e.notText.Store(0)
	e.setPhase(PhaseOpening)
	defer e.pending.Store(nil)
	defer e.unheld.Store(nil)
	if e.index() == nil {
		if err := e.open(); err != nil {
			return err
		}
	}
	e.setPhase(PhaseCounting)
	// The walk waits on the file system and the graph's load on the CPU, so they run side by side.
	type walked struct {
		files []file
		err   error
	}
	wc := make(chan walked, 1)
	go func() {
		files, err := e.walk(ctx, ".", true) // counts them into e.total
		wc <- walked{files, err}
	}()
	// The graph of the documents the index holds comes back from their stored outlines, so a
	// restart reads only the files that changed.
	ix := e.index()
	err := ix.Outlines(func(d markdown.Doc) {
		// The decoded path shares the whole stored outline's bytes, which the graph's keys
		// and sets would keep alive for as long as the document is held.
		d.Path = strings.Clone(d.Path)
		if st, ok := ix.Stamp(d.Path); ok && st.Equal(fulltext.Stamp{Size: d.Size, ModTime: d.ModTime}) {
			e.graph.Put(d)
			e.mark(d.Path, d.Frontmatter)
		}
	})
	if err == nil {
		e.loadOnce.Do(func() { close(e.graphLoaded) })
	}
	w := <-wc
	if err = cmp.Or(w.err, err); err != nil {
		return err
	}
	e.setPhase(PhaseChecking)
	files := w.files
	// A file is unchanged when the index holds it at the stamp it has now and its outline came
	// back into the graph; every other one is read again.
	var todo []string  // files to read, in walk order
	work := []int64{0} // work[i]: the work of todo[:i]
	held := 0          // files found that the index holds
	for _, f := range files {
		st, ok := ix.Stamp(f.path)
		if ok {
			held++
			if st.Equal(f.stamp) && e.graph.Has(f.path) {
				continue
			}
		}
		todo = append(todo, f.path)
		work = append(work, work[len(work)-1]+fileWork(f.stamp.Size))
	}
	gone := e.gone(ctx, files, held)
	base := int64(len(files) - len(todo))
	files = nil
	e.done.Store(base)
	e.reused.Store(base)
	e.pending.Store(&pendingFiles{files: todo, base: base})
	e.unheld.Store(nil) // pending lists its files and the changed ones: a cold build's whole tree
	e.work.Store(work[len(work)-1])
	e.worked.Store(0)
	e.readFrom.Store(time.Now().UnixNano())
	e.setPhase(PhaseIndexing)
	if err := e.readAndPut(ctx, todo, func(n int) {
		e.worked.Store(work[n])
		e.done.Store(base + int64(n))
		if e.opts.Progress != nil {
			e.opts.Progress(e.Status())
		}
	}, func(p string) {
		if ix.Holds(p) { // what it held of the file is out of date
			gone = append(gone, p)
		}
	}); err != nil {
		return err
	}
	if err := e.drop(gone...); err != nil {
		return err
	}
	e.complete.Store(true)
	if ts, ok := e.store.(textStore); ok {
		ts.prune(ctx, e.under("."))
	}
	if e.opts.Progress != nil {
		e.opts.Progress(e.Status())
	}
	// Read the list of indexed words now, so the first search_content after the build does not
	// wait for it.
	return e.index().LoadWords()
}

// fileWork is what reading and indexing a file of size bytes costs, in bytes of text: its bytes
// and perFileWork for opening, parsing and storing it. The two are weighed by two cold builds,
// one of a tree of small pages and one of large sources, so that [Progress.Left] holds for either
// kind of tree (dev/bench/README.md, Other timings).
func fileWork(size int64) int64 { return size + perFileWork }

// perFileWork is the work of a file besides its bytes (see fileWork).
const perFileWork = 700

// readAndPut reads and parses names, puts each document in the graph and indexes them in batches
// of at most buildBatch files and about maxBatchBytes of text. Files are parsed by one worker per
// CPU, and each batch is indexed while the next one is parsed, so reading, parsing and bleve's
// analysis keep every core busy. progress gets the count of names handled after each batch, and
// unread each name that could not be read as text (gone, unreadable, not text).
//
// The build's memory is that of two batches (one parsed, one being analysed) and what bleve keeps
// of them, so a batch is bounded by the bytes it holds and not only by its files: as many files
// of the Linux tree's C sources hold many times the text of tldr pages (dev/bench/README.md, Other
// timings).
func (e *Engine) readAndPut(ctx context.Context, names []string, progress func(int), unread func(string)) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), maxParseWorkers))
	var pending chan error // the batch being indexed, if any
	wait := func() error {
		if pending == nil {
			return nil
		}
		err := <-pending
		pending = nil
		return err
	}
	docs := make([]markdown.Doc, buildBatch)
	ok := make([]bool, buildBatch)
	for start := 0; start < len(names); {
		if err := ctx.Err(); err != nil {
			wait()
			return err
		}
		chunk := names[start:min(start+buildBatch, len(names))]
		// Workers claim files in order and stop claiming once the batch holds maxBatchBytes, so
		// the files claimed are a prefix of chunk.
		var next atomic.Int64
		var held atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for held.Load() < maxBatchBytes {
					i := int(next.Add(1) - 1)
					if i >= len(chunk) {
						return
					}
					var err error
					docs[i], err = e.read(chunk[i])
					ok[i] = err == nil
					e.countSkipped(err)
					held.Add(docs[i].Size)
				}
			}()
		}
		wg.Wait()
		n := min(int(next.Load()), len(chunk))
		batch := make([]markdown.Doc, 0, n)
		for i := range n {
			if ok[i] {
				e.graph.Put(docs[i].Outline())
				batch = append(batch, docs[i])
			} else {
				unread(chunk[i])
			}
			docs[i], ok[i] = markdown.Doc{}, false // the batch holds them now; the next one reuses the slots
		}
		if err := wait(); err != nil {
			return err
		}
		start += n
		done := start
		pending = make(chan error, 1)
		go func() {
			err := e.put(batch...)
			if err == nil {
				progress(done)
			}
			pending <- err
		}()
	}
	return wait()
}

// maxBatchBytes bounds the text of one build batch (see readAndPut). Small pages such as tldr's
// stay at buildBatch files a batch; a tree of large source files gets smaller batches. Each byte
// of a batch costs bleve many bytes while it analyses and builds the batch's segment
// (dev/bench/README.md, Other timings), so a few MB keep the build's memory well under the
// server's soft limit.
const maxBatchBytes = 4 << 20

// maxParseWorkers bounds the goroutines that read and parse files during a build: beyond a few,
// bleve's indexing, not parsing, is what the build waits for.
const maxParseWorkers = 4

// gone returns the documents the index holds that are no longer files it may hold, given the
// files a walk found and how many of them the index holds. When the index holds no more than
// those, nothing is gone, and a restart keeps neither a copy of every stamp nor a set of every
// path found to say so (dev/bench/README.md, Searches of a big tree). Otherwise the found paths
// are sorted once, and each held path that is not among them is looked up again, so that a file
// a write put in the index during the walk, after the walk passed its folder, is not taken for
// gone.
func (e *Engine) gone(ctx context.Context, files []file, held int) []string {
	ix := e.index()
	if n, err := ix.Count(); err != nil || n <= held {
		return nil
	}
	found := make([]string, len(files))
	for i, f := range files {
		found[i] = f.path
	}
	slices.Sort(found)
	lists := folderLists{fsys: e.opts.FS, of: map[string][]fs.DirEntry{}}
	var out []string
	for _, p := range ix.Under(".") {
		if _, ok := slices.BinarySearch(found, p); ok {
			continue
		}
		if still, isDir, _ := e.look(ctx, p, lists.entry); isDir || len(still) == 0 {
			out = append(out, p)
		}
	}
	return out
}
