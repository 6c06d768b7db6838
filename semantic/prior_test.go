package semantic

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// priorGraph is a small graph: hub.md is linked from three documents, leaf.md from none,
// and a.md and b.md link to each other.
func priorGraph() *Graph {
	g := NewGraph()
	for p, src := range map[string]string{
		"hub.md":  "# Hub\n",
		"leaf.md": "# Leaf\n",
		"a.md":    "[[hub|the centre]] [[b]]",
		"b.md":    "[[hub]] [[a]] [[hub|centre]]",
		"c.md":    "[home](hub.md) [[hub|Hub]] [[c]]",
	} {
		g.Put(Parse(p, []byte(src), time.Time{}))
	}
	return g
}

func hitPaths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func TestPriorZeroIsIdentity(t *testing.T) {
	hits := []Hit{{Path: "leaf.md", Score: 1}, {Path: "hub.md", Score: 0.9}}
	got := Rerank(hits, priorGraph(), PriorOptions{})
	if diff := cmp.Diff(hits, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Rerank(hits, nil, PriorOptions{InDegree: 1}); !cmp.Equal(hits, got) {
		t.Errorf("nil graph changed the hits: %+v", got)
	}
}

func TestPriorInDegree(t *testing.T) {
	g := priorGraph()
	if n := Backlinkers(g, "hub.md"); n != 3 {
		t.Errorf("Backlinkers(hub.md) = %d, want 3", n)
	}
	if n := Backlinkers(g, "c.md"); n != 0 {
		t.Errorf("Backlinkers(c.md) = %d, want 0 (a self-link does not count)", n)
	}
	hits := []Hit{{Path: "leaf.md", Score: 1}, {Path: "hub.md", Score: 0.9}}
	got := Rerank(hits, g, PriorOptions{InDegree: 0.1})
	if diff := cmp.Diff([]string{"hub.md", "leaf.md"}, hitPaths(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if got[0].Score != 1 {
		t.Errorf("top score = %v, want 1", got[0].Score)
	}
	if hits[0].Path != "leaf.md" {
		t.Error("Rerank modified its input")
	}
	// A weak weight does not overturn a clear lead.
	got = Rerank([]Hit{{Path: "leaf.md", Score: 1}, {Path: "hub.md", Score: 0.5}}, g, PriorOptions{InDegree: 0.1})
	if diff := cmp.Diff([]string{"leaf.md", "hub.md"}, hitPaths(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestPriorNeighbours(t *testing.T) {
	g := priorGraph()
	hits := []Hit{{Path: "leaf.md", Score: 1}, {Path: "a.md", Score: 0.9}, {Path: "c.md", Score: 0.85}, {Path: "b.md", Score: 0.8}}
	// a.md and b.md are neighbours: each gains 0.3 times the other's score.
	got := Rerank(hits, g, PriorOptions{Neighbours: 0.3})
	if diff := cmp.Diff([]string{"a.md", "b.md", "leaf.md", "c.md"}, hitPaths(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	// With a depth of 2 only leaf.md and a.md are looked at, and they are not neighbours.
	got = Rerank(hits, g, PriorOptions{Neighbours: 0.3, Depth: 2})
	if diff := cmp.Diff(hitPaths(hits), hitPaths(got)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestPriorAnchorTexts(t *testing.T) {
	g := priorGraph()
	// "Hub" is the title and the plain [[hub]] has no text; "centre" and "the centre" differ.
	want := []string{"the centre", "centre", "home"}
	if diff := cmp.Diff(want, AnchorTexts(g, "hub.md")); diff != "" {
		t.Errorf("AnchorTexts(hub.md) (-want +got):\n%s", diff)
	}
	if got := AnchorTexts(g, "leaf.md"); got != nil {
		t.Errorf("AnchorTexts(leaf.md) = %q, want none", got)
	}
	if got := AnchorTexts(g, "missing.md"); got != nil {
		t.Errorf("AnchorTexts(missing.md) = %q, want none", got)
	}
}
