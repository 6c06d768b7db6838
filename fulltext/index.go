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
	"maps"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
	bolt "go.etcd.io/bbolt"

	"github.com/packfs/packfs-mcp/markdown"
)

// IndexFormat is stored beside the index; a different value on open rebuilds the index from
// scratch. Bump it whenever the mapping or the unit layout changes.
const IndexFormat = 13

// Stamp identifies a file's version for reconciling the index with the files.
type Stamp struct {
	Size    int64
	ModTime time.Time
}

// Equal reports whether s and o name the same version of a file: the same size and modification time.
func (s Stamp) Equal(o Stamp) bool { return s.Size == o.Size && s.ModTime.Equal(o.ModTime) }

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

// Field names of the indexed records. A document is stored as one meta record (id "path#meta")
// with its stamp, its outline and the words used by [Index.Candidates], plus one unit record per
// chunk of a section (id "path#n"), which stores nothing.
const (
	fieldKind    = "kind"    // "meta" on meta records
	fieldStamp   = "stamp"   // meta: "size:unixnano:units", stored only
	fieldOutline = "outline" // meta: the document without its sections' text (see markdown.EncodeOutline), stored only
	fieldWords   = "words"   // meta: all the document's text, lower-cased, never stemmed
	fieldPath    = "path"    // meta: stored only
	fieldDir     = "dir"     // unit: the ancestor folders the folder filter matches as terms, one a line (see folderTerms)
	fieldFolder  = "folder"  // unit: the document's folder with a final slash ("a/b/"), for the filter below them
	fieldExt     = "ext"     // unit: lower-case extension with dot
	fieldTitle   = "title"   // unit
	fieldHeading = "heading" // unit: the section's heading
	fieldTags    = "tags"    // unit: the document's tags, lower-cased, one a line (at most MaxTagCopies over its units)
	fieldAliases = "aliases" // unit
	fieldNames   = "names"   // unit: the keys of the document's names, one a line (see NameKeys)
	fieldText    = "text"    // unit: title, aliases, heading path and body, searched as one
	fieldLead    = "lead"    // unit: the document's first paragraph, which usually says what it is about

	kindMeta = "meta"
	metaID   = "meta"

	// wordsAnalyzer splits a query into words: like the unicode tokenizer, lower-cased, neither
	// stemmed nor stopped.
	wordsAnalyzer = "packfs_words"
	// literalAnalyzer makes the terms of the words field, which search_content's candidates
	// match (see [Index.Candidates]).
	literalAnalyzer = "packfs_literal"
	// linesAnalyzer makes a term of each line of a field of lines (tags, name keys, folders), unchanged (see linesTokenizer).
	linesAnalyzer = "packfs_lines"
)

// textAnalyzer analyses title, heading, aliases, lead and the combined text.
const textAnalyzer = en.AnalyzerName

// scoringModel is the bleve scoring model of new indexes; see [Ranking.BM25B] for the
// measurement that chose it.
const scoringModel = bindex.BM25Scoring

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

// docState is what the index remembers of one document in memory. It holds no pointer (a
// time.Time holds one), so that the collector need not look into the values of a map of hundreds
// of thousands.
type docState struct {
	size, modTime int64 // bytes; Unix nanoseconds, as the stamp persists it
	units         int
}

// stateOf is the docState of a document of stamp st cut into units.
func stateOf(st Stamp, units int) docState {
	return docState{size: st.Size, modTime: st.ModTime.UnixNano(), units: units}
}

