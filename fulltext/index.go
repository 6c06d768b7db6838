// This file is the one documented exception to "only fsroot touches the operating system":
// bleve needs a directory for a persistent index, so index.go passes the index directory to bleve
// and removes a stale index itself (package os, path/filepath). The directory is the operator's
// setting, outside the served root, and never a path taken from a request. No other file of
// package fulltext may import os, path/filepath or syscall.

package fulltext

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
	bolt "go.etcd.io/bbolt"

	"github.com/packfs/packfs-mcp/markdown"
)

// IndexFormat is stored beside the index; a different value on open rebuilds the index from
// scratch. Bump it whenever the mapping or the unit layout changes.
const IndexFormat = 13

const (
	// DefaultChunkSize keeps a unit around a screenful of text, so BM25 length normalisation
	// compares like with like and a snippet comes from a focused place.
	DefaultChunkSize = 2000
	// DefaultOverlapSize lets a phrase cut by a chunk boundary still be found whole in one unit.
	DefaultOverlapSize = 200
)

// formatFile is the name of the file inside the index directory that holds [IndexFormat].
const formatFile = "packfs-index-format"

// bleveMetaFile is the file bleve's root package writes at the top of an index directory, as
// indexes made before scorch was opened directly have; its presence (or ours) tells OpenIndex
// that a directory is an index it may delete. The store beside it is the same, so such an index
// opens as it is.
const bleveMetaFile = "index_meta.json"

// storeDir is the folder, inside the index directory, where scorch keeps its segments.
const storeDir = "store"

// ErrNotIndex is returned by [OpenIndex] when the index directory holds something that is not an
// index, which it refuses to delete.
var ErrNotIndex = errors.New("index directory holds something that is not an index")

// ErrIndexBusy is returned by [OpenIndex] when another process holds the persisted index open (two
// servers on one root). The index is left as it is; the caller may use a private one instead.
var ErrIndexBusy = errors.New("index is in use by another process")

// indexLockWait is how long opening a persisted index waits for another process's lock: long enough
// for a restarting server to let go, short enough not to delay start-up.
const indexLockWait = "500ms"

// IndexOptions configures an [Index]. Zero values get the documented defaults.
type IndexOptions struct {
	// Dir is where the index persists, outside the served root. If empty, the index lives in
	// memory only (tests).
	Dir string
	// ChunkSize is the most bytes of one indexed unit; a longer section is split on whitespace.
	// If zero, defaults to [DefaultChunkSize].
	ChunkSize int
	// OverlapSize is the bytes shared by consecutive chunks of one section. If zero, defaults to
	// [DefaultOverlapSize]; it must be smaller than ChunkSize.
	OverlapSize int
	// Ranking holds the ranker's weights. If nil, [DefaultRanking].
	Ranking *Ranking
	// Source gives the documents' text, which the index does not store. If nil, the index keeps
	// a copy of every document it is given, in memory (tests, tools of a few documents).
	Source Source
}

// Index is a full-text index of sections of documents. It is safe for concurrent use.
type Index struct {
	bi      bindex.Index // scorch, opened directly: bleve's root package is not linked in
	chunk   int
	overlap int
	ranking Ranking

	// mu serialises the writers (PutBatch, Delete, Close), which read docs freely while they hold
	// it; docsMu guards docs for the readers, who take it alone, so that a search's checks never
	// wait for a batch bleve is analysing.
	mu     sync.Mutex
	docsMu sync.RWMutex
	docs   map[string]docState // by path
	// folders counts the documents of docs below each folder, so that a folder's count costs
	// a lookup, not a pass over every document of a big tree.
	folders map[string]int
	copies  map[string]markdown.Doc // by path, the documents given, when there is no source
	source  Source
	closed  bool

	// dfs caches the document frequencies searches weigh their terms with.
	dfs dfCache
	// wordList caches the terms of the words field, for Candidates.
	wordList wordCache
	// question holds the analysed question words (see questionTerms).
	questionOnce sync.Once
	question     map[string]bool

	// persisting counts the batches searchable but not yet on disk (persistent index only).
	persisting sync.WaitGroup
	// unwritten holds a token for each batch searchable but not yet on disk, at most
	// maxUnwritten (see batch).
	unwritten  chan struct{}
	persistent bool
}

