package markdown

import (
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testTree is the set of documents the resolve tests run against.
var testTree = []string{
	"Home.md",
	"abs.md",
	"notes/Note.md",
	"notes/a.md",
	"notes/sub/deep.md",
	"notes/my note.md",
	"x.md",
	"other/Note.md",
	"other/img.png",
	"folder/Note.md",
	"plain",
	"a/b/c/Note.md",
}

func testNames() (*Names, func(string) bool) {
	names := NewNames()
	set := map[string]bool{}
	for _, p := range testTree {
		set[p] = true
		var aliases []string
		if p == "notes/a.md" {
			aliases = []string{"Alpha", "First Letter"}
		}
		names.Add(p, aliases)
	}
	return names, func(p string) bool { return set[p] }
}

func TestResolve(t *testing.T) {
	names, exists := testNames()
	md := func(target string) Link { return Link{Kind: KindMarkdown, Target: target} }
	wiki := func(target string) Link { return Link{Kind: KindWiki, Target: target} }
	tests := []struct {
		name   string
		from   string
		link   Link
		to     string
		status LinkStatus
	}{
		{"relative", "notes/a.md", md("Note.md"), "notes/Note.md", StatusInternal},
		{"subfolder", "notes/a.md", md("sub/deep.md"), "notes/sub/deep.md", StatusInternal},
		{"parent folder", "notes/sub/deep.md", md("../a.md"), "notes/a.md", StatusInternal},
		{"dot segments", "notes/a.md", md("./sub/../Note.md"), "notes/Note.md", StatusInternal},
		{"root relative", "notes/sub/deep.md", md("/abs.md"), "abs.md", StatusInternal},
		{"md-less", "notes/a.md", md("Note"), "notes/Note.md", StatusInternal},
		{"exact before md", "notes/a.md", md("../plain"), "plain", StatusInternal},
		{"space", "notes/a.md", md("my note.md"), "notes/my note.md", StatusInternal},
		{"missing", "notes/a.md", md("nope.md"), "", StatusBroken},
		{"escape", "notes/a.md", md("../../etc/passwd"), "", StatusBroken},
		{"escape from root", "Home.md", md("../x.md"), "", StatusBroken},
		{"escape via root", "notes/a.md", md("/../x.md"), "", StatusBroken},
		{"dot dot only", "notes/a.md", md(".."), "", StatusBroken},
		{"directory", "notes/a.md", md("./"), "", StatusBroken},
		{"percent stays literal", "notes/a.md", md("%2e%2e/x.md"), "", StatusBroken},
		{"backslash", "notes/a.md", md(`..\..\x.md`), "", StatusBroken},
		{"file url", "notes/a.md", md("file:///etc/passwd"), "", StatusExternal},
		{"https", "notes/a.md", md("https://x"), "", StatusExternal},
		{"mailto", "notes/a.md", md("mailto:a@b.c"), "", StatusExternal},
		{"javascript", "notes/a.md", md("javascript:alert(1)"), "", StatusExternal},
		{"drive letter", "notes/a.md", md(`C:\x.md`), "", StatusExternal},
		{"network path", "notes/a.md", md("//host/x.md"), "", StatusExternal},
		{"autolink", "notes/a.md", Link{Kind: KindAutolink, Target: "www.x.org"}, "", StatusExternal},
		{"fragment only", "notes/a.md", Link{Kind: KindMarkdown, Fragment: "h"}, "notes/a.md", StatusInternal},
		{"image embed by path", "notes/a.md", Link{Kind: KindEmbed, Target: "../other/img.png"}, "other/img.png", StatusInternal},
		{"reference", "notes/a.md", Link{Kind: KindReference, Target: "../x.md"}, "x.md", StatusInternal},
		{"frontmatter path", "notes/a.md", Link{Kind: KindFrontmatter, Rel: "parent", Target: "../Home.md"}, "Home.md", StatusInternal},

		{"wiki nearest same folder", "notes/a.md", wiki("Note"), "notes/Note.md", StatusInternal},
		{"wiki nearest other folder", "other/x.md", wiki("Note"), "other/Note.md", StatusInternal},
		{"wiki nearest shortest", "Home.md", wiki("Note"), "folder/Note.md", StatusInternal},
		{"wiki nearest prefix", "a/b/z.md", wiki("Note"), "a/b/c/Note.md", StatusInternal},
		{"wiki case-insensitive", "Home.md", wiki("home"), "Home.md", StatusInternal},
		{"wiki with extension", "Home.md", wiki("x.md"), "x.md", StatusInternal},
		{"wiki image", "Home.md", Link{Kind: KindEmbed, Rel: RelWiki, Target: "img.png"}, "other/img.png", StatusInternal},
		{"wiki alias", "Home.md", wiki("alpha"), "notes/a.md", StatusInternal},
		{"wiki alias with space", "Home.md", wiki("First Letter"), "notes/a.md", StatusInternal},
		{"wiki folder path", "notes/a.md", wiki("folder/Note"), "folder/Note.md", StatusInternal},
		{"wiki partial path", "Home.md", wiki("c/Note"), "a/b/c/Note.md", StatusInternal},
		{"wiki wrong folder", "Home.md", wiki("nowhere/Note"), "", StatusBroken},
		{"wiki same document", "notes/a.md", Link{Kind: KindWiki, Fragment: "H"}, "notes/a.md", StatusInternal},
		{"wiki escape", "notes/a.md", wiki("../../secret"), "", StatusBroken},
		{"wiki relative parent", "notes/a.md", wiki("../Home"), "Home.md", StatusInternal},
		{"wiki relative sibling", "notes/a.md", wiki("./Note"), "notes/Note.md", StatusInternal},
		{"wiki relative with extension", "a/b/z.md", wiki("./c/Note.md"), "a/b/c/Note.md", StatusInternal},
		{"wiki relative not by name", "Home.md", wiki("./Note"), "", StatusBroken},
		{"wiki relative missing", "notes/a.md", wiki("../Nobody"), "", StatusBroken},
		{"wiki dot dot inside", "notes/a.md", wiki("folder/../Home"), "", StatusBroken},
		{"wiki relative escape from root", "Home.md", wiki("../Home"), "", StatusBroken},
		{"wiki missing", "notes/a.md", wiki("Nobody"), "", StatusBroken},
		{"wiki url", "notes/a.md", wiki("https://x.org"), "", StatusExternal},
		{"frontmatter wiki", "x.md", Link{Kind: KindFrontmatter, Rel: "related", Target: "Note", Text: FrontmatterWiki}, "folder/Note.md", StatusInternal},
		{"frontmatter wiki escape", "x.md", Link{Kind: KindFrontmatter, Target: "../../secret", Text: FrontmatterWiki}, "", StatusBroken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(tt.from, tt.link, names, checked(t, exists))
			want := Resolved{Link: tt.link, To: tt.to, Status: tt.status}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestResolveParsed runs parsed links through Resolve: percent-decoding happens once, in Parse.
func TestResolveParsed(t *testing.T) {
	names, exists := testNames()
	src := "[a](%2e%2e/x.md) [b](my%20note.md) [c](../../../etc/passwd) [[../../secret]] [[Note#H|n]]"
	d := Parse("notes/p.md", []byte(src), time.Time{})
	var got []string
	for _, l := range d.Links {
		r := Resolve(d.Path, l, names, checked(t, exists))
		got = append(got, string(r.Status)+" "+r.To)
	}
	want := []string{"internal x.md", "internal notes/my note.md", "broken ", "broken ", "internal notes/Note.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNames(t *testing.T) {
	n := NewNames()
	n.Add("a/Note.md", []string{"Alias"})
	n.Add("b/note.md", nil)
	tests := []struct {
		name string
		want bool
	}{
		{"note", false}, {"Note.md", false}, {"alias", true}, {"missing", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := n.Unique(tt.name); got != tt.want {
				t.Errorf("Unique(%q) = %v", tt.name, got)
			}
		})
	}
	n.Remove("b/note.md")
	n.Add("a/Note.md", nil)
	if !n.Unique("note") || n.Unique("alias") {
		t.Errorf("after Remove and re-Add: note unique %v, alias unique %v", n.Unique("note"), n.Unique("alias"))
	}
}

// checked wraps exists to fail the test if Resolve asks about a path outside the root.
func checked(t testing.TB, exists func(string) bool) func(string) bool {
	return func(p string) bool {
		if !fs.ValidPath(p) || hasDotDot(p) {
			t.Fatalf("exists(%q): not a clean root-relative path", p)
		}
		return exists(p)
	}
}

func hasDotDot(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"../../etc/passwd", "file:///etc/passwd", "../../secret", "/abs.md", "%2e%2e/x.md",
		"https://x", "mailto:a", `C:\x.md`, "Note", "folder/Note", "a/../../b", "/../x", "./", "", "//x", "a\x00b", "..", "Alpha"} {
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
		r := Resolve(from, l, names, func(p string) bool {
			if !fs.ValidPath(p) || hasDotDot(p) {
				t.Fatalf("exists(%q)", p)
			}
			return exists(p)
		})
		if r.Status == StatusInternal && (!fs.ValidPath(r.To) || hasDotDot(r.To)) {
			t.Fatalf("Resolve(%q, %+v) = %+v", from, l, r)
		}
		if r.Status != StatusInternal && r.To != "" {
			t.Fatalf("non-internal with To: %+v", r)
		}
	})
}

// TestResolvedByName checks which resolved links reached their document by name, so that a
// nearer document of that name, not known yet, could take its place: wiki links whose target is
// not the document's path, and never a markdown link, a broken link or a link to the same note.
func TestResolvedByName(t *testing.T) {
	names, exists := testNames()
	wiki := func(target string) Link { return Link{Kind: KindWiki, Target: target} }
	tests := []struct {
		name string
		from string
		link Link
		want bool
	}{
		{"wiki by name", "other/x.md", wiki("Note"), true},
		{"wiki by other case", "Home.md", wiki("home"), true},
		{"wiki alias", "Home.md", wiki("alpha"), true},
		{"wiki partial path", "Home.md", wiki("c/Note"), true},
		{"frontmatter wiki", "x.md", Link{Kind: KindFrontmatter, Rel: "related", Target: "Note", Text: FrontmatterWiki}, true},
		{"wiki image by name", "Home.md", Link{Kind: KindEmbed, Rel: RelWiki, Target: "img.png"}, true},
		{"wiki full path", "notes/a.md", wiki("folder/Note"), false},
		{"wiki relative path", "notes/a.md", wiki("../folder/Note"), false},
		{"wiki path with extension", "Home.md", wiki("x.md"), false},
		{"wiki same document", "notes/a.md", Link{Kind: KindWiki, Fragment: "H"}, false},
		{"wiki missing", "notes/a.md", wiki("Nobody"), false},
		{"markdown", "notes/a.md", Link{Kind: KindMarkdown, Target: "Note.md"}, false},
		{"markdown embed", "notes/a.md", Link{Kind: KindEmbed, Target: "../other/img.png"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Resolve(tt.from, tt.link, names, checked(t, exists))
			if got := r.ByName(); got != tt.want {
				t.Errorf("ByName() = %v, want %v, for %+v", got, tt.want, r)
			}
		})
	}
}

// TestSharedDirs checks the count of leading folders two documents share, which ranks the
// candidates of a link by name.
func TestSharedDirs(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a.md", "b.md", 0},
		{"a.md", "x/b.md", 0},
		{"x/a.md", "x/b.md", 1},
		{"x/y/a.md", "x/b.md", 1},
		{"x/y/a.md", "x/y/z/b.md", 2},
		{"x/y/a.md", "x/yz/b.md", 1},
		{"xy/a.md", "x/b.md", 0},
		{"p/q/r/a.md", "p/q/r/b.md", 3},
	}
	for _, tt := range tests {
		if got := sharedDirs(tt.a, tt.b); got != tt.want {
			t.Errorf("sharedDirs(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := sharedDirs(tt.b, tt.a); got != tt.want {
			t.Errorf("sharedDirs(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}
