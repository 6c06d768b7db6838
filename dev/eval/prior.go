package main

import (
	"math"
	"sort"
	"strings"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// defaultPriorDepth is how many of the top hits [priorRerank] looks at for the neighbour signal when
// [priorOptions].Depth is zero.
const defaultPriorDepth = 20

// priorOptions weighs the query-independent signals of the link graph that [priorRerank] adds to a
// ranking. A zero weight turns its signal off, so the zero value changes nothing.
type priorOptions struct {
	// InDegree is a in score *= 1 + a*ln(1+b), where b is the number of other documents that link
	// to the hit: documents many others point to are more often the answer.
	InDegree float64
	// Neighbours is c in score += c*Σ s, where the sum runs over the scores s of the other hits
	// among the top Depth that are one hop from the hit in the graph (a link either way or a
	// frontmatter relation): a document the other good hits agree on gains.
	Neighbours float64
	// Depth is how many of the top hits the neighbour signal looks at, and which it may move.
	// If zero, [defaultPriorDepth].
	Depth int
}

// priorRerank returns hits re-ordered by their scores adjusted with the signals of g that opts
// weighs, best first, scores normalised again so that the top hit scores 1. Hits keep their
// order on equal scores. hits is not modified. With a nil graph or zero options it returns a
// copy of hits.
func priorRerank(hits []fulltext.Hit, g *markdown.Graph, opts priorOptions) []fulltext.Hit {
	out := append([]fulltext.Hit(nil), hits...)
	if g == nil || len(out) == 0 || (opts.InDegree == 0 && opts.Neighbours == 0) {
		return out
	}
	depth := opts.Depth
	if depth <= 0 {
		depth = defaultPriorDepth
	}
	depth = min(depth, len(out))
	score := make([]float64, len(out))
	for i, h := range out {
		score[i] = h.Score
		if opts.InDegree != 0 {
			score[i] *= 1 + opts.InDegree*math.Log1p(float64(g.Backlinkers(h.Path)))
		}
	}
	if opts.Neighbours != 0 {
		top := make(map[string]int, depth)
		for i := range depth {
			top[out[i].Path] = i
		}
		add := make([]float64, depth)
		for i := range depth {
			for _, n := range g.Neighbours(out[i].Path) {
				if j, ok := top[n.Path]; ok && j != i {
					add[i] += out[j].Score
				}
			}
		}
		for i := range depth {
			score[i] += opts.Neighbours * add[i]
		}
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	ranked := make([]fulltext.Hit, len(out))
	for k, i := range idx {
		ranked[k] = out[i]
		ranked[k].Score = score[i]
	}
	if top := ranked[0].Score; top > 0 {
		for i := range ranked {
			ranked[i].Score /= top
		}
	}
	return ranked
}

// anchorTexts returns the anchor text of the document at p: the distinct texts of the links
// other documents point at it with ("[[Embed files|embedding]]" gives "embedding"; a markdown
// link gives its text), in order of first appearance by linking document, leaving out texts equal
// to the document's title, an alias or its file name (case-insensitive), which it already carries.
// It is what other authors call the document, and is meant to be indexed as an extra searchable
// field of it.
func anchorTexts(g *markdown.Graph, p string) []string {
	d, ok := g.Doc(p)
	if !ok {
		return nil
	}
	own := map[string]bool{strings.ToLower(d.Title): true}
	base := p[strings.LastIndex(p, "/")+1:]
	own[strings.ToLower(base)] = true
	own[strings.ToLower(strings.TrimSuffix(base, ".md"))] = true
	for _, a := range d.Aliases {
		own[strings.ToLower(a)] = true
	}
	var out []string
	for _, b := range g.LinksTo(p) {
		t := strings.TrimSpace(b.Text)
		if t == "" || t == markdown.FrontmatterWiki || b.Kind == markdown.KindFrontmatter || own[strings.ToLower(t)] {
			continue
		}
		own[strings.ToLower(t)] = true
		out = append(out, t)
	}
	return out
}
