package semantic

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/packfs/packfs-mcp/fulltext"
)

// TestSearchSeveralRanksAsOneIndex checks that a search of two engines, merged, ranks their
// documents as one engine holding both trees as folders does, scores included. The trees are
// unlike on purpose: "budget" is in three of notes' four files and two of work's three, so each
// index alone weighs it differently, and each engine's best hit scores 1 in its own index; only
// the statistics summed over the engines and the merge of their lists by comparable scores give
// one index's order.
func TestSearchSeveralRanksAsOneIndex(t *testing.T) {
	trees := map[string]fstest.MapFS{
		"notes": {
			"n1.md": {Data: []byte("# Alpha\nbudget ledger\n"), ModTime: t0},
			"n2.md": {Data: []byte("# Bravo\nbudget budget spreadsheet\n"), ModTime: t0},
			"n3.md": {Data: []byte("# Charlie\nbudget invoice\n"), ModTime: t0},
			"n4.md": {Data: []byte("# Delta\naardvark burrow\n"), ModTime: t0},
		},
		"work": {
			"w1.md": {Data: []byte("# Echo\naardvark burrow budget\n"), ModTime: t0},
			"w2.md": {Data: []byte("# Foxtrot\nbudget\n"), ModTime: t0},
			"w3.md": {Data: []byte("# Golf\naardvark burrow tunnel\n"), ModTime: t0},
		},
	}
	all := fstest.MapFS{}
	for name, tree := range trees {
		for p, f := range tree {
			all[name+"/"+p] = f
		}
	}
	one := openEngine(t, all, "")
	defer one.Close()
	notes, work := openEngine(t, trees["notes"], ""), openEngine(t, trees["work"], "")
	defer notes.Close()
	defer work.Close()
	tests := []struct {
		name string
		q    fulltext.Query
	}{
		{"words", fulltext.Query{Text: "aardvark burrow budget"}},
		{"a common word", fulltext.Query{Text: "budget"}},
		{"paraphrases", fulltext.Query{Text: "budget", Paraphrases: []string{"aardvark burrow", "tunnel"}}},
		{"few wanted", fulltext.Query{Text: "aardvark burrow budget", Max: 3}},
	}
	type scored struct {
		Path  string
		Score float64
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := one.Search(context.Background(), tt.q, false)
			if err != nil {
				t.Fatal(err)
			}
			var want []scored
			for _, h := range res.Hits {
				want = append(want, scored{h.Path, h.Score})
			}
			if len(want) < 2 {
				t.Fatalf("one index found %v: too few to compare an order", want)
			}
			answers := SearchSeveral(context.Background(), []Part{
				{Name: "notes", Engine: notes, Query: tt.q},
				{Name: "work", Engine: work, Query: tt.q},
			}, false)
			m := Merge(answers)
			if !m.Fused {
				t.Fatalf("Merge of complete indexes: not fused")
			}
			if m.Total != res.Total {
				t.Errorf("Merge's total = %d, want one index's %d", m.Total, res.Total)
			}
			var got []scored
			for _, r := range m.Ranking {
				a := answers[r.Answer]
				got = append(got, scored{a.Name + "/" + a.Results.Hits[r.Rank].Path, r.Score})
			}
			if tt.q.Max > 0 { // each engine found its best Max: the caller keeps the best of all
				got = got[:min(len(got), tt.q.Max)]
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("two engines ranked otherwise than one (-one +two):\n%s", diff)
			}
		})
	}
}

// TestMerge checks what Merge makes of the answers beside the fusion: an answer that failed is
// left out, hits without lists are left to the caller to order, totals add up and the unknown
// words are those of every answer.
func TestMerge(t *testing.T) {
	lists := func(paths ...string) *fulltext.Lists {
		l := &fulltext.Lists{Ranking: fulltext.DefaultRanking(), Phrasings: [][]fulltext.Listed{nil}}
		for i, p := range paths {
			l.Phrasings[0] = append(l.Phrasings[0], fulltext.Listed{Path: p, Score: float64(len(paths) - i)})
		}
		return l
	}
	found := func(l *fulltext.Lists, unknown []string, paths ...string) Results {
		res := Results{Lists: l, Total: len(paths), Unknown: unknown}
		for _, p := range paths {
			res.Hits = append(res.Hits, fulltext.Hit{Path: p})
		}
		return res
	}
	no := errors.New("no")
	tests := []struct {
		name    string
		answers []Answer
		want    Merged
	}{
		{"a failed answer", []Answer{
			{Name: "a", Results: found(lists("x.md"), []string{"w"}, "x.md"), Err: no},
			{Name: "b", Results: found(lists("y.md", "z.md"), []string{"v", "w"}, "y.md", "z.md")},
		}, Merged{Ranking: []Ranked{{Answer: 1, Rank: 0, Score: 1}, {Answer: 1, Rank: 1, Score: 0.5}}, Fused: true, Total: 2, Unknown: []string{"v", "w"}}},
		{"a listed document that is no hit", []Answer{
			{Name: "a", Results: found(lists("x.md", "y.md"), nil, "y.md")},
		}, Merged{Ranking: []Ranked{{Answer: 0, Rank: 0, Score: 1}}, Fused: true, Total: 1}},
		{"hits without lists", []Answer{
			{Name: "a", Results: found(lists("x.md"), []string{"w"}, "x.md")},
			{Name: "b", Results: found(nil, []string{"v", "w"}, "y.md")},
		}, Merged{Total: 2, Unknown: []string{"w"}}},
		{"an answer that knows every word", []Answer{
			{Name: "a", Results: found(lists("x.md"), []string{"w"}, "x.md")},
			{Name: "b", Results: found(lists("y.md"), nil, "y.md")},
		}, Merged{Ranking: []Ranked{{Answer: 0, Rank: 0, Score: 1}, {Answer: 1, Rank: 0, Score: 1}}, Fused: true, Total: 2}},
		{"a failed answer without lists", []Answer{
			{Name: "a", Results: found(lists("x.md"), nil, "x.md")},
			{Name: "b", Err: no},
		}, Merged{Ranking: []Ranked{{Answer: 0, Rank: 0, Score: 1}}, Fused: true, Total: 1}},
	}
	// The best listed document is no hit: the scores are relative to the best hit's.
	l := lists("x.md", "y.md", "z.md")
	fused := map[string]float64{}
	for _, d := range fulltext.Fuse(named(*l, "a")) {
		fused[d.Path] = d.Score
	}
	tests = append(tests, struct {
		name    string
		answers []Answer
		want    Merged
	}{"the best listed document is no hit", []Answer{{Name: "a", Results: found(l, nil, "y.md", "z.md")}},
		Merged{Ranking: []Ranked{{Answer: 0, Rank: 0, Score: 1}, {Answer: 0, Rank: 1, Score: fused["a/z.md"] / fused["a/y.md"]}}, Fused: true, Total: 2}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Merge(tt.answers), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}
