package fulltext

import (
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/packfs/packfs-mcp/markdown"
)

// A document's names are what a user calls it: its title, its file name without the extension
// and its aliases; a section is also called by its heading. A query names a document when a run
// of its words equals one of the document's names, compared as keys (see [NameKey]): the agent
// who types "tar" or "ssh-keygen" wants the page of that name, not the pages that use the word
// most.

// maxNameWords is the most words of a query run compared with names: names longer than this
// ("How to format your notes") are titles a user describes rather than types.
const maxNameWords = 4

// NameKey returns the key a name is compared by: its letters and digits, lower-cased, so that
// "SSH-Keygen", "ssh keygen" and "ssh_keygen" share the key "sshkeygen". A plural matches too:
// see [keyForms].
func NameKey(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// keyForms returns k and its forms with a trailing "s" or "es" added or taken off, so that a
// query's "plugin" names the page "Plugins" and its "aliases" the page "Alias". Forms shorter
// than two letters are left out.
func keyForms(k string) []string {
	forms := []string{k, k + "s", k + "es"}
	for _, suf := range []string{"es", "s"} {
		if t, ok := strings.CutSuffix(k, suf); ok && len(t) >= 2 {
			forms = append(forms, t)
		}
	}
	return forms
}

// NameKeys returns the keys of d's names, each once: its title, its file name without the
// extension and its aliases.
func NameKeys(d markdown.Doc) []string {
	return nameKeys(d.Title, d.Path, d.Aliases)
}

// nameKeys returns the keys of a document's title, the file name of its path without the
// extension and its aliases, each once. A set remembers them: a note may have thousands of
// aliases, which a scan of the list would make quadratic.
func nameKeys(title, p string, aliases []string) []string {
	base := path.Base(p)
	names := append([]string{title, strings.TrimSuffix(base, path.Ext(base))}, aliases...)
	var keys []string
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if k := NameKey(n); k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// A NameRun is a run of consecutive words of a query and the key it would name a document by.
type NameRun struct {
	Key        string
	Start, End int // the run is words [Start, End) of the query
}

// NamesIn returns the runs of up to four consecutive words of text whose key, or one of its
// plural or singular forms, known accepts (the run's Key is the form accepted), the longest
// first where runs overlap: a run inside a longer known run is left out, so "ssh
// keygen" names the page ssh-keygen and not also the page ssh. A single word that is a
// question or stop word ("which", "the") or shorter than two letters names nothing.
func NamesIn(text string, known func(key string) bool) []NameRun {
	words := termsInOrder(text)
	var runs []NameRun
	for n := min(maxNameWords, len(words)); n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if covered(runs, i, i+n) {
				continue
			}
			if n == 1 && !nameWord(words[i]) {
				continue
			}
			var b strings.Builder
			for _, w := range words[i : i+n] {
				b.WriteString(w)
			}
			k := NameKey(b.String())
			if k == "" {
				continue
			}
			for _, f := range keyForms(k) {
				if known(f) {
					runs = append(runs, NameRun{Key: f, Start: i, End: i + n})
					break
				}
			}
		}
	}
	return runs
}

// covered reports whether words [start, end) lie inside one of runs.
func covered(runs []NameRun, start, end int) bool {
	for _, r := range runs {
		if r.Start <= start && end <= r.End {
			return true
		}
	}
	return false
}

// nameWord reports whether the single word w can name a document.
func nameWord(w string) bool {
	return len(NameKey(w)) >= 2 && !questionWords[w] && len(analyze(textAnalyzer, w)) > 0
}

// termsInOrder returns the words of text as the words analyzer splits them, in order, repeats
// kept.
func termsInOrder(text string) []string {
	toks := analyze(wordsAnalyzer, text)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t.Term)
	}
	return out
}

// A naming is what one phrasing names: the runs of its words that name documents and, for each
// run, the units of the documents it names, by internal id. The walk of the phrasing's own list
// (see Index.top) records their text scores in scores, so that lift needs no query of its own:
// a conjunction of the names term with the phrasing's query advanced the query's boolean
// searcher, and the score bleve's advance gave a unit was below the query's own and varied with
// how the segments lay (tldr's openbsd and netbsd df.md swapped places between builds).
type naming struct {
	text   string
	runs   []NameRun
	units  [][]string         // per run, internal ids
	scores map[string]float64 // by internal id; -1 until the walk finds the unit
}

