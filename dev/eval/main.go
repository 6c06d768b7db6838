// Command eval measures the quality of packfs-mcp's ranked search on judged
// query sets over real document collections, against a grep-style baseline.
//
// Usage:
//
//	go run ./dev/eval [--corpus obsidian|tldr|all] [--corpus-dir DIR] [--queries DIR] [-v]
//	              [--split] [--paraphrases [--paraphrase-set NAME]] [--author-only] [--pool-out FILE]
//	              [--roots]
//	go run ./dev/eval --merge-pool GRADES
//
// Without --corpus-dir it unpacks the archives from ../shared/corpora
// (relative to the module root) into a temporary directory that it removes on
// exit. With --corpus-dir it reads already unpacked corpora from DIR, which
// holds obsidian-help-en/ and tldr/pages/.
//
// For each corpus and ranker it prints nDCG@5, MRR@10 and recall@10, averaged
// over the queries in dev/eval/queries/<corpus>.json, for the grep-style baseline and for the
// project's search engine (see semantic.go), and the mean and 95th percentile of the time a
// query took. --roots adds the engine as a client gets it through the searcher tool, over one
// root and over two (see roots.go). Relevance is the query authors' judgments plus the
// pooled ones (see [Query]); --paraphrases adds to each query the paraphrases a calling model
// wrote for it (see [ParaphraseSet]). --pool-out writes the unjudged files the rankers put in
// their top 5, for an assessor to grade blind, and --merge-pool adds those grades.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Cut-offs of the reported metrics.
const (
	ndcgDepth   = 5
	mrrDepth    = 10
	recallDepth = 10
	rankDepth   = max(ndcgDepth, mrrDepth, recallDepth) // results asked of a ranker
)

// A Ranker answers a query with the root-relative slash paths of at most k
// files, best first. paraphrases are other phrasings of query written by a
// calling model (see --paraphrases); a ranker searches them too.
type Ranker interface {
	Rank(query string, paraphrases []string, k int) []string
}

// A rankerFactory builds a [Ranker] over the files (root-relative slash
// paths, sorted) of the corpus whose index root is the directory root.
type rankerFactory struct {
	name  string
	build func(root string, files []string) (Ranker, error)
}

// rankers are evaluated in this order; semantic.go appends the engine's ranker.
var rankers = []rankerFactory{
	{name: "grep", build: newGrepRanker},
}

