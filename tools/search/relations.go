package search

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

// MaxDocuments is the most documents one relationships call describes: those of target.paths, or
// a page of a folder's. Twenty notes' links fit in an answer a model reads whole.
const MaxDocuments = intents.MaxReadPaths

// Relations answers relationships of the document name: its outline, links and backlinks (the
// first with the line each is on) and the documents related to it, and what the answer lacks
// while the index is being built.
func (w Walker) Relations(ctx context.Context, name string) (result.Searcher, error) {
	e := w.Engine
	cv := e.ReadLinksTo(ctx, name)
	rel, ok := e.Relations(name)
	if !ok {
		return result.Searcher{}, notDocument(w.Show(name))
	}
	out := result.Searcher{Status: result.Status{Success: true}, DocumentLinks: documentLinks(rel, cv)}
	for _, h := range rel.Outline {
		out.Outline = append(out.Outline, result.HeadingEntry{Level: h.Level, Text: h.Text, Anchor: h.Anchor, Line: h.Line})
	}
	w.addSources(ctx, out.Backlinks, rel.Backlinks, MaxSources)
	for _, r := range rel.Related {
		out.Related = append(out.Related, result.RelatedEntry{Path: r.Path, Via: r.Via}) // from is the target
	}
	relationsState(&out, cv, "this document") // links and backlinks are whole: no count says less
	return out, nil
}

func notDocument(name string) error {
	return errs.New(errs.CodeNotFound, "%q is not an indexed document (too large, binary, or not text)", name)
}

// documentLinks is what rel tells of a document, as an answer shows it given cv, what the index
// covered: while it is incomplete, a link to no document read so far is unresolved, not broken.
func documentLinks(rel markdown.Relations, cv semantic.Coverage) result.DocumentLinks {
	out := result.DocumentLinks{Title: rel.Title, Tags: rel.Tags, Aliases: rel.Aliases, Parent: rel.Parent, Children: rel.Children,
		Links: []result.LinkEntry{}, Backlinks: []result.BacklinkEntry{}} // looked at: [] says there are none
	for _, l := range rel.Links {
		le := linkEntry(l)
		switch {
		case cv.Complete:
		case l.Status == markdown.StatusBroken:
			le.Status = StatusUnresolved // its target may be a file not indexed yet
		case l.ByName():
			le.Status = statusProvisional // a nearer document of that name may not be indexed yet
		}
		out.Links = append(out.Links, le)
	}
	if cv.Complete { // while it is not, a link may reach a file not indexed yet: not checked
		out.Broken = []result.LinkEntry{}
		for _, l := range rel.Broken {
			out.Broken = append(out.Broken, linkEntry(l))
		}
	}
	for _, b := range rel.Backlinks {
		out.Backlinks = append(out.Backlinks, result.BacklinkEntry{Path: b.From, Line: b.Line, Kind: string(b.Kind), Text: b.Text})
	}
	return out
}

// Folder describes the indexed documents in the folder name and below it, in path order from
// options.offset, the page of total documents that starts at from.
// While the index is being built, the folder's documents are those indexed so far: the answer says
// so, and with none indexed yet it is NOT_AVAILABLE rather than a success that found nothing.
func (w Walker) Folder(ctx context.Context, in intents.Discover, name string) (out result.Searcher, from, total int, err error) {
	all := w.Engine.Documents(name)
	if cv := w.Engine.Coverage(); !cv.Complete && len(all) == 0 {
		retry := RetryAfter(cv.Left)
		return out, 0, 0, &errs.Error{Code: errs.CodeNotAvailable, Retry: retry, Msg: fmt.Sprintf(
			"none of the documents in %q is indexed yet (the search index is still being built): ask again in about %s, or name the documents in target.paths, which are read directly", w.Show(name), Seconds(retry))}
	}
	from = min(in.Options.Offset, len(all))
	out = w.Documents(ctx, len(all)-from, func(i int) (string, error) { return all[from+i], nil })
	if out.IndexComplete != nil && !*out.IndexComplete {
		out.Message += fmt.Sprintf(" The folder's documents are those indexed so far (totalFound %d): others in it may be missing.", len(all))
	}
	return out, from, len(all), nil
}

// MaxDocumentsBytes bounds the documents of one relationships answer: a page ends at the document
// that passes it, or at [MaxDocuments] documents, and the next page starts after it. A page holds
// at least one document.
const MaxDocumentsBytes = 64 << 10

