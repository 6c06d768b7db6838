package semantic

import (
	"sync"
	"sync/atomic"
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
