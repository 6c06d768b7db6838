package semantic

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// Engine limits.
const (
	// DefaultMaxIndexBytes is the largest file indexed: bigger text files are logs or data dumps, whose
	// sections would crowd out the documents people search for.
	DefaultMaxIndexBytes = 2 << 20
	// buildBatch is how many documents go into one index batch during a build: large enough to
	// amortise bleve's per-batch cost (each batch is a segment that merges must rewrite; on the
	// tldr tree 1,000 took a fifth less CPU than 500, and 2,000 no less than 1,000), small enough
	// to report progress often. maxBatchBytes bounds a batch of large files.
	buildBatch = 1000
	// maxRelated caps the related list of one search.
	maxRelated = 10
)

// Options configures an [Engine].
type Options struct {
	// FS is the root, as fsroot serves it: regular files only, symbolic links not followed by walks.
	FS fs.FS
	// Allow reports whether the name policy lets the tools reach name. If nil, everything is allowed.
	Allow func(name string, isDir bool) bool
	// Refuse, if set, reports whether a file's content is refused whatever its name (a private
	// key): such a file is neither indexed nor shown in a hit.
	Refuse func(content []byte) bool
	// TextStore, if set, is the folder beside the index where the text extracted from documents
	// is kept across restarts (see textStore); without it the text is kept in memory only.
	TextStore *fsroot.Root
	// Document, if set, gives the extension (lower case, no dot) of a file whose text is extracted
	// to be indexed (package extract: documents, web pages), or "" for a file indexed as it is.
	Document func(name string) string
	// Index configures the full-text index.
	Index fulltext.IndexOptions
	// MaxFileBytes is the largest file indexed. If zero, DefaultMaxIndexBytes.
	MaxFileBytes int64
	// Progress, if set, is called as the build advances, and once more when it completes.
	Progress func(Progress)
	// Busy, if set, is called when the persisted index is held by another process; the engine then
	// keeps a private index in memory. If nil, Open fails with [ErrIndexBusy] instead.
	Busy func()
}

// Progress says how far the index build has come.
type Progress struct {
	Phase    Phase
	Done     int  // files handled so far, the reused ones included
	Total    int  // files found by the walk; while Phase is PhaseCounting, those found so far
	Reused   int  // files the index on disk already held unchanged, not read again
	Complete bool // the index and the graph reflect every file found
	// HardLinks and Unreadable count the files found that could not be opened to be indexed: files
	// with more than one hard link, which fsroot refuses to every tool, and files refused for
	// another reason (permissions, a file replaced by a special one). NotText counts those read
	// and found not to be text. All three are of the files read so far: a restart reads again only
	// the files that changed, so those it reuses from disk are not counted.
	HardLinks, Unreadable, NotText int
	// Left estimates the time until the index is complete, from the pace so far; 0 when it cannot
	// be told yet.
	Left time.Duration
}

// Phase is a step of the index build.
type Phase string

// The phases of a build, in order.
const (
	PhaseOpening  Phase = "opening"  // opening the index persisted on disk
	PhaseCounting Phase = "counting" // walking the root to find the files
	PhaseChecking Phase = "checking" // comparing the files with what the index on disk holds
	PhaseIndexing Phase = "indexing" // reading and indexing new and changed files
	PhaseComplete Phase = "complete"
)

// String describes the progress in a line for a log, such as "indexing: 1200 of 38405 files".
func (p Progress) String() string {
	switch p.Phase {
	case PhaseOpening:
		return "opening the search index on disk"
	case PhaseCounting:
		return fmt.Sprintf("counting files to index: %d so far", p.Total)
	case PhaseChecking:
		return fmt.Sprintf("checking %d files against the search index on disk", p.Total)
	case PhaseComplete:
		return fmt.Sprintf("search index complete: %d files", p.Total)
	}
	if p.Reused > 0 {
		return fmt.Sprintf("indexing: %d of %d new or changed files read (%d unchanged, reused from disk)",
			p.Done-p.Reused, p.Total-p.Reused, p.Reused)
	}
	return fmt.Sprintf("indexing: %d of %d files", p.Done, p.Total)
}

