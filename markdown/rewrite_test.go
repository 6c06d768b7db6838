package markdown

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRewriteLinks(t *testing.T) {
	tree := []Doc{
		doc("notes/old.md", ""),
		doc("notes/Other.md", ""),
		doc("archive/Other.md", ""),
	}
	tests := []struct {
		name, from, src  string
		newPath          string
		target           bool // linkText "target": Move.KeepText false
		want             string
		changed, skipped int
	}{
		{"across folders", "notes/a.md", "[x](old.md#Sec) and [y](./old.md)", "archive/2024/new.md",
			false, "[x](../archive/2024/new.md#Sec) and [y](../archive/2024/new.md)", 2, 0},
		{"from root", "top.md", "[x](notes/old.md)", "new.md", false, "[x](new.md)", 1, 0},
		{"root relative kept", "top.md", "[x](/notes/old.md)", "b/new.md", false, "[x](/b/new.md)", 1, 0},
		{"md-less kept", "notes/a.md", "[x](old)", "notes/new.md", false, "[x](new)", 1, 0},
		{"escaped spaces", "notes/a.md", "[x](%6Fld.md)", "notes/my new.md", false, "[x](my%20new.md)", 1, 0},
		{"space needs escape", "notes/a.md", "[x](old.md)", "notes/my new.md", false, "[x](my%20new.md)", 1, 0},
		{"angle keeps space", "notes/a.md", "[x](<old.md>)", "notes/my new.md", false, "[x](<my new.md>)", 1, 0},
		{"image", "notes/a.md", "![i](old.md)", "n2/old.md", false, "![i](../n2/old.md)", 1, 0},
		{"reference once", "notes/a.md", "[a][r] [b][r]\n\n[r]: old.md", "x/new.md", false, "[a][r] [b][r]\n\n[r]: ../x/new.md", 1, 0},
		{"wiki unique name", "notes/a.md", "[[old#H|alias]] ![[old]]", "x/Fresh.md", false, "[[Fresh#H|alias]] ![[Fresh]]", 2, 0},
		{"wiki ambiguous name", "notes/a.md", "[[old]]", "archive/Other.md", false, "[[archive/Other|old]]", 1, 0},
		// A link written with a path keeps a path; its text changes only with the note's name.
		{"wiki path keeps a path", "notes/a.md", "[[notes/old]] [[notes/old#Repro|the repro]] ![[notes/old]]", "archive/old.md", false,
			"[[archive/old]] [[archive/old#Repro|the repro]] ![[archive/old]]", 3, 0},
		{"wiki path renamed keeps its text", "notes/a.md", "[[notes/old]]", "x/Fresh.md", false, "[[x/Fresh|notes/old]]", 1, 0},
		{"wiki path shows the target", "notes/a.md", "[[notes/old]]", "x/Fresh.md", true, "[[x/Fresh]]", 1, 0},
		{"wiki explicit md", "notes/a.md", "[[old.md]]", "x/Fresh.md", false, "[[Fresh.md|old.md]]", 1, 0},
		{"frontmatter skipped", "notes/a.md", "---\nparent: \"[[old]]\"\n---\n[[old]]", "x/Fresh.md", false, "---\nparent: \"[[old]]\"\n---\n[[Fresh|old]]", 1, 1},
		{"other links untouched", "notes/a.md", "[[Other]] [x](https://old.md) `[c](old.md)`", "x/new.md", false, "[[Other]] [x](https://old.md) `[c](old.md)`", 0, 0},
		// What the reader sees is kept, unless linkText is "target".
		{"wiki keeps its text", "notes/a.md", "see the [[old]] here", "x/Fresh.md", false, "see the [[Fresh|old]] here", 1, 0},
		{"wiki shows the target", "notes/a.md", "see the [[old]] here", "x/Fresh.md", true, "see the [[Fresh]] here", 1, 0},
		{"wiki heading keeps its text", "notes/a.md", "[[old#Part]] [[old#A#B]]", "x/Fresh.md", false, "[[Fresh#Part|old > Part]] [[Fresh#A#B|old > A > B]]", 2, 0},
		{"wiki heading shows the target", "notes/a.md", "[[old#Part]]", "x/Fresh.md", true, "[[Fresh#Part]]", 1, 0},
		{"wiki alias kept", "notes/a.md", "[[old|the old one]]", "x/Fresh.md", true, "[[Fresh|the old one]]", 1, 0},
		{"embed gets no alias", "notes/a.md", "![[old]] ![[old#Part]]", "x/Fresh.md", false, "![[Fresh]] ![[Fresh#Part]]", 2, 0},
		{"table escapes the bar", "notes/a.md", "| a | b |\n| - | - |\n| [[old]] | [[old\\|x]] |\n", "x/Fresh.md", false,
			"| a | b |\n| - | - |\n| [[Fresh\\|old]] | [[Fresh\\|x]] |\n", 2, 0},
		{"wiki name unchanged", "notes/a.md", "[[old]] [[Old]]", "x/old.md", false, "[[old]] [[Old]]", 0, 0},
		// A markdown link's text is kept; one that is the destination itself shows the new one.
		{"path text follows", "notes/a.md", "[old.md](old.md) [/notes/old.md](/notes/old.md)", "x/new.md", false,
			"[../x/new.md](../x/new.md) [/x/new.md](/x/new.md)", 2, 0},
		{"escaped path text follows", "notes/a.md", "[old.md](old.md)", "notes/my new.md", false, "[my%20new.md](my%20new.md)", 1, 0},
		{"word text kept", "notes/a.md", "[old](old)", "notes/new.md", false, "[old](new)", 1, 0},
		{"word text shows the target", "notes/a.md", "[old](old)", "notes/new.md", true, "[new](new)", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Move{From: "notes/old.md", To: tt.newPath, KeepText: !tt.target}
			out, rw, skipped := rewriteIn(tree, tt.from, tt.src, m)
			if diff := cmp.Diff(tt.want, string(out)); diff != "" || len(rw) != tt.changed || skipped != tt.skipped {
				t.Errorf("changed %d skipped %d, want %d %d; (-want +got):\n%s", len(rw), skipped, tt.changed, tt.skipped, diff)
			}
		})
	}
}