// stamp is the Stamp of d.
func (d docState) stamp() Stamp { return Stamp{Size: d.size, ModTime: time.Unix(0, d.modTime)} }

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
	docs   map[string]docState     // by path
	copies map[string]markdown.Doc // by path, the documents given, when there is no source
	source Source
	closed bool

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
	ix := &Index{chunk: opts.ChunkSize, overlap: opts.OverlapSize, docs: map[string]docState{},
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

// indexMapping is the mapping of every index, built once: it holds no state of an index, and the
// analyzers of queries and of files not indexed yet are its own.
var indexMapping = sync.OnceValue(func() *mapping.IndexMappingImpl {
	m, err := newMapping()
	if err != nil {
		panic("fulltext: the index mapping is invalid: " + err.Error()) // a bug, not input
	}
	return m
})

// newMapping describes the records: nothing is indexed dynamically, and only what search
// results show is stored.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	im.ScoringModel = scoringModel
	im.DefaultAnalyzer = textAnalyzer
	// The words analyzer splits queries like the unicode tokenizer and lower-cases, without
	// stemming or stop words; the literal analyzer splits the words field into runs of letters
	// and digits, so that every literal run of letters and digits lies inside some term.
	if err := im.AddCustomAnalyzer(wordsAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	if err := im.AddCustomAnalyzer(literalAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     alnumTokenizer,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	if err := im.AddCustomAnalyzer(linesAnalyzer, map[string]any{
		"type":      custom.Name,
		"tokenizer": linesTokenizer,
	}); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}

	text := func() *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = textAnalyzer
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	kw := func(store bool) *mapping.FieldMapping {
		f := mapping.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	words := text()
	words.Analyzer = literalAnalyzer
	words.SkipFreqNorm = true
	// Stored only, on the meta records: what a restart reads back, never searched. Units store
	// nothing: their text is the file's, read again for the few a search shows (see source.go).
	storedKw := kw(true)
	storedKw.Index = false
	// The tags, the name keys and the folders, one a line, each a term as the keyword analyzer would make it
	// (see linesTokenizer).
	lines := kw(false)
	lines.Analyzer = linesAnalyzer

	dm := mapping.NewDocumentStaticMapping()
	for name, f := range map[string]*mapping.FieldMapping{
		fieldKind:    kw(false),
		fieldStamp:   storedKw,
		fieldOutline: storedKw,
		fieldWords:   words,
		fieldPath:    storedKw,
		fieldDir:     lines,
		fieldFolder:  kw(false),
		fieldExt:     kw(false),
		fieldTitle:   text(),
		fieldHeading: text(),
		fieldTags:    lines,
		fieldAliases: text(),
		fieldNames:   lines,
		fieldText:    text(),
		fieldLead:    text(),
	} {
		dm.AddFieldMappingsAt(name, f)
	}
	// No composite _all field: every field is searched by name.
	dm.AddSubDocumentMapping("_all", mapping.NewDocumentDisabledMapping())
	im.DefaultMapping = dm
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	if err := im.Validate(); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	return im, nil
}

// reader opens a snapshot of the index for reading; the caller closes it.
func (ix *Index) reader() (bindex.IndexReader, error) {
	return ix.bi.Reader()
}

// load reads every meta record into ix.docs.
func (ix *Index) load() error {
	return ix.eachMeta(false, func(p, stamp, _ string) {
		st, ok := parseStamp(stamp)
		if p == "" || !ok {
			return // unreadable record: the next reconcile re-indexes the file
		}
		ix.docs[p] = st
	})
}

// eachMeta calls fn with the path, the stamp and, if outlines is set, the outline of every meta
// record of a snapshot of the index, one record at a time.
//
// It walks each segment's postings of kind:meta and reads the stored fields of one record at a
// time, so its memory is that of one record however many the index holds. A search for all of
// them, as this used to be, built every hit with its fields before the first was used: on a big
// tree that held memory in proportion to the whole index at a restart and kept the first search
// waiting for seconds (dev/bench/README.md, Scale).
func (ix *Index) eachMeta(outlines bool, fn func(path, stamp, outline string)) error {
	r, err := ix.reader()
	if err != nil {
		return fmt.Errorf("index: read records: %w", err)
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return fmt.Errorf("index: read records: not a scorch index (%T)", r)
	}
	for _, ss := range snap.Segments() {
		dict, err := ss.Segment().Dictionary(fieldKind)
		if err != nil {
			return fmt.Errorf("index: read records: %w", err)
		}
		if dict == nil {
			continue
		}
		pl, err := dict.PostingsList([]byte(kindMeta), ss.Deleted(), nil)
		if err != nil {
			return fmt.Errorf("index: read records: %w", err)
		}
		if pl == nil {
			continue
		}
		it := pl.Iterator(false, false, false, nil)
		for {
			post, err := it.Next()
			if err != nil {
				return fmt.Errorf("index: read records: %w", err)
			}
			if post == nil {
				break
			}
			var p, stamp, outline string
			err = ss.VisitDocument(post.Number(), func(field string, _ byte, value []byte, _ []uint64) bool {
				switch field {
				case fieldPath:
					p = string(value)
				case fieldStamp:
					stamp = string(value)
				case fieldOutline:
					if outlines {
						outline = string(value)
					}
				}
				return true
			})
			if err != nil {
				return fmt.Errorf("index: read records: %w", err)
			}
			fn(p, stamp, outline)
		}
	}
	return nil
}

func formatStamp(st docState) string {
	return fmt.Sprintf("%d:%d:%d", st.size, st.modTime, st.units)
}

func parseStamp(s string) (docState, bool) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return docState{}, false
	}
	size, err1 := strconv.ParseInt(parts[0], 10, 64)
	nanos, err2 := strconv.ParseInt(parts[1], 10, 64)
	units, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return docState{}, false
	}
	return docState{size: size, modTime: nanos, units: units}, true
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

