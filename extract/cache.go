package extract

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// Timeout bounds one document's extraction, whatever its caller's deadline: a document that
// takes longer is refused, so one hostile file cannot hold a search or the index build.
const Timeout = 20 * time.Second

// maxCachedBytes bounds the rendered text the cache holds: a model paging through a long PDF
// reads it again with each call, and the index and search_content read the same files.
const maxCachedBytes = 32 << 20

// Extracted is a document's text as the tools hand it to a model: rendered (see
// [Document.Render]), with where each page, slide, sheet or chapter begins, and the document's
// properties. It is shared: callers must not change it.
type Extracted struct {
	Text  string
	Marks []Mark
	// Doc holds the document's properties and counts; its Parts are dropped once rendered.
	Doc Document
}

// Read gives the text of data, a document of extension ext, from the cache when the same bytes
// were read before (the cache is keyed by their SHA-256, so a changed file is read anew and what
// it was ages out), else extracted within Timeout and kept. Errors are not kept: a document that
// failed under load may be read next time.
func Read(ctx context.Context, data []byte, ext string) (*Extracted, error) {
	return ReadStored(ctx, "", data, ext, nil)
}

// Store keeps extracted texts across restarts, by the file they are of: what its caller keeps on
// disk. Load returns the text kept for name if it is of the bytes whose SHA-256 is sum; Save keeps
// x for name, replacing what was kept for it.
type Store interface {
	Load(name string, sum [sha256.Size]byte, ext string) (*Extracted, bool)
	Save(name string, sum [sha256.Size]byte, ext string, x *Extracted)
}

// ReadStored is [Read] for the file name, with store (if not nil) between the cache and an
// extraction: a text the store kept for these bytes is not extracted again, and one extracted is
// kept there.
func ReadStored(ctx context.Context, name string, data []byte, ext string, store Store) (*Extracted, error) {
	k := cacheKey{sha256.Sum256(data), ext}
	if x := cache.get(k); x != nil {
		return x, nil
	}
	if store != nil {
		if x, ok := store.Load(name, k.sum, ext); ok {
			cache.put(k, x)
			return x, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	d, err := Text(ctx, data, ext)
	if err != nil {
		return nil, err
	}
	text, marks := d.Render(ext)
	d.Parts = nil
	x := &Extracted{Text: text, Marks: marks, Doc: *d}
	cache.put(k, x)
	if store != nil {
		store.Save(name, k.sum, ext, x)
	}
	return x, nil
}

type cacheKey struct {
	sum [sha256.Size]byte
	ext string
}

// lru is a cache of extracted texts bounded by their bytes, least recently used out first.
type lru struct {
	mu    sync.Mutex
	max   int
	bytes int
	order *list.List // of *cached, most recent at the front
	items map[cacheKey]*list.Element
}

type cached struct {
	key cacheKey
	x   *Extracted
}

var cache = newLRU(maxCachedBytes)

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: map[cacheKey]*list.Element{}}
}

func (c *lru) get(k cacheKey) *Extracted {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*cached).x
}

// put keeps x unless it alone is larger than the cache, dropping the least recently used texts
// until it fits.
func (c *lru) put(k cacheKey, x *Extracted) {
	size := len(x.Text)
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.order.PushFront(&cached{k, x})
	c.bytes += size
	for c.bytes > c.max {
		old := c.order.Remove(c.order.Back()).(*cached)
		delete(c.items, old.key)
		c.bytes -= len(old.x.Text)
	}
}
