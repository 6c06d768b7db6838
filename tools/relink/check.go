package relink

import (
	"time"

	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/result"
)

// MaxLinksLost caps the lost links a move's answer lists; linksChecked still counts them all.
const MaxLinksLost = 50

// heldLink is a link that reached a document before a move, named as it should be after the move:
// the document it is in, its line, and the document it must still reach.
type heldLink struct {
	path   string
	line   int
	target string // as written before the move
	to     string
}

// Check is what a move with preserveRelationships promises: every link in what moved and in the
// documents linking to it that reached a document reaches the same document, at its new path, after
// the move (a rewrite must not break a neighbour either). Taken before
// the move ([Tree.Hold]) and checked after it ([Check.Report]), it lets the move's answer
// say so, so that an agent need not ask for the relationships of every moved note, before and
// after, to know that nothing broke.
type Check struct {
	engine *semantic.Engine
	held   []heldLink
}

// Hold records, before moves, the links that reach a document in the documents linking into
// what moves and in the documents it holds. Links already broken, and links out of the root, are
// not held: a move neither breaks nor mends them.
func (t Tree) Hold(moves []markdown.Moved) Check {
	e := t.Engine
	moved := func(p string) string {
		if to, ok := markdown.DestOf(moves, p); ok {
			return to
		}
		return p
	}
	sources := t.Host.LinkedFrom(moves)
	for _, m := range moves {
		sources = append(sources, e.Documents(m.From)...)
	}
	c := Check{engine: e}
	for _, from := range sources {
		rel, ok := e.Relations(from)
		if !ok {
			continue
		}
		for _, l := range rel.Links {
			if l.Status == markdown.StatusInternal {
				c.held = append(c.held, heldLink{path: moved(from), line: l.Line, target: l.Target, to: moved(l.To)})
			}
		}
	}
	return c
}

// check resolves the held links again, after the move, and returns how many it checked and those
// that no longer reach their document, in the order they were held. A link counts as kept when its
// document has a link on the same line to the same document: a rewrite changes a link's text,
// never its line.
func (c Check) check() (int, []result.LostLink) {
	e := c.engine
	return c.compare(func(p string) []markdown.Resolved {
		rel, _ := e.Relations(p)
		return rel.Links
	})
}

// Predict is check before the move, for its dry run: the links as they would resolve in v, the
// tree after the move, in the documents as the move would leave them (after: the content of each
// document it would rewrite, by its path after the move; the others as the index holds them).
func (c Check) Predict(v *markdown.MovedView, after map[string][]byte) (int, []result.LostLink) {
	return c.compare(func(p string) []markdown.Resolved {
		links, _ := v.Links(p)
		if data, ok := after[p]; ok {
			links = markdown.Parse(p, data, time.Time{}).Links
		}
		out := make([]markdown.Resolved, 0, len(links))
		for _, l := range links {
			out = append(out, v.Resolve(p, l))
		}
		return out
	})
}

// compare matches the held links with the links each document has after the move (linksOf, by
// its path after the move), as check says.
func (c Check) compare(linksOf func(p string) []markdown.Resolved) (int, []result.LostLink) {
	type reach struct {
		line int
		to   string
	}
	now := map[string]map[reach]int{} // per document, its internal links by line and target
	var lost []result.LostLink
	for _, h := range c.held {
		links, ok := now[h.path]
		if !ok {
			links = map[reach]int{}
			for _, l := range linksOf(h.path) {
				if l.Status == markdown.StatusInternal {
					links[reach{l.Line, l.To}]++
				}
			}
			now[h.path] = links
		}
		k := reach{h.line, h.to}
		if links[k] > 0 {
			links[k]--
			continue
		}
		lost = append(lost, result.LostLink{Path: h.path, Line: h.line, Target: h.target, Reached: h.to})
	}
	return len(c.held), lost
}

// Report puts the check's outcome, after the move, on a move's result, the lost links capped at
// MaxLinksLost.
func (c Check) Report(out *result.Writer) {
	ReportLinks(out)(c.check())
}

// ReportLinks puts n links checked and those lost on a move's result, the lost links capped at
// MaxLinksLost.
func ReportLinks(out *result.Writer) func(n int, lost []result.LostLink) {
	return func(n int, lost []result.LostLink) {
		out.LinksChecked = &n
		if lost == nil {
			lost = []result.LostLink{} // checked: [] says none was lost
		}
		out.LinksLost = lost
		if len(lost) > MaxLinksLost {
			out.LinksLost, out.LinksLostTotal = lost[:MaxLinksLost], len(lost)
		}
	}
}
