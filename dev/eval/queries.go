package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// A QuerySet is the judged queries of one corpus, as stored in
// dev/eval/queries/<corpus>.json.
type QuerySet struct {
	Corpus string `json:"corpus"`
	// Pooling says how the pooled judgments were made.
	Pooling string  `json:"pooling,omitempty"`
	Queries []Query `json:"queries"`
}

// A Query is one information need in a user's own words, with the files
// that satisfy it.
type Query struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	// Relevant are the files judged by the query's author, who wrote the query
	// with them in mind.
	Relevant Judgments `json:"relevant"`
	// Pooled are the files that rankers returned in their top results and an
	// assessor then judged blind (TREC-style pooling), grade 0 included, so
	// that a relevant file the author did not think of is not counted a miss.
	Pooled Judgments `json:"pooled,omitempty"`
}

// authorOnly is the --author-only flag: judge by Relevant alone.
var authorOnly bool

// judgments returns the relevant files of q: Relevant, and the Pooled files
// of grade 1 or 2 unless --author-only.
func (q Query) judgments() Judgments {
	if authorOnly || len(q.Pooled) == 0 {
		return q.Relevant
	}
	j := make(Judgments, len(q.Relevant)+len(q.Pooled))
	for p, g := range q.Pooled {
		if g > 0 {
			j[p] = g
		}
	}
	for p, g := range q.Relevant {
		j[p] = g
	}
	return j
}

// judged reports whether p has a judgment for q, of any grade.
func (q Query) judged(p string) bool {
	_, a := q.Relevant[p]
	_, b := q.Pooled[p]
	return a || b
}

// loadQuerySet reads and checks a query file: ids must be unique, every
// query must have a judged file of grade 2, and grades must be 1 or 2.
func loadQuerySet(name string) (*QuerySet, error) {
	var qs QuerySet
	if err := readJSON(name, &qs); err != nil {
		return nil, err
	}
	if len(qs.Queries) == 0 {
		return nil, fmt.Errorf("%s: no queries", name)
	}
	ids := make(map[string]bool, len(qs.Queries))
	for _, q := range qs.Queries {
		if q.ID == "" || ids[q.ID] {
			return nil, fmt.Errorf("%s: empty or repeated query id %q", name, q.ID)
		}
		ids[q.ID] = true
		if q.Query == "" {
			return nil, fmt.Errorf("%s: query %s is empty", name, q.ID)
		}
		answered := false
		for p, g := range q.Relevant {
			if g != 1 && g != 2 {
				return nil, fmt.Errorf("%s: query %s: %q has grade %d, want 1 or 2", name, q.ID, p, g)
			}
			answered = answered || g == 2
		}
		if !answered {
			return nil, fmt.Errorf("%s: query %s has no file of grade 2", name, q.ID)
		}
		for p, g := range q.Pooled {
			if g < 0 || g > 2 {
				return nil, fmt.Errorf("%s: query %s: pooled %q has grade %d, want 0, 1 or 2", name, q.ID, p, g)
			}
			if _, ok := q.Relevant[p]; ok {
				return nil, fmt.Errorf("%s: query %s: %q is judged twice", name, q.ID, p)
			}
		}
	}
	return &qs, nil
}

