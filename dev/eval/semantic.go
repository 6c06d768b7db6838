// This file plugs the project's search engine into the evaluation: it parses every file with
// markdown.Parse, indexes them in an in-memory index, and ranks with (*fulltext.Index).Search, as the
// server's search_semantic does.
//
// The --prior flag adds experimental signals of the link graph (see
// priorRerank and anchorTexts), a comma-separated list of:
//
//	indegree        score *= 1 + a*ln(1+backlinkers), a = --indegree
//	neighbours      score += c*Σ scores of top hits one hop away, c = --neighbours
//	anchor          the anchor texts of links to a document, added to its aliases
//	anchor-text     the same texts, appended to every section (searched, no alias bonus)
//	anchor-section  the same texts, added as an extra section of the document
//	anchor-context  the lines holding links to a document, added as an extra section
//	size            score *= 1 + s*ln(1+size/1KiB), s = --size-prior (a structural prior)
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

func init() {
	rankers = append(rankers, rankerFactory{name: "semantic", build: newSemanticRanker})
}

// Flags of the graph-signal experiments.
var (
	priorFlag      = flag.String("prior", "", "graph signals to add: indegree, neighbours, anchor, anchor-text, anchor-section, anchor-context, size (comma-separated)")
	indegreeFlag   = flag.Float64("indegree", 0.1, "weight a of the in-degree prior")
	neighboursFlag = flag.Float64("neighbours", 0.1, "weight c of the neighbour boost")
	sizeFlag       = flag.Float64("size-prior", 0.05, "weight s of the size prior")
	depthFlag      = flag.Int("prior-depth", defaultPriorDepth, "top hits the neighbour boost looks at")
	priorMaxFlag   = flag.Int("prior-max", 50, "hits fetched for re-ranking")
)

// Flags that override weights of fulltext.DefaultRanking, to measure others.
var (
	nameBonusFlag    = flag.Float64("name-bonus", fulltext.DefaultRanking().NameBonus, "Ranking.NameBonus: lift of a document a phrasing names (0: names off)")
	nameCoverageFlag = flag.Float64("name-coverage", fulltext.DefaultRanking().NameCoverage, "Ranking.NameCoverage: least share of the phrasing's other terms a named document must contain")
	keepNamedFlag    = flag.Int("keep-named", fulltext.DefaultRanking().KeepNamed, "Ranking.KeepNamed: place above which fusion keeps a document a phrasing names and ranks first (0: off)")
	scoreFusionFlag  = flag.Float64("score-fusion", fulltext.DefaultRanking().ScoreFusion, "Ranking.ScoreFusion: share of normalised scores in fusion")
	titleBonusFlag   = flag.Float64("title-bonus", fulltext.DefaultRanking().TitleBonus, "Ranking.TitleBonus")
)

// ranking returns the default ranking with the flags' weights.
func ranking() *fulltext.Ranking {
	r := fulltext.DefaultRanking()
	r.NameBonus, r.NameCoverage, r.KeepNamed = *nameBonusFlag, *nameCoverageFlag, *keepNamedFlag
	r.TitleBonus = *titleBonusFlag
	r.ScoreFusion = *scoreFusionFlag
	return &r
}

// semanticHitsPerResult is how many hits to ask for per wanted file: the
// engine returns one hit per matching section, so several hits may name the
// same file.
const semanticHitsPerResult = 5

// semanticRanker ranks files with the project's bleve index.
type semanticRanker struct {
	ix    *fulltext.Index
	graph *markdown.Graph
	prior priorOptions
	max   int
	sizes map[string]int64 // for the "size" prior, else nil
}

// priors returns the signals selected by --prior.
func priors() map[string]bool {
	on := map[string]bool{}
	for _, p := range strings.Split(*priorFlag, ",") {
		if p = strings.TrimSpace(p); p != "" {
			on[p] = true
		}
	}
	return on
}