// OpenIndex opens the persisted index in opts.Dir if its format file holds [IndexFormat], else
// creates it afresh, deleting the old one. It refuses, with [ErrNotIndex], to delete a
// non-empty directory that is not an index.
func OpenIndex(opts IndexOptions) (*Index, error) {
	ix := &Index{chunk: opts.ChunkSize, overlap: opts.OverlapSize, docs: map[string]docState{}, folders: map[string]int{},
		source: opts.Source, unwritten: make(chan struct{}, maxUnwritten)}
	if ix.source == nil {
		ix.copies = map[string]markdown.Doc{}
	}
	if ix.chunk == 0 {
		ix.chunk = DefaultChunkSize
	}
	if ix.overlap == 0 {
		ix.overlap = DefaultOverlapSize
	}
	if ix.chunk < 0 || ix.overlap < 0 || ix.overlap >= ix.chunk {
		return nil, fmt.Errorf("index: overlap %d must be smaller than chunk size %d", ix.overlap, ix.chunk)
	}
	ix.ranking = DefaultRanking()
	if opts.Ranking != nil {
		ix.ranking = *opts.Ranking
	}
	if err := claimBM25(ix.ranking); err != nil {
		return nil, err
	}
	bi, err := openBleve(opts.Dir)
	if err != nil {
		releaseBM25()
		return nil, err
	}
	ix.bi = bi
	ix.persistent = opts.Dir != ""
	if err := ix.load(); err != nil {
		bi.Close()
		releaseBM25()
		return nil, err
	}
	return ix, nil
}

// PersistedFormat reports the format version of the index persisted in dir, and false when dir
// holds no index. A version other than [IndexFormat] means the next start rebuilds it.
func PersistedFormat(dir string) (int, bool) {
	format, err := os.ReadFile(filepath.Join(dir, formatFile))
	if err != nil {
		return 0, false
	}
	v, err := strconv.Atoi(string(bytes.TrimSpace(format)))
	return v, err == nil
}

// openBleve opens or creates the scorch index in dir ("" for memory).
//
// The index is opened with scorch's unsafe_batch: a batch returns once it is searchable, not
// once it is on disk, so the build's next batch is analysed while the previous one is written
// (a faster cold build: dev/bench/README.md, Other timings). Nothing is lost by it: the index is a
// cache whose stamps are checked against the files at every start, so a batch that a crash kept off
// the disk is read again; [Index.Close] waits for the batches still being written.
//
// scorch is opened directly rather than through bleve's root package, which links in every
// index type, store, highlighter and its HTTP and TLS dependencies, which would add to the
// binary and to its memory at start (dev/bench/README.md, Other timings).
func openBleve(dir string) (bindex.Index, error) {
	if dir == "" {
		return newBleve("")
	}
	format, err := os.ReadFile(filepath.Join(dir, formatFile))
	if err == nil && string(bytes.TrimSpace(format)) == strconv.Itoa(IndexFormat) {
		cfg := scorchConfig(filepath.Join(dir, storeDir))
		cfg["bolt_timeout"] = indexLockWait
		bi, err := openScorch(cfg)
		if err == nil {
			return bi, nil
		}
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, ErrIndexBusy
		}
		// A damaged index is only a cache: rebuild it.
	}
	if err := removeIndexDir(dir); err != nil {
		return nil, err
	}
	bi, err := newBleve(dir)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, formatFile), []byte(strconv.Itoa(IndexFormat)+"\n"), 0o600); err != nil {
		bi.Close()
		return nil, fmt.Errorf("index: write format: %w", err)
	}
	return bi, nil
}

// analysisQueue is the pool of workers that analyse the documents of a batch, shared by every
// index of the process as bleve shares its own.
var analysisQueue = sync.OnceValue(func() *bindex.AnalysisQueue { return bindex.NewAnalysisQueue(4) })

// openScorch opens the scorch index cfg describes.
func openScorch(cfg map[string]any) (bindex.Index, error) {
	bi, err := scorch.NewScorch(scorch.Name, cfg, analysisQueue())
	if err != nil {
		return nil, err
	}
	if err := bi.Open(); err != nil {
		return nil, err
	}
	return bi, nil
}

// scorchConfig is the configuration of the scorch index stored in path ("" for memory); see
// openBleve.
func scorchConfig(path string) map[string]any {
	return map[string]any{"unsafe_batch": true, "path": path}
}

// removeIndexDir removes dir if it is missing, empty, or an index (ours or bleve's).
func removeIndexDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	ours := len(entries) == 0
	for _, e := range entries {
		if e.Name() == formatFile || e.Name() == bleveMetaFile {
			ours = true
		}
	}
	if !ours {
		return ErrNotIndex
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("index: remove stale index: %w", err)
	}
	return nil
}

// newBleve creates an empty scorch index in dir ("" for memory).
func newBleve(dir string) (bindex.Index, error) {
	path := ""
	if dir != "" {
		path = filepath.Join(dir, storeDir)
	}
	cfg := scorchConfig(path)
	cfg["create_if_missing"], cfg["error_if_exists"] = true, true
	bi, err := openScorch(cfg)
	if err != nil {
		return nil, fmt.Errorf("index: create: %w", err)
	}
	return bi, nil
}

// Close flushes and closes the index. Closing it again does nothing.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	defer releaseBM25()
	waitTimeout(&ix.persisting, persistWait)
	if err := ix.bi.Close(); err != nil {
		return fmt.Errorf("index: close: %w", err)
	}
	return nil
}
