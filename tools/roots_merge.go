package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
)

// several runs a call about several paths (field: target.paths, or target.reads) on the roots they
// are in, one call per root, and answers as one root would: one entry per path from offset on, in
// the order given, each with its own success or error. with returns the call's arguments for the
// paths of one root, given their places in paths (idx) and their paths within the root.
// A read shares one MaxContentBytes among all its files, each cut to what the files before it
// left, as one root's read does: so it runs one call per run of consecutive paths in one root, in
// the order given, each told what the runs before it spent (call.spent).
func (r *Roots) several(ctx context.Context, c *call, roots []*Server, field string, paths []string, offset int,
	with func(idx []int, paths []string, offset int) any, h func(*Server) handlerFunc) (any, error) {
	type group struct {
		s    *Server
		idx  []int
		rest []string
	}
	var groups []*group
	failed := map[int]result.Status{}
	for i, p := range paths {
		name := fmt.Sprintf("%s[%d]", field, i)
		s, rest, err := route(roots, p, name)
		if err == nil && s == nil {
			err = &errs.Error{Code: errs.CodeIsDir, Field: name, Msg: "\".\" is the folder of roots: name a file inside one"}
		}
		if err != nil {
			failed[i] = errs.Status(err, "", identity)
			continue
		}
		k := slices.IndexFunc(groups, func(g *group) bool { return g.s == s })
		if c.tool == ReaderName {
			if k = len(groups) - 1; k >= 0 && groups[k].s != s {
				k = -1 // a run of its own, told what the runs before it spent
			}
		}
		if k < 0 {
			k, groups = len(groups), append(groups, &group{s: s})
		}
		groups[k].idx, groups[k].rest = append(groups[k].idx, i), append(groups[k].rest, rest)
	}
	if len(groups) == 1 && len(failed) == 0 {
		return r.on(ctx, c, groups[0].s, with(groups[0].idx, groups[0].rest, offset), h)
	}
	// Each root answers for its paths from offset on; the entries before it are left out.
	entries := make([]any, len(paths))
	var cov coverage
	spent := 0 // by a read, in content
	for _, g := range groups {
		var idx []int
		var rest []string
		for j, i := range g.idx {
			if i >= offset {
				idx, rest = append(idx, i), append(rest, g.rest[j])
			}
		}
		if len(idx) == 0 {
			continue
		}
		c.spent = spent
		out, err := r.on(ctx, c, g.s, with(idx, rest, 0), h)
		c.spent = 0
		if err != nil {
			st := errs.Status(err, "", identity)
			for _, i := range idx {
				failed[i] = st
			}
			continue
		}
		switch v := out.(type) {
		case result.Reader:
			for j, e := range v.Files {
				if strings.HasPrefix(e.Path, field+"[") { // named by its place in this root's call
					e.Path = fmt.Sprintf("%s[%d]", field, idx[j])
				}
				entries[idx[j]] = e
				if e.Success && e.Content != nil {
					spent += len(*e.Content)
				}
			}
		case result.Searcher:
			for j, d := range v.Documents {
				if strings.HasPrefix(d.Path, field+"[") {
					d.Path = fmt.Sprintf("%s[%d]", field, idx[j])
				}
				entries[idx[j]] = d
			}
			cov.add(v, g.s.cfg.Name)
		}
	}
	shown := func(i int) string {
		if p := paths[i]; !strings.HasPrefix(p, "/") && failed[i].Code != errs.CodeOutsideRoot {
			return p
		}
		return fmt.Sprintf("%s[%d]", field, i)
	}
	if c.tool == ReaderName {
		var out result.Reader
		for i := offset; i < len(paths); i++ {
			e, ok := entries[i].(result.ReadEntry)
			if !ok {
				e = result.ReadEntry{Path: shown(i), Status: failed[i]}
			}
			out.Files = append(out.Files, e)
		}
		out.Success, out.Metadata = true, c.meta()
		return out, nil
	}
	out := result.Searcher{Status: result.Status{Success: true}, TotalFound: ptr(len(paths))}
	cov.apply(&out)
	for i := offset; i < len(paths); i++ {
		if st, ok := failed[i]; ok {
			out.Documents = append(out.Documents, result.DocumentEntry{Path: shown(i), Status: st})
			continue
		}
		d, ok := entries[i].(result.DocumentEntry)
		if !ok { // its root's page ended before it
			out.Truncated, out.NextOffset = true, ptr(i)
			break
		}
		out.Documents = append(out.Documents, d)
	}
	out.Metadata = c.meta()
	return out, nil
}

func identity(p string) string { return p }

// coverage gathers what the roots' answers say of their indexes while those are being built.
type coverage struct {
	complete  *bool
	indexed   *int
	total     *int
	scanned   *int
	uncounted bool // a root is still counting its files: the total is not known
	message   []string
	retry     int64
}