// rewriteIn rewrites, for the move m, the links of src, the document at from in a graph of tree,
// where the names Fresh.md and old.md are unique.
func rewriteIn(tree []Doc, from, src string, m Move) ([]byte, []Rewrite, int) {
	g := NewGraph()
	for _, d := range tree {
		g.Put(d)
	}
	d := doc(from, src)
	g.Put(d)
	m.Unique = func(_, base string) bool { return base == "Fresh.md" || base == "old.md" }
	return RewriteLinks([]byte(src), d, func(l Link) Resolved { return g.Resolve(d.Path, l) }, m)
}

// TestRewriteLinkFormats checks the vault's link format where a move writes a path: a wiki link
// written relative stays relative, and one by name whose name another note now answers to gets
// the path the format says.
func TestRewriteLinkFormats(t *testing.T) {
	tree := []Doc{doc("notes/old.md", ""), doc("notes/Other.md", ""), doc("archive/Other.md", "")}
	tests := []struct {
		name, from, src, newPath, want string
		format                         LinkFormat
	}{
		{"relative stays relative", "notes/a.md", "[[./old]] [[../notes/old#H|h]]", "archive/2024/old.md", "[[../archive/2024/old]] [[../archive/2024/old#H|h]]", LinkShortest},
		{"relative to the same folder", "archive/a.md", "[[../notes/old]]", "archive/old.md", "[[./old]]", LinkAbsolute},
		{"relative renamed keeps its text", "notes/a.md", "[[./old]]", "notes/Other.md", "[[./Other|./old]]", LinkShortest},
		{"shortest falls back to the root path", "notes/a.md", "[[old]]", "archive/Other.md", "[[archive/Other|old]]", LinkShortest},
		{"absolute falls back to the root path", "notes/a.md", "[[old]]", "archive/Other.md", "[[archive/Other|old]]", LinkAbsolute},
		{"relative falls back to a relative path", "notes/a.md", "[[old]]", "archive/Other.md", "[[../archive/Other|old]]", LinkRelative},
		{"a unique name stays a name", "notes/a.md", "[[old]]", "archive/Fresh.md", "[[Fresh|old]]", LinkRelative},
		{"a root path stays a root path", "notes/a.md", "[[notes/old]]", "archive/old.md", "[[archive/old]]", LinkRelative},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Move{From: "notes/old.md", To: tt.newPath, KeepText: true, Format: tt.format}
			out, _, _ := rewriteIn(tree, tt.from, tt.src, m)
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a moved note's relative links follow its folder", func(t *testing.T) {
		g := NewGraph()
		for _, p := range []string{"a/one.md", "b/two.md"} {
			g.Put(doc(p, ""))
		}
		src := "[[./one]] [[../b/two]] [[one]]"
		d := Parse("a/moved.md", []byte(src), time.Time{})
		g.Put(d)
		m := Move{From: "a/moved.md", To: "c/d/moved.md", Unique: func(_, _ string) bool { return true }, KeepText: true}
		out, rw := RelinkMoved([]byte(src), d, "c/d/moved.md", func(l Link) Resolved { return g.Resolve("a/moved.md", l) }, m)
		if want := "[[../../a/one]] [[../../b/two]] [[one]]"; string(out) != want || len(rw) != 2 {
			t.Errorf("got %q (%d rewrites), want %q", out, len(rw), want)
		}
	})
}

