package semantic

import (
	"fmt"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
		if diff := cmp.Diff([]Backlink{{From: "a.md", Line: 1, Kind: KindMarkdown, Text: "b"}}, g.LinksTo("b.md")); diff != "" {
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
		got := [][]string{r.Parent, r.Children, r.Related}
		want := [][]string{{"top.md"}, {"p/q/child.md"}, {"p/pic.png", "p/sibling.md", "r/cousin.md"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		wantBack := []Backlink{
			{From: "p/q/child.md", Line: 1, Kind: KindWiki},
			{From: "p/q/child.md", Line: 1, Kind: KindWiki},
			{From: "p/sibling.md", Line: 1, Kind: KindWiki},
		}
		if diff := cmp.Diff(wantBack, r.Backlinks); diff != "" {
			t.Errorf("backlinks (-want +got):\n%s", diff)
		}
	})
	t.Run("frontmatter precedence", func(t *testing.T) {
		r, _ := g.Relations("fm.md")
		got := [][]string{r.Parent, r.Children, r.Related, r.Tags, r.Aliases}
		want := [][]string{{"top.md"}, {"p/q/child.md"}, {"r/cousin.md"}, {"t"}, {"F"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if len(r.Broken) != 1 || r.Broken[0].Target != "missing.md" {
			t.Errorf("broken = %+v", r.Broken)
		}
	})
	t.Run("neighbours", func(t *testing.T) {
		want := []Neighbour{
			{"p/q/child.md", "child"}, {"p/sibling.md", "link"}, {"r/cousin.md", "related"}, {"top.md", "parent"},
		}
		if diff := cmp.Diff(want, g.Neighbours("fm.md")); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if got := g.Degree("p/q/child.md"); got != 2 { // index (link), fm (backlink)
			t.Errorf("Degree = %d, neighbours %+v", got, g.Neighbours("p/q/child.md"))
		}
	})
	if _, ok := g.Relations("nope.md"); ok {
		t.Error("Relations of a missing document")
	}
}

// TestGraphVault parses the Obsidian help vault when it is present and logs link counts.
func TestGraphVault(t *testing.T) {
	const root = "/tmp/corpora/obsidian-help-en"
	fsys := os.DirFS(root)
	if _, err := fs.Stat(fsys, "."); err != nil {
		t.Skip("vault not present")
	}
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
	for _, p := range paths {
		r, _ := g.Relations(p)
		for _, l := range r.Links {
			counts[l.Status]++
		}
		for _, l := range r.Broken {
			broken = append(broken, fmt.Sprintf("%s:%d %s %q", p, l.Line, l.Kind, l.Target))
		}
	}
	t.Logf("%d files: %d internal, %d external, %d broken", len(paths), counts[StatusInternal], counts[StatusExternal], counts[StatusBroken])
	if testing.Verbose() {
		for _, b := range broken {
			t.Log("broken:", b)
		}
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