// Engine keeps the index and the relationship graph of the documents under the root, in step with
// the files. It is safe for concurrent use.
type Engine struct {
	opts Options
	ixp  atomic.Pointer[fulltext.Index] // nil until the index is open (see New)
	// opening is closed once an open of the index, if one began, has ended (see awaitOpen).
	opening atomic.Pointer[chan struct{}]
	graph   *markdown.Graph
	// graphLoaded is closed once the first build has put in the graph every document the index
	// held when it opened; until then the graph lacks their links, which ReadLinksTo waits for.
	graphLoaded chan struct{}
	loadOnce    sync.Once
	// failed holds the error that kept the index from opening, if any.
	failed atomic.Pointer[error]

	done, total atomic.Int64
	reused      atomic.Int64
	// hardLinks, unreadable and notText count the files of the build not indexed (see Progress).
	hardLinks, unreadable, notText atomic.Int64
	complete                       atomic.Bool
	phase                          atomic.Pointer[Phase]
	// readFrom is when the build began reading files (Unix nanoseconds), and work and worked the
	// work of the files it reads and of those read so far (see fileWork), for [Progress.Left].
	readFrom     atomic.Int64
	work, worked atomic.Int64
	// pending lists the files the build has still to index, for searches during the build.
	pending atomic.Pointer[pendingFiles]
	// unheld lists, while the build walks the tree, the files it found that the index does not
	// hold, for searches that come before pending is set.
	unheld  atomic.Pointer[walkedFiles]
	buildMu sync.Mutex // one build or reconcile at a time

	mu sync.Mutex

	indexed atomic.Int64 // documents (re)indexed since Open, for tests and logs
	reads   atomic.Int64 // files read since Open

	// scan holds the files a literal search must always read, because the index cannot vouch for
	// all their text: files too large to index, and files with frontmatter (kept out of the
	// indexed words). Guarded by mu.
	scan map[string]bool
	// unread holds the documents whose text could not be extracted (encrypted, broken, too
	// large), by path, with why: the index does not hold them, and a search it narrows names
	// them rather than say nothing was found. Guarded by mu.
	unread map[string]error
	// binary holds the stamp each file had when a walk read it and found it not text (a file of
	// no known type that holds bytes), so that later walks read it again only once it changed:
	// without it, every walk read every such file. A file deleted since stays until the engine
	// closes. Guarded by mu.
	binary map[string]fulltext.Stamp
	// store keeps documents' text across restarts (Options.TextStore); nil: memory only.
	store extract.Store
}

// ErrIndexUnavailable is returned by searches when the index could not be opened.
var ErrIndexUnavailable = errors.New("the search index could not be opened")

// New returns an engine whose index opens at the start of [Engine.Build], so a server can answer
// its client at once however large the persisted index is. Until the build has opened it,
// searches find nothing and [Engine.Status] says the index is incomplete.
func New(opts Options) *Engine {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxIndexBytes
	}
	if opts.Allow == nil {
		opts.Allow = func(string, bool) bool { return true }
	}
	e := &Engine{opts: opts, graph: markdown.NewGraph(), graphLoaded: make(chan struct{}), scan: map[string]bool{}, unread: map[string]error{}, binary: map[string]fulltext.Stamp{}}
	if opts.TextStore != nil {
		e.store = textStore{opts.TextStore}
	}
	return e
}

// Open returns an engine whose index is open now; the graph is empty until [Engine.Build].
func Open(opts Options) (*Engine, error) {
	e := New(opts)
	if err := e.open(); err != nil {
		return nil, err
	}
	return e, nil
}

// open opens (or creates) the index, which loads the stamps of what it holds. The engine keeps no
// copy of them: the index's are the one record of what it holds, by path.
func (e *Engine) open() error {
	done := make(chan struct{})
	e.opening.Store(&done)
	defer close(done)
	opts := e.opts.Index
	opts.Source = e.source
	ix, err := fulltext.OpenIndex(opts)
	if errors.Is(err, fulltext.ErrIndexBusy) && e.opts.Busy != nil {
		e.opts.Busy()
		opts.Dir = "" // another server on this root holds it: keep a private index in memory
		ix, err = fulltext.OpenIndex(opts)
	}
	if err != nil {
		e.failed.Store(&err)
		return err
	}
	e.ixp.Store(ix)
	return nil
}

// index returns the open index, or nil before it opens.
func (e *Engine) index() *fulltext.Index { return e.ixp.Load() }

// Close closes the index.
func (e *Engine) Close() error {
	e.buildMu.Lock() // a build in progress may still be opening the index
	defer e.buildMu.Unlock()
	if ix := e.index(); ix != nil {
		return ix.Close()
	}
	return nil
}

// pendingFiles are the files a build reads, in order; those from index base on are not yet indexed
// while [Engine.Status] says Done is below base+len(files).
type pendingFiles struct {
	files []string
	base  int64
}

