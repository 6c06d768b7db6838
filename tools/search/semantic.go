package search

import (
	"context"
	"fmt"
	"math"
	"path"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/docs"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

// Semantic answers search_semantic with res, what the index found for q, a query of in below
// name ([Query]): a page of its hits, each with its place in a document, and what the answer
// covers while the index is being built.
func (w Walker) Semantic(ctx context.Context, res semantic.Results, q fulltext.Query, in intents.Discover, name string) (result.Searcher, error) {
	e := w.Engine
	want := q.Max - in.Options.Offset
	out := result.Searcher{Status: result.Status{Success: true}, UnknownWords: res.Unknown}
	if err := partial(&out, res.Coverage, len(res.Hits) > 0); err != nil {
		return result.Searcher{}, err
	}
	hits := res.Hits
	if in.Options.Offset < len(hits) {
		hits = hits[in.Options.Offset:]
	} else {
		hits = nil
	}
	for _, h := range hits {
		fe := result.FileEntry{Path: h.Path, Title: shownTitle(h.Path, h.Title), Score: Round2(h.Score), Heading: h.Heading, Line: h.Line, Snippet: h.Snippet}
		if ext := docs.Ext(w.Policy, h.Path); ext != "" || in.Options.IncludeContent {
			data, _, err := w.ReadJudged(ctx, h.Path, w.MaxFileSize)
			body, marks, ok, _ := w.Docs.Searchable(ctx, h.Path, data, err)
			if ok && in.Options.IncludeContent {
				c := text.Cap(body, MaxIncludedBytes)
				fe.Content = &c
			}
			fe.Place = extract.PlaceOf(marks, h.Line)
		}
		if docs.IsHTML(w.Policy, h.Path) {
			fe.Line = 0 // a line of the page's text, which no read gives: the heading says where
		}
		out.Files = append(out.Files, fe)
	}
	Falling(out.Files)
	if len(out.Files) == 0 && in.Options.Offset == 0 && res.Coverage.Complete && out.Message == "" {
		out.Message = w.emptyIndexMessage(len(e.Documents(name)))
	}
	if next := in.Options.Offset + len(out.Files); next < res.Total && len(out.Files) == want {
		out.Truncated, out.NextOffset = true, ptr(next)
	}
	for _, r := range res.Related {
		out.Related = append(out.Related, result.RelatedEntry{Path: r.Path, Title: shownTitle(r.Path, r.Title), Via: r.Via, From: r.From})
	}
	return out, nil
}

// Query is the engine's query for a search_semantic of in below name, a root-relative folder,
// ranking only what scores threshold or more.
func Query(in intents.Discover, name string, threshold float64) (fulltext.Query, error) {
	want := fulltext.Wanted(in.Options.MaxResults)
	q := fulltext.Query{
		Text:        in.Target.Query,
		Paraphrases: in.Queries,
		Prefix:      name,
		Max:         in.Options.Offset + want,
		Threshold:   threshold,
	}
	f, err := NewFilter(in)
	if err != nil {
		return fulltext.Query{}, err
	}
	if depth := in.Depth(); depth > 0 || f.HasNames() {
		// The index has no field for a file name or a depth: the engine asks this of every match.
		q.Keep = func(p string) bool {
			rel, ok := Below(p, name)
			return ok && WithinDepth(rel, depth) && f.Named(path.Base(p))
		}
	}
	if cr := in.Target.Criteria; cr != nil {
		for _, x := range cr.Extension {
			q.Extensions = append(q.Extensions, NormExt(x))
		}
		q.Tags = cr.Tags
		if cr.Modified != nil {
			q.After, q.Before = cr.Modified.After, cr.Modified.Before
		}
		if cr.SizeBytes != nil {
			q.MinSize, q.MaxSize = cr.SizeBytes.Min, cr.SizeBytes.Max
		}
	}
	return q, nil
}

// shownTitle is a hit's title as the answer shows it: left out when it only repeats the file's name
// without its extension (tar.md's "tar", most notes of a vault), which the path already says.
func shownTitle(p, title string) string {
	base := path.Base(p)
	if title == strings.TrimSuffix(base, path.Ext(base)) {
		return ""
	}
	return title
}

// Round2 rounds a score to two decimals: the order of the hits carries the ranking, and a score's
// sixteen digits cost a model tokens and tell it nothing more. A positive score never rounds to 0,
// which the answer would leave out.
func Round2(x float64) float64 {
	r := math.Round(x*100) / 100
	if r == 0 && x > 0 {
		return 0.01
	}
	return r
}

// Falling makes the shown scores of hits, best first and rounded to two decimals, fall with rank:
// a hit that scores as the one above it (phrasings fused to a tie, a named page lifted to the top
// scoring as the one it passed) shows 0.01 less, down to 0.01, so that the scores order the hits a
// model is shown as the ranking does.
func Falling(files []result.FileEntry) {
	for i := 1; i < len(files); i++ {
		if prev := files[i-1].Score; files[i].Score >= prev {
			files[i].Score = max(0.01, Round2(prev-0.01))
		}
	}
}

// partial says, on a search answered while the index is incomplete, what the answer covers and when
// to search again. A search that found nothing while files remain unread fails with NOT_AVAILABLE
// instead of answering "nothing found".
func partial(out *result.Searcher, cv semantic.Coverage, found bool) error {
	progress, retry := coverageState(out, cv)
	if cv.Complete {
		return nil
	}
	read := fmt.Sprintf("%d files not yet indexed were read directly and ranked roughly", cv.Scanned)
	if !cv.Unread {
		rest := "the other " + read
		if cv.Scanned == 0 {
			rest = "no file outside the index was left to read"
		}
		out.Message = fmt.Sprintf("%s; %s, so no file was left out. Search again in about %s for the complete ranking.", progress, rest, Seconds(retry))
		return nil
	}
	unread := "others were not read"
	if !cv.Counting {
		unread = fmt.Sprintf("%d were not read", max(0, cv.Total-cv.Indexed-cv.Scanned))
	}
	if !found {
		return &errs.Error{Code: errs.CodeNotAvailable, Retry: retry, Msg: fmt.Sprintf(
			"nothing found yet, but not every file has been looked at: %s; %s, %s. Search again in about %s.", progress, read, unread, Seconds(retry))}
	}
	out.Message = fmt.Sprintf("partial answer: %s; %s, %s. Search again in about %s for the complete ranking.", progress, read, unread, Seconds(retry))
	return nil
}

// coverageState puts on out whether the index is complete and, while it is not, how far the build
// has come, how many files the call read itself and when to ask again; it returns a sentence on the
// build's progress and that wait, for the message.
func coverageState(out *result.Searcher, cv semantic.Coverage) (progress string, retry time.Duration) {
	out.IndexComplete = ptr(cv.Complete)
	if cv.Complete {
		return "", 0
	}
	out.IndexedFiles, out.ScannedFiles = ptr(cv.Indexed), ptr(cv.Scanned)
	progress = fmt.Sprintf("the search index is still being built: %d files indexed, the files still being counted (%d found so far)", cv.Indexed, cv.Total)
	if !cv.Counting {
		out.TotalFiles = ptr(cv.Total)
		progress = fmt.Sprintf("the search index is still being built: %d of %d files indexed", cv.Indexed, cv.Total)
	}
	if cv.FromDisk > 0 { // a restart: the index of the last run answers while it is checked
		out.IndexedFiles = ptr(cv.FromDisk)
		progress = fmt.Sprintf("the search index of the last run (%d files) answers while it is checked against the files, "+
			"which may have changed since (%d files found so far)", cv.FromDisk, cv.Total)
	}
	retry = RetryAfter(cv.Left)
	out.RetryAfterMs = retry.Milliseconds()
	return progress, retry
}

// Waits suggested while the index is being built: the build's own estimate, within bounds, so a
// model neither polls in a tight loop nor waits minutes for a build about to end.
const (
	minRetry     = 500 * time.Millisecond
	maxRetry     = 30 * time.Second
	defaultRetry = 2 * time.Second // when the build cannot estimate yet
)

// RetryAfter is the wait an answer suggests while the index is being built, left its estimate.
func RetryAfter(left time.Duration) time.Duration {
	if left <= 0 {
		return defaultRetry
	}
	return min(max(left, minRetry), maxRetry)
}

// Seconds writes d in whole seconds, rounded up, such as "3 s".
func Seconds(d time.Duration) string {
	return fmt.Sprintf("%d s", int((d+time.Second-1)/time.Second))
}

// emptyIndexMessage says, for a ranked search that found nothing on a complete index, how many
// files the index holds where it looked (held) and, when it holds none, why: a model must not read
// "nothing found" as the tree's answer when the index never held the tree.
func (w Walker) emptyIndexMessage(held int) string {
	noise := ""
	if w.Ignore != nil && w.Ignore.Seen() {
		noise = "; ignored files (.gitignore, .ignore) and caches are left out of it: search_content with options.includeIgnored searches them"
	}
	if held == 0 {
		return "nothing found: the index holds no file here, as nothing below target.path is a text file it may hold" + noise
	}
	files := fmt.Sprintf("the %d files", held)
	if held == 1 {
		files = "the 1 file"
	}
	return fmt.Sprintf("nothing found among %s the index holds%s", files, noise)
}
