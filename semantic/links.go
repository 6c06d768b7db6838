package semantic

import (
	"sort"
	"time"

	"github.com/packfs/packfs-mcp/markdown"
)

// Relations returns one document's outline, links, backlinks, broken links, tags and relations.
// It reads the document, so its links (URLs too, which the graph does not keep) are those of the
// file now. While the index is being built, a document the build has not reached is put in the
// graph as it is read; its backlinks, and the targets of its links, are then those of the
// documents read so far.
func (e *Engine) Relations(name string) (markdown.Relations, bool) {
	known := e.graph.Has(name)
	if !known && (e.complete.Load() || !e.opts.Allow(name, false)) {
		return markdown.Relations{}, false
	}
	d, err := e.read(name)
	if err != nil {
		return e.graph.Relations(name) // unreadable now: what the graph knows, if anything
	}
	if !known {
		e.graph.Put(d.Outline())
	}
	return e.graph.RelationsOf(d)
}

// LinksTo returns the documents that link to name.
func (e *Engine) LinksTo(name string) []markdown.Backlink { return e.graph.LinksTo(name) }

// LinksInto returns the links to name, or to any document below it when it is a folder.
func (e *Engine) LinksInto(name string) []markdown.Backlink {
	var out []markdown.Backlink
	for _, p := range e.under(name) {
		out = append(out, e.graph.LinksTo(p)...)
	}
	if len(out) == 0 {
		out = e.graph.LinksTo(name)
	}
	return out
}

// Documents lists the indexed documents at name, sorted: name itself, or every document below it
// when it is a folder (what a move of it takes along).
func (e *Engine) Documents(name string) []string { return e.under(name) }

// under lists the indexed documents at or below name, sorted.
func (e *Engine) under(name string) []string {
	ix := e.index()
	if ix == nil {
		return nil
	}
	out := ix.Under(name)
	sort.Strings(out)
	return out
}

// AfterMoves is the graph as it would be after moves ([markdown.Graph.AfterMoves]): what a dry
// run of a move resolves links against.
func (e *Engine) AfterMoves(moves []markdown.Moved) *markdown.MovedView {
	return e.graph.AfterMoves(moves)
}

// RewriteLinks returns src, the document at from, with its links into what moves takes (each a
// document, or a folder and what is in it) changed to point at the same documents where they go,
// and the rewrites it made; keepText says how a wiki link whose name changes reads and format
// how one whose form no longer reaches its note is written (see [markdown.Move]). It resolves links with the graph as it was before the move, so call it before
// [Engine.Refresh].
func (e *Engine) RewriteLinks(from string, src []byte, modTime time.Time, moves []markdown.Moved, keepText bool, format markdown.LinkFormat) ([]byte, []markdown.Rewrite) {
	d := markdown.Parse(from, src, modTime)
	out, rw, _ := markdown.RewriteLinks(src, d, func(l markdown.Link) markdown.Resolved { return e.graph.Resolve(from, l) },
		e.move(moves, keepText, format))
	return out, rw
}

// RelinkMoved returns src, the document now at newPath and formerly at oldPath, which moves took
// along, with its links changed so they reach the same documents from its new folder, and those
// the move took where they went; and the rewrites it made.
func (e *Engine) RelinkMoved(src []byte, modTime time.Time, oldPath, newPath string, moves []markdown.Moved, keepText bool, format markdown.LinkFormat) ([]byte, []markdown.Rewrite) {
	d := markdown.Parse(oldPath, src, modTime)
	return markdown.RelinkMoved(src, d, newPath, func(l markdown.Link) markdown.Resolved { return e.graph.Resolve(oldPath, l) },
		e.move(moves, keepText, format))
}

// move describes a move of what moves takes, with the graph's names for wiki links.
func (e *Engine) move(moves []markdown.Moved, keepText bool, format markdown.LinkFormat) markdown.Move {
	return markdown.Move{From: moves[0].From, To: moves[0].To, Along: moves[1:], KeepText: keepText, Format: format,
		Unique: func(p, name string) bool { return e.graph.UniqueAfterMove(p)(name) }}
}
