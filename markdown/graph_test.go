package markdown

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

func doc(p, src string) Doc { return Parse(p, []byte(src), time.Time{}) }

func TestGraphIncremental(t *testing.T) {
	g := NewGraph()
	g.Put(doc("a.md", "[b](b.md) [[Cee]] [[Nick]] [gone](gone.md)"))
	if got := g.LinksTo("b.md"); len(got) != 1 || got[0].From != "a.md" {
		t.Errorf("LinksTo(b.md) before b exists = %+v", got)
	}

	t.Run("broken becomes internal", func(t *testing.T) {
		g.Put(doc("b.md", "back to [[a]]"))
		g.Put(doc("sub/Cee.md", "x"))
		r, _ := g.Relations("a.md")
		want := []string{"internal b.md", "internal sub/Cee.md", "broken ", "broken "}
		if diff := cmp.Diff(want, statuses(r.Links)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]Backlink{{From: "a.md", Line: 1, Kind: KindMarkdown, Text: "b", Start: 4}}, g.LinksTo("b.md")); diff != "" {
			t.Errorf("backlinks (-want +got):\n%s", diff)
		}
	})
	t.Run("alias added", func(t *testing.T) {
		g.Put(doc("n.md", "---\naliases: [Nick]\n---\n"))
		r, _ := g.Relations("a.md")
		if r.Links[2].To != "n.md" {
			t.Errorf("[[Nick]] = %+v", r.Links[2])
		}
	})
	t.Run("alias removed", func(t *testing.T) {
		g.Put(doc("n.md", "no alias"))
		r, _ := g.Relations("a.md")
		if r.Links[2].Status != StatusBroken || len(r.Broken) != 2 {
			t.Errorf("[[Nick]] = %+v, broken %d", r.Links[2], len(r.Broken))
		}
	})
	t.Run("replace drops old backlinks", func(t *testing.T) {
		g.Put(doc("a.md", "only [[Cee]]"))
		if got := g.LinksTo("b.md"); len(got) != 0 {
			t.Errorf("LinksTo(b.md) = %+v", got)
		}
	})
	t.Run("delete breaks links", func(t *testing.T) {
		g.Delete("sub/Cee.md")
		r, _ := g.Relations("a.md")
		if r.Links[0].Status != StatusBroken || g.Has("sub/Cee.md") || g.Len() != 3 {
			t.Errorf("after delete: %+v, has %v, len %d", r.Links[0], g.Has("sub/Cee.md"), g.Len())
		}
		if got := g.LinksTo("sub/Cee.md"); len(got) != 1 || got[0].From != "a.md" {
			t.Errorf("LinksTo(deleted) = %+v", got)
		}
	})
	t.Run("relative wiki link", func(t *testing.T) {
		g.Put(doc("sub/deep/r.md", "[[../Gee]] [[./Gee]]"))
		g.Put(doc("sub/Gee.md", ""))
		r, _ := g.Relations("sub/deep/r.md")
		if diff := cmp.Diff([]string{"internal sub/Gee.md", "broken "}, statuses(r.Links)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		g.Put(doc("sub/deep/Gee.md", ""))
		if got := g.LinksTo("sub/deep/Gee.md"); len(got) != 1 || got[0].From != "sub/deep/r.md" {
			t.Errorf("LinksTo(sub/deep/Gee.md) once it exists = %+v", got)
		}
	})
	t.Run("same name elsewhere takes over", func(t *testing.T) {
		g.Put(doc("x/Cee.md", ""))
		g.Put(doc("Cee.md", ""))
		r, _ := g.Relations("a.md")
		if r.Links[0].To != "Cee.md" {
			t.Errorf("[[Cee]] = %+v", r.Links[0])
		}
		g.Delete("Cee.md")
		r, _ = g.Relations("a.md")
		if r.Links[0].To != "x/Cee.md" {
			t.Errorf("[[Cee]] after delete = %+v", r.Links[0])
		}
	})
}

func statuses(rs []Resolved) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Status)+" "+r.To)
	}
	return out
}

