package semantic

import (
	"bytes"
	"context"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// While the index is being built, a search must not answer "nothing found" for files it has not
// looked at. It ranks what is indexed as usual, and reads the files not yet indexed directly,
// for as long as [ScanBudget] allows, scoring them roughly: by the share of each phrasing's
// terms they contain (analysed as the index analyses them), with a bonus for the title and the
// file name. [Coverage] says how much of the tree the answer covers.

// ScanBudget bounds the time one search spends waiting for the index to open and reading files
// the index does not hold yet: long enough to read thousands of small files, short enough that an
// agent gets an answer at once and can search again when the index is complete.
const ScanBudget = time.Second

// Coverage says how much of the tree a search's answer covers.
type Coverage struct {
	// Complete says the index held every file: the ranking is the full one.
	Complete bool
	// Indexed and Total are the build's progress when the search ran (see [Progress]); Total is
	// the count so far while Counting.
	Indexed, Total int
	Counting       bool
	// FromDisk counts, before the build has checked them, the documents the index persisted by an
	// earlier run holds: a restart ranks from them at once, though some may have changed since.
	FromDisk int
	// Scanned counts the files not yet indexed that the search read directly.
	Scanned int
	// Unread says some files were neither indexed nor read by the search: it may miss them.
	Unread bool
	// Left estimates the time until the index is complete; 0 when unknown.
	Left time.Duration
}

// scanUnindexed reads the files the index does not hold yet, until the deadline, and returns those
// that match q, best first. exhausted reports that it read every such file.
//
// indexed is the number of files the build had indexed before the caller read the index (see
// eachUnindexed).
func (e *Engine) scanUnindexed(ctx context.Context, q fulltext.Query, indexed int64, deadline time.Time) (hits []fulltext.Hit, scanned int, exhausted bool) {
	sq := fulltext.NewScanQuery(q)
	if sq.Empty() {
		return nil, 0, true
	}
	visit := func(name string) bool {
		scanned++
		if h, ok := e.scanFile(name, sq); ok {
			hits = append(hits, h)
		}
		return true
	}
	exhausted = e.eachUnindexed(ctx, sq, indexed, deadline, nil, visit)
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits, scanned, exhausted
}

// eachUnindexed calls visit for each file under prefix that the index does not hold yet, until
// visit returns false, ctx ends or the deadline passes; it reports whether it went through them
// all. Files whose name holds a term of the query come first, since a page the agent names is the
// one it most wants. During the build's indexing phase the files are those the build has not
// reached; before it, a walk finds them, and the deadline bounds the walk too: on a restart the
// index holds nearly every file, and walking 384,000 of them to find the few it does not took
// seconds. The walk passes over the files held reports, or when held is nil those the index holds.
// During indexing, the files visited are those from indexed on, the count of files the build had
// indexed when the caller read the index: a batch committed between the caller's read and this
// visit is in neither, unless visited here.
func (e *Engine) eachUnindexed(ctx context.Context, sq *fulltext.ScanQuery, indexed int64, deadline time.Time, held func(string) bool, do func(string) bool) bool {
	late := func() bool { return ctx.Err() != nil || time.Now().After(deadline) }
	visit := func(p string) bool { return !late() && do(p) }
	prefix := sq.Prefix()
	under := func(p string) bool {
		return prefix == "" || fsroot.Within(p, prefix)
	}
	var later []string // files whose name holds no query term, visited after the others
	first := func(p string) bool {
		if !sq.Named(p) {
			later = append(later, p)
			return true
		}
		return visit(p)
	}
	rest := func() bool {
		for _, p := range later {
			if !visit(p) {
				return false
			}
		}
		return !late()
	}
	if pf := e.pending.Load(); pf != nil {
		from := int(indexed - pf.base)
		for _, p := range pf.files[min(max(from, 0), len(pf.files)):] {
			if under(p) && !first(p) {
				return false
			}
		}
		return rest()
	}
	if w := e.unheld.Load(); w != nil && held == nil {
		return e.eachWalked(w, under, first, rest, late)
	}
	if held == nil {
		ix := e.index()
		held = func(p string) bool { return ix != nil && ix.Holds(p) }
	}
	dir := "."
	if prefix != "" {
		dir = prefix
	}
	stopped := false
	fs.WalkDir(e.opts.FS, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if late() {
			stopped = true
			return fs.SkipAll
		}
		// A file held is passed over before the policy judges it: on a restart that is nearly
		// every file.
		if !d.IsDir() && held(p) {
			return nil
		}
		if ok, err := e.admit(p, d); !ok {
			return err
		}
		if !first(p) {
			stopped = true
			return fs.SkipAll
		}
		return nil
	})
	return !stopped && rest()
}