// add takes in v, the answer of the root named name.
func (cv *coverage) add(v result.Searcher, name string) {
	if v.IndexComplete == nil || *v.IndexComplete {
		if cv.complete == nil {
			cv.complete = v.IndexComplete
		}
		return
	}
	cv.complete = ptr(false)
	cv.indexed = addInts(cv.indexed, v.IndexedFiles)
	cv.total = addInts(cv.total, v.TotalFiles)
	cv.uncounted = cv.uncounted || v.TotalFiles == nil
	cv.scanned = addInts(cv.scanned, v.ScannedFiles)
	cv.message = append(cv.message, fmt.Sprintf("In root %q: %s", name, v.Message))
	cv.retry = max(cv.retry, v.RetryAfterMs)
}

// apply sets out's index fields from what the roots said.
func (cv *coverage) apply(out *result.Searcher) {
	out.IndexComplete, out.IndexedFiles, out.ScannedFiles = cv.complete, cv.indexed, cv.scanned
	if !cv.uncounted {
		out.TotalFiles = cv.total
	}
	out.Message = strings.Join(cv.message, " ")
	out.RetryAfterMs = max(out.RetryAfterMs, cv.retry)
}

func addInts(a, b *int) *int {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return ptr(*a + *b)
}

// rootInfo is the entry of root s in a listing of ".".
func rootInfo(s *Server) fsroot.Info {
	info, err := s.cfg.Root.Stat(".")
	if err != nil {
		info = fsroot.Info{Type: fsroot.TypeDir}
	}
	info.Path = s.cfg.Name
	return info
}

// listTop lists ".": the roots, as folders.
func (r *Roots) listTop(c *call, in intents.Discover, roots []*Server) (any, error) {
	if err := r.top.charge(c, false); err != nil {
		return nil, err
	}
	f, err := search.NewFilter(in)
	if err != nil {
		return nil, err
	}
	p := search.NewPage(in.Options)
	for _, s := range roots {
		if info := rootInfo(s); f.Keep(info) && f.Content() == "" {
			p.Add(func() result.FileEntry { return search.Entry(info, in.Options.IncludeModified) })
		}
	}
	return pageResult(c, p, search.Tally{}), nil
}

// found is the totalFound of a list or search_content of one root.
func found(v result.Searcher) int {
	if v.TotalFound == nil {
		return 0
	}
	return *v.TotalFound
}

func pageResult(c *call, p *search.Page, t search.Tally) result.Searcher {
	out := result.Searcher{Status: result.Status{Success: true}, Files: p.Files, TotalFound: ptr(p.Total), FilesSearched: t.Searched, FilesExcluded: t.Excluded, ExcludedFiles: t.Some}
	if p.More {
		out.Truncated, out.NextOffset, out.FilesSearched, out.FilesExcluded, out.ExcludedFiles = true, ptr(p.Offset+len(p.Files)), 0, 0, nil
	}
	out.Metadata = c.meta()
	return out
}

// pages lists or searches (search_content) every root below ".", one root after another in name
// order, so that the answer is in path order as one root's is, and pages through them with one
// offset: each root is asked for what is left of the page, and one entry more to tell whether more
// exist.
func (r *Roots) pages(ctx context.Context, c *call, roots []*Server, in intents.Discover) (any, error) {
	f, err := search.NewFilter(in)
	if err != nil {
		return nil, err
	}
	if err := r.top.charge(c, in.Recursive()); err != nil {
		return nil, err
	}
	c.free = true // the whole search is charged once
	p := search.NewPage(in.Options)
	skip, timedOut := p.Offset, false
	var t search.Tally
	sub := in
	if sub.Options.MaxDepth > 0 {
		sub.Options.MaxDepth-- // a root's entries are one level below "."
	}
	for _, s := range roots {
		if in.Purpose == "list" {
			if info := rootInfo(s); f.Keep(info) && f.Content() == "" && !p.Add(func() result.FileEntry { return search.Entry(info, in.Options.IncludeModified) }) {
				break
			}
		}
		left := p.Max - len(p.Files)
		sub.Target.Path, sub.Options.Offset, sub.Options.MaxResults = ".", skip, min(left+1, intents.MaxResults)
		out, err := r.on(ctx, c, s, sub, searcher)
		if err != nil {
			return nil, err
		}
		v := out.(result.Searcher)
		t.Searched += v.FilesSearched
		t.Excluded += v.FilesExcluded
		t.Some = append(t.Some, v.ExcludedFiles[:min(len(v.ExcludedFiles), search.MaxExcludedNamed-len(t.Some))]...)
		timedOut = timedOut || v.TimedOut
		got := v.Files
		if len(got) > left {
			p.Files, p.More = append(p.Files, got[:left]...), true
			p.Total += skip + len(got)
			break
		}
		p.Files = append(p.Files, got...)
		p.Total += found(v)
		if v.Truncated {
			p.More = true
			break
		}
		skip = max(0, skip-found(v))
	}
	res := pageResult(c, p, t)
	if timedOut {
		res.TimedOut, res.Truncated, res.NextOffset = true, true, ptr(p.Offset+len(p.Files))
	}
	return res, nil
}