// Put replaces everything indexed for d.Path with d's units and stamp, in one batch.
func (ix *Index) Put(d markdown.Doc) error {
	return ix.PutBatch([]markdown.Doc{d})
}

// PutBatch does [Index.Put] for many documents in one batch.
func (ix *Index) PutBatch(docs []markdown.Doc) error {
	held := ix.reserve(len(docs) > maxIncrementalDocs)
	defer func() {
		if held { // not handed to batch: give the token back
			<-ix.unwritten
		}
	}()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	b := bindex.NewBatch()
	next := make(map[string]docState, len(docs))
	var given map[string]markdown.Doc // the copies, when there is no source
	if ix.copies != nil {
		given = make(map[string]markdown.Doc, len(docs))
	}
	var texts []string // of the words fields, for the word list of a small batch
	for _, d := range docs {
		old, ok := next[d.Path]
		if !ok {
			old, ok = ix.docs[d.Path]
		}
		if ok {
			for i := range old.units {
				b.Delete(unitID(d.Path, i))
			}
		}
		units := ix.units(d)
		for i, u := range units {
			if err := ix.add(b, unitID(d.Path, i), u); err != nil {
				return fmt.Errorf("index: %s: %w", d.Path, err)
			}
		}
		st := stateOf(Stamp{Size: d.Size, ModTime: d.ModTime}, len(units))
		m := ix.meta(d, st)
		if len(docs) <= maxIncrementalDocs {
			texts = append(texts, m[fieldWords].(string))
		}
		if err := ix.add(b, d.Path+"#"+metaID, m); err != nil {
			return fmt.Errorf("index: %s: %w", d.Path, err)
		}
		next[d.Path] = st
		if given != nil {
			given[d.Path] = d
		}
	}
	from := ix.dfs.generation()
	handed := held
	held = false // batch gives it back once the batch is written
	if err := ix.batch(b, handed); err != nil {
		return fmt.Errorf("index: batch: %w", err)
	}
	if len(docs) <= maxIncrementalDocs {
		ix.wordList.advance(from, ix.dfs.generation(), ix.batchWords(texts))
	}
	ix.docsMu.Lock()
	for p, st := range next {
		ix.docs[p] = st
	}
	maps.Copy(ix.copies, given)
	ix.docsMu.Unlock()
	return nil
}

// persistWait bounds how long [Index.Close] waits for batches still being written: a batch
// that misses it is read again at the next start.
const persistWait = 10 * time.Second

