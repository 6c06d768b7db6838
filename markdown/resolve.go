package markdown

import (
	"io/fs"
	"iter"
	"path"
	"sort"
	"strings"
)

// LinkStatus classifies a resolved link.
type LinkStatus string

// The statuses of a resolved link.
const (
	StatusInternal LinkStatus = "internal" // a document under the root
	StatusExternal LinkStatus = "external" // a URL (any scheme) or a network path: never read
	StatusBroken   LinkStatus = "broken"   // no such document, or a target outside the root
)

// Resolved is a [Link] with where it leads.
type Resolved struct {
	Link
	To     string // root-relative path of the target document when internal
	Status LinkStatus
}

// Names indexes documents by lower-cased base name (with and without a markdown extension) and by
// alias, for wiki-link resolution. It is not safe for concurrent use ([Graph] guards its own).
//
// A markdown document is filed under its name without the extension alone ("tar" for tar.md),
// and found by its whole base name too by a look at the documents of that name: a second set for
// every document cost a sixth of the graph.
type Names struct {
	byKey   map[string]pathSet  // lower-cased name (see fileKeys) or alias -> paths
	aliases map[string][]string // path -> its aliases, for Remove, only for documents with aliases
}

// NewNames returns an empty index.
func NewNames() *Names {
	return &Names{byKey: map[string]pathSet{}, aliases: map[string][]string{}}
}

// nameKeys returns the keys a document at p with aliases is found by: its lower-cased base name,
// that without a markdown extension, and its aliases.
func nameKeys(p string, aliases []string) []string {
	base := strings.ToLower(path.Base(p))
	keys := []string{base}
	if IsMarkdown(base) {
		keys = append(keys, strings.TrimSuffix(base, path.Ext(base)))
	}
	return appendAliases(keys, aliases)
}

// fileKeys returns the keys [Names] files a document at p with aliases under: its name (without
// a markdown extension) first, then its aliases.
func fileKeys(p string, aliases []string) []string {
	return appendAliases([]string{fileName(strings.ToLower(path.Base(p)))}, aliases)
}

// fileName is the key a lower-cased base name is filed under: without a markdown extension.
func fileName(base string) string {
	if IsMarkdown(base) {
		return strings.TrimSuffix(base, path.Ext(base))
	}
	return base
}

func appendAliases(keys, aliases []string) []string {
	for _, a := range aliases {
		if a = strings.ToLower(strings.TrimSpace(a)); a != "" {
			keys = append(keys, a)
		}
	}
	return keys
}

// Add indexes the document at path p under its base name and aliases, replacing what was indexed
// for p before.
func (n *Names) Add(p string, aliases []string) {
	n.Remove(p)
	for _, k := range fileKeys(p, aliases) {
		addTo(n.byKey, k, p)
	}
	if len(aliases) > 0 {
		n.aliases[p] = aliases
	}
}

// Remove forgets the document at path p. Its keys are computed again from its path and the
// aliases it was added with, rather than kept for every document.
func (n *Names) Remove(p string) {
	keys := fileKeys(p, n.aliases[p])
	if set := n.byKey[keys[0]]; !set.has(p) {
		return // not indexed: every document is filed under its name
	}
	for _, k := range keys {
		removeFrom(n.byKey, k, p)
	}
	delete(n.aliases, p)
}

// Unique reports whether exactly one document is found by the name (a base name with or without
// ".md", or an alias), case-insensitively: then a wiki link can use the bare name.
func (n *Names) Unique(name string) bool {
	found := 0
	for range n.lookup(strings.ToLower(name)) {
		if found++; found > 1 {
			break
		}
	}
	return found == 1
}

// lookup yields, once each, the paths found by a lower-cased key: those filed under it, and for
// a markdown name, the documents of that whole base name, filed under it without the extension.
func (n *Names) lookup(key string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if n == nil {
			return
		}
		set := n.byKey[key]
		for p := range set.all() {
			if !yield(p) {
				return
			}
		}
		short := fileName(key)
		if short == key {
			return
		}
		named := n.byKey[short]
		for p := range named.all() {
			if !set.has(p) && strings.ToLower(path.Base(p)) == key && !yield(p) {
				return
			}
		}
	}
}

// answers reports whether the document at p is found by the lower-cased key.
func (n *Names) answers(p, key string) bool {
	base := strings.ToLower(path.Base(p))
	if base == key || fileName(base) == key {
		return true
	}
	for _, a := range n.aliases[p] {
		if strings.ToLower(strings.TrimSpace(a)) == key {
			return true
		}
	}
	return false
}