// Status reports the build's progress.
func (e *Engine) Status() Progress {
	p := Progress{Done: int(e.done.Load()), Total: int(e.total.Load()), Reused: int(e.reused.Load()),
		Complete: e.complete.Load(), Phase: PhaseOpening, HardLinks: int(e.hardLinks.Load()),
		Unreadable: int(e.unreadable.Load()), NotText: int(e.notText.Load())}
	if ph := e.phase.Load(); ph != nil {
		p.Phase = *ph
	}
	if p.Complete {
		p.Phase = PhaseComplete
	}
	if p.Phase == PhaseIndexing {
		// The pace of the work done so far, the reused files left out: by bytes and files, so
		// that a tree of small pages then one of big sources is not read as if all were pages.
		if w, d := e.worked.Load(), time.Since(time.Unix(0, e.readFrom.Load())); w > 0 && d > 0 {
			p.Left = time.Duration(float64(d) / float64(w) * float64(e.work.Load()-w))
		}
	}
	return p
}

// Coverage is what an answer given now covers before it reads anything itself.
func (e *Engine) Coverage() Coverage {
	st := e.Status()
	cv := Coverage{Complete: st.Complete, Indexed: st.Done, Total: st.Total,
		Counting: st.Phase == PhaseOpening || st.Phase == PhaseCounting, Left: st.Left}
	if ix := e.index(); ix != nil && (cv.Counting || st.Phase == PhaseChecking) {
		cv.FromDisk, _ = ix.Count()
	}
	return cv
}

func (e *Engine) setPhase(ph Phase) { e.phase.Store(&ph) }

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
			files = make([]file, 0, n+n/16) // grown one doubling at a time, it was a seventh of a walk's garbage
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
	stamps := e.snapshot()
	// The graph of the documents the index holds comes back from their stored outlines, so a
	// restart reads only the files that changed.
	loaded := make(map[string]bool, len(stamps))
	err := e.index().Outlines(func(d markdown.Doc) {
		if st, ok := stamps[d.Path]; ok && st.Equal(fulltext.Stamp{Size: d.Size, ModTime: d.ModTime}) {
			loaded[d.Path] = true
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
	// What is left of stamps once every file found is struck off is what the index holds of
	// files that are gone: a cold build keeps no set of the paths it saw.
	var todo []string  // files to read, in walk order
	work := []int64{0} // work[i]: the work of todo[:i]
	for _, f := range files {
		if old, ok := stamps[f.path]; ok && loaded[f.path] && old.Equal(f.stamp) {
			delete(stamps, f.path) // unchanged since it was indexed
			continue
		}
		todo = append(todo, f.path)
		work = append(work, work[len(work)-1]+fileWork(f.stamp.Size))
	}
	base := int64(len(files) - len(todo))
	files, loaded = nil, nil
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
	}, func(d markdown.Doc) { delete(stamps, d.Path) }); err != nil {
		return err
	}
	if err := e.drop(slices.Collect(maps.Keys(stamps))...); err != nil {
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
// and perFileWork for opening, parsing and storing it. By two cold builds (README's scale
// table), tldr's 38,405 files of 17 MB took 21 s and the Linux sources' 78,611 files of 1.24 GB
// 625 s: about 0.33 ms a file and 0.48 s a MB, a file costing as much as some 700 bytes.
func fileWork(size int64) int64 { return size + perFileWork }

// perFileWork is the work of a file besides its bytes (see fileWork).
const perFileWork = 700

// readAndPut reads and parses names, puts each document in the graph (calling found for it) and
// indexes them in batches of at most buildBatch files and about maxBatchBytes of text. Files are
// parsed by one worker per CPU, and each batch is indexed while the next one is parsed, so reading,
// parsing and bleve's analysis keep every core busy. progress gets the count of names handled
// after each batch.
//
// The build's memory is that of two batches (one parsed, one being analysed) and what bleve keeps
// of them, so a batch is bounded by the bytes it holds and not only by its files: 500 files of
// the Linux tree's C sources are ten times the text of 500 tldr pages.
func (e *Engine) readAndPut(ctx context.Context, names []string, progress func(int), found func(markdown.Doc)) error {
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
				found(docs[i])
				batch = append(batch, docs[i])
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

// maxBatchBytes bounds the text of one build batch (see readAndPut). The tldr pages average 4 KB,
// so their batches stay at buildBatch files; a tree of large source files gets smaller batches.
// Each byte of a batch costs bleve some tens of bytes while it analyses and builds the batch's
// segment, so a few MB keep the build's memory well under the server's soft limit.
const maxBatchBytes = 4 << 20

// maxParseWorkers bounds the goroutines that read and parse files during a build: beyond a few,
// bleve's indexing, not parsing, is what the build waits for.
const maxParseWorkers = 4

// read reads and parses one file; the error says why it could not: the error of its open, stat or
// read (gone, special, a hard link, unreadable), or errNotText (too large or binary).
func (e *Engine) read(name string) (markdown.Doc, error) {
	e.reads.Add(1)
	d, err := e.parse(name)
	if err != nil {
		return markdown.Doc{}, err
	}
	e.mark(name, d.Frontmatter)
	return d, nil
}

// parse reads and parses one text file, or a document's text.
func (e *Engine) parse(name string) (markdown.Doc, error) {
	if e.opts.Document != nil {
		if ext := e.opts.Document(name); ext != "" {
			return e.parseDocument(name, ext)
		}
	}
	src, info, err := e.readText(name, nil)
	if err != nil {
		return markdown.Doc{}, err
	}
	d := markdown.Parse(name, src, info.ModTime())
	d.Size = int64(len(src))
	d.Frontmatter = hasFrontmatter(src)
	return d, nil
}

// source gives the index the document at name as it is now, for what a search shows of it (see
// [fulltext.Source]): parsed as the build parses it, and refused when the policy no longer allows it.
func (e *Engine) source(name string) (markdown.Doc, error) {
	if !e.opts.Allow(name, false) {
		return markdown.Doc{}, fs.ErrPermission
	}
	return e.parse(name)
}

// errNotText reports a file that is not text, or is larger than the engine reads.
var errNotText = errors.New("not a text file of at most the largest size indexed")

// countSkipped counts, by its cause, a file the build could not index; err nil, or a file gone
// since the walk found it, counts nothing.
func (e *Engine) countSkipped(err error) {
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errNotText):
		e.notText.Add(1)
	case errors.Is(err, fsroot.ErrHardLink):
		e.hardLinks.Add(1)
	default:
		e.unreadable.Add(1)
	}
}

// readText reads name when it is a regular text file of at most MaxFileBytes and keep, if set,
// accepts its information. The error says why it did not: the error of its open, stat or read, or
// errNotText (keep's refusal included).
func (e *Engine) readText(name string, keep func(fs.FileInfo) bool) ([]byte, fs.FileInfo, error) {
	f, err := e.opts.FS.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > e.opts.MaxFileBytes || keep != nil && !keep(info) {
		return nil, nil, errNotText
	}
	src, err := readSized(f, info.Size())
	if err != nil {
		return nil, nil, err
	}
	if !markdown.IsText(src) {
		return nil, nil, errNotText
	}
	if e.opts.Refuse != nil && e.opts.Refuse(src) {
		return nil, nil, fs.ErrPermission // counted as unreadable
	}
	return src, info, nil
}

// readSized reads the size bytes the stat of r's file gave, in one read for a file of a few pages:
// io.ReadAll starts at 512 bytes and reads until it meets the end, two or more system calls a file,
// which were a tenth of a cold build's CPU on the tldr pages. A file that grew since the stat is
// read to the stat's size (its modification time then differs from its stamp, and the next look
// at it reads it again); one that shrank, to its end.
func readSized(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, size)
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return buf[:n], err
}