// maxUnwritten bounds the batches searchable but not yet written to disk. With unsafe_batch a
// batch returns once it is in memory, and nothing in scorch stops the next ones when its writer
// falls behind (on a loaded machine, or while it merges large segments): the segments waiting for
// it then pile up in memory. A few keep analysis and writing overlapped.
const maxUnwritten = 4

// unwrittenWait bounds how long a batch waits for the writer to catch up; past it the batch goes
// ahead, so a writer that stalls (or a callback that never comes) slows the build, never stops it.
const unwrittenWait = 30 * time.Second

// reserve takes a token of ix.unwritten for a batch about to be applied, and reports whether it
// did. A large batch (a build's) waits for one at most unwrittenWait; a small one (a write through
// the tools) never waits, so a write is not held up by a build's backlog.
func (ix *Index) reserve(large bool) bool {
	if !ix.persistent {
		return false
	}
	if !large {
		select {
		case ix.unwritten <- struct{}{}:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(unwrittenWait)
	defer t.Stop()
	select {
	case ix.unwritten <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// add maps the record data with the index's mapping and adds it to b under id, replacing any
// record with that id.
func (ix *Index) add(b *bindex.Batch, id string, data map[string]any) error {
	doc := document.NewDocument(id)
	if err := indexMapping().MapDocument(doc, data); err != nil {
		return err
	}
	b.Update(doc)
	return nil
}

// batch applies b, counting it in ix.persisting until scorch has written it; held says that
// reserve took a token for it, given back once it is written. Call with ix.mu held, and reserve
// before taking it: waiting for the writer must not block searches.
func (ix *Index) batch(b *bindex.Batch, held bool) error {
	// The statistics change with the batch: a new generation while it applies, and another once
	// it is searchable, so none read meanwhile outlives it.
	ix.dfs.invalidate()
	defer ix.dfs.invalidate()
	if !ix.persistent {
		return ix.bi.Batch(b)
	}
	var once sync.Once
	done := func() {
		once.Do(func() {
			if held {
				<-ix.unwritten
			}
			ix.persisting.Done()
		})
	}
	ix.persisting.Add(1)
	b.SetPersistedCallback(func(error) { done() })
	err := ix.bi.Batch(b)
	if err != nil {
		done() // a batch that failed is never written, so its callback may never come
	}
	return err
}

// waitTimeout waits for wg, or at most d.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	ch := make(chan struct{})
	go func() {
		wg.Wait()
		close(ch)
	}()
	select {
	case <-ch:
	case <-time.After(d):
	}
}

// Delete removes the documents at paths; unknown paths are ignored.
func (ix *Index) Delete(paths ...string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	b := bindex.NewBatch()
	for _, p := range paths {
		st, ok := ix.docs[p]
		if !ok {
			continue
		}
		for i := range st.units {
			b.Delete(unitID(p, i))
		}
		b.Delete(p + "#" + metaID)
	}
	if len(b.IndexOps) == 0 {
		return nil
	}
	from := ix.dfs.generation()
	if err := ix.batch(b, false); err != nil { // a delete adds no segment worth waiting for
		return fmt.Errorf("index: delete: %w", err)
	}
	ix.wordList.advance(from, ix.dfs.generation(), nil)
	ix.docsMu.Lock()
	for _, p := range paths {
		delete(ix.docs, p)
		delete(ix.copies, p)
	}
	ix.docsMu.Unlock()
	return nil
}

// Stamps returns the stamp of every indexed document by path, for reconciling the index with
// the files after a restart.
func (ix *Index) Stamps() (map[string]Stamp, error) {
	ix.docsMu.RLock()
	defer ix.docsMu.RUnlock()
	m := make(map[string]Stamp, len(ix.docs))
	for p, st := range ix.docs {
		m[p] = st.stamp()
	}
	return m, nil
}

// Stamp returns the size and modification time the document at p had when indexed, and false
// when the index does not hold it.
func (ix *Index) Stamp(p string) (Stamp, bool) {
	ix.docsMu.RLock()
	defer ix.docsMu.RUnlock()
	d, ok := ix.docs[p]
	if !ok {
		return Stamp{}, false
	}
	return d.stamp(), true
}

// Holds reports whether the index holds the document at p.
func (ix *Index) Holds(p string) bool {
	ix.docsMu.RLock()
	defer ix.docsMu.RUnlock()
	_, ok := ix.docs[p]
	return ok
}

// Under returns the paths of the indexed documents at or below name ("." for all), unsorted.
func (ix *Index) Under(name string) []string {
	ix.docsMu.RLock()
	defer ix.docsMu.RUnlock()
	var out []string
	for p := range ix.docs {
		if p == name || strings.HasPrefix(p, name+"/") || name == "." {
			out = append(out, p)
		}
	}
	return out
}

// CountUnder counts the indexed documents at or below name (every one for ".") that keep
// accepts, given their path and stamp.
func (ix *Index) CountUnder(name string, keep func(p string, st Stamp) bool) int {
	ix.docsMu.RLock()
	defer ix.docsMu.RUnlock()
	n := 0
	for p, st := range ix.docs {
		if (name == "." || p == name || strings.HasPrefix(p, name+"/")) && keep(p, st.stamp()) {
			n++
		}
	}
	return n
}

// Count returns the number of indexed documents (not units).
func (ix *Index) Count() (int, error) {
	ix.docsMu.RLock()
	defer ix.docsMu.RUnlock()
	return len(ix.docs), nil
}

func unitID(p string, n int) string { return p + "#" + strconv.Itoa(n) }

// pathOfID returns the document path of a record id "path#n" (paths may contain '#').
func pathOfID(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		return id[:i]
	}
	return id
}

// meta is the record holding a document's stamp and the words for [Index.Candidates]: all the
// text the document exposes, once, so that no chunk boundary can cut a word.
func (ix *Index) meta(d markdown.Doc, st docState) map[string]any {
	var w strings.Builder
	w.WriteString(d.Title)
	for _, list := range [][]string{d.Tags, d.Aliases} {
		for _, s := range list {
			w.WriteString("\n")
			w.WriteString(s)
		}
	}
	for _, l := range d.Links {
		w.WriteString("\n")
		w.WriteString(l.Target)
		w.WriteString("\n")
		w.WriteString(l.Text)
	}
	for _, s := range d.Sections {
		w.WriteString("\n")
		w.WriteString(s.Heading)
		w.WriteString("\n")
		w.WriteString(s.Text)
	}
	return map[string]any{
		fieldKind:    kindMeta,
		fieldPath:    d.Path,
		fieldStamp:   formatStamp(st),
		fieldWords:   w.String(),
		fieldOutline: markdown.EncodeOutline(d),
	}
}

// Outlines calls fn with the outline (the document without its sections' text and its links out of the root)
// document, as it was when indexed, one at a time (see eachMeta).
func (ix *Index) Outlines(fn func(markdown.Doc)) error {
	return ix.eachMeta(true, func(_, _, s string) {
		if d, err := markdown.DecodeOutline(s); err == nil {
			fn(d)
		} // else unreadable: the build reads the file again
	})
}

// units splits d into unit records: one per section, or more when a section is longer than
// the chunk size (see [Index.layout]). A unit stores nothing: what a hit shows of it is made again
// from the document when it is shown (see source.go).
func (ix *Index) units(d markdown.Doc) []map[string]any {
	ext := strings.ToLower(path.Ext(d.Path))
	dirs, folder := folderTerms(d.Path), folderKey(d.Path)
	lead := leadOf(d)
	l := ix.layout(d)
	out := make([]map[string]any, 0, len(l.parts))
	for _, p := range l.parts {
		u := map[string]any{
			fieldExt:     ext,
			fieldTitle:   l.title,
			fieldHeading: p.heading,
			fieldText:    l.title + "\n" + l.aliases + "\n" + p.headings + p.text,
		}
		if folder != "" {
			u[fieldDir], u[fieldFolder] = dirs, folder
		}
		if l.aliases != "" {
			u[fieldAliases] = l.aliases
		}
		if lead != "" {
			u[fieldLead] = lead
		}
		if l.names != "" {
			u[fieldNames] = l.names
		}
		out = append(out, u)
	}
	if tags := unitTags(d, len(out)); tags != "" {
		for _, u := range out {
			u[fieldTags] = tags
		}
	}
	return out
}

// layout is how a document is cut into units: the context every unit repeats and each unit's
// own part.
type layout struct {
	title   string // the document's title, cut to the unit's share
	aliases string // the aliases kept, one a line
	names   string // the name keys, one a line
	parts   []part
}

// part is one unit's own: its section's heading, the headings above it and its chunk of text.
type part struct {
	heading  string // the section's heading, cut to the unit's share
	headings string // the heading path (see headingPath)
	text     string // the chunk
	line     int    // the chunk's first line in the file
}

// layout cuts d into its units' parts: one per section, or more when a section is longer than
// the chunk size. A document without sections still gets one unit, so its title is found. Every
// unit repeats the document's context (its title, aliases and name keys, and the section's
// heading and the headings above it), each part cut to the unit's share of [MaxContextCopyBytes].
func (ix *Index) layout(d markdown.Doc) layout {
	sections := d.Sections
	if len(sections) == 0 {
		sections = []markdown.Section{{Line: 1}}
	}
	// The chunks first: their number sets each unit's share of the context.
	type piece struct {
		s      markdown.Section
		path   []string // the headings above s and its own, outermost first
		chunks []textChunk
	}
	var pieces []piece
	n := 0
	var stack []markdown.Section // heading path: the open headings of lower level
	for _, s := range sections {
		for len(stack) > 0 && stack[len(stack)-1].Level >= s.Level {
			stack = stack[:len(stack)-1]
		}
		if s.Level > 0 {
			stack = append(stack, s)
		}
		hp := make([]string, len(stack))
		for i, h := range stack {
			hp[i] = h.Heading
		}
		cs := chunk(joinMnemonics(s.Text), ix.chunk, ix.overlap)
		pieces = append(pieces, piece{s, hp, cs})
		n += len(cs)
	}

	share := contextShare(d.Size, n)
	l := layout{title: clip(d.Title, share), parts: make([]part, 0, n)}
	kept := keptAliases(d.Aliases, share)
	l.aliases = strings.Join(kept, "\n")
	l.names = strings.Join(nameKeys(l.title, d.Path, kept), "\n")
	for _, p := range pieces {
		hp := headingPath(p.path, share)
		heading := clip(p.s.Heading, share)
		for _, c := range p.chunks {
			l.parts = append(l.parts, part{heading: heading, headings: hp, text: c.text, line: p.s.Line + c.line})
		}
	}
	return l
}

// MaxContextCopyBytes is how many bytes of each part of a document's context its units may carry
// in all, whatever its size. Every unit repeats the document's title, its aliases (in the text,
// the aliases field and, as keys, the names field) and the headings above its section, which
// the ranking reads, and every chunk of a section repeats its heading: a note of long context
// and many units would cost their product (a note of one long heading or many aliases over
// thousands of sections took tens of GB to index: dev/bench/README.md, Hostile input). Each part
// gets, on every unit, an equal share of MaxContextCopyBytes or of one byte per contextCopyBytes of
// the document, whichever is more: the title, the section's heading and the headings above it (the
// innermost first) are cut at a word to the share, and the document keeps its first aliases that
// fit in it. What is cut is still in the document's text but is not searched as a title, alias,
// name or heading. Notes have little context: in the corpora, no note repeats more than 4 KB of any
// part over its units, so their units are those of before; a note of 500 sections keeps 32 bytes of
// each part on each unit, or more from 128 KB.
const MaxContextCopyBytes = 16 << 10

// contextCopyBytes is the bytes of a document that pay for one more byte of each part of its
// context on its units past MaxContextCopyBytes: the parts are analysed in five fields of a
// unit (the title in two, the aliases in three), each byte about as dearly as a byte of text,
// so the context costs at most some two thirds of what the document's text does.
const contextCopyBytes = 8

// contextShare returns the bytes of each part of the context each of a document's n units
// carries (see [MaxContextCopyBytes]).
func contextShare(size int64, n int) int {
	return int(max(MaxContextCopyBytes, size/contextCopyBytes) / int64(max(n, 1)))
}

// clip returns s if it is at most n bytes, else its longest prefix of at most n bytes that ends
// before white space, or at a rune boundary when no word ends within the last half of those
// bytes, so that a cut word does not make a term of its own.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := runeStart(s, n)
	if i := lastSpace(s[:cut+1]); i >= cut/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " \t\n\r")
}

