package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// priorGraph is a small graph: hub.md is linked from three documents, leaf.md from none,
// and a.md and b.md link to each other.
func priorGraph() *markdown.Graph {
	g := markdown.NewGraph()
	for p, src := range map[string]string{
		"hub.md":  "# Hub\n",
		"leaf.md": "# Leaf\n",
		"a.md":    "[[hub|the centre]] [[b]]",
		"b.md":    "[[hub]] [[a]] [[hub|centre]]",
		"c.md":    "[home](hub.md) [[hub|Hub]] [[c]]",
	} {
		g.Put(markdown.Parse(p, []byte(src), time.Time{}))
	}
	return g
}

func hitPaths(hits []fulltext.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func TestPriorZeroIsIdentity(t *testing.T) {
	hits := []fulltext.Hit{{Path: "leaf.md", Score: 1}, {Path: "hub.md", Score: 0.9}}
	got := priorRerank(hits, priorGraph(), priorOptions{})
	if diff := cmp.Diff(hits, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := priorRerank(hits, nil, priorOptions{InDegree: 1}); !cmp.Equal(hits, got) {
		t.Errorf("nil graph changed the hits: %+v", got)
	}
}

func TestPriorInDegree(t *testing.T) {
	g := priorGraph()
	if n := g.Backlinkers("hub.md"); n != 3 {
		t.Errorf("Backlinkers(hub.md) = %d, want 3", n)
	}
	if n := g.Backlinkers("c.md"); n != 0 {
		t.Errorf("Backlinkers(c.md) = %d, want 0 (a self-link does not count)", n)
	}
	hits := []fulltext.Hit{{Path: "leaf.md", Score: 1}, {Path: "hub.md", Score: 0.9}}
	got := priorRerank(hits, g, priorOptions{InDegree: 0.1})
	if diff := cmp.Diff([]string{"hub.md", "leaf.md"}, hitPaths(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if got[0].Score != 1 {
		t.Errorf("top score = %v, want 1", got[0].Score)
	}
	if hits[0].Path != "leaf.md" {
		t.Error("priorRerank modified its input")
	}
	// A weak weight does not overturn a clear lead.
	got = priorRerank([]fulltext.Hit{{Path: "leaf.md", Score: 1}, {Path: "hub.md", Score: 0.5}}, g, priorOptions{InDegree: 0.1})
	if diff := cmp.Diff([]string{"leaf.md", "hub.md"}, hitPaths(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestPriorNeighbours(t *testing.T) {
	g := priorGraph()
	hits := []fulltext.Hit{{Path: "leaf.md", Score: 1}, {Path: "a.md", Score: 0.9}, {Path: "c.md", Score: 0.85}, {Path: "b.md", Score: 0.8}}
	// a.md and b.md are neighbours: each gains 0.3 times the other's score.
	got := priorRerank(hits, g, priorOptions{Neighbours: 0.3})
	if diff := cmp.Diff([]string{"a.md", "b.md", "leaf.md", "c.md"}, hitPaths(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	// With a depth of 2 only leaf.md and a.md are looked at, and they are not neighbours.
	got = priorRerank(hits, g, priorOptions{Neighbours: 0.3, Depth: 2})
	if diff := cmp.Diff(hitPaths(hits), hitPaths(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestPriorAnchorTexts(t *testing.T) {
	g := priorGraph()
	// "Hub" is the title and the plain [[hub]] has no text; "centre" and "the centre" differ.
	want := []string{"the centre", "centre", "home"}
	if diff := cmp.Diff(want, anchorTexts(g, "hub.md")); diff != "" {
		t.Errorf("anchorTexts(hub.md) (-want +got):\n%s", diff)
	}
	if got := anchorTexts(g, "leaf.md"); got != nil {
		t.Errorf("anchorTexts(leaf.md) = %q, want none", got)
	}
	if got := anchorTexts(g, "missing.md"); got != nil {
		t.Errorf("anchorTexts(missing.md) = %q, want none", got)
	}
}