// admit judges one entry of a walk: a folder the policy refuses is skipped (err is fs.SkipDir),
// and ok reports a regular file the policy allows.
func (e *Engine) admit(p string, d fs.DirEntry) (ok bool, err error) {
	if d.IsDir() {
		if p != "." && !e.opts.Allow(p, true) {
			return false, fs.SkipDir
		}
		return false, nil
	}
	return d.Type().IsRegular() && e.opts.Allow(p, false), nil
}

// hasFrontmatter reports whether src may open with frontmatter (a first line of --- or +++).
func hasFrontmatter(src []byte) bool {
	return bytes.HasPrefix(src, []byte("---")) || bytes.HasPrefix(src, []byte("+++"))
}

// mark records whether a literal search must always read name.
func (e *Engine) mark(name string, always bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if always {
		e.scan[name] = true
	} else {
		delete(e.scan, name)
	}
}

// Refresh brings one path in step after a write: a file is read again and replaces its entries in
// the index and the graph; a folder is walked; a missing path is removed. It returns when the index
// and the graph reflect the path, so a search right after a write sees it.
func (e *Engine) Refresh(ctx context.Context, name string) error {
	info, err := fs.Stat(e.opts.FS, name)
	if errors.Is(err, fs.ErrNotExist) {
		return e.Remove(name)
	}
	if err != nil {
		return err
	}
	if info.IsDir() {
		files, err := e.walk(ctx, name, false)
		if err != nil {
			return err
		}
		var docs []markdown.Doc
		for _, f := range files {
			if d, err := e.read(f.path); err == nil {
				e.graph.Put(d.Outline())
				docs = append(docs, d)
			}
		}
		return e.put(docs...)
	}
	if !e.opts.Allow(name, false) {
		return e.Remove(name)
	}
	d, err := e.read(name)
	if err != nil {
		return e.Remove(name)
	}
	e.graph.Put(d.Outline())
	return e.put(d)
}

// snapshot copies the stamps of what the index holds.
func (e *Engine) snapshot() map[string]fulltext.Stamp {
	ix := e.index()
	if ix == nil {
		return map[string]fulltext.Stamp{}
	}
	out, _ := ix.Stamps()
	return out
}