// catchUp is how long a search that has read every file the build's walk has found so far waits
// for it to find more: on a restart the walk finds almost nothing the index does not hold, and
// waiting for it to end (seconds on a large tree) would only delay an answer that is partial
// either way.
const catchUp = 50 * time.Millisecond

// eachWalked is eachUnindexed while the build walks the tree: it visits the files the walk has
// found that the index does not hold, as the walk finds them, rather than walking the tree again.
func (e *Engine) eachWalked(w *walkedFiles, under func(string) bool, first func(string) bool, rest func() bool, late func() bool) bool {
	var idle time.Duration
	for i := 0; ; {
		paths, done := w.from(i)
		i += len(paths)
		for _, p := range paths {
			if under(p) && !first(p) {
				return false
			}
		}
		switch {
		case done:
			return rest()
		case late():
			return false
		case len(paths) > 0:
			idle = 0
		case idle >= catchUp:
			return false
		default:
			time.Sleep(5 * time.Millisecond)
			idle += 5 * time.Millisecond
		}
	}
}

// scanFile reads name and scores it against sq; ok is false when it does not match or cannot be
// read as text.
func (e *Engine) scanFile(name string, sq *fulltext.ScanQuery) (fulltext.Hit, bool) {
	src, info, err := e.readText(name, func(info fs.FileInfo) bool { return sq.Admits(name, info) })
	if err != nil || !sq.MayMatch(name, src) {
		return fulltext.Hit{}, false
	}
	return sq.Match(markdown.Parse(name, src, info.ModTime()))
}

// mergeHits merges the index's hits with those of a scan, best first by score, each path once
// (the index's hit wins), at most want of them.
func mergeHits(indexed, scanned []fulltext.Hit, want int) []fulltext.Hit {
	seen := make(map[string]bool, len(indexed))
	out := slices.Clone(indexed)
	for _, h := range indexed {
		seen[h.Path] = true
	}
	for _, h := range scanned {
		if !seen[h.Path] {
			seen[h.Path] = true
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > want {
		out = out[:want]
	}
	return out
}

// ReadLinksTo, while the index is being built, reads the files not yet indexed that mention the
// document at name (its file name without the extension, or one of its aliases), for up to
// [ScanBudget], and puts them in the graph, so that [Engine.Relations] tells their links to it
// too. The coverage says whether every file not yet indexed was looked at (Unread false). For a
// name that is not a document (hidden, gone, binary or too large) it reads nothing more.
//
// The files it passes over are those in the graph, not those the index holds: on a restart the
// graph is loaded from the index while the build walks the tree, and until then a file the index
// holds may have links the graph does not know. It waits for that load within its budget.
func (e *Engine) ReadLinksTo(ctx context.Context, name string) Coverage {
	if cv := e.Coverage(); cv.Complete {
		return cv
	}
	deadline := time.Now().Add(ScanBudget)
	if e.index() != nil {
		await(ctx, e.graphLoaded, deadline)
	}
	cv := e.Coverage()
	if cv.Complete {
		return cv
	}
	needles := [][]byte{bytes.ToLower([]byte(strings.TrimSuffix(path.Base(name), path.Ext(name))))}
	// Its aliases, from the graph: Relations would read the document for its URLs, which the
	// caller's own Relations does next. A document the build has not reached is read here to put
	// it in the graph, and so read twice by a relationships call.
	d, ok := e.graph.Doc(name)
	if !ok && e.opts.Allow(name, false) {
		var err error
		if d, err = e.read(name); err == nil {
			ok = true
			e.graph.Put(d.Outline())
		}
	}
	if !ok {
		return cv // not a document: nothing links to it that Relations could tell
	}
	for _, a := range d.Aliases {
		needles = append(needles, bytes.ToLower([]byte(a)))
	}
	// An empty query: every file not yet indexed, in the build's order. The count is read only
	// now, unlike Search's: what the caller reads next is the graph, and the build puts a file in
	// the graph before it counts it done, so the files counted during the wait above are not
	// read again.
	indexed := e.done.Load()
	exhausted := e.eachUnindexed(ctx, &fulltext.ScanQuery{}, indexed, deadline, e.graph.Has, func(p string) bool {
		cv.Scanned++
		if p == name {
			return true
		}
		src, info, err := e.readText(p, nil)
		if err != nil {
			return true
		}
		lower := bytes.ToLower(src)
		if slices.ContainsFunc(needles, func(n []byte) bool { return len(n) > 0 && bytes.Contains(lower, n) }) {
			d := markdown.Parse(p, src, info.ModTime())
			e.graph.Put(d.Outline())
		}
		return true
	})
	cv.Unread = !exhausted
	return cv
}
