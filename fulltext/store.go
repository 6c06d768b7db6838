package fulltext

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/packfs/packfs-mcp/markdown"
)

// reader opens a snapshot of the index for reading; the caller closes it.
func (ix *Index) reader() (bindex.IndexReader, error) {
	return ix.bi.Reader()
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
		ix.hold(p, st)
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
		ix.drop(p)
		delete(ix.copies, p)
	}
	ix.docsMu.Unlock()
	return nil
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