// newSemanticRanker parses every file under root and indexes them in an
// in-memory index.
func newSemanticRanker(root string, files []string) (Ranker, error) {
	ix, err := fulltext.OpenIndex(fulltext.IndexOptions{Ranking: ranking()})
	if err != nil {
		return nil, fmt.Errorf("semantic ranker: %w", err)
	}
	on := priors()
	for p := range on {
		if !slices.Contains([]string{"indegree", "neighbours", "anchor", "anchor-text", "anchor-section", "anchor-context", "size"}, p) {
			return nil, fmt.Errorf("semantic ranker: unknown --prior %q", p)
		}
	}
	docs := make([]markdown.Doc, 0, len(files))
	lines := make(map[string][]string, len(files))
	for _, f := range files {
		name := filepath.Join(root, filepath.FromSlash(f))
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("semantic ranker: %w", err)
		}
		fi, err := os.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("semantic ranker: %w", err)
		}
		docs = append(docs, markdown.Parse(f, src, fi.ModTime()))
		if on["anchor-context"] {
			lines[f] = strings.Split(string(src), "\n")
		}
	}
	g := markdown.NewGraph()
	for _, d := range docs {
		g.Put(d)
	}
	if on["anchor"] || on["anchor-text"] || on["anchor-section"] || on["anchor-context"] {
		docs = withAnchors(docs, g, lines, on)
	}
	if err := ix.PutBatch(docs); err != nil {
		return nil, fmt.Errorf("semantic ranker: %w", err)
	}
	r := &semanticRanker{ix: ix, graph: g, max: *priorMaxFlag}
	if on["size"] {
		r.sizes = make(map[string]int64, len(docs))
		for _, d := range docs {
			r.sizes[d.Path] = d.Size
		}
	}
	if on["indegree"] {
		r.prior.InDegree = *indegreeFlag
	}
	if on["neighbours"] {
		r.prior.Neighbours = *neighboursFlag
		r.prior.Depth = *depthFlag
	}
	return r, nil
}

// withAnchors returns copies of docs carrying what links to them say, as
// the index would if it had an anchor field: the anchor texts as aliases
// ("anchor") or as an extra section ("anchor-section"), and the source lines
// of the links to them as an extra section ("anchor-context"). The graph,
// built from the original docs, is left as it is.
func withAnchors(docs []markdown.Doc, g *markdown.Graph, lines map[string][]string, on map[string]bool) []markdown.Doc {
	out := make([]markdown.Doc, len(docs))
	for i, d := range docs {
		texts := anchorTexts(g, d.Path)
		end := 1
		if n := len(d.Sections); n > 0 {
			end = d.Sections[n-1].EndLine + 1
		}
		if on["anchor"] && len(texts) > 0 {
			d.Aliases = append(slices.Clip(d.Aliases), texts...)
		}
		if on["anchor-text"] && len(texts) > 0 {
			secs := slices.Clone(d.Sections)
			for j := range secs {
				secs[j].Text += "\n\n" + strings.Join(texts, "\n")
			}
			d.Sections = secs
		}
		if on["anchor-section"] && len(texts) > 0 {
			d.Sections = append(slices.Clip(d.Sections), markdown.Section{Line: end, EndLine: end, Text: strings.Join(texts, "\n")})
		}
		if on["anchor-context"] {
			var ctx []string
			for _, b := range g.LinksTo(d.Path) {
				src := lines[b.From]
				if b.Line >= 1 && b.Line <= len(src) && b.Kind != markdown.KindFrontmatter {
					ctx = append(ctx, strings.TrimSpace(src[b.Line-1]))
				}
			}
			if len(ctx) > 0 {
				d.Sections = append(slices.Clip(d.Sections), markdown.Section{Line: end, EndLine: end, Text: strings.Join(ctx, "\n")})
			}
		}
		out[i] = d
	}
	return out
}

// Rank implements [Ranker]: it returns the files of the best hits, each
// once, in the order of their best hit. A search error yields no results,
// so it counts as a miss rather than stopping the evaluation; it is logged
// to stderr.
func (s *semanticRanker) Rank(query string, paraphrases []string, k int) []string {
	n := k * semanticHitsPerResult
	rerank := s.prior.InDegree != 0 || s.prior.Neighbours != 0 || s.sizes != nil
	if rerank {
		n = max(n, s.max)
	}
	hits, _, err := s.ix.Search(context.Background(), fulltext.Query{Text: query, Paraphrases: paraphrases, Max: n})
	if err != nil {
		fmt.Fprintf(os.Stderr, "eval: semantic search %q: %v\n", query, err)
		return nil
	}
	if s.sizes != nil {
		for i := range hits {
			hits[i].Score *= 1 + *sizeFlag*math.Log1p(float64(s.sizes[hits[i].Path])/1024)
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	}
	if rerank {
		hits = priorRerank(hits, s.graph, s.prior)
	}
	seen := make(map[string]bool, k)
	out := make([]string, 0, k)
	for _, h := range hits {
		if len(out) == k {
			break
		}
		if !seen[h.Path] {
			seen[h.Path] = true
			out = append(out, h.Path)
		}
	}
	return out
}