// put indexes docs and records their stamps.
func (e *Engine) put(docs ...markdown.Doc) error {
	if len(docs) == 0 {
		return nil
	}
	ix := e.index()
	if ix == nil {
		return nil // not open yet: the build that opens it reads every file anyway
	}
	var err error
	if len(docs) == 1 {
		err = ix.Put(docs[0])
	} else {
		err = ix.PutBatch(docs)
	}
	if err != nil {
		return err
	}
	e.indexed.Add(int64(len(docs)))
	return nil
}

// drop removes paths from the index, the graph and the stamps.
func (e *Engine) drop(paths ...string) error {
	if len(paths) == 0 {
		return nil
	}
	for _, p := range paths {
		e.graph.Delete(p)
	}
	ix := e.index()
	if ix == nil {
		return nil
	}
	if err := ix.Delete(paths...); err != nil {
		return err
	}
	e.mu.Lock()
	for _, p := range paths {
		delete(e.scan, p)
	}
	e.mu.Unlock()
	return nil
}

// Remove drops name, and everything below it when it is a folder, from the index and the graph.
func (e *Engine) Remove(name string) error {
	e.mu.Lock()
	for p := range e.unread { // a document gone; one still there stays unread
		if fsroot.Within(p, name) {
			if _, err := fs.Stat(e.opts.FS, p); errors.Is(err, fs.ErrNotExist) {
				delete(e.unread, p)
			}
		}
	}
	e.mu.Unlock()
	gone := e.under(name)
	if ts, ok := e.store.(textStore); ok {
		ts.drop(append(gone, name)...)
	}
	e.graph.Delete(name)
	return e.drop(gone...)
}

// Results is what a semantic search returns.
type Results struct {
	Hits    []fulltext.Hit
	Related []RelatedHit
	Total   int
	// Unknown are the words of the query and its paraphrases that no indexed document
	// contains (see [Index.UnknownWords]); only told once the index is complete, since a word
	// may be in a file not indexed yet.
	Unknown []string
	// Coverage says how much of the tree the answer covers.
	Coverage Coverage
	// Lists are the index's ranked lists the hits were fused from, for [fulltext.Fuse] to merge
	// with other engines' ([fulltext.Query].Stats); nil when a hit comes from a file read
	// directly, which is in none, or when no index is open.
	Lists *fulltext.Lists
}

// RelatedHit is a document one hop from the top hits through links, backlinks or frontmatter
// relations, kept apart from the ranking.
type RelatedHit struct {
	Path, Title string
	Via         string // how it was reached (see [markdown.Neighbour])
	From        string // the hit it was reached from
	Score       float64
}

// Search runs a ranked search. Every hit is checked again against the files and the policy before it
// is returned, so a file deleted, replaced or newly blocked since it was indexed is never shown.
// While the index is incomplete, the files it does not hold yet are read directly for up to
// [ScanBudget] (see [Coverage]).
func (e *Engine) Search(ctx context.Context, q fulltext.Query, follow bool) (Results, error) {
	want := fulltext.Wanted(q.Max)
	q.Max = want + want/2 + 2 // room for hits dropped by the re-check
	// One budget for waiting on the open and reading unindexed files: on a restart of 384,050
	// files the open took most of a second and the walk for unindexed files a second more.
	deadline := time.Now().Add(ScanBudget)
	e.awaitOpen(ctx, deadline)
	indexed := e.done.Load() // before the index is read: see eachUnindexed
	out := Results{Coverage: e.Coverage()}
	if ix := e.index(); ix != nil {
		// Snippets are made only for the hits returned, after the re-check.
		found, err := ix.SearchChecked(ctx, q, e.current, want)
		if err != nil {
			return Results{}, err
		}
		out.Hits, out.Total, out.Lists = found.Hits, max(found.Total, len(found.Hits)), &found.Lists
		if out.Coverage.Complete {
			if out.Unknown, err = ix.UnknownWords(append([]string{q.Text}, q.Paraphrases...)...); err != nil {
				return Results{}, err
			}
		}
	} else if err := e.failed.Load(); err != nil {
		return Results{}, fmt.Errorf("%w: %v", ErrIndexUnavailable, *err)
	}
	if !out.Coverage.Complete {
		scanned, n, exhausted := e.scanUnindexed(ctx, q, indexed, deadline)
		out.Coverage.Scanned, out.Coverage.Unread = n, !exhausted
		out.Total += len(scanned)
		out.Hits = mergeHits(out.Hits, scanned, want)
		if len(scanned) > 0 {
			out.Lists = nil // the hits of files read directly are in no list
		}
	}
	if follow {
		out.Related = e.related(out.Hits)
	}
	return out, nil
}