// keptAliases returns the first of aliases that fit, joined by line breaks, in n bytes.
func keptAliases(aliases []string, n int) []string {
	used := 0
	for i, a := range aliases {
		if used += len(a) + min(i, 1); used > n {
			return aliases[:i]
		}
	}
	return aliases
}

// headingPath returns the headings of path, each followed by a line break, in at most n bytes:
// the innermost first, cut to what is left of n, and the outer ones left out once it is spent.
func headingPath(path []string, n int) string {
	var kept []string
	for i := len(path) - 1; i >= 0 && n > 1; i-- {
		h := clip(path[i], n-1)
		if h == "" {
			break
		}
		kept = append(kept, h)
		n -= len(h) + 1
	}
	var b strings.Builder
	for i := len(kept) - 1; i >= 0; i-- {
		b.WriteString(kept[i])
		b.WriteByte('\n')
	}
	return b.String()
}

// MaxTagCopies is how many tags a document's units may carry in all, whatever its size: each
// unit carries the document's tags, which the tag filter ([Query].Tags) and the ranking's tag
// bonus read, so a note of many tags and many units would cost their product (tens of GB to
// index for a note under 1 MB: dev/bench/README.md, Hostile input). A document keeps, on every
// unit, its first tags in the order it gives them, as many as fit in MaxTagCopies or in one copy
// per tagCopyBytes of the document, whichever is more; the tags past them are neither filtered nor
// ranked by. Notes carry a handful of tags: 32 tags over 32 units fit whatever the size, and 50
// tags over 200 units fit in a note of 40 KB.
const MaxTagCopies = 1024