// naming returns, for each phrasing, what it names, or nil where it names nothing.
func (ix *Index) naming(ctx context.Context, r index.IndexReader, gen uint64, phrasings []string) ([]*naming, error) {
	out := make([]*naming, len(phrasings))
	for i, p := range phrasings {
		runs, err := ix.namesIn(r, gen, p)
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			continue
		}
		n := &naming{text: p, runs: runs, units: make([][]string, len(runs)), scores: map[string]float64{}}
		for j, run := range runs {
			s, err := ix.searcher(ctx, r, namedQuery(run.Key))
			if err != nil {
				return nil, err
			}
			err = eachMatch(ctx, r, s, func(dm *bsearch.DocumentMatch) error {
				id := string(dm.IndexInternalID)
				n.units[j] = append(n.units[j], id)
				n.scores[id] = -1
				return nil
			})
			s.Close()
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
		}
		out[i] = n
	}
	return out, nil
}

// lift raises in list, the ranked list of the phrasing n names for, the documents it names whose
// coverage reaches the ranking's NameCoverage: each scores its text score as a share of the
// list's top plus NameBonus times its coverage, and is marked named. A document's coverage is
// the share (by idf) of the phrasing's terms outside the run that names it that the document
// contains, 1 when there are none. A named document the list had not fetched is brought in with
// its best named unit; one the phrasing's query does not match is not. filter and keep restrict
// as the search does.
func (ix *Index) lift(ctx context.Context, r index.IndexReader, gen uint64, global StatsFunc, n *naming, list []ranked, filter query.Query, keep func(string) bool) ([]ranked, error) {
	if n == nil {
		return list, nil
	}
	words := termsInOrder(n.text)
	best := map[string]ranked{} // by path: the named unit and its lifted score
	top, unit := 1.0, 1.0       // unit: the comparable score of a lifted score of 1
	if len(list) > 0 && list[0].raw > 0 {
		top, unit = list[0].raw, list[0].cmp
	}
	for j, run := range n.runs {
		units, err := n.matched(r, n.units[j])
		if err != nil {
			return nil, err
		}
		if len(units) == 0 {
			continue
		}
		cover, err := ix.coverage(ctx, r, gen, global, words, run, namedQuery(run.Key), filter, keep)
		if err != nil {
			return nil, err
		}
		for _, u := range units {
			p := pathOfID(u.id)
			c := 1.0
			if cover != nil {
				c = cover[p]
			}
			if c < ix.ranking.NameCoverage {
				continue
			}
			d := ranked{path: p, unit: u.id, raw: u.score, score: u.score/top + ix.ranking.NameBonus*c, named: true}
			d.cmp = steady(d.score * unit)
			if b, ok := best[p]; !ok || d.score > b.score {
				best[p] = d
			}
		}
	}
	if len(best) == 0 {
		return list, nil
	}
	out := make([]ranked, 0, len(list)+len(best))
	for _, d := range list {
		if b, ok := best[d.path]; ok {
			d = b
			delete(best, d.path)
		}
		out = append(out, d)
	}
	for _, b := range best {
		out = append(out, b)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].path < out[j].path
	})
	if best := out[0].score; best > 0 {
		for i := range out {
			out[i].score /= best
		}
	}
	return out, nil
}

// matched returns the best maxNamed of ids, internal ids of units, that the phrasing's walk
// found, with their scores and external ids. Units tied at the cut are ordered by their external
// ids, as everywhere else: internal ids differ from one build to the next.
func (n *naming) matched(r index.IndexReader, ids []string) ([]unitHit, error) {
	var units []unitHit
	for _, id := range ids {
		if s := n.scores[id]; s >= 0 {
			units = append(units, unitHit{id: id, score: s})
		}
	}
	sort.Slice(units, func(i, j int) bool { return units[i].score > units[j].score })
	if len(units) > maxNamed {
		cut := units[maxNamed-1].score
		units = units[:sort.Search(len(units), func(i int) bool { return units[i].score < cut })]
	}
	for i := range units {
		id, err := r.ExternalID(index.IndexInternalID(units[i].id))
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		units[i].id = id
	}
	sort.Slice(units, func(i, j int) bool { return units[j].worse(units[i]) })
	return units[:min(len(units), maxNamed)], nil
}

