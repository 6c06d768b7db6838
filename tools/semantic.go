package tools

import (
	"context"
	"time"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/semantic"
)

// DefaultSemanticResults is how many documents search_semantic returns when the caller does not say.
const DefaultSemanticResults = 10

func (s *Server) searchSemantic(ctx context.Context, c *call, in intents.Discover, name string) (any, error) {
	e := s.cfg.Engine
	if e == nil {
		return nil, noIndex()
	}
	want := in.Options.MaxResults
	if want <= 0 {
		want = DefaultSemanticResults
	}
	q := semantic.Query{
		Text:        in.Target.Query,
		Paraphrases: in.Queries,
		Prefix:      name,
		Max:         in.Options.Offset + want,
		Threshold:   s.cfg.RelevanceThreshold,
	}
	if cr := in.Target.Criteria; cr != nil {
		for _, x := range cr.Extension {
			q.Extensions = append(q.Extensions, normExt(x))
		}
		q.Tags = cr.Tags
		if cr.Modified != nil {
			q.After, q.Before = cr.Modified.After, cr.Modified.Before
		}
		if cr.Size != nil {
			q.MinSize, q.MaxSize = cr.Size.Min, cr.Size.Max
		}
	}
	s.notifyIndexProgress(ctx, c)
	res, err := e.Search(ctx, q, in.Options.FollowRelationships)
	if err != nil {
		return nil, err
	}
	out := SearcherResult{Status: Status{Success: true}, TotalFound: res.Total, UnknownWords: res.Unknown}
	hits := res.Hits
	if in.Options.Offset < len(hits) {
		hits = hits[in.Options.Offset:]
	} else {
		hits = nil
	}
	for _, h := range hits {
		fe := FileEntry{Path: h.Path, Title: h.Title, Score: h.Score, Heading: h.Heading, Line: h.Line, Snippet: h.Snippet}
		if in.Options.IncludeContent {
			if data, _, err := s.cfg.Root.ReadFile(ctx, h.Path, s.cfg.MaxFileSize); err == nil && isText(data) {
				c := capString(string(data), MaxIncludedBytes)
				fe.Content = &c
			}
		}
		out.Files = append(out.Files, fe)
	}
	if next := in.Options.Offset + len(out.Files); next < res.Total && len(out.Files) == want {
		out.Truncated, out.NextOffset = true, ptr(next)
	}
	for _, r := range res.Related {
		out.Related = append(out.Related, RelatedEntry{Path: r.Path, Title: r.Title, Via: r.Via, From: r.From})
	}
	s.indexState(&out)
	out.Metadata = c.meta()
	return out, nil
}

func (s *Server) relationships(ctx context.Context, c *call, name string) (any, error) {
	e := s.cfg.Engine
	if e == nil {
		return nil, noIndex()
	}
	if _, err := s.cfg.Root.Stat(name); err != nil {
		return nil, err
	}
	s.notifyIndexProgress(ctx, c)
	rel, ok := e.Relations(name)
	if !ok {
		if !e.Status().Complete {
			return nil, newError(CodeNotAvailable, "%q is not indexed yet: the index is still being built; try again in a few seconds", name)
		}
		return nil, newError(CodeNotFound, "%q is not an indexed document (too large, binary, or not text)", name)
	}
	out := SearcherResult{Status: Status{Success: true}, Title: rel.Title, Tags: rel.Tags, Aliases: rel.Aliases,
		Parent: rel.Parent, Children: rel.Children}
	for _, h := range rel.Outline {
		out.Outline = append(out.Outline, HeadingEntry{Level: h.Level, Text: h.Text, Anchor: h.Anchor, Line: h.Line})
	}
	for _, l := range rel.Links {
		out.Links = append(out.Links, linkEntry(l))
	}
	for _, l := range rel.Broken {
		out.Broken = append(out.Broken, linkEntry(l))
	}
	for _, b := range rel.Backlinks {
		out.Backlinks = append(out.Backlinks, BacklinkEntry{Path: b.From, Line: b.Line, Kind: string(b.Kind), Text: b.Text})
	}
	for _, r := range rel.Related {
		out.Related = append(out.Related, RelatedEntry{Path: r, Via: "related", From: name})
	}
	out.TotalFound = len(out.Links)
	s.indexState(&out)
	out.Metadata = c.meta()
	return out, nil
}

func linkEntry(l semantic.Resolved) LinkEntry {
	e := LinkEntry{Target: l.Target, Fragment: l.Fragment, Kind: string(l.Kind), Status: string(l.Status), Line: l.Line, Text: l.Text}
	if l.Status == semantic.StatusInternal {
		e.To = l.To
	}
	return e
}

// indexState says, on a result, whether the index is complete and how far along it is.
func (s *Server) indexState(out *SearcherResult) {
	st := s.cfg.Engine.Status()
	out.IndexComplete = ptr(st.Complete)
	if !st.Complete {
		out.IndexedFiles, out.TotalFiles = ptr(st.Done), ptr(st.Total)
	}
}

func noIndex() error {
	return newError(CodeNotAvailable, "the search index is off on this server (started with --no-index): use purpose \"search_content\" for literal or regular-expression search")
}

// refresh brings the index and the graph in step with paths the writer just changed, so a search
// right after a write sees it. A failure is logged: the write itself succeeded.
func (s *Server) refresh(ctx context.Context, paths ...string) {
	if s.cfg.Engine == nil {
		return
	}
	for _, p := range paths {
		t0 := time.Now()
		if err := s.cfg.Engine.Refresh(ctx, p); err != nil {
			s.cfg.Log.Printf("index refresh of %q: %v", p, err)
		} else if d := time.Since(t0); d > time.Second {
			s.cfg.Log.Printf("index refresh of %q took %v", p, d)
		}
	}
}
