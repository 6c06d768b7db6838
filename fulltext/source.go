package fulltext

import (
	"strconv"

	"github.com/packfs/packfs-mcp/markdown"
)

// Source reads and parses the document at a root-relative path as it is now, as the caller's
// build did ([markdown.Doc.Size] included): the index stores no text, so what a search shows of
// its hits (title, heading, line, snippet) and the text its feedback round learns from are made
// again from the few documents it needs. It must refuse what a read by the caller would refuse
// (the policy, a file gone or no longer text).
type Source func(path string) (markdown.Doc, error)

// document returns the document at p through the index's source, or the copy it was given when
// it has no source.
func (ix *Index) document(p string) (markdown.Doc, bool) {
	if ix.source != nil {
		d, err := ix.source(p)
		return d, err == nil
	}
	ix.docsMu.RLock()
	defer ix.docsMu.RUnlock()
	d, ok := ix.copies[p]
	return d, ok
}

// shown is one search's view of the documents whose units it shows or learns from, each read
// and cut into units once.
type shown struct {
	ix      *Index
	layouts map[string]*layout // by path; nil for a document that could not be read
}

func (ix *Index) shown() *shown { return &shown{ix: ix, layouts: map[string]*layout{}} }

// unit returns the title of the document of the unit id as it is now and that unit's part; ok is
// false when the document cannot be read (title "") or no longer has that unit.
func (s *shown) unit(id string) (title string, p part, ok bool) {
	path := pathOfID(id)
	l, seen := s.layouts[path]
	if !seen {
		if d, found := s.ix.document(path); found {
			cut := s.ix.layout(d)
			l = &cut
		}
		s.layouts[path] = l
	}
	if l == nil {
		return "", part{}, false
	}
	n, err := strconv.Atoi(id[len(path)+1:])
	if err != nil || n < 0 || n >= len(l.parts) {
		return l.title, part{}, false
	}
	return l.title, l.parts[n], true
}