func main() {
	var (
		which     = flag.String("corpus", "all", "corpus to evaluate: obsidian, tldr or all")
		corpusDir = flag.String("corpus-dir", "", "directory with the unpacked corpora (obsidian-help-en/, tldr/); if empty, unpack <module>/../shared/corpora/*.tar.gz into a temporary directory")
		queryDir  = flag.String("queries", "", "directory with the query files (default <module>/eval/queries)")
		verbose   = flag.Bool("v", false, "print each query's metrics and the ranks of its judged files")
	)
	flag.BoolVar(&withParaphrases, "paraphrases", false, "also search the paraphrases in dev/eval/queries/<corpus>.<paraphrase-set>.json, as a calling model's queries")
	flag.StringVar(&paraphraseSet, "paraphrase-set", "paraphrases", "which paraphrases --paraphrases reads: paraphrases (written by a model that may know the collection) or paraphrases-generic (general words only)")
	flag.StringVar(&poolOut, "pool-out", "", "write the unjudged files among every ranker's top "+strconv.Itoa(ndcgDepth)+" to this JSON file, to be judged")
	mergeFrom := flag.String("merge-pool", "", "add the grades in this assessment file (query id -> path -> {grade, why}) to the pooled judgments of the query files, and exit")
	flag.BoolVar(&authorOnly, "author-only", false, "judge by the query authors' judgments alone, without the pooled ones")
	flag.BoolVar(&splitReport, "split", false, "also report the means over odd- and even-numbered queries (tune on odd, hold out even)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "eval: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if *withRoots {
		rankers = append(rankers, rootRankers...)
	}
	var selected []corpus
	for _, c := range collections {
		if *which == "all" || *which == c.Name {
			selected = append(selected, c)
		}
	}
	if len(selected) == 0 {
		fmt.Fprintf(os.Stderr, "eval: unknown corpus %q: want obsidian, tldr or all\n", *which)
		os.Exit(2)
	}
	if *mergeFrom != "" {
		if err := mergeAll(selected, *queryDir, *mergeFrom); err != nil {
			fmt.Fprintln(os.Stderr, "eval:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Stdout, selected, *corpusDir, *queryDir, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
	if poolOut != "" {
		n, err := pool.write(poolOut)
		if err != nil {
			fmt.Fprintln(os.Stderr, "eval:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "eval: %d unjudged pages written to %s\n", n, poolOut)
	}
}

// mergeAll adds the assessments in from to the query files of the selected
// corpora, and says how many grades each got.
func mergeAll(selected []corpus, queryDir, from string) error {
	queryDir, err := queriesDir(queryDir)
	if err != nil {
		return err
	}
	for _, c := range selected {
		name := filepath.Join(queryDir, c.Queries)
		n, err := mergePool(name, from)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "eval: %d pooled grades added to %s\n", n, name)
	}
	return nil
}

// run evaluates every ranker on the selected corpora and writes the report
// to w.
func run(w io.Writer, selected []corpus, corpusDir, queryDir string, verbose bool) error {
	queryDir, err := queriesDir(queryDir)
	if err != nil {
		return err
	}
	if corpusDir == "" {
		mod, err := workingModule()
		if err != nil {
			return err
		}
		archives := filepath.Join(filepath.Dir(mod), "shared", "corpora")
		tmp, err := os.MkdirTemp("", "packfs-eval-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		for _, c := range selected {
			if err := unpack(c, archives, tmp); err != nil {
				return err
			}
		}
		corpusDir = tmp
	}

	fmt.Fprintf(w, "command: %s\n", strings.Join(append([]string{"go run ./dev/eval"}, os.Args[1:]...), " "))
	fmt.Fprintf(w, "date:    %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	for _, c := range selected {
		if err := evalCorpus(w, c, corpusDir, queryDir, verbose); err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	return nil
}

// scores are the mean metrics of one ranker over one query set.
type scores struct {
	NDCG, MRR, Recall float64
}

// evalCorpus evaluates every ranker on one corpus and writes its table.
func evalCorpus(w io.Writer, c corpus, corpusDir, queryDir string, verbose bool) error {
	qs, err := loadQuerySet(filepath.Join(queryDir, c.Queries))
	if err != nil {
		return err
	}
	var paras map[string][]string
	if withParaphrases {
		name := filepath.Join(queryDir, c.Name+"."+paraphraseSet+".json")
		if paras, err = loadParaphrases(name, qs); err != nil {
			return err
		}
		fmt.Fprintf(w, "paraphrases: %s\n", name)
	}
	root := filepath.Join(corpusDir, filepath.FromSlash(c.Root))
	files, err := listMarkdown(root)
	if err != nil {
		return err
	}
	if miss := qs.missing(files); len(miss) > 0 {
		return fmt.Errorf("judged files not in the corpus:\n  %s", strings.Join(miss, "\n  "))
	}

	names, err := readNames(root, files)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s (%s: %d files, %d queries)\n", c.Name, c.Root, len(files), len(qs.Queries))
	results := make([]evaluation, len(rankers))
	for i, f := range rankers {
		r, err := f.build(root, files)
		if err != nil {
			return err
		}
		if verbose {
			fmt.Fprintf(w, "\n[%s]\n", f.name)
		}
		results[i] = evaluate(w, r, qs, paras, names, verbose)
		if c, ok := r.(io.Closer); ok {
			if err := c.Close(); err != nil {
				return err
			}
		}
	}
	if verbose {
		fmt.Fprintln(w)
	}
	gap, err := vocabularyGap(qs, root, files)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "vocabulary: %d of %d queries share no word found in fewer than %.0f%% of the pages with a page that answers them\n",
		len(gap), len(qs.Queries), rareShare*100)
	if verbose && len(gap) > 0 {
		fmt.Fprintf(w, "            %s\n", strings.Join(gap, " "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ranker\tqueries\tnDCG@%d\tMRR@%d\trecall@%d\tnamed@%d\tanswer@1\tms/query\tp95 ms\n", ndcgDepth, mrrDepth, recallDepth, namedDepth)
	for i, f := range rankers {
		if splitReport {
			for _, odd := range []bool{true, false} {
				sub := qs.parity(odd)
				name := f.name + " even"
				if odd {
					name = f.name + " odd"
				}
				s := mean(results[i].perQuery, sub)
				fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\n", name, len(sub), s.NDCG, s.MRR, s.Recall, results[i].namedShare(sub), results[i].answerShare(sub), results[i].timing(sub))
			}
		}
		s := results[i].scores
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\n", f.name, len(qs.Queries), s.NDCG, s.MRR, s.Recall, results[i].namedShare(qs.ids()), results[i].answerShare(qs.ids()), results[i].timing(qs.ids()))
	}
	return tw.Flush()
}

// splitReport is the --split flag: report odd- and even-numbered queries too.
var splitReport bool

// withParaphrases and paraphraseSet are the --paraphrases and --paraphrase-set flags.
var (
	withParaphrases bool
	paraphraseSet   string
)

// evaluation is the mean metrics of one ranker and each query's, by id.
type evaluation struct {
	scores
	perQuery map[string]scores
	// named holds, for each query with phrasings that name a judged page, how many of them
	// had one in the top namedDepth and how many there were.
	named map[string][2]int
	// answers holds, for each query with phrasings that name a page judged an answer (grade 2),
	// how many of them ranked one first and how many there were.
	answers map[string][2]int
	// took is how long the ranker took to answer each query.
	took map[string]time.Duration
}

// timing returns the mean and the 95th percentile (nearest rank) of the time the ranker took to
// answer the queries ids, in milliseconds: "mean\tp95".
func (e evaluation) timing(ids []string) string {
	if len(ids) == 0 {
		return "-\t-"
	}
	ds := make([]time.Duration, len(ids))
	var sum time.Duration
	for i, id := range ids {
		ds[i] = e.took[id]
		sum += ds[i]
	}
	slices.Sort(ds)
	p95 := ds[(len(ds)*95+99)/100-1]
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return fmt.Sprintf("%.1f\t%.1f", ms(sum)/float64(len(ds)), ms(p95))
}

// namedShare says of the phrasings of the queries ids that name a judged page how many had one
// in the top namedDepth: "hits/phrasings".
func (e evaluation) namedShare(ids []string) string { return share(e.named, ids) }

// answerShare says of the phrasings of the queries ids that name a page judged an answer how
// many ranked one first: "hits/phrasings".
func (e evaluation) answerShare(ids []string) string { return share(e.answers, ids) }

// share sums the hits and phrasings of the queries ids in counts: "hits/phrasings".
func share(counts map[string][2]int, ids []string) string {
	hits, n := 0, 0
	for _, id := range ids {
		hits += counts[id][0]
		n += counts[id][1]
	}
	return fmt.Sprintf("%d/%d", hits, n)
}

// parity returns the ids of the queries of qs whose number (the trailing
// digits of the id) is odd, or even if odd is false.
func (qs *QuerySet) parity(odd bool) []string {
	var ids []string
	for _, q := range qs.Queries {
		i := len(q.ID)
		for i > 0 && q.ID[i-1] >= '0' && q.ID[i-1] <= '9' {
			i--
		}
		n, err := strconv.Atoi(q.ID[i:])
		if err == nil && (n%2 == 1) == odd {
			ids = append(ids, q.ID)
		}
	}
	return ids
}

// ids returns the ids of the queries of qs, in order.
func (qs *QuerySet) ids() []string {
	ids := make([]string, len(qs.Queries))
	for i, q := range qs.Queries {
		ids[i] = q.ID
	}
	return ids
}

// mean returns the mean of the per-query metrics of ids.
func mean(per map[string]scores, ids []string) scores {
	var sum scores
	for _, id := range ids {
		s := per[id]
		sum.NDCG += s.NDCG
		sum.MRR += s.MRR
		sum.Recall += s.Recall
	}
	n := float64(max(len(ids), 1))
	return scores{NDCG: sum.NDCG / n, MRR: sum.MRR / n, Recall: sum.Recall / n}
}

// evaluate runs every query of qs, with its paraphrases in paras (by id; nil
// for none), through r and returns the mean metrics and each query's. If
// verbose, it writes each query's metrics and the rank (or "-") of each of its
// judged files to w.
func evaluate(w io.Writer, r Ranker, qs *QuerySet, paras map[string][]string, names corpusNames, verbose bool) evaluation {
	var sum scores
	per := make(map[string]scores, len(qs.Queries))
	named, answers := map[string][2]int{}, map[string][2]int{}
	took := make(map[string]time.Duration, len(qs.Queries))
	for _, q := range qs.Queries {
		rel := q.judgments()
		t0 := time.Now()
		ranked := r.Rank(q.Query, paras[q.ID], rankDepth)
		took[q.ID] = time.Since(t0)
		got := top(ranked, rankDepth)
		pool.add(q, got)
		s := scores{
			NDCG:   NDCG(got, rel, ndcgDepth),
			MRR:    ReciprocalRank(got, rel, mrrDepth),
			Recall: Recall(got, rel, recallDepth),
		}
		per[q.ID] = s
		nm := names.named(q, paras[q.ID], 1)
		if len(nm) > 0 {
			named[q.ID] = [2]int{namedHits(got, nm, namedDepth), len(nm)}
		}
		if na := names.named(q, paras[q.ID], 2); len(na) > 0 {
			answers[q.ID] = [2]int{namedHits(got, na, 1), len(na)}
		}
		sum.NDCG += s.NDCG
		sum.MRR += s.MRR
		sum.Recall += s.Recall
		if verbose {
			writeQuery(w, q, got, s, nm)
		}
	}
	n := float64(len(qs.Queries))
	return evaluation{scores: scores{NDCG: sum.NDCG / n, MRR: sum.MRR / n, Recall: sum.Recall / n}, perQuery: per, named: named, answers: answers, took: took}
}

// writeQuery writes one query's metrics, the ranks of its judged files, the
// judged files its phrasings name and its top results, as many as nDCG counts.
func writeQuery(w io.Writer, q Query, got []string, s scores, named map[string][]string) {
	fmt.Fprintf(w, "%-5s ndcg=%.2f rr=%.2f recall=%.2f  %q\n", q.ID, s.NDCG, s.MRR, s.Recall, q.Query)
	rank := make(map[string]int, len(got))
	for i, p := range got {
		rank[p] = i + 1
	}
	rel := q.judgments()
	for _, p := range keysByValue(rel) {
		r := "-"
		if n, ok := rank[p]; ok {
			r = fmt.Sprint(n)
		}
		fmt.Fprintf(w, "        rel %d  rank %-2s  %s\n", rel[p], r, p)
	}
	for _, phrasing := range slices.Sorted(maps.Keys(named)) {
		var ranks []string
		for _, p := range named[phrasing] {
			r := "-"
			if n, ok := rank[p]; ok {
				r = fmt.Sprint(n)
			}
			ranks = append(ranks, p+" "+r)
		}
		fmt.Fprintf(w, "        named  %q: %s\n", phrasing, strings.Join(ranks, ", "))
	}
	for i, p := range got[:min(ndcgDepth, len(got))] {
		fmt.Fprintf(w, "        top %d  rel %d    %s\n", i+1, rel[p], p)
	}
}

// keysByValue returns the keys of m, highest value first, then in key order.
func keysByValue[V cmp.Ordered](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(m[b], m[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return keys
}
