package fulltext

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	index "github.com/blevesearch/bleve_index_api"
)

// dfCacheMax bounds the document frequencies kept between searches; past it the cache starts
// afresh, so memory stays bounded however many distinct words are searched.
const dfCacheMax = 1 << 16

// dfCache keeps the document frequencies that searches read to weigh their terms, and the
// record count, so that a word searched again (or drawn again as a feedback term) costs a map
// look-up instead of a term reader over every segment. The numbers are the index's own: every
// batch bumps the generation, before and after it applies, and an entry is only ever served
// under the generation that was current before the reader that computed it was opened. Merges
// of segments do not change them, since bleve counts neither deleted nor merged-away records.
type dfCache struct {
	gen atomic.Uint64

	mu    sync.Mutex
	at    uint64 // generation of what is held
	total uint64
	known bool // total is held
	df    map[dfKey]uint64
}

type dfKey struct{ field, term string }

// invalidate starts a new generation: what is held is dropped at the next use.
func (c *dfCache) invalidate() { c.gen.Add(1) }

// generation returns the current generation; read it before opening the reader whose numbers
// are to be stored.
func (c *dfCache) generation() uint64 { return c.gen.Load() }

// sync drops what is held if it belongs to another generation than gen, and reports whether
// gen is current. Call with c.mu held.
func (c *dfCache) sync(gen uint64) bool {
	if gen != c.gen.Load() {
		return false
	}
	if c.at != gen || len(c.df) > dfCacheMax {
		c.at, c.known, c.df = gen, false, nil
	}
	return true
}

// lookup returns the record count and the frequencies held for gen, filling out with the
// frequencies of keys it holds; missing lists the keys it lacks.
func (c *dfCache) lookup(gen uint64, keys []dfKey, out []uint64) (total uint64, known bool, missing []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sync(gen) {
		missing = make([]int, len(keys))
		for i := range keys {
			missing[i] = i
		}
		return 0, false, missing
	}
	for i, k := range keys {
		n, ok := c.df[k]
		if !ok {
			missing = append(missing, i)
			continue
		}
		out[i] = n
	}
	return c.total, c.known, missing
}

// store records the record count and the frequencies of keys, read from a reader opened under
// gen, if gen is still current.
func (c *dfCache) store(gen uint64, total uint64, keys []dfKey, df []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sync(gen) {
		return
	}
	c.total, c.known = total, true
	if c.df == nil {
		c.df = make(map[dfKey]uint64, len(keys))
	}
	for i, k := range keys {
		c.df[k] = df[i]
	}
}

// Stats are the numbers BM25 weighs a term by: how many records an index holds and, by field and
// term, how many of them hold the term. [Index.Stats] gives an index's own; the sums of several
// indexes' ([Stats.Add]) weigh their terms as one index of all their records would, so that their
// scores compare (see [Query].Stats).
type Stats struct {
	Records uint64
	DF      map[string]map[string]uint64 // field, term
}

// Add adds o's numbers to st's.
func (st *Stats) Add(o Stats) {
	st.Records += o.Records
	if st.DF == nil {
		st.DF = make(map[string]map[string]uint64, len(o.DF))
	}
	for f, terms := range o.DF {
		m := st.DF[f]
		if m == nil {
			m = make(map[string]uint64, len(terms))
			st.DF[f] = m
		}
		for t, n := range terms {
			m[t] += n
		}
	}
}

// StatsFunc returns the statistics of terms in fields (see [Query].Stats).
type StatsFunc func(terms []string, fields ...string) (Stats, error)

// Stats returns the index's statistics of terms in fields.
func (ix *Index) Stats(terms []string, fields ...string) (Stats, error) {
	gen := ix.dfs.generation()
	r, err := ix.reader()
	if err != nil {
		return Stats{}, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	st, err := ix.stats(r, gen, nil, terms, fields...)
	if err != nil {
		return Stats{}, err
	}
	return Stats{Records: st.total, DF: st.df}, nil
}

// termStats holds the document frequencies of a query's terms, to weigh them as bleve would.
type termStats struct {
	total uint64
	df    map[string]map[string]uint64 // field, term
	// global holds the numbers the terms are weighed by when they are not the index's own (see
	// Query.Stats), or is nil.
	global *Stats
}

// stats reads the document frequency of every term in every field from r, which must have
// been opened under generation gen of ix.dfs; the numbers already read under gen come from the
// cache. Unless global is nil, it also holds what global says of them, for weight.
func (ix *Index) stats(r index.IndexReader, gen uint64, global StatsFunc, terms []string, fields ...string) (*termStats, error) {
	keys := make([]dfKey, 0, len(terms)*len(fields))
	for _, f := range fields {
		for _, t := range terms {
			keys = append(keys, dfKey{f, t})
		}
	}
	df := make([]uint64, len(keys))
	total, known, missing := ix.dfs.lookup(gen, keys, df)
	if !known || len(missing) > 0 {
		var err error
		if !known {
			if total, err = r.DocCount(); err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
		}
		read := make([]dfKey, len(missing))
		counts := make([]uint64, len(missing))
		for j, i := range missing {
			k := keys[i]
			tfr, err := r.TermFieldReader(context.Background(), []byte(k.term), k.field, false, false, false)
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			df[i] = tfr.Count()
			tfr.Close()
			read[j], counts[j] = k, df[i]
		}
		ix.dfs.store(gen, total, read, counts)
	}
	st := &termStats{total: total, df: make(map[string]map[string]uint64, len(fields))}
	for i, k := range keys {
		m := st.df[k.field]
		if m == nil {
			m = make(map[string]uint64, len(terms))
			st.df[k.field] = m
		}
		m[k.term] = df[i]
	}
	if global != nil {
		g, err := global(terms, fields...)
		if err != nil {
			return nil, err
		}
		st.global = &g
	}
	return st, nil
}

// idf is bleve's BM25 idf of term in field in this index, and false when no record has it there:
// what bleve weighs the term by.
func (st *termStats) idf(field, term string) (float64, bool) {
	return bm25IDF(st.total, st.df[field][term])
}

// weight is the idf of term in field that a search weighs it by: in the global statistics if
// there are any, else in this index (idf).
func (st *termStats) weight(field, term string) (float64, bool) {
	if st.global == nil {
		return st.idf(field, term)
	}
	return bm25IDF(st.global.Records, st.global.DF[field][term])
}

// records is the number of records the weights count (see weight).
func (st *termStats) records() uint64 {
	if st.global == nil {
		return st.total
	}
	return st.global.Records
}

// docs is the number of records holding term in field that the weights count (see weight).
func (st *termStats) docs(field, term string) uint64 {
	if st.global == nil {
		return st.df[field][term]
	}
	return st.global.DF[field][term]
}

// bm25IDF is bleve's BM25 idf of a term n of total records hold, and false when n is 0.
func bm25IDF(total, n uint64) (float64, bool) {
	if n == 0 {
		return 0, false
	}
	return math.Log(1 + (float64(total)-float64(n)+0.5)/(float64(n)+0.5)), true
}
