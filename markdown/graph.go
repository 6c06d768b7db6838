package markdown

import (
	"iter"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Graph is the relationship graph of the documents under the root, kept in memory and updated
// incrementally. It is safe for concurrent use.
//
// Besides the documents it keeps, for each document, its resolved outgoing links and two indexes:
// backlinks (target path -> documents linking to it) and waiting links (a key from linkKeys -> the
// documents with a link filed under it). Links that resolve by name are always filed, and path
// links while they are broken, so adding or removing a document re-resolves only the documents
// whose links ask for one of its names or its path.
type Graph struct {
	mu      sync.RWMutex
	docs    map[string]*node
	names   *Names
	back    map[string]pathSet // target path -> from paths
	waiting map[string]pathSet // link key -> from paths
}

// node is one document of the graph.
type node struct {
	links []Link    // those of its links that can lead to a document (see keptLinks)
	out   []linkEnd // where each of links leads, in the same order
	// rest is the rest of its outline (aliases, tags, title, headings) in one string (see
	// encodeRest): a block the collector need not look into, where a title, a list of headings and
	// two strings for each were several it must, for each of hundreds of thousands of documents.
	// Only an outline or relations asked for read it.
	rest string
	// at holds, for a document of more than smallSet links, the links filed under each key, so
	// that a document arriving weighs only the links that may want it (an index of every note
	// in a vault has one link for each note that arrives).
	at map[string][]int32
}

// docOutline is what the graph keeps of a document: what links, relationships and related hits
// need. Its path is the key it is kept under; its size, time and text live in the index.
type docOutline struct {
	Title    string
	Headings []Heading
	Links    []Link
	Tags     []string
	Aliases  []string
}

// newNode returns the node of d, its links not yet resolved.
func newNode(d Doc) *node {
	return &node{links: ownLinks(keptLinks(d.Links)), rest: encodeRest(d)}
}

// ownLinks returns a copy of links whose strings share one string of their own: a document
// decoded from its stored outline shares that whole outline's bytes (see [DecodeOutline]), and a
// link that kept a piece of it kept all of it; a parsed one has a string for each. The kinds
// become the package's constants.
func ownLinks(in []Link) []Link {
	if len(in) == 0 {
		return nil
	}
	links := slices.Clone(in)
	n := 0
	for _, l := range links {
		n += len(l.Rel) + len(l.Target) + len(l.Fragment) + len(l.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range links {
		b.WriteString(l.Rel)
		b.WriteString(l.Target)
		b.WriteString(l.Fragment)
		b.WriteString(l.Text)
	}
	all, at := b.String(), 0
	next := func(s string) string {
		at += len(s)
		return all[at-len(s) : at]
	}
	for i := range links {
		l := &links[i]
		l.Kind = canonicalKind(l.Kind)
		l.Rel, l.Target, l.Fragment, l.Text = next(l.Rel), next(l.Target), next(l.Fragment), next(l.Text)
	}
	return links
}

// canonicalKind returns the package's constant for k, when it is one.
func canonicalKind(k LinkKind) LinkKind {
	for _, c := range []LinkKind{KindMarkdown, KindReference, KindAutolink, KindWiki, KindEmbed, KindFrontmatter} {
		if k == c {
			return c
		}
	}
	return k
}

// outline returns what n keeps of its document, decoded.
func (n *node) outline() docOutline {
	o, _ := decodeRest(n.rest)
	o.Links = n.links
	return o
}

// outlineOf returns what the graph would keep of d.
func outlineOf(d Doc) docOutline {
	return docOutline{Title: d.Title, Headings: d.Headings, Links: keptLinks(d.Links), Tags: d.Tags, Aliases: d.Aliases}
}

// keptLinks returns those of links that can lead to a document, in an array of their number (the
// parser grows a list by appending, which leaves up to half of it unused).
//
// A URL never resolves, is never a backlink and never moves, and nearly every page has one (each
// tldr page ends with its upstream documentation): on 384,050 pages they were a fifth of the
// graph. [Graph.RelationsOf] tells them from the document when its relationships are asked for.
func keptLinks(all []Link) []Link {
	kept := 0
	for _, l := range all {
		if !external(l) {
			kept++
		}
	}
	switch {
	case kept == 0:
		return nil
	case kept == len(all):
		return exact(all)
	}
	links := make([]Link, 0, kept)
	for _, l := range all {
		if !external(l) {
			links = append(links, l)
		}
	}
	return links
}

// exact returns s in an array of its length.
func exact[T any](s []T) []T {
	if cap(s) == len(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// linkEnd is where one link of a node leads: a [Resolved] without the [Link] the node's document
// already holds, which a million links would otherwise keep twice.
type linkEnd struct {
	To     string
	Status LinkStatus
}

// links yields the node's links, resolved.
func (n *node) resolved() iter.Seq[Resolved] {
	return func(yield func(Resolved) bool) {
		for i, e := range n.out {
			if !yield(Resolved{Link: n.links[i], To: e.To, Status: e.Status}) {
				return
			}
		}
	}
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{
		docs:    map[string]*node{},
		names:   NewNames(),
		back:    map[string]pathSet{},
		waiting: map[string]pathSet{},
	}
}

// Put adds or replaces a document and re-resolves what it changes: its own links, and the links in
// other documents that may now point to it (they were broken, or reached another document it is
// nearer than) or that reached it by an alias it no longer has.
func (g *Graph) Put(d Doc) {
	g.mu.Lock()
	defer g.mu.Unlock()
	old, had := g.docs[d.Path]
	if had {
		g.unlink(d.Path, old)
	}
	g.names.Add(d.Path, d.Aliases)
	n := newNode(d)
	g.docs[d.Path] = n
	g.link(d.Path, n)
	switch {
	case !had:
		g.offer(d.Path, docKeys(d.Path, d.Aliases))
	case !slices.Equal(nameKeys(d.Path, old.aliases()), nameKeys(d.Path, d.Aliases)):
		// A link may have reached it by an alias it lost, and one it gained may draw others.
		back := g.back[d.Path]
		g.revisit(back.clone(), d.Path)
		g.offer(d.Path, docKeys(d.Path, d.Aliases))
	}
	// Otherwise its path and names are as they were, and so is every other document's link.
}

// Delete removes a document; links to it become broken (or resolve to another document of the
// same name). Only links that reached it change: losing a candidate changes no other choice.
func (g *Graph) Delete(p string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.docs[p]
	if !ok {
		return
	}
	g.unlink(p, n)
	delete(g.docs, p)
	g.names.Remove(p)
	back := g.back[p]
	g.revisit(back.clone(), p)
}

// Has reports whether the document at p is in the graph.
func (g *Graph) Has(p string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	_, ok := g.docs[p]
	return ok
}

// Doc returns the outline of the document at p: its path, title, headings, links, tags and
// aliases (the graph keeps no more of it). Its slices are shared with the graph: do not modify
// them.
func (g *Graph) Doc(p string) (Doc, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.docs[p]
	if !ok {
		return Doc{}, false
	}
	o := n.outline()
	return Doc{Path: p, Title: o.Title, Headings: o.Headings, Links: o.Links, Tags: o.Tags, Aliases: o.Aliases}, true
}

// Len returns the number of documents.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.docs)
}

// Resolve resolves a link of the document at from against the documents in the graph.
func (g *Graph) Resolve(from string, l Link) Resolved {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return Resolve(from, l, g.names, g.exists)
}

// UniqueName reports whether exactly one document answers to name (a base name with or without
// ".md", or an alias), so that a wiki link can use it; see [RewriteLinks].
func (g *Graph) UniqueName(name string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.names.Unique(name)
}

func (g *Graph) exists(p string) bool {
	_, ok := g.docs[p]
	return ok
}

// link resolves the links of n and files them in the indexes.
func (g *Graph) link(from string, n *node) {
	n.out = make([]linkEnd, len(n.links))
	for i, l := range n.links {
		r := Resolve(from, l, g.names, g.exists)
		n.out[i] = linkEnd{To: r.To, Status: r.Status}
		if r.Status == StatusInternal {
			addTo(g.back, r.To, from)
		}
	}
	g.file(from, n)
}

// file files the resolved links of n under their waiting keys.
func (g *Graph) file(from string, n *node) {
	if len(n.links) > smallSet {
		n.at = map[string][]int32{}
	}
	for i, e := range n.out {
		for _, k := range fileUnder(from, n.links[i], e) {
			if n.at != nil {
				n.at[k] = append(n.at[k], int32(i))
			}
			addTo(g.waiting, k, from)
		}
	}
}

// unfile takes the links of n out of the waiting keys file filed them under. The keys are worked
// out again rather than kept: a node holding its own copies cost as much as the rest of it.
func (g *Graph) unfile(from string, n *node) {
	for i, e := range n.out {
		for _, k := range fileUnder(from, n.links[i], e) {
			removeFrom(g.waiting, k, from)
		}
	}
	n.at = nil
}

// fileUnder returns the waiting keys of one resolved link: all of them for a link by name or a
// broken one; for an internal path link, only the exact path when it was reached by adding ".md"
// (a document at the exact path would take precedence).
func fileUnder(from string, l Link, r linkEnd) []string {
	keys := linkKeys(from, l)
	if wikiStyle(l) || r.Status != StatusInternal {
		return keys
	}
	for _, k := range keys {
		if p := strings.TrimPrefix(k, "p:"); p+".md" == r.To {
			return []string{k}
		}
	}
	return nil
}

// unlink removes n's links from the indexes.
func (g *Graph) unlink(from string, n *node) {
	for _, r := range n.out {
		if r.Status == StatusInternal {
			removeFrom(g.back, r.To, from)
		}
	}
	g.unfile(from, n)
	n.out = nil
}

// revisit re-resolves the links of the documents froms, except skip.
func (g *Graph) revisit(froms []string, skip string) {
	for _, f := range froms {
		if n, ok := g.docs[f]; ok && f != skip {
			g.unlink(f, n)
			g.link(f, n)
		}
	}
}

// offer gives the links filed under keys, the keys of p, a document just added or given new
// names, the choice of p. Adding a document adds one candidate to a link, and every way of
// resolving a link ([Resolve]) picks the first of its candidates in a fixed order, so a link
// either keeps its target or now reaches p: a comparison of two, where resolving again would
// weigh every document of the name (README.md in each folder, a note in each of a thousand
// folders), for each waiting link.
func (g *Graph) offer(p string, keys []string) {
	type taken struct {
		from string
		i    int
	}
	var moves []taken
	for _, k := range keys {
		set := g.waiting[k]
		for f := range set.all() {
			if n, ok := g.docs[f]; ok && f != p {
				for i := range g.wants(f, n, k, p) {
					moves = append(moves, taken{f, i})
				}
			}
		}
	}
	// Moved after the loops, which read the sets filing changes; a node leaves the sets before its
	// links change, by the keys they were filed under.
	for j := 0; j < len(moves); {
		f := moves[j].from
		n := g.docs[f]
		g.unfile(f, n)
		for ; j < len(moves) && moves[j].from == f; j++ {
			g.point(f, n, moves[j].i, p)
		}
		g.file(f, n)
	}
}

// wants yields the links of n, the document at from, filed under key, that would rather reach p
// than where they lead.
func (g *Graph) wants(from string, n *node, key string, p string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n.filed(key) {
			l, e := n.links[i], n.out[i]
			if e.Status == StatusExternal || e.To == p {
				continue
			}
			if e.Status == StatusInternal && !nearerByName(from, l, e.To, p) {
				continue
			}
			two := pair{names: g.names, a: e.To, b: p}
			if resolve(from, l, two.lookup, two.exists).To == p && !yield(i) {
				return
			}
		}
	}
}

// point points the link i of n, the document at from, to p.
func (g *Graph) point(from string, n *node, i int, p string) {
	e := n.out[i]
	if e.To == p {
		return
	}
	n.out[i] = linkEnd{To: p, Status: StatusInternal}
	if e.Status == StatusInternal && !slices.ContainsFunc(n.out, func(o linkEnd) bool { return o.To == e.To }) {
		removeFrom(g.back, e.To, from) // its last link there
	}
	addTo(g.back, p, from)
}

// nearerByName reports whether p may take the place of to, where the link l of from leads: false
// only for a link by a bare name (which never resolves as a path) when p is not the nearer of the
// two. It is the one comparison most offers need, where a name has a document in each of many
// folders.
func nearerByName(from string, l Link, to, p string) bool {
	t := strings.TrimSpace(l.Target)
	if !wikiStyle(l) || strings.Contains(t, "/") {
		return true
	}
	c := candidate{p, sharedDirs(from, p), strings.Count(p, "/")}
	return c.nearer(candidate{to, sharedDirs(from, to), strings.Count(to, "/")})
}

// filed yields the indices of the links of n that may be filed under key: those it is, for a
// node that keeps them apart, else all.
func (n *node) filed(key string) iter.Seq[int] {
	return func(yield func(int) bool) {
		if n.at != nil {
			for _, i := range n.at[key] {
				if !yield(int(i)) {
					return
				}
			}
			return
		}
		for i := range n.out {
			if !yield(i) {
				return
			}
		}
	}
}

// pair is a graph of two documents, a link's target (a, "" when it is broken) and a new
// document (b), for resolving the link between them alone.
type pair struct {
	names *Names
	a, b  string
}

func (t pair) exists(p string) bool { return p != "" && (p == t.a || p == t.b) }

// lookup yields those of the two found by key.
func (t pair) lookup(key string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, p := range [2]string{t.a, t.b} {
			if t.exists(p) && t.names.answers(p, key) && !yield(p) {
				return
			}
		}
	}
}

// Backlink is one link to a document from another.
type Backlink struct {
	From string // root-relative path of the linking document
	Line int    // line of the link in From
	Kind LinkKind
	Text string // link text or wiki alias
	// Start is the byte offset in From of the link's target, or 0 when the link cannot be
	// rewritten in place (see [Link]).
	Start int
}

// Relations is everything about one document for the `relationships` purpose.
type Relations struct {
	Path, Title string
	Outline     []Heading
	Links       []Resolved // outgoing, in source order, all statuses
	Backlinks   []Backlink // sorted by From then Line
	Broken      []Resolved
	Tags        []string
	Aliases     []string
	// Parent, Children and Related are the documents it is related to, deduplicated and sorted by
	// path. Frontmatter relations (parent, children, related) take precedence: when a document
	// declares any, only they are used. Otherwise each internal outgoing link is classified by
	// folder: a document in an ancestor folder of the document's folder is a parent, one in a
	// descendant folder a child, and any other (same folder, sibling folders) related. Related says
	// how each arose ([Via] of the first link that led there).
	Parent, Children []string
	Related          []Neighbour
}

// Relations returns everything about the document at p, or false if it is not in the graph. Its
// Links are those the graph keeps, which leaves out URLs (see [Graph.RelationsOf]).
func (g *Graph) Relations(p string) (Relations, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.docs[p]
	if !ok {
		return Relations{}, false
	}
	return g.relations(p, n.outline(), slices.Collect(n.resolved())), true
}

// RelationsOf returns everything about d, a document of the graph read afresh: its outline, tags
// and links (URLs too, resolved now) from d, and its backlinks from the graph. It returns false
// if d is not in the graph.
func (g *Graph) RelationsOf(d Doc) (Relations, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if _, ok := g.docs[d.Path]; !ok {
		return Relations{}, false
	}
	links := make([]Resolved, len(d.Links))
	for i, l := range d.Links {
		links[i] = Resolve(d.Path, l, g.names, g.exists)
	}
	return g.relations(d.Path, outlineOf(d), links), true
}

// relations puts together the relations of the document o at p, whose links, resolved, are links.
func (g *Graph) relations(p string, o docOutline, links []Resolved) Relations {
	r := Relations{
		Path:      p,
		Title:     o.Title,
		Outline:   o.Headings,
		Links:     links,
		Backlinks: g.linksTo(p),
		Tags:      o.Tags,
		Aliases:   o.Aliases,
	}
	for _, l := range links {
		if l.Status == StatusBroken {
			r.Broken = append(r.Broken, l)
		}
	}
	parent, children, related := family(p, links)
	r.Parent, r.Children = sortedKeys(parent), sortedKeys(children)
	for _, q := range sortedKeys(related) {
		r.Related = append(r.Related, Neighbour{Path: q, Via: related[q]})
	}
	return r
}

// family returns the parents, children and related documents of the document at p, whose links,
// resolved, are links; each maps to the [Via] of the first link that put it there.
func family(p string, links []Resolved) (parent, children, related map[string]string) {
	parent, children, related = map[string]string{}, map[string]string{}, map[string]string{}
	declared := false
	for _, l := range links {
		declared = declared || l.Kind == KindFrontmatter
	}
	for _, l := range links {
		if l.Status != StatusInternal || l.To == p || (l.Kind == KindFrontmatter) != declared {
			continue
		}
		set := related
		switch {
		case declared && l.Rel == "parent":
			set = parent
		case declared && l.Rel == "children":
			set = children
		case declared:
		case isUnder(path.Dir(p), path.Dir(l.To)):
			set = parent
		case isUnder(path.Dir(l.To), path.Dir(p)):
			set = children
		}
		if _, ok := set[l.To]; !ok {
			set[l.To] = Via(l.Link)
		}
	}
	return parent, children, related
}

// ViaBacklink is the [Neighbour.Via] of a document that links to the other one.
const ViaBacklink = "backlink"

// Via says how a link relates the document it is written in to its target: the link's kind
// ("markdown", "reference", "wiki" or "embed"), or for a frontmatter relation "frontmatter:" and
// its field ("frontmatter:parent", "frontmatter:children", "frontmatter:related").
func Via(l Link) string {
	if l.Kind == KindFrontmatter {
		return "frontmatter:" + l.Rel
	}
	return string(l.Kind)
}

// isUnder reports whether directory d is strictly inside directory anc ("." is the root).
func isUnder(d, anc string) bool {
	if d == anc || d == "." {
		return false
	}
	return anc == "." || strings.HasPrefix(d, anc+"/")
}

// LinksTo returns the links to the document at p, sorted by From then Line. It works even if p is
// not (or no longer) a document: then it returns the broken links that asked for p by path or by
// its base name.
func (g *Graph) LinksTo(p string) []Backlink {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.linksTo(p)
}

func (g *Graph) linksTo(p string) []Backlink {
	var out []Backlink
	if _, ok := g.docs[p]; ok {
		back := g.back[p]
		for from := range back.all() {
			if from == p {
				continue // a link within a document is not a backlink
			}
			for l := range g.docs[from].resolved() {
				if l.Status == StatusInternal && l.To == p {
					out = append(out, Backlink{From: from, Line: l.Line, Kind: l.Kind, Text: l.Text, Start: l.Start})
				}
			}
		}
	} else {
		keys := docKeys(p, nil)
		want := map[string]bool{}
		froms := map[string]struct{}{}
		for _, k := range keys {
			want[k] = true
			set := g.waiting[k]
			for f := range set.all() {
				froms[f] = struct{}{}
			}
		}
		for from := range froms {
			for l := range g.docs[from].resolved() {
				if l.Status != StatusBroken {
					continue
				}
				for _, k := range linkKeys(from, l.Link) {
					if want[k] {
						out = append(out, Backlink{From: from, Line: l.Line, Kind: l.Kind, Text: l.Text, Start: l.Start})
						break
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// Neighbour is a document one hop from another, and how it is reached.
type Neighbour struct {
	Path string
	Via  string // [Via] of the link that leads there, or [ViaBacklink], or both ("wiki and backlink")
}

// viaRank orders the ways a neighbour is reached, for [Graph.Neighbours]: a link in the body,
// then a backlink, then the frontmatter's parent, children and related.
func viaRank(via string) int {
	switch via {
	case ViaBacklink:
		return 1
	case "frontmatter:parent":
		return 2
	case "frontmatter:children":
		return 3
	case "frontmatter:related":
		return 4
	}
	return 0
}

// Neighbours returns the documents one hop from the document at p: the targets of its internal
// links and frontmatter relations (Via as [Via] says) and the documents linking to it
// ([ViaBacklink]). Each appears once, reached the first way in the order of a link in the body
// (the first in the document), a backlink, the frontmatter's parent, children and related, sorted
// by Path; one the document links to that also links back says so ("wiki and backlink"). The
// document itself is left out.
func (g *Graph) Neighbours(p string) []Neighbour {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.neighbours(p)
}

func (g *Graph) neighbours(p string) []Neighbour {
	via := map[string]string{}
	add := func(q, v string) {
		if q == p {
			return
		}
		if old, ok := via[q]; !ok || viaRank(v) < viaRank(old) {
			via[q] = v
		}
	}
	if n, ok := g.docs[p]; ok {
		for l := range n.resolved() {
			if l.Status == StatusInternal {
				add(l.To, Via(l.Link))
			}
		}
	}
	back := g.back[p]
	for from := range back.all() {
		add(from, ViaBacklink)
	}
	out := make([]Neighbour, 0, len(via))
	for q, v := range via {
		if v != ViaBacklink && back.has(q) {
			v += " and " + ViaBacklink // they link each other: both ways are said
		}
		out = append(out, Neighbour{Path: q, Via: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Degree returns the number of distinct neighbours of the document at p (see [Graph.Neighbours]),
// for penalising hubs.
func (g *Graph) Degree(p string) int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.neighbours(p))
}

// Backlinkers returns the number of distinct other documents with a resolved link to the
// document at p: its in-degree in g.
func (g *Graph) Backlinkers(p string) int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if _, ok := g.docs[p]; !ok {
		return 0
	}
	back := g.back[p]
	n := back.len()
	if back.has(p) {
		n--
	}
	return n
}

// UniqueAfterMove reports whether a name will find only the document moved from moved, so a wiki
// link can name it alone: no other document answers to it.
func (g *Graph) UniqueAfterMove(moved string) func(name string) bool {
	return func(name string) bool {
		g.mu.RLock()
		defer g.mu.RUnlock()
		for p := range g.names.lookup(strings.ToLower(name)) {
			if p != moved {
				return false
			}
		}
		return true
	}
}