// tagCopyBytes is the bytes of a document that pay for one more tag on its units past
// MaxTagCopies: a copy costs the index some hundreds of bytes, so the tags cost at most some tens of
// bytes per byte of the document, as its text does.
const tagCopyBytes = 4

// unitTags returns the tags each of a document's n units carries: its tags, lower-cased, one a
// line, as many as [MaxTagCopies] allows. A tag holding a line break (written in frontmatter) is
// left out: its lines would be terms of their own.
func unitTags(d markdown.Doc, n int) string {
	keep := len(d.Tags)
	if n > 0 {
		keep = min(keep, max(MaxTagCopies, int(d.Size/tagCopyBytes))/n)
	}
	var b strings.Builder
	for _, t := range d.Tags {
		if keep == 0 {
			break
		}
		if strings.Contains(t, "\n") {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.ToLower(t))
		keep--
	}
	return b.String()
}

// maxLead is the most bytes of a document's lead: a paragraph, not a page.
const maxLead = 500

// leadOf returns the first paragraph of d that is not a heading, at most maxLead bytes.
func leadOf(d markdown.Doc) string {
	for _, s := range d.Sections {
		for _, para := range strings.Split(joinMnemonics(s.Text), "\n\n") {
			para = strings.TrimSpace(para)
			if para == "" || strings.HasPrefix(para, "#") && !strings.Contains(para, "\n") {
				continue
			}
			if len(para) > maxLead {
				para = para[:runeStart(para, maxLead)]
			}
			return para
		}
	}
	return ""
}