// awaitOpen waits, until the deadline, for the open of the index if one is under way. A
// persisted index opens in tens of milliseconds; a search that did not wait read the files directly
// instead, for its whole budget, and the first search after a restart of a 38,000-file tree took
// 1 s where the index answers in 10 ms.
func (e *Engine) awaitOpen(ctx context.Context, deadline time.Time) {
	if ch := e.opening.Load(); ch != nil {
		await(ctx, *ch, deadline)
	}
}

// awaiting, if set, runs when await is about to wait: tests learn from it that a call reached the
// wait. Always nil outside tests.
var awaiting func()

// await waits until ch is closed, ctx ends or the deadline passes.
func await(ctx context.Context, ch <-chan struct{}, deadline time.Time) {
	select {
	case <-ch:
		return // long ago, for every call but the first few
	default:
	}
	if awaiting != nil {
		awaiting()
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-ch:
	case <-ctx.Done():
	case <-t.C:
	}
}

// Stats returns the statistics of terms in fields of the engine's index (see
// [fulltext.Index.Stats]), none while no index is open.
func (e *Engine) Stats(terms []string, fields ...string) (fulltext.Stats, error) {
	ix := e.index()
	if ix == nil {
		return fulltext.Stats{}, nil
	}
	return ix.Stats(terms, fields...)
}

// Lead returns what [fulltext.Index.Lead] returns of the engine's index for q, nothing while no
// index is open.
func (e *Engine) Lead(ctx context.Context, q fulltext.Query) ([]float64, error) {
	ix := e.index()
	if ix == nil {
		return nil, nil
	}
	return ix.Lead(ctx, q)
}

// current reports whether path is still a regular file the policy allows.
func (e *Engine) current(p string) bool {
	if !e.opts.Allow(p, false) {
		return false
	}
	info, err := fs.Stat(e.opts.FS, p)
	return err == nil && info.Mode().IsRegular()
}