func TestGraphRelations(t *testing.T) {
	g := NewGraph()
	for _, d := range []Doc{
		doc("top.md", "# Top\n"),
		doc("p/index.md", "[up](../top.md) [down](q/child.md) [side](sibling.md) [[cousin]] ![[pic.png]] [self](#x) [ext](https://x.org)"),
		doc("p/sibling.md", "[[index]]"),
		doc("p/q/child.md", "[[index]] [[index]]"),
		doc("r/cousin.md", ""),
		doc("p/pic.png", ""),
		doc("fm.md", "---\nparent: \"[[top]]\"\nchildren: [p/q/child.md, missing.md]\nrelated: [[cousin]]\ntags: [t]\naliases: [F]\n---\n[[sibling]]"),
	} {
		g.Put(d)
	}
	t.Run("classified", func(t *testing.T) {
		r, ok := g.Relations("p/index.md")
		if !ok {
			t.Fatal("missing")
		}
		got := [][]string{r.Parent, r.Children}
		want := [][]string{{"top.md"}, {"p/q/child.md"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		// Each related document says which link it came from.
		wantRelated := []Neighbour{{"p/pic.png", "embed"}, {"p/sibling.md", "markdown"}, {"r/cousin.md", "wiki"}}
		if diff := cmp.Diff(wantRelated, r.Related); diff != "" {
			t.Errorf("related (-want +got):\n%s", diff)
		}
		wantBack := []Backlink{
			{From: "p/q/child.md", Line: 1, Kind: KindWiki, Start: 2},
			{From: "p/q/child.md", Line: 1, Kind: KindWiki, Start: 12},
			{From: "p/sibling.md", Line: 1, Kind: KindWiki, Start: 2},
		}
		if diff := cmp.Diff(wantBack, r.Backlinks); diff != "" {
			t.Errorf("backlinks (-want +got):\n%s", diff)
		}
	})
	t.Run("frontmatter precedence", func(t *testing.T) {
		r, _ := g.Relations("fm.md")
		got := [][]string{r.Parent, r.Children, r.Tags, r.Aliases}
		want := [][]string{{"top.md"}, {"p/q/child.md"}, {"t"}, {"F"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]Neighbour{{"r/cousin.md", "frontmatter:related"}}, r.Related); diff != "" {
			t.Errorf("related (-want +got):\n%s", diff)
		}
		if len(r.Broken) != 1 || r.Broken[0].Target != "missing.md" {
			t.Errorf("broken = %+v", r.Broken)
		}
	})
	t.Run("neighbours", func(t *testing.T) {
		want := []Neighbour{
			{"p/q/child.md", "frontmatter:children"}, {"p/sibling.md", "wiki"}, {"r/cousin.md", "frontmatter:related"}, {"top.md", "frontmatter:parent"},
		}
		if diff := cmp.Diff(want, g.Neighbours("fm.md")); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		// A document linked from the body and linking back is reached both ways, and says so;
		// one that only links here, by a backlink.
		want = []Neighbour{{"fm.md", "backlink"}, {"p/index.md", "wiki and backlink"}}
		if diff := cmp.Diff(want, g.Neighbours("p/q/child.md")); diff != "" {
			t.Errorf("child's neighbours (-want +got):\n%s", diff)
		}
		if got := g.Degree("p/q/child.md"); got != 2 { // index (link), fm (backlink)
			t.Errorf("Degree = %d, neighbours %+v", got, g.Neighbours("p/q/child.md"))
		}
	})
	if _, ok := g.Relations("nope.md"); ok {
		t.Error("Relations of a missing document")
	}
}

// vaultBrokenLinks are the links and note embeds of the Obsidian help vault whose target is
// really absent: the "Example" note the page on links writes about, and a picture the archive
// lacks that is linked as a note.
var vaultBrokenLinks = []string{
	"Linking notes and files/Internal links.md:154 wiki Example",
	"Linking notes and files/Internal links.md:155 wiki Example",
	"Linking notes and files/Internal links.md:162 wiki Example",
	"Linking notes and files/Internal links.md:163 wiki Example",
	"Linking notes and files/Internal links.md:168 markdown Example.md",
	"Linking notes and files/Internal links.md:169 markdown Example.md",
	"Obsidian Web Clipper/Troubleshoot Web Clipper.md:59 wiki web-clipper-kde.png",
}

// vaultMinInternal is a floor under the vault's resolved links (1,552 on 2026-11-24): losing
// many means links are no longer parsed, which no broken link would show.
const vaultMinInternal = 1500

// TestGraphVault builds the graph of the Obsidian help vault, a real linked knowledge base, and
// checks that its links resolve as Obsidian resolves them: every link and note embed finds its
// note (by path or name, nearest first) except those in vaultBrokenLinks, and the only other
// broken links are embeds of pictures the archive does not carry. The vault's links name no
// alias (their one near miss, "Quick Switcher " for Quick switcher.md, is a name with a space):
// resolution by alias is TestGraphIncremental's "alias added" case.
func TestGraphVault(t *testing.T) {
	fsys := os.DirFS(corpora.Dir(t, corpora.Obsidian))
	g := NewGraph()
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if !IsMarkdown(p) {
			src = nil // attachments are link targets only
		}
		g.Put(Parse(p, src, time.Time{}))
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[LinkStatus]int{}
	var broken []string
	pictures := 0
	for _, p := range paths {
		r, _ := g.Relations(p)
		for _, l := range r.Links {
			counts[l.Status]++
		}
		for _, l := range r.Broken {
			if ext := strings.ToLower(path.Ext(l.Target)); l.Kind == KindEmbed && ext != "" && ext != ".md" {
				pictures++
				continue
			}
			broken = append(broken, fmt.Sprintf("%s:%d %s %s", p, l.Line, l.Kind, l.Target))
		}
	}
	t.Logf("%d files: %d internal, %d external, %d broken (%d embedded pictures absent from the archive)",
		len(paths), counts[StatusInternal], counts[StatusExternal], counts[StatusBroken], pictures)
	if diff := cmp.Diff(vaultBrokenLinks, broken); diff != "" {
		t.Errorf("broken links other than absent pictures (-want +got):\n%s", diff)
	}
	if counts[StatusInternal] < vaultMinInternal {
		t.Errorf("%d links resolved inside the vault, want at least %d", counts[StatusInternal], vaultMinInternal)
	}
}

func BenchmarkGraphPut40k(b *testing.B) {
	const n = 40_000
	docs := make([]Doc, n)
	for i := range docs {
		p := fmt.Sprintf("d%d/note%d.md", i%200, i)
		docs[i] = Doc{Path: p, Links: []Link{
			{Kind: KindWiki, Target: fmt.Sprintf("note%d", (i*7+1)%n)},
			{Kind: KindWiki, Target: fmt.Sprintf("note%d", (i*13+5)%n)},
			{Kind: KindMarkdown, Target: fmt.Sprintf("../d%d/note%d.md", (i+1)%200, (i+201)%n)},
			{Kind: KindMarkdown, Target: "missing.md"},
			{Kind: KindWiki, Target: "Index"},
		}}
	}
	for b.Loop() {
		g := NewGraph()
		for _, d := range docs {
			g.Put(d)
		}
	}
}

// BenchmarkGraphPutDistinctLinks puts one note of n links to n distinct targets (case J59): the
// time per link should not grow with n. Filing each link's keys once scanned the note's keys so
// far, and 100,000 links took seconds.
func BenchmarkGraphPutDistinctLinks(b *testing.B) {
	for _, n := range []int{25_000, 100_000} {
		b.Run(fmt.Sprintf("links=%d", n), func(b *testing.B) {
			d := Doc{Path: "links.md", Links: make([]Link, n)}
			for i := range d.Links {
				d.Links[i] = Link{Kind: KindWiki, Target: fmt.Sprintf("n%d", i)}
			}
			for b.Loop() {
				NewGraph().Put(d)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/link")
		})
	}
}

// TestPathSet checks the set of paths the graph's indexes use, below and past the size at which
// it turns from a slice into a map.
func TestPathSet(t *testing.T) {
	tests := []struct {
		name   string
		add    int // paths p0..p(add-1), each added twice
		remove []int
	}{
		{name: "empty"},
		{name: "one", add: 1},
		{name: "small with removals", add: 5, remove: []int{0, 4, 2}},
		{name: "at the limit", add: smallSet, remove: []int{smallSet - 1}},
		{name: "past the limit", add: 3 * smallSet, remove: []int{0, smallSet, 3*smallSet - 1}},
		{name: "remove all", add: smallSet + 1, remove: func() []int {
			var all []int
			for i := range smallSet + 1 {
				all = append(all, i)
			}
			return all
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s pathSet
			want := map[string]bool{}
			for i := range tt.add {
				p := fmt.Sprintf("p%d", i)
				s.add(p)
				s.add(p)
				want[p] = true
			}
			for _, i := range tt.remove {
				p := fmt.Sprintf("p%d", i)
				s.remove(p)
				s.remove(p)
				delete(want, p)
			}
			got := map[string]bool{}
			for p := range s.all() {
				if got[p] {
					t.Errorf("%s yielded twice", p)
				}
				got[p] = true
			}
			if diff := cmp.Diff(want, got); diff != "" || s.len() != len(want) {
				t.Errorf("set (-want +got):\n%s len %d, want %d", diff, s.len(), len(want))
			}
			for i := range tt.add + 1 {
				p := fmt.Sprintf("p%d", i)
				if s.has(p) != want[p] {
					t.Errorf("has(%s) = %v, want %v", p, s.has(p), want[p])
				}
			}
		})
	}
}

// TestGraphSharedNames checks resolution and backlinks when many documents share a name and one
// document is linked from many others, past the size at which the graph's sets become maps: a
// wiki link goes to the nearest of the same-named documents, a deleted target's links go to the
// next nearest, and the backlinks follow.
func TestGraphSharedNames(t *testing.T) {
	for _, copies := range []int{2, smallSet, 3 * smallSet} {
		t.Run(fmt.Sprint(copies), func(t *testing.T) {
			g := NewGraph()
			for i := range copies {
				g.Put(Doc{Path: fmt.Sprintf("c%02d/readme.md", i)})
				g.Put(Doc{Path: fmt.Sprintf("c%02d/note.md", i), Links: []Link{{Kind: KindWiki, Target: "readme", Line: 1}}})
			}
			hub := Doc{Path: "hub.md"}
			g.Put(hub)
			for i := range copies {
				g.Put(Doc{Path: fmt.Sprintf("c%02d/to-hub.md", i), Links: []Link{{Kind: KindMarkdown, Target: "../hub.md", Line: 1}}})
			}
			for i := range copies {
				want := []string{fmt.Sprintf("c%02d/note.md", i)}
				if got := froms(g.LinksTo(fmt.Sprintf("c%02d/readme.md", i))); !slices.Equal(got, want) {
					t.Errorf("links to c%02d/readme.md = %v, want %v", i, got, want)
				}
			}
			if got := len(g.LinksTo("hub.md")); got != copies || g.Backlinkers("hub.md") != copies {
				t.Errorf("hub backlinks = %d, backlinkers %d, want %d", got, g.Backlinkers("hub.md"), copies)
			}
			// Deleting c00's readme sends c00's note to another readme (the first by path, as
			// all share no folder with it); deleting the hub breaks its links.
			g.Delete("c00/readme.md")
			if r, _ := g.Relations("c00/note.md"); len(r.Links) != 1 || r.Links[0].To != "c01/readme.md" {
				t.Errorf("after delete, c00/note.md links = %+v, want c01/readme.md", r.Links)
			}
			g.Delete("hub.md")
			if got := len(g.LinksTo("hub.md")); got != copies {
				t.Errorf("broken links to the deleted hub = %d, want %d", got, copies)
			}
			g.Put(hub)
			if g.Backlinkers("hub.md") != copies {
				t.Errorf("hub backlinkers after it came back = %d, want %d", g.Backlinkers("hub.md"), copies)
			}
			if !g.UniqueName("hub") || g.UniqueName("note") {
				t.Errorf("UniqueName(hub) = %v, UniqueName(note) = %v", g.UniqueName("hub"), g.UniqueName("note"))
			}
		})
	}
}

func froms(bl []Backlink) []string {
	var out []string
	for _, b := range bl {
		out = append(out, b.From)
	}
	return out
}

// TestGraphDocOutline checks what the graph keeps of a document: its outline, not its text, size
// or time, which live in the index.
func TestGraphDocOutline(t *testing.T) {
	links := make([]Link, 1, 8) // spare capacity, as the parser leaves it
	links[0] = Link{Kind: KindWiki, Target: "b", Line: 3}
	in := Doc{Path: "a.md", Title: "A", Markdown: true, Headings: []Heading{{Level: 1, Text: "A", Line: 1}},
		Sections: []Section{{Text: "body"}}, Links: links, Tags: []string{"t"}, Aliases: []string{"alpha"},
		Size: 10, ModTime: time.Unix(1, 0), Frontmatter: true}
	want := Doc{Path: "a.md", Title: "A", Headings: in.Headings, Links: links, Tags: in.Tags, Aliases: in.Aliases}
	g := NewGraph()
	g.Put(in)
	got, ok := g.Doc("a.md")
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("Doc (-want +got):\n%s", diff)
	}
	if cap(got.Links) != len(got.Links) {
		t.Errorf("links kept with capacity %d for %d", cap(got.Links), len(got.Links))
	}
	if _, ok := g.Doc("b.md"); ok {
		t.Error("Doc of a missing document reports ok")
	}
}

// TestGraphKeepsNoURLs checks that the graph leaves out links that can never lead to a document,
// and that RelationsOf tells them, in source order, from the document read afresh.
func TestGraphKeepsNoURLs(t *testing.T) {
	g := NewGraph()
	g.Put(doc("b.md", "# B\n"))
	a := doc("a.md", "[b](b.md) <https://x.org/a> [up](https://y.org) [gone](gone.md)\n")
	g.Put(a)
	d, _ := g.Doc("a.md")
	if got := len(d.Links); got != 2 {
		t.Errorf("graph keeps %d links of a.md, want 2 (no URLs): %+v", got, d.Links)
	}
	r, ok := g.RelationsOf(a)
	if !ok {
		t.Fatal("a.md not in the graph")
	}
	var got []string
	for _, l := range r.Links {
		got = append(got, l.Target+" "+string(l.Status))
	}
	want := []string{"b.md internal", "https://x.org/a external", "https://y.org external", "gone.md broken"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if len(r.Broken) != 1 || r.Broken[0].Target != "gone.md" {
		t.Errorf("broken = %+v, want gone.md", r.Broken)
	}
	if _, ok := g.RelationsOf(doc("other.md", "")); ok {
		t.Error("RelationsOf a document not in the graph: want false")
	}
}

// BenchmarkGraphSharedNames puts the shape of a generated tree of a million notes: folders of
// the same note names, each note linking to the next by name. Every name has a copy in each
// folder, so a document that arrives is a candidate for a waiting link in every folder.
func BenchmarkGraphSharedNames(b *testing.B) {
	const folders, notes = 50, 1000
	docs := make([]Doc, 0, folders*notes)
	for d := range folders {
		for f := range notes {
			docs = append(docs, Doc{Path: fmt.Sprintf("d%03d/n%03d.md", d, f), Links: []Link{
				{Kind: KindWiki, Target: fmt.Sprintf("n%03d", (f+1)%notes), Line: 1},
			}})
		}
	}
	for b.Loop() {
		g := NewGraph()
		for _, d := range docs {
			g.Put(d)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)), "ns/doc")
}

// TestGraphIncrementalMatchesRebuild puts and deletes documents at random and checks, after each
// change, that every link leads where a graph built afresh from the same documents leads it, and
// that every document has the same backlinks: a graph kept in step must not drift from one built
// at once.
func TestGraphIncrementalMatchesRebuild(t *testing.T) {
	paths := []string{"x.md", "y.md", "a/x.md", "a/y.md", "a/b/x.md", "a/b/readme.md", "c/x.md", "c/readme.md", "readme.md", "a/x", "c/y"}
	targets := []string{"[[x]]", "[[y]]", "[[readme]]", "[[a/x]]", "[[b/x]]", "[[./x]]", "[[../x]]", "[[Nick]]", "[[x.md]]",
		"[x](x.md)", "[x](x)", "[y](../y.md)", "[r](/readme.md)", "[x](a/x)", "[[#h]]", "<https://e.org>"}
	aliases := []string{"", "---\naliases: [Nick]\n---\n", "---\naliases: [x, Nick]\n---\n", "---\naliases: [readme]\n---\n"}
	rng := rand.New(rand.NewPCG(1, 2))
	live := map[string]Doc{}
	g := NewGraph()
	for step := range 3000 {
		p := paths[rng.IntN(len(paths))]
		if _, ok := live[p]; ok && rng.IntN(3) == 0 {
			g.Delete(p)
			delete(live, p)
		} else {
			src := aliases[rng.IntN(len(aliases))]
			links := rng.IntN(4)
			if rng.IntN(8) == 0 {
				links = smallSet + rng.IntN(8) // a note that keeps its links apart by key
			}
			for range links {
				src += targets[rng.IntN(len(targets))] + "\n"
			}
			d := doc(p, src)
			g.Put(d)
			live[p] = d
		}
		fresh := NewGraph()
		for _, q := range sortedKeys(live) {
			fresh.Put(live[q])
		}
		for _, q := range paths {
			got, _ := g.Relations(q)
			want, _ := fresh.Relations(q)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("step %d (%s): relations of %s (-afresh +kept):\n%s", step, p, q, diff)
			}
		}
	}
}

// TestGraphKeepsOutlines checks that the graph gives back each document's title, headings, tags
// and aliases as they were put, through the compact form it keeps them in: titles that are and are
// not the first heading's text, anchors that are and are not their heading's slug.
func TestGraphKeepsOutlines(t *testing.T) {
	docs := []Doc{
		{Path: "none.md"},
		{Path: "title.md", Title: "Only a title"},
		{Path: "empty-title.md", Headings: []Heading{{Level: 1, Text: "First", Anchor: "first", Line: 1, EndLine: 9}}},
		{Path: "h1.md", Title: "First", Headings: []Heading{{Level: 1, Text: "First", Anchor: "first", Line: 3, EndLine: 4},
			{Level: 2, Text: "First", Anchor: "first-1", Line: 5, EndLine: 4}, {Level: 3, Text: "?!", Anchor: "", Line: 40, EndLine: 41},
			{Level: 2, Text: "Été à Paris", Anchor: "custom", Line: 42, EndLine: 100}},
			Tags: []string{"a", "b/c"}, Aliases: []string{"Al", ""}},
	}
	entries, err := os.ReadDir("testdata/parse")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if src, err := os.ReadFile(path.Join("testdata/parse", e.Name())); err == nil && IsMarkdown(e.Name()) {
			docs = append(docs, doc(e.Name(), string(src)))
		}
	}
	g := NewGraph()
	for _, d := range docs {
		g.Put(d)
	}
	for _, d := range docs {
		got, _ := g.Doc(d.Path)
		want := Doc{Path: d.Path, Title: d.Title, Headings: d.Headings, Links: keptLinks(d.Links), Tags: d.Tags, Aliases: d.Aliases}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-put +kept):\n%s", d.Path, diff)
		}
	}
}

// BenchmarkGraphHeap puts every markdown file under PACKFS_GRAPH_ROOT into a graph and reports
// the live heap the graph holds (after a collection, less the heap before it), and per document.
// It skips when the variable is unset:
//
//	PACKFS_GRAPH_ROOT=/path/to/tree go test -run '^$' -bench GraphHeap -benchtime 1x ./markdown/
func BenchmarkGraphHeap(b *testing.B) {
	root := os.Getenv("PACKFS_GRAPH_ROOT")
	if root == "" {
		b.Skip("set PACKFS_GRAPH_ROOT to a folder of markdown files")
	}
	fsys := os.DirFS(root)
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		g := NewGraph()
		err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !IsMarkdown(p) {
				return err
			}
			src, err := fs.ReadFile(fsys, p)
			if err == nil {
				g.Put(Parse(p, src, time.Time{}))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		live := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		b.ReportMetric(live/(1<<20), "graph-MB")
		b.ReportMetric(live/float64(g.Len()), "B/doc")
		runtime.KeepAlive(g)
	}
}
