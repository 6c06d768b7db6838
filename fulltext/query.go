package fulltext

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// filtered restricts q by filter, if any. q is not wrapped in a conjunction of one, which would
// score as q does but cost a call per match.
func filtered(q, filter query.Query) query.Query {
	if filter == nil {
		return q
	}
	bq := &query.BooleanQuery{Must: q}
	bq.AddFilter(filter)
	return bq
}

// keeper returns q.Keep joined with q's criteria on a document's modification time and size, which
// the index answers from the stamps it holds, not from fields of every unit: the two numeric fields
// those criteria once read cost a third of a build (their terms, distinct for every file, made most
// of the dictionaries), for a filter few searches set.
func (ix *Index) keeper(q Query) func(string) bool {
	if q.After == nil && q.Before == nil && q.MinSize == nil && q.MaxSize == nil {
		return q.Keep
	}
	return func(p string) bool {
		if q.Keep != nil && !q.Keep(p) {
			return false
		}
		st, ok := ix.Stamp(p)
		return ok && q.admits(st)
	}
}

// admits reports whether a document of stamp st meets q's criteria on modification time and size.
func (q Query) admits(st Stamp) bool {
	if q.After != nil && st.ModTime.Before(*q.After) || q.Before != nil && !st.ModTime.Before(*q.Before) {
		return false
	}
	return (q.MinSize == nil || st.Size >= *q.MinSize) && (q.MaxSize == nil || st.Size <= *q.MaxSize)
}

// kept restricts q to the documents whose path keep accepts, or returns q when keep is nil.
func kept(q query.Query, keep func(string) bool) query.Query {
	if keep == nil {
		return q
	}
	return keepQuery{q: q, keep: keep}
}

// keepQuery is a query whose matches are those of q in documents whose path keep accepts. Its
// searcher reads the id of every match of q, which the search otherwise reads only for the best,
// so only queries with criteria the index cannot express pay for it.
type keepQuery struct {
	q    query.Query
	keep func(string) bool
}

// Searcher returns the searcher of q, filtered by path.
func (k keepQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, opts bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := k.q.Searcher(ctx, r, m, opts)
	if err != nil {
		return nil, err
	}
	return searcher.NewFilteringSearcher(ctx, s, func(sctx *bsearch.SearchContext, d *bsearch.DocumentMatch) bool {
		id, err := sctx.IndexReader.ExternalID(d.IndexInternalID)
		return err == nil && k.keep(pathOfID(id))
	}), nil
}

// questionWords are dropped from a query before analysis, on top of the analyzer's English stop
// words: the words a question is phrased with ("how do I see which..."), which say nothing of
// what it asks about and match nearly every document. A query made only of them keeps them.
var questionWords = map[string]bool{
	"a": true, "all": true, "an": true, "any": true, "can": true, "could": true, "do": true,
	"does": true, "for": true, "from": true, "get": true, "how": true, "i": true, "i'm": true,
	"im": true, "in": true, "is": true, "it": true, "its": true, "let": true, "like": true,
	"make": true, "me": true, "my": true, "need": true, "of": true, "on": true, "one": true,
	"our": true, "see": true, "should": true, "show": true, "some": true, "that": true,
	"the": true, "there": true, "this": true, "to": true, "use": true, "using": true,
	"want": true, "way": true, "we": true, "what": true, "when": true, "where": true,
	"which": true, "who": true, "why": true, "with": true, "would": true, "you": true,
	"your": true,
}