// wikiStyle reports whether l resolves by name (Obsidian) rather than as a path: wiki links,
// wiki embeds ([RelWiki]) and frontmatter wiki-links ([FrontmatterWiki]).
func wikiStyle(l Link) bool {
	switch l.Kind {
	case KindWiki:
		return true
	case KindEmbed:
		return l.Rel == RelWiki
	case KindFrontmatter:
		return l.Text == FrontmatterWiki
	}
	return false
}

// isExternal reports whether target is a URL (it has a scheme, `[a-z][a-z0-9+.-]*:`, which also
// catches "C:\x.md") or a network path ("//host/x").
func isExternal(target string) bool {
	if strings.HasPrefix(target, "//") {
		return true
	}
	i := strings.IndexByte(target, ':')
	if i < 1 || !isASCIILetter(target[0]) {
		return false
	}
	for _, c := range []byte(target[1:i]) {
		if !isASCIILetter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// within joins target to dir (a root-relative directory, "." for the root) without ever leaving
// the root: a leading "/" starts from the root, and a ".." that would climb above it fails, as does
// anything that is not a valid fs path afterwards (backslashes and NUL bytes are refused outright,
// since some systems read a backslash as a separator).
func within(dir, target string) (string, bool) {
	if strings.ContainsAny(target, "\\\x00") {
		return "", false
	}
	var parts []string
	if !strings.HasPrefix(target, "/") && dir != "." && dir != "" {
		parts = strings.Split(dir, "/")
	}
	for _, e := range strings.Split(target, "/") {
		switch e {
		case "", ".":
		case "..":
			if len(parts) == 0 {
				return "", false
			}
			parts = parts[:len(parts)-1]
		default:
			parts = append(parts, e)
		}
	}
	p := strings.Join(parts, "/")
	if p == "" || !fs.ValidPath(p) {
		return "", false
	}
	return p, true
}

// hasMarkdownExt reports whether p ends in ".md" (case-insensitive).
func hasMarkdownExt(p string) bool { return strings.EqualFold(path.Ext(p), ".md") }

// Resolve resolves one link of the document at from. Rules:
//   - a Target with a URL scheme (http:, mailto:, file:, javascript:, any `[a-z][a-z0-9+.-]*:`, which
//     includes "C:\x.md") or starting with "//" is External, and so is every [KindAutolink];
//   - an empty Target (a fragment-only link such as [[#Heading]] or [x](#h)) is Internal to from;
//   - markdown, reference, image-embed and frontmatter-path targets are relative to from's directory
//     (a leading "/" means the root); a target that climbs above the root is Broken. Then the path
//     itself if it exists, else the path + ".md" when it does not already end in ".md", else Broken;
//   - wiki, wiki-embed and frontmatter-wiki targets resolve by name as Obsidian does. A target that
//     starts with "./" or "../" is a path relative to from's directory, as Obsidian writes links
//     under its "Relative path to file" format (see [LinkFormat]), and is Broken when nothing is
//     there; any other target with a ".." component is Broken. A target with '/' is first tried as a root-relative path (+".md");
//     otherwise the documents whose lower-cased base name (with or without ".md") or alias equals the
//     target's base name are candidates, kept only if their path ends with the target when it has a
//     '/'. Among several, the nearest to from wins: the longest shared directory prefix, then the
//     fewest directories, then lexical order.
//
// exists is called only with root-relative cleaned paths inside the root (fs.ValidPath, no ".."):
// the caller answers from its own set of known documents, so resolution never touches a filesystem.
// The Target is used as parsed: it is not percent-decoded again.
func Resolve(from string, l Link, names *Names, exists func(path string) bool) Resolved {
	return resolve(from, l, names.lookup, exists)
}

// resolve is [Resolve] with the documents found by a lower-cased name given by lookup.
func resolve(from string, l Link, lookup func(key string) iter.Seq[string], exists func(path string) bool) Resolved {
	r := Resolved{Link: l, Status: StatusBroken}
	target := strings.TrimSpace(l.Target)
	switch {
	case external(l):
		r.Status = StatusExternal
	case target == "":
		r.To, r.Status = from, StatusInternal
	case wikiStyle(l) && relativeWiki(target):
		r.To = resolvePath(path.Dir(from), target, exists)
	case wikiStyle(l):
		r.To = resolveName(from, target, lookup, exists)
	default:
		r.To = resolvePath(path.Dir(from), target, exists)
	}
	if r.To != "" {
		r.Status = StatusInternal
	}
	return r
}

// ByName reports whether r reached its document by name, as a wiki link whose target is not the
// document's path does: a document of that name nearer to the link, had it been known, would
// have taken its place.
func (r Resolved) ByName() bool {
	if r.Status != StatusInternal || !wikiStyle(r.Link) {
		return false
	}
	t := strings.Trim(strings.TrimSpace(r.Target), "/")
	return t != "" && !relativeWiki(t) && r.To != t && r.To != t+".md"
}

// relativeWiki reports whether the wiki target t is a path relative to its document's folder:
// it starts with "./" or "../".
func relativeWiki(t string) bool {
	return strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../")
}

// external reports whether l is a URL (any scheme) or a network path, which never leads to a
// document under the root.
func external(l Link) bool {
	return l.Kind == KindAutolink || isExternal(strings.TrimSpace(l.Target))
}

// resolvePath resolves a path target relative to dir; "" when broken.
func resolvePath(dir, target string, exists func(string) bool) string {
	p, ok := within(dir, target)
	if !ok {
		return ""
	}
	if exists(p) {
		return p
	}
	if !hasMarkdownExt(p) && exists(p+".md") {
		return p + ".md"
	}
	return ""
}

// resolveName resolves a wiki target by name; "" when broken.
func resolveName(from, target string, lookup func(key string) iter.Seq[string], exists func(string) bool) string {
	for _, e := range strings.Split(target, "/") {
		if e == ".." {
			return ""
		}
	}
	if strings.Contains(target, "/") {
		if p := resolvePath(".", "/"+target, exists); p != "" {
			return p
		}
	}
	if strings.ContainsAny(target, "\\\x00") {
		return ""
	}
	lower := strings.ToLower(strings.Trim(target, "/"))
	suffix := "" // with a '/', a candidate must end with the target (Obsidian's partial paths)
	if strings.Contains(lower, "/") {
		suffix = "/" + lower
	}
	var best candidate
	for p := range lookup(path.Base(lower)) {
		if suffix != "" {
			if lp := strings.ToLower(p); !strings.HasSuffix("/"+lp, suffix) && !strings.HasSuffix("/"+lp, suffix+".md") {
				continue
			}
		}
		if !fs.ValidPath(p) || !exists(p) {
			continue
		}
		// A name many documents answer to (README.md in every folder) has as many candidates,
		// and every link to it weighs them all: each is measured once, without allocating.
		if c := (candidate{p, sharedDirs(from, p), strings.Count(p, "/")}); best.path == "" || c.nearer(best) {
			best = c
		}
	}
	return best.path
}

// A candidate is a document a link by name may reach, with how near it is to the linking
// document: the folders they share from the top, and its depth.
type candidate struct {
	path          string
	shared, depth int
}

// nearer reports whether c is nearer than b to the linking document: more folders shared, then
// less deep, then first by name.
func (c candidate) nearer(b candidate) bool {
	if c.shared != b.shared {
		return c.shared > b.shared
	}
	if c.depth != b.depth {
		return c.depth < b.depth
	}
	return c.path < b.path
}

// sharedDirs counts the leading folders the files at the valid paths a and b have in common.
func sharedDirs(a, b string) int {
	i, j := strings.LastIndexByte(a, '/'), strings.LastIndexByte(b, '/')
	if i < 0 || j < 0 {
		return 0 // one of them is at the top
	}
	da, db := a[:i], b[:j]
	n := 0
	for {
		ca, ra, moreA := strings.Cut(da, "/")
		cb, rb, moreB := strings.Cut(db, "/")
		if ca != cb {
			return n
		}
		n++
		if !moreA || !moreB {
			return n
		}
		da, db = ra, rb
	}
}

// linkKeys returns the keys under which a [Graph] files a link so that adding or removing a
// document revisits only the links it may change: "n:" + lower-cased base name for links that
// resolve by name, and "p:" + path for path links.
func linkKeys(from string, l Link) []string {
	target := strings.TrimSpace(l.Target)
	if l.Kind == KindAutolink || target == "" || isExternal(target) {
		return nil
	}
	if wikiStyle(l) && !relativeWiki(target) {
		keys := []string{"n:" + path.Base(strings.ToLower(strings.Trim(target, "/")))}
		if p, ok := within(".", "/"+target); ok && strings.Contains(target, "/") {
			keys = append(keys, "p:"+p, "p:"+p+".md")
		}
		return keys
	}
	p, ok := within(path.Dir(from), target)
	if !ok {
		return nil
	}
	return []string{"p:" + p, "p:" + p + ".md"}
}

// docKeys returns the keys a document at p with aliases answers to (see linkKeys).
func docKeys(p string, aliases []string) []string {
	keys := []string{"p:" + p}
	for _, k := range nameKeys(p, aliases) {
		keys = append(keys, "n:"+k)
	}
	return keys
}

// sortedKeys returns the keys of a map (a set, or paths with what they map to) in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
