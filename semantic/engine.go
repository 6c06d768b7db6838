package semantic

import (
	"errors"
	"fmt"
	"io/fs"
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
	// amortise bleve's per-batch cost (each batch is a segment that merges must rewrite; larger
	// batches took less CPU up to this size and no less past it: dev/bench/README.md, Other
	// timings), small enough to report progress often. maxBatchBytes bounds a batch of large files.
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
