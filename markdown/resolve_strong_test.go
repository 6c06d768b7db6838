package markdown

import (
	"io/fs"
	"path"
	"strings"
	"testing"
)

// FuzzResolveNoClamp: a path-style link that climbs above the root is never internal, an internal
// one is exactly the joined path (or it plus ".md") and exists, and a wiki link only ever resolves to
// a document that exists.
func FuzzResolveNoClamp(f *testing.F) {
	for _, s := range []string{"../../etc/passwd", "../x.md", "/../x", "a/../../b", "x", "/notes/a.md", "..", "Note", "notes/../../x"} {
		f.Add("notes/a.md", uint8(0), s)
		f.Add("x.md", uint8(3), s)
	}
	kinds := []LinkKind{KindMarkdown, KindReference, KindAutolink, KindWiki, KindEmbed, KindFrontmatter}
	f.Fuzz(func(t *testing.T, from string, kind uint8, target string) {
		if !fs.ValidPath(from) || from == "." {
			from = "notes/a.md"
		}
		names, exists := testNames()
		l := Link{Kind: kinds[int(kind)%len(kinds)], Target: target}
		if kind&8 != 0 {
			l.Rel, l.Text = RelWiki, FrontmatterWiki
		}
		asked := map[string]bool{}
		r := Resolve(from, l, names, func(p string) bool {
			ok := exists(p)
			asked[p] = ok
			return ok
		})
		tt := strings.TrimSpace(target)
		if r.Status != StatusInternal {
			return
		}
		if !fs.ValidPath(r.To) {
			t.Fatalf("internal To %q is not a valid path", r.To)
		}
		if tt == "" {
			if r.To != from {
				t.Fatalf("fragment link resolved to %q, not %q", r.To, from)
			}
			return
		}
		if !asked[r.To] {
			t.Fatalf("Resolve(%q, %+v) = %q, which it never confirmed exists", from, l, r.To)
		}
		if wikiStyle(l) || isExternal(tt) {
			return
		}
		base := path.Dir(from)
		if strings.HasPrefix(tt, "/") {
			base = "/"
		}
		j := path.Join(base, tt)
		if strings.HasPrefix(tt, "/") {
			if j == "/.." || strings.HasPrefix(j, "/../") {
				t.Fatalf("%q from %q climbs above the root, yet resolved to %q", tt, from, r.To)
			}
			j = strings.TrimPrefix(j, "/")
		}
		if j == ".." || strings.HasPrefix(j, "../") {
			t.Fatalf("%q from %q climbs above the root, yet resolved to %q", tt, from, r.To)
		}
		if r.To != j && r.To != j+".md" {
			t.Fatalf("%q from %q resolved to %q, want %q (or with .md)", tt, from, r.To, j)
		}
	})
}