// Documents describes up to n documents, the i-th named by doc(i) (called only for the documents
// the page holds), with its own error when doc fails. While the index is being built, the files
// not yet indexed are read for links to all of them within one [semantic.ScanBudget], not one
// each.
func (w Walker) Documents(ctx context.Context, n int, doc func(i int) (string, error)) result.Searcher {
	e := w.Engine
	scan, cancel := context.WithTimeout(ctx, semantic.ScanBudget)
	defer cancel()
	out := result.Searcher{Status: result.Status{Success: true}}
	cv := e.Coverage() // what the index covers; each document's reading adds to it
	sources, size := MaxSources, 0
	for i := 0; i < min(n, MaxDocuments) && size < MaxDocumentsBytes; i++ {
		name, err := doc(i)
		d := result.DocumentEntry{Path: name, Status: result.Status{Success: true}}
		var rel markdown.Relations
		if err == nil {
			dcv := e.ReadLinksTo(scan, name)
			var ok bool
			if rel, ok = e.Relations(name); ok {
				cv = merge(cv, dcv)
				d.DocumentLinks = documentLinks(rel, dcv)
				sources -= w.addSources(ctx, d.Backlinks, rel.Backlinks, sources)
			} else {
				err = notDocument(w.Show(name))
			}
		}
		if err != nil {
			d.Status = errs.Status(err, name, w.Show)
			if d.Code == errs.CodeInternal {
				w.Log.Printf("relationships of %q: %v", name, err)
			}
		}
		b, _ := json.Marshal(d)
		size += len(b)
		out.Documents = append(out.Documents, d)
	}
	relationsState(&out, cv, "these documents")
	return out
}

// merge is what the coverage a and a document's coverage b say together: complete only when both
// are, read in full only when both were, with the files each read; the progress is b's, the later.
func merge(a, b semantic.Coverage) semantic.Coverage {
	b.Complete = a.Complete && b.Complete
	b.Unread = a.Unread || b.Unread
	b.Scanned += a.Scanned
	return b
}

// MaxSources is how many backlinks of one answer carry their source line: enough for a note's
// links to be edited without a read of each linking file, bounded for a hub that hundreds link to.
const MaxSources = 50

// addSources gives the first n entries the line each link is on, from links, the backlinks they
// were made from, and returns how many it gave. Each linking document is read once; one that
// cannot be read now (moved or changed since it was indexed) leaves its entries without a source.
func (w Walker) addSources(ctx context.Context, entries []result.BacklinkEntry, links []markdown.Backlink, n int) int {
	var (
		from  string
		lines []string
	)
	n = max(0, min(len(entries), n))
	for i := range entries[:n] {
		if b := links[i]; b.From != from {
			from, lines = b.From, nil
			if src, _, err := w.ReadJudged(ctx, b.From, w.MaxFileSize); err == nil {
				lines = strings.Split(string(src), "\n")
			}
		}
		entries[i].Source = sourceLine(lines, links[i])
	}
	return n
}

// Source lines longer than maxSourceBytes are cut to a window around the link: sourceBefore
// bytes before its target and the rest after.
const (
	maxSourceBytes = 160
	sourceBefore   = 60
)

// sourceLine returns the line of lines that b is on, trimmed of spaces, or "" when lines does not
// reach it. A long line is cut around the link's target when b knows where it is, else after its
// start, and each cut end is marked with "…".
func sourceLine(lines []string, b markdown.Backlink) string {
	if b.Line < 1 || b.Line > len(lines) {
		return ""
	}
	line := strings.TrimRight(lines[b.Line-1], "\r")
	if len(line) <= maxSourceBytes {
		return strings.TrimSpace(line)
	}
	at := 0
	if b.Start > 0 {
		lineStart := 0
		for _, l := range lines[:b.Line-1] {
			lineStart += len(l) + 1
		}
		if off := b.Start - lineStart; off >= 0 && off < len(line) {
			at = max(0, off-sourceBefore)
		}
	}
	at = min(at, len(line)-maxSourceBytes)
	for at > 0 && !utf8.RuneStart(line[at]) {
		at--
	}
	cut := text.Cap(line[at:], maxSourceBytes)
	out := strings.TrimSpace(cut)
	if at > 0 {
		out = "…" + out
	}
	if at+len(cut) < len(line) {
		out += "…"
	}
	return out
}

// StatusUnresolved marks, while the index is being built, a link whose target no document read so
// far answers to: it may be broken, or lead to a file not indexed yet.
const StatusUnresolved = "unresolved"

// statusProvisional marks, while the index is being built, a link that reached a document by name
// (see [markdown.Resolved.ByName]): a document of that name nearer to the link may not be indexed
// yet, and would take its place.
const statusProvisional = "provisional"

// relationsState says, on a relationships result about what, whether the index is complete and,
// while it is not, what the answer lacks and when to ask again. cv is what
// [semantic.Engine.ReadLinksTo] read.
func relationsState(out *result.Searcher, cv semantic.Coverage, what string) {
	progress, retry := coverageState(out, cv)
	if cv.Complete {
		return
	}
	backlinks := fmt.Sprintf("the other %d files were read for links to %s, so the backlinks are complete", cv.Scanned, what)
	if cv.Unread {
		backlinks = fmt.Sprintf("%d more files were read for links to %s and the rest were not, so backlinks may be missing", cv.Scanned, what)
	}
	out.Message = fmt.Sprintf("partial answer: %s; %s. "+
		"Links that no file read so far answers to are \"unresolved\" rather than broken, and links that reached a document by name are \"provisional\": a nearer one of that name may not be indexed yet. Ask again in about %s for the complete answer.",
		progress, backlinks, Seconds(retry))
}

func linkEntry(l markdown.Resolved) result.LinkEntry {
	e := result.LinkEntry{Target: l.Target, Fragment: l.Fragment, Kind: string(l.Kind), Status: string(l.Status), Line: l.Line, Text: l.Text}
	if l.Status == markdown.StatusInternal {
		e.To = l.To
	}
	return e
}
