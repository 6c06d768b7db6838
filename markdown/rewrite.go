package markdown

import (
	"bytes"
	"path"
	"sort"
	"strings"
)

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// applyEdits applies edits from the end of src backwards, so earlier offsets stay valid. Edits of
// the same range (reference links sharing one definition) are applied once; overlapping ones are
// dropped. It returns how many edits it applied.
func applyEdits(src []byte, edits []edit) ([]byte, int) {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	n := 0
	limit := len(src) + 1
	for _, e := range edits {
		if e.end > limit {
			continue // duplicate or overlapping
		}
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
		limit = e.start
		n++
	}
	return out, n
}

// rewritable reports whether l can be edited in place in src: it has offsets inside src and the
// bytes there still decode to its target (so a stale parse is never applied).
func rewritable(src []byte, l Link) bool {
	if l.Start <= 0 || l.End <= l.Start || l.End > len(src) {
		return false
	}
	raw := src[l.Start:l.End]
	if wikiStyle(l) {
		return string(raw) == l.Target
	}
	return decodeDest(raw) == l.Target
}

// RewriteLinks returns src (the document d at d.Path) with every link that resolves to oldPath
// changed to point at newPath, how many it changed, and how many it could not (frontmatter links,
// which have no offsets, are left for the caller to report).
//
// Markdown, reference and image links get the relative path from d.Path's directory to newPath
// (root-relative if they were written with a leading "/"; without ".md" if they were written
// without it). Spaces are escaped as %20 when the original was percent-escaped or when the new path
// has a space and the link is not in <angle brackets>. The fragment and the rest of the syntax are
// kept. Wiki links get the new base name without ".md" when unique reports that name as unique
// (it is passed the name with the extension, e.g. "Note.md", see [Graph.UniqueName]), else the
// root-relative path without ".md"; an explicit ".md" is kept.
func RewriteLinks(src []byte, d Doc, resolve func(Link) Resolved, oldPath, newPath string, unique func(base string) bool) (out []byte, changed int, skipped int) {
	var edits []edit
	for _, l := range d.Links {
		if l.Kind == KindAutolink {
			continue
		}
		r := resolve(l)
		if r.Status != StatusInternal || r.To != oldPath || l.Target == "" {
			continue
		}
		if !rewritable(src, l) {
			skipped++
			continue
		}
		var text string
		if wikiStyle(l) {
			text = wikiName(newPath, unique)
			if hasMarkdownExt(l.Target) && !hasMarkdownExt(text) {
				text += ".md"
			}
		} else {
			text = pathTarget(src, l, path.Dir(d.Path), newPath)
		}
		edits = append(edits, edit{l.Start, l.End, text})
	}
	out, changed = applyEdits(src, edits)
	return out, changed, skipped
}

// wikiName returns how a wiki link names the document at p.
func wikiName(p string, unique func(string) bool) string {
	name := p
	if unique != nil && unique(path.Base(p)) {
		name = path.Base(p)
	}
	if hasMarkdownExt(name) {
		name = strings.TrimSuffix(name, path.Ext(name))
	}
	return name
}

// pathTarget returns the destination text for a markdown link l in src, written in fromDir, that
// must now reach to.
func pathTarget(src []byte, l Link, fromDir, to string) string {
	raw := string(src[l.Start:l.End])
	var t string
	if strings.HasPrefix(l.Target, "/") {
		t = "/" + to
	} else {
		t = relPath(fromDir, to)
	}
	if !hasMarkdownExt(l.Target) && hasMarkdownExt(t) && path.Ext(l.Target) == "" {
		t = strings.TrimSuffix(t, path.Ext(t))
	}
	angled := l.Start > 0 && src[l.Start-1] == '<'
	if strings.Contains(raw, "%") || strings.Contains(t, " ") && !angled {
		t = strings.ReplaceAll(t, " ", "%20")
	}
	return t
}

// relPath returns the relative slash path from directory dir ("." for the root) to p.
func relPath(dir, p string) string {
	var from []string
	if dir != "." && dir != "" {
		from = strings.Split(dir, "/")
	}
	to := strings.Split(p, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	parts := make([]string, 0, len(from)-i+len(to)-i)
	for range from[i:] {
		parts = append(parts, "..")
	}
	return strings.Join(append(parts, to[i:]...), "/")
}

// RelinkMoved rewrites the moved document's own relative markdown links (not wiki links, which
// resolve by name, and not root-relative ones, which still work) so they still reach the same
// targets from its new folder. src is the document now at newPath, d its parse under oldPath, and
// resolveFromOld resolves d's links as they were. A link to the document itself is pointed at
// newPath.
func RelinkMoved(src []byte, d Doc, oldPath, newPath string, resolveFromOld func(Link) Resolved) (out []byte, changed int) {
	var edits []edit
	for _, l := range d.Links {
		if l.Kind == KindAutolink || l.Kind == KindFrontmatter || wikiStyle(l) || l.Target == "" ||
			strings.HasPrefix(l.Target, "/") || !rewritable(src, l) {
			continue
		}
		r := resolveFromOld(l)
		if r.Status != StatusInternal {
			continue
		}
		to := r.To
		if to == oldPath {
			to = newPath
		}
		text := pathTarget(src, l, path.Dir(newPath), to)
		if !bytes.Equal([]byte(text), src[l.Start:l.End]) {
			edits = append(edits, edit{l.Start, l.End, text})
		}
	}
	return applyEdits(src, edits)
}