// related walks one hop from the hits. A neighbour reached from several hits adds up their scores,
// and a hub (a document linked with everything) is damped by the log of its degree, so the list
// favours documents specific to these hits.
func (e *Engine) related(hits []fulltext.Hit) []RelatedHit {
	inHits := make(map[string]bool, len(hits))
	for _, h := range hits {
		inHits[h.Path] = true
	}
	byPath := map[string]*RelatedHit{}
	for _, h := range hits {
		for _, n := range e.graph.Neighbours(h.Path) {
			if inHits[n.Path] || !e.current(n.Path) {
				continue
			}
			s := h.Score / math.Log2(2+float64(e.graph.Degree(n.Path)))
			if r, ok := byPath[n.Path]; ok {
				r.Score += s
				continue
			}
			d, _ := e.graph.Doc(n.Path)
			byPath[n.Path] = &RelatedHit{Path: n.Path, Title: d.Title, Via: n.Via, From: h.Path, Score: s}
		}
	}
	out := make([]RelatedHit, 0, len(byPath))
	for _, r := range byPath {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	if len(out) > maxRelated {
		out = out[:maxRelated]
	}
	return out
}

// Relations returns one document's outline, links, backlinks, broken links, tags and relations.
// It reads the document, so its links (URLs too, which the graph does not keep) are those of the
// file now. While the index is being built, a document the build has not reached is put in the
// graph as it is read; its backlinks, and the targets of its links, are then those of the
// documents read so far.
func (e *Engine) Relations(name string) (markdown.Relations, bool) {
	known := e.graph.Has(name)
	if !known && (e.complete.Load() || !e.opts.Allow(name, false)) {
		return markdown.Relations{}, false
	}
	d, err := e.read(name)
	if err != nil {
		return e.graph.Relations(name) // unreadable now: what the graph knows, if anything
	}
	if !known {
		e.graph.Put(d.Outline())
	}
	return e.graph.RelationsOf(d)
}

// LinksTo returns the documents that link to name.
func (e *Engine) LinksTo(name string) []markdown.Backlink { return e.graph.LinksTo(name) }

// Candidates narrows a literal content search to the files that may contain it; ok is false when
// the index cannot say (it is still building, or the literal is not made of whole ASCII words), and
// the caller must scan every file.
func (e *Engine) Candidates(ctx context.Context, literal string) ([]string, bool, error) {
	if !e.complete.Load() {
		return nil, false, nil
	}
	paths, ok, err := e.index().Candidates(ctx, literal)
	if !ok || err != nil {
		return nil, false, err
	}
	e.mu.Lock()
	for p := range e.scan {
		paths = append(paths, p)
	}
	e.mu.Unlock()
	sort.Strings(paths)
	return slices.Compact(paths), true, nil
}

// Covered counts the files at or below name that a content search narrowed by [Engine.Candidates]
// covers, the ones keep accepts by path and stamp: the indexed documents, whose words the index
// vouches for, and the files too large to index, which the candidates always include.
func (e *Engine) Covered(name string, keep func(p string, st fulltext.Stamp) bool) int {
	ix := e.index()
	if ix == nil {
		return 0
	}
	n := ix.CountUnder(name, keep)
	e.mu.Lock()
	var always []string
	for p := range e.scan {
		if name == "." || strings.HasPrefix(p, name+"/") {
			always = append(always, p)
		}
	}
	e.mu.Unlock()
	for _, p := range always {
		if ix.Holds(p) {
			continue // counted above
		}
		if info, err := fs.Stat(e.opts.FS, p); err == nil && keep(p, fulltext.Stamp{Size: info.Size(), ModTime: info.ModTime()}) {
			n++
		}
	}
	return n
}

// Reconcile brings the index in step with changes made by other programs: it walks the root and
// reads again only the files whose size or modification time changed, as [Engine.Changed] does
// for the root. It is cheap enough to run every few seconds (a walk of stats), and does nothing
// while a build runs.
func (e *Engine) Reconcile(ctx context.Context) (changed int, err error) {
	if !e.buildMu.TryLock() {
		return 0, nil
	}
	defer e.buildMu.Unlock()
	return e.inStep(ctx, []string{"."})
}

// Changed brings in step the paths other programs changed, as a [fsroot.Watcher] reports them:
// a file whose size or modification time differs from what the index holds is read again, one
// gone (or no longer indexable) is removed, and a folder is reconciled as [Engine.Reconcile]
// reconciles the root, its files gone since removed. It waits for a build under way, and does
// nothing before the first build is complete.
func (e *Engine) Changed(ctx context.Context, paths []string) (changed int, err error) {
	e.buildMu.Lock()
	defer e.buildMu.Unlock()
	return e.inStep(ctx, paths)
}

// inStep brings paths in step, as Changed says, with buildMu held.
func (e *Engine) inStep(ctx context.Context, paths []string) (changed int, err error) {
	ix := e.index()
	if ix == nil || !e.complete.Load() {
		return 0, nil
	}
	var docs []markdown.Doc
	var gone []string
	lists := folderLists{fsys: e.opts.FS, of: map[string][]fs.DirEntry{}}
	for _, p := range paths {
		files, isDir, err := e.look(ctx, p, lists.entry)
		if err != nil {
			return 0, err
		}
		held := 0 // of files, those the index holds
		for _, f := range files {
			old, ok := ix.Stamp(f.path)
			if ok {
				held++
			}
			if ok && old.Equal(f.stamp) || !ok && e.stillNotText(f) {
				continue
			}
			d, err := e.read(f.path)
			e.noteText(f, err)
			if err == nil {
				e.graph.Put(d.Outline())
				docs = append(docs, d)
			} else if ok {
				gone = append(gone, f.path) // no longer text, or no longer readable
			}
		}
		gone = append(gone, e.goneFrom(ix, p, isDir, files, held)...)
	}
	if err := e.put(docs...); err != nil {
		return 0, err
	}
	return len(docs) + len(gone), e.drop(gone...)
}

// stillNotText reports whether f was found not text when it last had its stamp.
func (e *Engine) stillNotText(f file) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, ok := e.binary[f.path]
	return ok && st.Equal(f.stamp)
}

// noteText records what reading f found: not text (err is errNotText), or anything else.
func (e *Engine) noteText(f file, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if errors.Is(err, errNotText) {
		e.binary[f.path] = f.stamp
	} else {
		delete(e.binary, f.path)
	}
}

// goneFrom returns what the index holds at p (the file, or every file below the folder) that the
// walk of p no longer found: files, of which the index holds held. When the walk was of the whole
// tree and found every file the index holds, nothing is gone, and the index's paths are not listed
// again (at 384,050 files a walk made a set of all it found, and a list of all the index holds).
func (e *Engine) goneFrom(ix *fulltext.Index, p string, isDir bool, files []file, held int) []string {
	if p == "." {
		if n, err := ix.Count(); err == nil && n == held {
			return nil
		}
	}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.path] = true
	}
	had := []string{p}
	if isDir || len(files) == 0 {
		had = ix.Under(p)
	}
	var gone []string
	for _, h := range had {
		if !seen[h] && ix.Holds(h) {
			gone = append(gone, h)
		}
	}
	return gone
}