// TestRewriteShows checks what a rewrite shows of each link: the whole link as written, its line,
// and the same after the move.
func TestRewriteShows(t *testing.T) {
	long := "[" + string(make([]byte, MaxRewriteSpan)) + "](old.md)"
	for i := 1; i < MaxRewriteSpan; i++ {
		long = long[:i] + "x" + long[i+1:]
	}
	tests := []struct {
		name, src string
		want      []string // "line: before -> after"
	}{
		{"inline", "intro\n\nsee [the *old* one](old.md#Sec \"title\") now",
			[]string{"3: [the *old* one](old.md#Sec \"title\") -> [the *old* one](../x/new.md#Sec \"title\")"}},
		{"brackets in the text", "[a [b] c](old.md)", []string{"1: [a [b] c](old.md) -> [a [b] c](../x/new.md)"}},
		{"image", "![pic](old.md)", []string{"1: ![pic](old.md) -> ![pic](../x/new.md)"}},
		{"angle", "[x](<old.md>)", []string{"1: [x](<old.md>) -> [x](<../x/new.md>)"}},
		{"reference definition", "[a][r]\n\n  [r]: old.md \"t\"  \n", []string{"3: [r]: old.md \"t\" -> [r]: ../x/new.md \"t\""}},
		{"wiki", "a\n[[old]] and ![[old]]", []string{"2: [[old]] -> [[new|old]]", "2: ![[old]] -> ![[new]]"}},
		{"wiki alias", "[[old#H|see]]", []string{"1: [[old#H|see]] -> [[new#H|see]]"}},
		{"long link shows its destination", long, []string{"1: old.md -> ../x/new.md"}},
	}
	g := NewGraph()
	g.Put(doc("notes/old.md", ""))
	m := Move{From: "notes/old.md", To: "x/new.md", Unique: func(_, _ string) bool { return true }, KeepText: true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := doc("notes/a.md", tt.src)
			_, rw, _ := RewriteLinks([]byte(tt.src), d, func(l Link) Resolved { return g.Resolve(d.Path, l) }, m)
			var got []string
			for _, r := range rw {
				got = append(got, fmt.Sprintf("%d: %s -> %s", r.Line, r.Before, r.After))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRelinkMoved(t *testing.T) {
	g := NewGraph()
	for _, p := range []string{"a/one.md", "a/sub/two.md", "b/three.md", "top.md"} {
		g.Put(doc(p, ""))
	}
	src := "[1](one.md) [2](sub/two.md#h) [3](../b/three.md) [t](/top.md) [[one]] [self](moved.md) [m](missing.md) [f](#x)"
	d := Parse("a/moved.md", []byte(src), time.Time{})
	g.Put(d)
	resolve := func(l Link) Resolved { return g.Resolve("a/moved.md", l) }
	unique := func(_, _ string) bool { return true }
	tests := []struct {
		name, from, newPath, want string
		changed                   int
	}{
		{"deeper", "a/moved.md", "a/x/y/moved.md", "[1](../../one.md) [2](../../sub/two.md#h) [3](../../../b/three.md) [t](/top.md) [[one]] [self](moved.md) [m](missing.md) [f](#x)", 3},
		{"to root", "a/moved.md", "moved.md", "[1](a/one.md) [2](a/sub/two.md#h) [3](b/three.md) [t](/top.md) [[one]] [self](moved.md) [m](missing.md) [f](#x)", 3},
		{"renamed in place", "a/moved.md", "a/renamed.md", "[1](one.md) [2](sub/two.md#h) [3](../b/three.md) [t](/top.md) [[one]] [self](renamed.md) [m](missing.md) [f](#x)", 1},
		{"self link follows", "a/moved.md", "b/moved2.md", "[1](../a/one.md) [2](../a/sub/two.md#h) [3](three.md) [t](/top.md) [[one]] [self](moved2.md) [m](missing.md) [f](#x)", 4},
		// The folder moves with its documents: links between them stay as they are, the
		// root-relative and wiki links to them follow.
		{"folder moved along", "a", "z/a2/moved.md", "[1](one.md) [2](sub/two.md#h) [3](../../b/three.md) [t](/top.md) [[one]] [self](moved.md) [m](missing.md) [f](#x)", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Move{From: tt.from, To: tt.newPath, Unique: unique, KeepText: true}
			if tt.from == "a" {
				m.To = "z/a2"
			}
			out, rw := RelinkMoved([]byte(src), d, tt.newPath, resolve, m)
			if diff := cmp.Diff(tt.want, string(out)); diff != "" || len(rw) != tt.changed {
				t.Errorf("changed %d, want %d; (-want +got):\n%s", len(rw), tt.changed, diff)
			}
		})
	}
	t.Run("root-relative and wiki links between moved documents", func(t *testing.T) {
		src := "[t](/a/one.md) [[a/sub/two]] [[one]]"
		d := Parse("a/moved.md", []byte(src), time.Time{})
		m := Move{From: "a", To: "z", Unique: unique, KeepText: true}
		out, _ := RelinkMoved([]byte(src), d, "z/moved.md", resolve, m)
		if want := "[t](/z/one.md) [[z/sub/two]] [[one]]"; string(out) != want { // a path link keeps a path
			t.Errorf("got %q, want %q", out, want)
		}
	})
}