// ranked runs search_semantic on every root and merges the hits into one ranking, as one index of
// every root's files would rank them ([semantic.SearchSeveral], [semantic.Merge]). Each root
// judges the search as its own first (its policy, its index) and shapes its answer after, as a
// search of that root alone does; the scores shown are the fused ones, relative to the best (1).
// A root that cannot answer (its index is not ready) is named in the message, and the others
// answer; while a root's hits include files its index does not hold yet, read directly, they
// cannot be fused, and all are ordered by the score they show, then their rank in their root.
func (r *Roots) ranked(ctx context.Context, c *call, roots []*Server, in intents.Discover) (any, error) {
	if err := r.top.charge(c, true); err != nil {
		return nil, err
	}
	c.free = true
	want := fulltext.Wanted(in.Options.MaxResults)
	sub := in
	sub.Target.Path = "."
	sub.Options.Offset, sub.Options.MaxResults = 0, min(in.Options.Offset+want, intents.MaxResults)
	failed := make([]error, len(roots)) // why a root did not answer
	var (
		parts []semantic.Part
		asked []int // the roots of parts
	)
	for k, s := range roots {
		q, err := r.on(ctx, c, s, sub, rootQuery)
		if failed[k] = err; err == nil {
			parts = append(parts, semantic.Part{Name: s.cfg.Name, Engine: s.cfg.Engine, Query: q.(fulltext.Query)})
			asked = append(asked, k)
		}
	}
	answers := semantic.SearchSeveral(ctx, parts, in.Options.FollowRelationships)
	shaped := make([]result.Searcher, len(roots))
	for i, k := range asked {
		res, err := r.on(ctx, c, roots[k], sub, rootAnswer(sub, parts[i].Query, answers[i]))
		if answers[i].Err, failed[k] = err, err; err == nil {
			shaped[k] = res.(result.Searcher)
		}
	}
	type hit struct {
		e          result.FileEntry
		rank, root int
	}
	var (
		hits     []hit
		out      result.Searcher
		answered bool
		firstErr error
		cov      coverage
	)
	for k, s := range roots {
		if err := failed[k]; err != nil {
			firstErr = cmp.Or(firstErr, err)
			var mp *errs.Mapped
			if errors.As(err, &mp) {
				cov.message = append(cov.message, fmt.Sprintf("Root %q did not answer: %s", s.cfg.Name, mp.Status.Error))
				cov.retry = max(cov.retry, mp.Status.RetryAfterMs)
			}
			continue
		}
		v := shaped[k]
		answered = true
		for i, e := range v.Files {
			hits = append(hits, hit{e, i, k})
		}
		out.Related = append(out.Related, v.Related...)
		cov.add(v, s.cfg.Name)
	}
	m := semantic.Merge(answers)
	if !answered || m.Total == 0 && firstErr != nil {
		return nil, firstErr
	}
	if m.Fused {
		hits = hits[:0]
		for _, h := range m.Ranking {
			e := shaped[asked[h.Answer]].Files[h.Rank] // a root's files are its hits, in order: its page began at 0
			e.Score = h.Score
			hits = append(hits, hit{e: e})
		}
	} else {
		slices.SortStableFunc(hits, func(a, b hit) int {
			return cmp.Or(cmp.Compare(b.e.Score, a.e.Score), cmp.Compare(a.rank, b.rank), cmp.Compare(a.root, b.root))
		})
	}
	hits = hits[min(in.Options.Offset, len(hits)):]
	hits = hits[:min(want, len(hits))]
	shown := map[string]bool{}
	for _, h := range hits {
		h.e.Score = search.Round2(h.e.Score)
		out.Files = append(out.Files, h.e)
		shown[h.e.Path] = true
	}
	search.Falling(out.Files)
	out.Related = slices.DeleteFunc(out.Related, func(e result.RelatedEntry) bool { return !shown[e.From] })
	out.UnknownWords = m.Unknown
	if next := in.Options.Offset + len(out.Files); next < m.Total && len(out.Files) == want {
		out.Truncated, out.NextOffset = true, ptr(next)
	}
	cov.apply(&out)
	out.Success, out.Metadata = true, c.meta()
	return out, nil
}