// look returns the indexable files at p: p itself when it is one, the files below it when it is
// a folder the policy lets in (and isDir), none when it is gone, neither, or below a folder the
// policy keeps out.
func (e *Engine) look(ctx context.Context, p string, entry func(string) (fs.DirEntry, error)) (files []file, isDir bool, err error) {
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if !e.opts.Allow(dir, true) {
			return nil, false, nil // below a folder the walk does not enter
		}
	}
	d, err := entry(p)
	if err != nil {
		return nil, false, nil // gone, or not reachable through the root: nothing to index there
	}
	if d.IsDir() {
		if p != "." && !e.opts.Allow(p, true) {
			return nil, true, nil
		}
		files, err := e.walk(ctx, p, false)
		return files, true, err
	}
	if ok, _ := e.admit(p, d); !ok {
		return nil, false, nil
	}
	info, err := d.Info()
	if err != nil || info.Size() > e.opts.MaxFileBytes {
		return nil, false, nil
	}
	return []file{{p, fulltext.Stamp{Size: info.Size(), ModTime: info.ModTime()}}}, false, nil
}

// folderLists reads folders once for a batch of paths, to tell what each path is as its folder
// lists it: without following a symbolic link, as a walk sees it.
type folderLists struct {
	fsys fs.FS
	of   map[string][]fs.DirEntry
}

// entry returns the directory entry of p.
func (l folderLists) entry(p string) (fs.DirEntry, error) {
	if p == "." {
		info, err := fs.Stat(l.fsys, p)
		if err != nil {
			return nil, err
		}
		return fs.FileInfoToDirEntry(info), nil
	}
	dir := path.Dir(p)
	entries, ok := l.of[dir]
	if !ok {
		var err error
		if entries, err = fs.ReadDir(l.fsys, dir); err != nil {
			return nil, err
		}
		l.of[dir] = entries
	}
	i, found := slices.BinarySearchFunc(entries, path.Base(p), func(d fs.DirEntry, name string) int { return strings.Compare(d.Name(), name) })
	if !found {
		return nil, fs.ErrNotExist
	}
	return entries[i], nil
}

// LinksInto returns the links to name, or to any document below it when it is a folder.
func (e *Engine) LinksInto(name string) []markdown.Backlink {
	var out []markdown.Backlink
	for _, p := range e.under(name) {
		out = append(out, e.graph.LinksTo(p)...)
	}
	if len(out) == 0 {
		out = e.graph.LinksTo(name)
	}
	return out
}

// Documents lists the indexed documents at name, sorted: name itself, or every document below it
// when it is a folder (what a move of it takes along).
func (e *Engine) Documents(name string) []string { return e.under(name) }

// under lists the indexed documents at or below name, sorted.
func (e *Engine) under(name string) []string {
	ix := e.index()
	if ix == nil {
		return nil
	}
	out := ix.Under(name)
	sort.Strings(out)
	return out
}

// AfterMoves is the graph as it would be after moves ([markdown.Graph.AfterMoves]): what a dry
// run of a move resolves links against.
func (e *Engine) AfterMoves(moves []markdown.Moved) *markdown.MovedView {
	return e.graph.AfterMoves(moves)
}

// RewriteLinks returns src, the document at from, with its links into what moves takes (each a
// document, or a folder and what is in it) changed to point at the same documents where they go,
// and the rewrites it made; keepText says how a wiki link whose name changes reads and format
// how one whose form no longer reaches its note is written (see [markdown.Move]). It resolves links with the graph as it was before the move, so call it before
// [Engine.Refresh].
func (e *Engine) RewriteLinks(from string, src []byte, modTime time.Time, moves []markdown.Moved, keepText bool, format markdown.LinkFormat) ([]byte, []markdown.Rewrite) {
	d := markdown.Parse(from, src, modTime)
	out, rw, _ := markdown.RewriteLinks(src, d, func(l markdown.Link) markdown.Resolved { return e.graph.Resolve(from, l) },
		e.move(moves, keepText, format))
	return out, rw
}

// RelinkMoved returns src, the document now at newPath and formerly at oldPath, which moves took
// along, with its links changed so they reach the same documents from its new folder, and those
// the move took where they went; and the rewrites it made.
func (e *Engine) RelinkMoved(src []byte, modTime time.Time, oldPath, newPath string, moves []markdown.Moved, keepText bool, format markdown.LinkFormat) ([]byte, []markdown.Rewrite) {
	d := markdown.Parse(oldPath, src, modTime)
	return markdown.RelinkMoved(src, d, newPath, func(l markdown.Link) markdown.Resolved { return e.graph.Resolve(oldPath, l) },
		e.move(moves, keepText, format))
}

// move describes a move of what moves takes, with the graph's names for wiki links.
func (e *Engine) move(moves []markdown.Moved, keepText bool, format markdown.LinkFormat) markdown.Move {
	return markdown.Move{From: moves[0].From, To: moves[0].To, Along: moves[1:], KeepText: keepText, Format: format,
		Unique: func(p, name string) bool { return e.graph.UniqueAfterMove(p)(name) }}
}
