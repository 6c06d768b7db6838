package search

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/packfs/packfs-mcp/intents"
)

// A list or a search_content that stops before the end of its walk (its page filled, or its time
// ran out) answers a nextOffset. A call for that offset with the same criteria goes on from the
// file where the walk stopped instead of walking again from the start, so that a search of a big
// tree that runs out of time gets further with every call rather than stopping at the same file.
// That holds for offset 0 too: a search that ran out of time before it found anything goes on
// where it stopped when called again, since the files it skips gave no results. The server
// remembers the last few such places for ten minutes, and forgets them all when the writer
// changes a file; a call it has no place for (after a restart, or with other criteria) walks from
// the start and skips offset results.

// maxResumes is how many stopping places a root remembers.
const maxResumes = 16

// ResumeTTL is how long a root remembers where a walk stopped.
const ResumeTTL = 10 * time.Minute

// Resumes remembers where recent walks stopped.
type Resumes struct {
	mu     sync.Mutex
	places []resume // oldest first
}

// A resume is where a walk stopped: the criteria it walked by, how many results it had given,
// the last file it finished, in walk order, how many files it had searched, and when.
type resume struct {
	key      string
	offset   int
	after    string
	searched int
	when     time.Time
}

// at returns where a walk for key resumes at offset, if one stopped there since now-ResumeTTL.
func (r *Resumes) at(key string, offset int, now time.Time) (resume, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.places {
		if p.key == key && p.offset == offset && now.Sub(p.when) < ResumeTTL {
			return p, true
		}
	}
	return resume{}, false
}

// put remembers where a walk stopped.
func (r *Resumes) put(p resume) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, q := range r.places {
		if q.key == p.key && q.offset == p.offset {
			r.places = append(r.places[:i], r.places[i+1:]...)
			break
		}
	}
	if len(r.places) == maxResumes {
		r.places = r.places[1:]
	}
	r.places = append(r.places, p)
}

// Forget drops every place: a write may have changed the files a walk went past.
func (r *Resumes) Forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.places = nil
}

// resumeKey is what a walk's results depend on besides its offset and page size: the purpose,
// the folder, the query and every other option.
func resumeKey(name string, in intents.Discover) string {
	o := in.Options
	o.Offset, o.MaxResults = 0, 0
	b, err := json.Marshal(struct {
		Purpose, Path, Query string
		Options              intents.DiscoverOptions
	}{in.Purpose, name, in.Target.Query, o})
	if err != nil {
		return "" // never resumed
	}
	return string(b)
}

// A cursor is where a walk starts and how far it got, in walk order: it visits only the files
// after after, and at is the last file it finished.
type cursor struct {
	after, at string
}

// before reports whether a walk resuming after c.after has already been past the entry at p: a
// file at or before it, or a folder wholly before it.
func (c *cursor) before(p string, dir bool) bool {
	if c == nil || c.after == "" {
		return false
	}
	if dir {
		return !strings.HasPrefix(c.after, p+"/") && WalkOrder(p, c.after)
	}
	return !WalkOrder(c.after, p)
}

// done records that the walk finished the file at p, unless its time ran out while it read it.
func (c *cursor) done(ctx context.Context, p string) {
	if c != nil && ctx.Err() == nil {
		c.at = p
	}
}

// walkBudget returns ctx with a deadline a little before its own, so that a walk that runs out of
// time still answers what it found before the call's deadline cuts it off: a tenth of the time
// left is kept for the answer, at least 100 ms (or a quarter of a short deadline) and at most a
// second.
func walkBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	left := time.Until(d)
	keep := min(max(left/10, min(left/4, 100*time.Millisecond)), time.Second)
	return context.WithDeadline(ctx, d.Add(-keep))
}
