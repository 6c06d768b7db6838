package fulltext

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
)

// Stamp identifies a file's version for reconciling the index with the files.
type Stamp struct {
	Size    int64
	ModTime time.Time
}

// Equal reports whether s and o name the same version of a file: the same size and modification time.
func (s Stamp) Equal(o Stamp) bool { return s.Size == o.Size && s.ModTime.Equal(o.ModTime) }

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

// load reads every meta record into ix.docs.
func (ix *Index) load() error {
	return ix.eachMeta(false, func(p, stamp, _ string) {
		st, ok := parseStamp(stamp)
		if p == "" || !ok {
			return // unreadable record: the next reconcile re-indexes the file
		}
		ix.hold(p, st)
	})
}

// hold records the document at p in docs and, when it is new, in the counts of its folders. The
// caller holds docsMu, or is alone with ix.
func (ix *Index) hold(p string, st docState) {
	if _, ok := ix.docs[p]; !ok {
		ix.countFolders(p, 1)
	}
	ix.docs[p] = st
}

// drop forgets the document at p, as hold does.
func (ix *Index) drop(p string) {
	if _, ok := ix.docs[p]; ok {
		ix.countFolders(p, -1)
		delete(ix.docs, p)
	}
}

// countFolders adds by to the count of every folder p is below.
func (ix *Index) countFolders(p string, by int) {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] != '/' {
			continue
		}
		// A key shares the bytes of a path below it: at most one path a folder, most of them
		// held by docs anyway.
		if n := ix.folders[p[:i]] + by; n > 0 {
			ix.folders[p[:i]] = n
		} else {
			delete(ix.folders, p[:i])
		}
	}
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
		if fsroot.Within(p, name) {
			out = append(out, p)
		}
	}
	return out
}

// CountUnder counts the indexed documents at or below name (every one for ".") that keep
// accepts, given their path and stamp; every one when keep is nil, which costs no pass over them.
func (ix *Index) CountUnder(name string, keep func(p string, st Stamp) bool) int {
	ix.docsMu.RLock()
	defer ix.docsMu.RUnlock()
	if keep == nil {
		if name == "." {
			return len(ix.docs)
		}
		n := ix.folders[name]
		if _, ok := ix.docs[name]; ok {
			n++
		}
		return n
	}
	n := 0
	for p, st := range ix.docs {
		if fsroot.Within(p, name) && keep(p, st.stamp()) {
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