// namedQuery matches the units of the documents named key.
func namedQuery(key string) query.Query {
	t := query.NewTermQuery(key)
	t.SetField(fieldNames)
	return t
}

// maxNamed is the most units of named documents lift reads for one phrasing.
const maxNamed = 200

// namesIn returns the runs of text that name a document of r (see [NamesIn]).
func (ix *Index) namesIn(r index.IndexReader, gen uint64, text string) ([]NameRun, error) {
	var keys []string
	NamesIn(text, func(k string) bool {
		keys = append(keys, k)
		return false
	})
	if len(keys) == 0 {
		return nil, nil
	}
	st, err := ix.stats(r, gen, nil, keys, fieldNames)
	if err != nil {
		return nil, err
	}
	return NamesIn(text, func(k string) bool { return st.df[fieldNames][k] > 0 }), nil
}

// coverage returns, for the documents run names (those matching nq) that contain any of the
// terms of the phrasing's words outside run, the share of those terms' idf they contain. It
// returns nil when the phrasing has no other terms.
func (ix *Index) coverage(ctx context.Context, r index.IndexReader, gen uint64, global StatsFunc, words []string, run NameRun, nq, filter query.Query, keep func(string) bool) (map[string]float64, error) {
	terms := restTerms(words, run)
	if len(terms) == 0 {
		return nil, nil
	}
	st, err := ix.stats(r, gen, global, terms, fieldText)
	if err != nil {
		return nil, err
	}
	sum := 0.0
	idfs := make([]float64, len(terms))
	for i, t := range terms {
		if idf, ok := st.weight(fieldText, t); ok {
			idfs[i] = idf
		} else { // in no document: as rare as a term can be
			idfs[i] = math.Log(1 + (float64(st.records())+0.5)/0.5)
		}
		sum += idfs[i]
	}
	cover := map[string]float64{}
	for i, t := range terms {
		tq := query.NewTermQuery(t)
		tq.SetField(fieldText)
		units, _, _, err := ix.top(ctx, r, kept(filtered(query.NewConjunctionQuery([]query.Query{nq, tq}), filter), keep), maxNamed, nil, nil)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, u := range units {
			if p := pathOfID(u.id); !seen[p] {
				seen[p] = true
				cover[p] += idfs[i] / sum
			}
		}
	}
	return cover, nil
}

// keepNamed moves up, in fused, each document that a phrasing names and ranks first (see
// Index.lift) and that fusion put below place places, so that none is: the j-th of m such
// documents, in fused order, goes no lower than place places-m+j+1, and scores as the document
// below it. Nothing moves down but by the moves of these.
func keepNamed(fused []ranked, lists [][]ranked, places int) []ranked {
	first := map[string]bool{}
	for _, l := range lists {
		if len(l) > 0 && l[0].named {
			first[l[0].path] = true
		}
	}
	if len(first) == 0 {
		return fused
	}
	var keepers, rest []int // indexes into fused
	for i, d := range fused {
		if first[d.path] && len(keepers) < places {
			keepers = append(keepers, i)
		} else {
			rest = append(rest, i)
		}
	}
	out := make([]ranked, 0, len(fused))
	m := len(keepers)
	for j, k := range keepers {
		// k follows the documents fused ranks above it, but goes no lower than latest (0-based).
		latest := places - m + j
		for len(out) < latest && len(rest) > 0 && rest[0] < k {
			out = append(out, fused[rest[0]])
			rest = rest[1:]
		}
		out = append(out, fused[k])
	}
	for _, i := range rest {
		out = append(out, fused[i])
	}
	// A document moved up scores as the one now below it, so that scores still fall with rank.
	for i := len(out) - 2; i >= 0; i-- {
		out[i].score = max(out[i].score, out[i+1].score)
	}
	return out
}

// restTerms returns the distinct analysed terms of words, a phrasing's words in order, outside
// run and question words: what a document run names must also hold to be lifted. Each word is
// analysed alone, as coverage has always measured it.
func restTerms(words []string, run NameRun) []string {
	var terms []string
	for i, w := range words {
		if i >= run.Start && i < run.End || questionWords[w] {
			continue
		}
		for _, t := range termsOf(textAnalyzer, w) {
			if !slices.Contains(terms, t) {
				terms = append(terms, t)
			}
		}
	}
	return terms
}