// QueryTerms returns the distinct analysed terms of text without question words: the terms a
// search for text matches, one clause each.
func QueryTerms(text string) []string {
	var kept []string
	for _, w := range termsOf(wordsAnalyzer, text) {
		if !questionWords[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) > 0 {
		text = strings.Join(kept, " ")
	}
	return termsOf(textAnalyzer, text)
}

// UnknownWords returns the words of the phrasings, lower-cased, in order and once each, that
// no indexed unit contains: a word whose analysed terms are all absent from the index can
// only be matched fuzzily, so the caller is better off saying it differently. Question words
// and stop words are not reported.
func (ix *Index) UnknownWords(phrasings ...string) ([]string, error) {
	var words, terms []string
	wordTerms := map[string][]string{}
	for _, p := range phrasings {
		for _, w := range termsOf(wordsAnalyzer, p) {
			if questionWords[w] || wordTerms[w] != nil || slices.Contains(words, w) {
				continue
			}
			words = append(words, w)
			wordTerms[w] = termsOf(textAnalyzer, w)
			terms = append(terms, wordTerms[w]...)
		}
	}
	if len(terms) == 0 {
		return nil, nil
	}
	gen := ix.dfs.generation()
	r, err := ix.reader()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	st, err := ix.stats(r, gen, nil, terms, fieldText)
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, w := range words {
		ts := wordTerms[w]
		if len(ts) > 0 && !slices.ContainsFunc(ts, func(t string) bool { return st.df[fieldText][t] > 0 }) {
			unknown = append(unknown, w)
		}
	}
	return unknown, nil
}

// termsQuery matches the terms of text: a disjunction with one clause per term, so that bleve's
// coordination factor (matched clauses / all clauses) ranks a unit that matches more distinct
// terms above one that matches a single term often. Each clause matches the unit's combined
// text, plus bonuses for the title, heading and lead. Every term is weighted by its idf in the
// text field, once: bleve multiplies a term query's score by its idf twice (in the score and
// in the query weight), each time with the idf of the field searched, so a word rare in titles
// outweighed everything else; the boost undoes both. (One clause per field, as before, ranked
// far worse on both corpora: dev/bench/README.md, The ranking's values.)
func (ix *Index) termsQuery(r index.IndexReader, gen uint64, global StatsFunc, text string, fuzzy bool) query.Query {
	terms := QueryTerms(text)
	if fuzzy {
		var clauses []query.Query
		for _, t := range terms {
			fq := query.NewFuzzyQuery(t)
			fq.SetField(fieldText)
			fq.SetFuzziness(1)
			clauses = append(clauses, fq)
		}
		return query.NewDisjunctionQuery(clauses)
	}
	st, err := ix.stats(r, gen, global, terms, fieldText, fieldTitle, fieldAliases, fieldHeading, fieldLead)
	if err != nil {
		// Without statistics nothing can be weighted; the plain terms still find the documents.
		st = nil
	}
	weigh := func(field, t string, bonus float64) query.Query {
		tq := query.NewTermQuery(t)
		tq.SetField(field)
		if st != nil {
			idf, _ := st.idf(field, t)
			ref, _ := st.weight(fieldText, t)
			tq.SetBoost(bonus * ref / (idf * idf))
		}
		return tq
	}
	// clause is the disjunction of every term in field: its coordination factor makes a bonus
	// count in proportion to the share of the query found in the title (heading, lead).
	clause := func(field string, bonus float64) query.Query {
		cs := make([]query.Query, 0, len(terms))
		for _, t := range terms {
			if st != nil && st.df[field][t] == 0 {
				// A clause that matches nothing still counts in the coordination, like the
				// words a unit lacks.
				cs = append(cs, query.NewMatchNoneQuery())
				continue
			}
			cs = append(cs, weigh(field, t, bonus))
		}
		return query.NewDisjunctionQuery(cs)
	}
	var bonus []query.Query
	for _, b := range []fieldBoost{{fieldTitle, ix.ranking.TitleBonus}, {fieldAliases, ix.ranking.TitleBonus}, {fieldHeading, ix.ranking.HeadingBonus}, {fieldLead, ix.ranking.LeadBonus}} {
		if b.boost > 0 {
			bonus = append(bonus, clause(b.field, b.boost))
		}
	}
	if ix.ranking.TagBoost > 0 {
		words := termsOf(wordsAnalyzer, text)
		if ts, err := ix.stats(r, gen, global, words, fieldTags); err == nil {
			var tags []query.Query
			for _, w := range words {
				if idf, ok := ts.idf(fieldTags, w); ok && !questionWords[w] {
					weight, _ := ts.weight(fieldTags, w)
					tq := query.NewTermQuery(w)
					tq.SetField(fieldTags)
					tq.SetBoost(ix.ranking.TagBoost * weight / (idf * idf))
					tags = append(tags, tq)
				}
			}
			if len(tags) > 0 {
				bonus = append(bonus, query.NewDisjunctionQuery(tags))
			}
		}
	}
	// Built as NewBooleanQuery would, less its one-clause conjunction around the must, which
	// scores as its clause does but costs a call per match.
	bq := &query.BooleanQuery{Must: clause(fieldText, 1)}
	if len(bonus) > 0 {
		bq.Should = query.NewDisjunctionQuery(bonus)
	}
	return bq
}

// filter turns the criteria of q into one query that restricts without scoring, or nil.
func (ix *Index) filter(q Query) query.Query {
	var must []query.Query
	term := func(field, value string) *query.TermQuery {
		t := query.NewTermQuery(value)
		t.SetField(field)
		return t
	}
	if p := strings.Trim(q.Prefix, "/"); p != "" && p != "." {
		p = strings.TrimPrefix(p, "./")
		if dirTerm(p) { // see folderTerms
			must = append(must, term(fieldDir, p))
		} else {
			under := query.NewPrefixQuery(p + "/")
			under.SetField(fieldFolder)
			must = append(must, under)
		}
	}
	if len(q.Extensions) > 0 {
		var exts []query.Query
		for _, e := range q.Extensions {
			exts = append(exts, term(fieldExt, strings.ToLower(e)))
		}
		must = append(must, query.NewDisjunctionQuery(exts))
	}
	for _, t := range q.Tags {
		must = append(must, term(fieldTags, strings.ToLower(t)))
	}
	switch len(must) {
	case 0:
		return nil
	case 1:
		return must[0]
	}
	return query.NewConjunctionQuery(must)
}

// termsOf returns the distinct terms the named analyzer makes of text, in the order they first
// occur. A set remembers them: the text may be a whole note's words (batchWords), whose distinct
// terms a scan of the list would make quadratic.
func termsOf(analyzer, text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, tok := range analyze(analyzer, text) {
		if t := string(tok.Term); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// analyze runs the named analyzer of the index mapping over text.
func analyze(analyzer, text string) analysis.TokenStream {
	a := indexMapping().AnalyzerNamed(analyzer)
	if a == nil {
		return nil
	}
	return a.Analyze([]byte(text))
}