// joinMnemonics removes the brackets of a bracketed run of letters glued to a word, as tldr pages
// mark mnemonics ("E[x]tract", "[f]ile", "Lis[t]"), so the word is indexed whole and not as
// "e", "x", "tract". A bracketed run standing alone ("[link]", "[[note]]") is left as it is.
func joinMnemonics(s string) string {
	if !strings.Contains(s, "]") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			j := i + 1
			for j < len(s) && j-i <= maxMnemonic && isLetter(s[j]) {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == ']' &&
				(i > 0 && isLetter(s[i-1]) || j+1 < len(s) && isLetter(s[j+1])) {
				b.WriteString(s[i+1 : j])
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// maxMnemonic is the longest bracketed run joinMnemonics joins: tldr marks one to a few letters.
const maxMnemonic = 4

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// The folder filter ([Query].Prefix) matches a folder the ordinary way by a term: each unit
// carries its ancestor folders (fieldDir), so a search under a folder of 20,000 subfolders looks
// up one term. A unit carries only the ancestors of up to maxDirDepth levels and maxDirBytes
// bytes, though: every ancestor of every unit cost depth times the units, so a note of many
// sections deep in folders took GB to index (dev/bench/README.md, Hostile input). A folder past
// those bounds, which holds few folders in practice, is matched by the prefix of the document's
// folder (fieldFolder) instead, a lookup of every folder below it.
const (
	maxDirDepth = 16
	maxDirBytes = 256
)

// dirTerm reports whether the folder p (slash path, no final slash) is matched by a term of
// fieldDir, within the bounds above; else by the prefix of fieldFolder.
func dirTerm(p string) bool {
	return len(p) <= maxDirBytes && strings.Count(p, "/") < maxDirDepth
}

// folderTerms returns the ancestor folders of the slash path p that dirTerm matches, one a line:
// "a/b/c.md" gives "a\na/b".
func folderTerms(p string) string {
	var b strings.Builder
	for i := 1; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if !dirTerm(p[:i]) {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p[:i])
	}
	return b.String()
}

// folderKey is the folder of the slash path p with a final slash ("a/b/c.md" gives "a/b/"), or ""
// at the top: a search under "a" matches the prefix "a/", which "ab/" does not share.
func folderKey(p string) string {
	if d := path.Dir(p); d != "." && d != "/" {
		return d + "/"
	}
	return ""
}

// textChunk is one piece of a section, starting at byte start after line newlines.
type textChunk struct {
	text        string
	start, line int
}

// chunk splits text into pieces of at most size bytes that overlap by about overlap bytes. It
// cuts at whitespace when it can and always at a rune boundary, so every piece is valid UTF-8
// when text is.
func chunk(text string, size, overlap int) []textChunk {
	if len(text) <= size {
		return []textChunk{{text: text}}
	}
	var out []textChunk
	start, line := 0, 0
	for {
		end := start + size
		if end >= len(text) {
			out = append(out, textChunk{text: text[start:], start: start, line: line})
			return out
		}
		// Cut after the last whitespace of the window, but not in its first half.
		cut := lastSpace(text[start+size/2 : end])
		if cut >= 0 {
			end = start + size/2 + cut + 1
		} else {
			end = runeStart(text, end)
		}
		out = append(out, textChunk{text: text[start:end], start: start, line: line})
		next := end - overlap
		if s := firstSpace(text[next:end]); s >= 0 {
			next += s + 1 // start the overlap at a word
		}
		next = runeStart(text, next)
		if next <= start {
			next = end
		}
		line += strings.Count(text[start:next], "\n")
		start = next
	}
}

func lastSpace(s string) int {
	return strings.LastIndexAny(s, " \t\n\r")
}

func firstSpace(s string) int {
	return strings.IndexAny(s, " \t\n\r")
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