// missing returns the judged paths of qs that are not in files (sorted), so a
// typo in a judgment cannot silently count as a miss.
func (qs *QuerySet) missing(files []string) []string {
	var out []string
	for _, q := range qs.Queries {
		for _, j := range []Judgments{q.Relevant, q.Pooled} {
			for p := range j {
				if _, ok := slices.BinarySearch(files, p); !ok {
					out = append(out, q.ID+": "+p)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// A ParaphraseSet is what a calling model added to each query of a corpus, as
// stored in dev/eval/queries/<corpus>.paraphrases.json: the queries array it would
// send with search_semantic, written without seeing the corpus or the
// judgments. Method says who wrote them and how.
type ParaphraseSet struct {
	Corpus      string              `json:"corpus"`
	Method      string              `json:"method"`
	Paraphrases map[string][]string `json:"paraphrases"`
}

// maxParaphrases is the most phrasings search_semantic takes besides the query.
const maxParaphrases = 8

// loadParaphrases reads a paraphrase file and checks it against qs: every
// query has one to maxParaphrases non-empty paraphrases, and no id is unknown.
func loadParaphrases(name string, qs *QuerySet) (map[string][]string, error) {
	var ps ParaphraseSet
	if err := readJSON(name, &ps); err != nil {
		return nil, err
	}
	if ps.Corpus != qs.Corpus {
		return nil, fmt.Errorf("%s: corpus %q, want %q", name, ps.Corpus, qs.Corpus)
	}
	known := make(map[string]bool, len(qs.Queries))
	for _, q := range qs.Queries {
		known[q.ID] = true
		list := ps.Paraphrases[q.ID]
		if len(list) == 0 || len(list) > maxParaphrases {
			return nil, fmt.Errorf("%s: query %s has %d paraphrases, want 1 to %d", name, q.ID, len(list), maxParaphrases)
		}
		for _, p := range list {
			if strings.TrimSpace(p) == "" {
				return nil, fmt.Errorf("%s: query %s has an empty paraphrase", name, q.ID)
			}
		}
	}
	for id := range ps.Paraphrases {
		if !known[id] {
			return nil, fmt.Errorf("%s: paraphrases for unknown query %q", name, id)
		}
	}
	return ps.Paraphrases, nil
}

// A poolEntry is one query's unjudged files among the rankers' top results,
// as written by --pool-out for an assessor.
type poolEntry struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Pages    []string `json:"pages"`
}

// unjudged collects, per query, the files the rankers returned in their top
// ndcgDepth that have no judgment yet.
type unjudged struct {
	byID map[string]*poolEntry
}

// poolOut is the --pool-out flag, and pool what it collects.
var (
	poolOut string
	pool    unjudged
)

// add records the unjudged files among the first ndcgDepth of got, if
// --pool-out is set.
func (u *unjudged) add(q Query, got []string) {
	if poolOut == "" {
		return
	}
	if u.byID == nil {
		u.byID = map[string]*poolEntry{}
	}
	for _, p := range top(got, ndcgDepth) {
		if q.judged(p) {
			continue
		}
		e := u.byID[q.ID]
		if e == nil {
			e = &poolEntry{ID: q.ID, Question: q.Query}
			u.byID[q.ID] = e
		}
		if !slices.Contains(e.Pages, p) {
			e.Pages = append(e.Pages, p)
		}
	}
}

// write saves the pool as a JSON list sorted by id, pages sorted (so nothing
// tells which ranker found them), and returns how many pages it holds.
func (u *unjudged) write(name string) (int, error) {
	list := make([]*poolEntry, 0, len(u.byID))
	n := 0
	for _, e := range u.byID {
		slices.Sort(e.Pages)
		list = append(list, e)
		n += len(e.Pages)
	}
	slices.SortFunc(list, func(a, b *poolEntry) int { return strings.Compare(a.ID, b.ID) })
	b, err := json.MarshalIndent(list, "", " ")
	if err != nil {
		return 0, err
	}
	return n, os.WriteFile(name, append(b, '\n'), 0o644)
}

// An assessment is an assessor's grade of one page for one query, with the
// reason, as in the file --merge-pool reads.
type assessment struct {
	Grade int    `json:"grade"`
	Why   string `json:"why"`
}

// mergePool adds the grades of the assessment file from (query id -> path ->
// assessment) to the pooled judgments of the query file name and rewrites
// it. Ids of other corpora are skipped; it returns how many grades it added.
func mergePool(name, from string) (int, error) {
	qs, err := loadQuerySet(name)
	if err != nil {
		return 0, err
	}
	var grades map[string]map[string]assessment
	if err := readJSON(from, &grades); err != nil {
		return 0, err
	}
	n := 0
	for i := range qs.Queries {
		q := &qs.Queries[i]
		for p, a := range grades[q.ID] {
			if a.Grade < 0 || a.Grade > 2 {
				return 0, fmt.Errorf("%s: query %s: %q has grade %d, want 0, 1 or 2", from, q.ID, p, a.Grade)
			}
			if q.judged(p) {
				return 0, fmt.Errorf("%s: query %s: %q is judged already", from, q.ID, p)
			}
			if q.Pooled == nil {
				q.Pooled = Judgments{}
			}
			q.Pooled[p] = a.Grade
			n++
		}
	}
	out, err := json.MarshalIndent(qs, "", " ")
	if err != nil {
		return 0, err
	}
	return n, os.WriteFile(name, append(out, '\n'), 0o644)
}

// readJSON decodes the JSON file name into v; a decoding error names the file.
func readJSON(name string, v any) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
