package semantic

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
)

// Results is what a semantic search returns.
type Results struct {
	Hits    []fulltext.Hit
	Related []RelatedHit
	Total   int
	// Unknown are the words of the query and its paraphrases that no indexed document
	// contains (see [Index.UnknownWords]); only told once the index is complete, since a word
	// may be in a file not indexed yet.
	Unknown []string
	// Coverage says how much of the tree the answer covers.
	Coverage Coverage
	// Lists are the index's ranked lists the hits were fused from, for [Merge] to merge with
	// other engines' ([SearchSeveral]); nil when a hit comes from a file read directly, which is
	// in none, or when no index is open.
	Lists *fulltext.Lists
}

// RelatedHit is a document one hop from the top hits through links, backlinks or frontmatter
// relations, kept apart from the ranking.
type RelatedHit struct {
	Path, Title string
	Via         string // how it was reached (see [markdown.Neighbour])
	From        string // the hit it was reached from
	Score       float64
}

// Search runs a ranked search. Every hit is checked again against the files and the policy before it
// is returned, so a file deleted, replaced or newly blocked since it was indexed is never shown.
// While the index is incomplete, the files it does not hold yet are read directly for up to
// [ScanBudget] (see [Coverage]).
func (e *Engine) Search(ctx context.Context, q fulltext.Query, follow bool) (Results, error) {
	want := fulltext.Wanted(q.Max)
	q.Max = want + want/2 + 2 // room for hits dropped by the re-check
	// One budget for waiting on the open and reading unindexed files: on a restart of a big tree
	// both are slow, and a budget each would double the wait (dev/bench/README.md, Other timings).
	deadline := time.Now().Add(ScanBudget)
	e.awaitOpen(ctx, deadline)
	indexed := e.done.Load() // before the index is read: see eachUnindexed
	out := Results{Coverage: e.Coverage()}
	if ix := e.index(); ix != nil {
		// Snippets are made only for the hits returned, after the re-check.
		found, err := ix.SearchChecked(ctx, q, e.current, want)
		if err != nil {
			return Results{}, err
		}
		out.Hits, out.Total, out.Lists = found.Hits, max(found.Total, len(found.Hits)), &found.Lists
		if out.Coverage.Complete {
			if out.Unknown, err = ix.UnknownWords(append([]string{q.Text}, q.Paraphrases...)...); err != nil {
				return Results{}, err
			}
		}
	} else if err := e.failed.Load(); err != nil {
		return Results{}, fmt.Errorf("%w: %v", ErrIndexUnavailable, *err)
	}
	if !out.Coverage.Complete {
		scanned, n, exhausted := e.scanUnindexed(ctx, q, indexed, deadline)
		out.Coverage.Scanned, out.Coverage.Unread = n, !exhausted
		out.Total += len(scanned)
		out.Hits = mergeHits(out.Hits, scanned, want)
		if len(scanned) > 0 {
			out.Lists = nil // the hits of files read directly are in no list
		}
	}
	if follow {
		out.Related = e.related(out.Hits)
	}
	return out, nil
}

// awaitOpen waits, until the deadline, for the open of the index if one is under way. A
// persisted index opens in a small part of the budget; a search that did not wait read the files
// directly instead, for its whole budget, so the first search after a restart was many times
// slower than the index's answer (dev/bench/README.md, Other timings).
func (e *Engine) awaitOpen(ctx context.Context, deadline time.Time) {
	if ch := e.opening.Load(); ch != nil {
		await(ctx, *ch, deadline)
	}
}

// awaiting, if set, runs when await is about to wait: tests learn from it that a call reached the
// wait. Always nil outside tests.
var awaiting func()

// await waits until ch is closed, ctx ends or the deadline passes.
func await(ctx context.Context, ch <-chan struct{}, deadline time.Time) {
	select {
	case <-ch:
		return // long ago, for every call but the first few
	default:
	}
	if awaiting != nil {
		awaiting()
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-ch:
	case <-ctx.Done():
	case <-t.C:
	}
}

// current reports whether path is still a regular file the policy allows.
func (e *Engine) current(p string) bool {
	if !e.opts.Allow(p, false) {
		return false
	}
	info, err := fs.Stat(e.opts.FS, p)
	return err == nil && info.Mode().IsRegular()
}

// related walks one hop from the hits. A neighbour reached from several hits adds up their scores,
// and a hub (a document linked with everything) is damped by the log of its degree, so the list
// favours documents specific to these hits.
func (e *Engine) related(hits []fulltext.Hit) []RelatedHit {
	inHits := make(map[string]bool, len(hits))
	for _, h := range hits {
		inHits[h.Path] = true
	}
	byPath := map[string]*RelatedHit{}
	for _, h := range hits {
		for _, n := range e.graph.Neighbours(h.Path) {
			if inHits[n.Path] || !e.current(n.Path) {
				continue
			}
			s := h.Score / math.Log2(2+float64(e.graph.Degree(n.Path)))
			if r, ok := byPath[n.Path]; ok {
				r.Score += s
				continue
			}
			d, _ := e.graph.Doc(n.Path)
			byPath[n.Path] = &RelatedHit{Path: n.Path, Title: d.Title, Via: n.Via, From: h.Path, Score: s}
		}
	}
	out := make([]RelatedHit, 0, len(byPath))
	for _, r := range byPath {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	if len(out) > maxRelated {
		out = out[:maxRelated]
	}
	return out
}

// Candidates narrows a literal content search to the files that may contain it; ok is false when
// the index cannot say (it is still building, or the literal is not made of whole ASCII words), and
// the caller must scan every file. Only files at or below the folder under are returned ("." for
// all); ok is also false when finding them would cost more than most records of the index (see
// [fulltext.Index.Candidates]).
func (e *Engine) Candidates(ctx context.Context, literal, under string, most int) ([]string, bool, error) {
	if !e.complete.Load() {
		return nil, false, nil
	}
	paths, ok, err := e.index().Candidates(ctx, literal, under, most)
	if !ok || err != nil {
		return nil, false, err
	}
	e.mu.Lock()
	for p := range e.scan {
		if fsroot.Within(p, under) {
			paths = append(paths, p)
		}
	}
	e.mu.Unlock()
	sort.Strings(paths)
	return slices.Compact(paths), true, nil
}

// Covered counts the files at or below name that a content search narrowed by [Engine.Candidates]
// covers, the ones keep accepts by path and stamp: the indexed documents, whose words the index
// vouches for, and the files too large to index, which the candidates always include. A nil keep
// accepts every file, and costs no pass over the index's documents.
func (e *Engine) Covered(name string, keep func(p string, st fulltext.Stamp) bool) int {
	ix := e.index()
	if ix == nil {
		return 0
	}
	n := ix.CountUnder(name, keep)
	e.mu.Lock()
	var always []string
	for p := range e.scan {
		if fsroot.Within(p, name) {
			always = append(always, p)
		}
	}
	e.mu.Unlock()
	for _, p := range always {
		if ix.Holds(p) {
			continue // counted above
		}
		if keep == nil {
			n++
		} else if info, err := fs.Stat(e.opts.FS, p); err == nil && keep(p, fulltext.Stamp{Size: info.Size(), ModTime: info.ModTime()}) {
			n++
		}
	}
	return n
}
