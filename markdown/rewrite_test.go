package markdown

import (
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
		want             string
		changed, skipped int
	}{
		{"across folders", "notes/a.md", "[x](old.md#Sec) and [y](./old.md)", "archive/2024/new.md",
			"[x](../archive/2024/new.md#Sec) and [y](../archive/2024/new.md)", 2, 0},
		{"from root", "top.md", "[x](notes/old.md)", "new.md", "[x](new.md)", 1, 0},
		{"root relative kept", "top.md", "[x](/notes/old.md)", "b/new.md", "[x](/b/new.md)", 1, 0},
		{"md-less kept", "notes/a.md", "[x](old)", "notes/new.md", "[x](new)", 1, 0},
		{"escaped spaces", "notes/a.md", "[x](%6Fld.md)", "notes/my new.md", "[x](my%20new.md)", 1, 0},
		{"space needs escape", "notes/a.md", "[x](old.md)", "notes/my new.md", "[x](my%20new.md)", 1, 0},
		{"angle keeps space", "notes/a.md", "[x](<old.md>)", "notes/my new.md", "[x](<my new.md>)", 1, 0},
		{"image", "notes/a.md", "![i](old.md)", "n2/old.md", "![i](../n2/old.md)", 1, 0},
		{"reference once", "notes/a.md", "[a][r] [b][r]\n\n[r]: old.md", "x/new.md", "[a][r] [b][r]\n\n[r]: ../x/new.md", 1, 0},
		{"wiki unique name", "notes/a.md", "[[old#H|alias]] ![[old]]", "x/Fresh.md", "[[Fresh#H|alias]] ![[Fresh]]", 2, 0},
		{"wiki ambiguous name", "notes/a.md", "[[old]]", "archive/Other.md", "[[archive/Other]]", 1, 0},
		{"wiki explicit md", "notes/a.md", "[[old.md]]", "x/Fresh.md", "[[Fresh.md]]", 1, 0},
		{"frontmatter skipped", "notes/a.md", "---\nparent: \"[[old]]\"\n---\n[[old]]", "x/Fresh.md", "---\nparent: \"[[old]]\"\n---\n[[Fresh]]", 1, 1},
		{"other links untouched", "notes/a.md", "[[Other]] [x](https://old.md) `[c](old.md)`", "x/new.md", "[[Other]] [x](https://old.md) `[c](old.md)`", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGraph()
			for _, d := range tree {
				g.Put(d)
			}
			d := doc(tt.from, tt.src)
			g.Put(d)
			unique := func(base string) bool { return base == "Fresh.md" }
			out, changed, skipped := RewriteLinks([]byte(tt.src), d, func(l Link) Resolved { return g.Resolve(d.Path, l) }, "notes/old.md", tt.newPath, unique)
			if diff := cmp.Diff(tt.want, string(out)); diff != "" || changed != tt.changed || skipped != tt.skipped {
				t.Errorf("changed %d skipped %d, want %d %d; (-want +got):\n%s", changed, skipped, tt.changed, tt.skipped, diff)
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
	tests := []struct {
		name, newPath, want string
		changed             int
	}{
		{"deeper", "a/x/y/moved.md", "[1](../../one.md) [2](../../sub/two.md#h) [3](../../../b/three.md) [t](/top.md) [[one]] [self](moved.md) [m](missing.md) [f](#x)", 3},
		{"to root", "moved.md", "[1](a/one.md) [2](a/sub/two.md#h) [3](b/three.md) [t](/top.md) [[one]] [self](moved.md) [m](missing.md) [f](#x)", 3},
		{"renamed in place", "a/renamed.md", "[1](one.md) [2](sub/two.md#h) [3](../b/three.md) [t](/top.md) [[one]] [self](renamed.md) [m](missing.md) [f](#x)", 1},
		{"self link follows", "b/moved2.md", "[1](../a/one.md) [2](../a/sub/two.md#h) [3](three.md) [t](/top.md) [[one]] [self](moved2.md) [m](missing.md) [f](#x)", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed := RelinkMoved([]byte(src), d, "a/moved.md", tt.newPath, resolve)
			if diff := cmp.Diff(tt.want, string(out)); diff != "" || changed != tt.changed {
				t.Errorf("changed %d, want %d; (-want +got):\n%s", changed, tt.changed, diff)
			}
		})
	}
}
