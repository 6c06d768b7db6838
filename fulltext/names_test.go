package fulltext

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/internal/corpora"
	"github.com/packfs/packfs-mcp/internal/tier"
	"github.com/packfs/packfs-mcp/markdown"
)

func TestNameKeys(t *testing.T) {
	tests := []struct {
		doc  markdown.Doc
		want []string
	}{
		{markdown.Doc{Path: "common/ssh-keygen.md", Title: "ssh-keygen"}, []string{"sshkeygen"}},
		{markdown.Doc{Path: "common/git-reset.md", Title: "git reset"}, []string{"gitreset"}},
		{markdown.Doc{Path: "Plugins/Graph view.md", Title: "Graph view", Aliases: []string{"Graph", "graph_view"}}, []string{"graphview", "graph"}},
		{markdown.Doc{Path: "notes/2024-01-02.md", Title: "Monday"}, []string{"monday", "20240102"}},
		{markdown.Doc{Path: "x/---.md", Title: "!!"}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, NameKeys(tt.doc)); diff != "" {
			t.Errorf("NameKeys(%s) (-want +got):\n%s", tt.doc.Path, diff)
		}
	}
}

func TestNamesIn(t *testing.T) {
	known := func(names ...string) func(string) bool {
		return func(k string) bool { return slices.Contains(names, k) }
	}
	tests := []struct {
		text  string
		names []string
		want  []NameRun
	}{
		{"how do I extract a tar archive", []string{"tar", "extract"}, []NameRun{{"extract", 3, 4}, {"tar", 5, 6}}},
		// The longest run wins: "ssh keygen" names ssh-keygen, not also ssh.
		{"ssh-keygen new key", []string{"ssh", "sshkeygen"}, []NameRun{{"sshkeygen", 0, 2}}},
		{"SSH_Keygen", []string{"sshkeygen"}, []NameRun{{"sshkeygen", 0, 1}}},
		// Plurals either way.
		{"community plugin", []string{"plugins"}, []NameRun{{"plugins", 1, 2}}},
		{"aliases", []string{"alias"}, []NameRun{{"alias", 0, 1}}},
		// Question and stop words, and single letters, name nothing alone.
		{"which one is it", []string{"which", "one", "is", "it"}, nil},
		{"x marks", []string{"x"}, nil},
		// ...but may be part of a longer name.
		{"see which port", []string{"seewhich"}, []NameRun{{"seewhich", 0, 2}}},
		{"nothing named here", nil, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, NamesIn(tt.text, known(tt.names...))); diff != "" {
			t.Errorf("NamesIn(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

// namesDocs is a small command reference shaped like the tldr pages: the page named tar uses
// the query's words less than a page whose title only contains "tar".
func namesDocs() []markdown.Doc {
	doc := func(p, title, text string) markdown.Doc {
		return markdown.Doc{Path: p, Title: title, Size: int64(len(text)), ModTime: testTime,
			Sections: []markdown.Section{{Level: 1, Heading: title, Line: 1, Text: text}}}
	}
	docs := []markdown.Doc{
		doc("common/tar.md", "tar", "Archiving utility, often combined with gzip.\n\nCreate an archive from files.\n\nExtract an archive in the current directory."),
		doc("common/git-get-tar-commit-id.md", "git get-tar-commit-id", "Extract the commit ID from a tar archive.\n\nExtract the commit hash of a tar archive created by git archive, or extract nothing from a tar archive and exit."),
		doc("common/install.md", "install", "Copy files and set attributes.\n\nCopy software files into a destination and set their owner."),
		doc("linux/apt-get.md", "apt-get", "Debian and Ubuntu package management utility.\n\nInstall software packages on Ubuntu."),
		doc("linux/ubuntu-drivers.md", "ubuntu-drivers", "Install drivers and software for Ubuntu hardware."),
		doc("common/htop.md", "htop", "Interactive process viewer.\n\nStart htop, sorted by a column."),
	}
	for i := range 5 {
		docs = append(docs, doc(fmt.Sprintf("common/cpu%d.md", i), fmt.Sprintf("cpu%d", i),
			"Show which programs and processes use the most CPU, sorted by CPU usage."))
	}
	for i := range 20 {
		docs = append(docs, doc(fmt.Sprintf("other/o%02d.md", i), fmt.Sprintf("o%02d", i),
			"Unrelated words about gardening, weather and the files of a garden archive."))
	}
	return docs
}

// TestSearchNames checks that a query naming a page puts it first, that a page named by a
// common word is not lifted for words it does not speak of, and that fusion keeps a page one
// paraphrase names in the top three; and that each fails without the weight that makes it so.
func TestSearchNames(t *testing.T) {
	on := DefaultRanking()
	noNames, strong, noKeep := on, on, on
	noNames.NameBonus, noNames.KeepNamed = 0, 0
	strong.NameBonus = 2 // a lift that would carry a named page past any text score
	anyCover := strong
	anyCover.NameCoverage = 0
	noKeep.KeepNamed = 0
	cpu := Query{Text: "which programs are eating my cpu", Paraphrases: []string{"cpu usage processes", "processes sorted by cpu", "htop"}}
	tests := []struct {
		name    string
		ranking Ranking
		q       Query
		places  int // the place (1-based) want reaches at most
		want    string
		in      bool // whether want is there
	}{
		{"named page first", on, Query{Text: "how do I extract a tar archive"}, 1, "common/tar.md", true},
		{"named page first, names off", noNames, Query{Text: "how do I extract a tar archive"}, 1, "common/tar.md", false},
		{"common word not lifted", on, Query{Text: "install software on ubuntu"}, 2, "common/install.md", false},
		{"common word not lifted, strong lift", strong, Query{Text: "install software on ubuntu"}, 2, "common/install.md", false},
		{"common word lifted without coverage", anyCover, Query{Text: "install software on ubuntu"}, 2, "common/install.md", true},
		{"common word not lifted, names off", noNames, Query{Text: "install software on ubuntu"}, 2, "common/install.md", false},
		{"fusion keeps a named page", on, cpu, 3, "common/htop.md", true},
		{"fusion keeps a named page, keep off", noKeep, cpu, 3, "common/htop.md", false},
	}
	for _, tt := range tests {
		ix := newTestIndex(t, IndexOptions{Ranking: &tt.ranking})
		if err := ix.PutBatch(namesDocs()); err != nil {
			t.Fatal(err)
		}
		hits, _, err := ix.Search(context.Background(), tt.q)
		if err != nil {
			t.Fatal(err)
		}
		got := paths(hits)
		if in := slices.Contains(got[:min(tt.places, len(got))], tt.want); in != tt.in {
			t.Errorf("%s: %s in the first %d = %t, want %t: %v", tt.name, tt.want, tt.places, in, tt.in, got)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("%s: scores rise from %v to %v at place %d", tt.name, hits[i-1].Score, hits[i].Score, i+1)
			}
		}
		ix.Close()
	}
}

func TestKeepNamed(t *testing.T) {
	docs := func(names ...string) []ranked {
		out := make([]ranked, len(names))
		for i, n := range names {
			out[i] = ranked{path: n, score: 1 - float64(i)/10}
		}
		return out
	}
	first := func(name string) []ranked { return []ranked{{path: name, score: 1, named: true}} }
	tests := []struct {
		name  string
		fused []ranked
		lists [][]ranked
		want  []string
	}{
		{"none named", docs("a", "b", "c", "d"), [][]ranked{docs("a")}, []string{"a", "b", "c", "d"}},
		{"named low goes to third", docs("a", "b", "c", "d", "e", "n"), [][]ranked{docs("a"), first("n")}, []string{"a", "b", "n", "c", "d", "e"}},
		{"named high stays", docs("n", "a", "b"), [][]ranked{first("n")}, []string{"n", "a", "b"}},
		{"two named take second and third", docs("a", "b", "c", "m", "d", "n"), [][]ranked{first("n"), first("m")}, []string{"a", "m", "n", "b", "c", "d"}},
		{"four named: the best three", docs("a", "p", "b", "m", "c", "n", "q"), [][]ranked{first("n"), first("m"), first("p"), first("q")}, []string{"p", "m", "n", "a", "b", "c", "q"}},
		{"named but not first is not kept", docs("a", "b", "c", "d", "n"), [][]ranked{{{path: "x", score: 1}, {path: "n", score: 0.9, named: true}}}, []string{"a", "b", "c", "d", "n"}},
	}
	for _, tt := range tests {
		out := keepNamed(tt.fused, tt.lists, 3)
		var got []string
		for i, d := range out {
			got = append(got, d.path)
			if i > 0 && d.score > out[i-1].score {
				t.Errorf("%s: score rises at place %d", tt.name, i+1)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestRankingIndependentOfSegments builds the tldr pages' index twice, in batches of 500 and in
// one batch, so that its segments lie differently, and checks that every search ranks and scores
// the same in both. Scores that depended on the layout once made tldr's openbsd and netbsd df.md
// swap places between builds (a lift scored through bleve's advance of a boolean query).
func TestRankingIndependentOfSegments(t *testing.T) {
	tier.Full(t, "indexes a corpus twice, in different segments")
	_, docs := evalCorpus(t, corpora.TLDR, 100000)
	build := func(batch int) *Index {
		ix := newTestIndex(t, IndexOptions{})
		for i := 0; i < len(docs); i += batch {
			if err := ix.PutBatch(docs[i:min(i+batch, len(docs))]); err != nil {
				t.Fatal(err)
			}
		}
		return ix
	}
	a, b := build(500), build(len(docs))
	queries := append([]Query{{Text: "df -h"}}, tldrParaphrased...)
	for _, q := range queries {
		ha, _, err := a.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		hb, _, err := b.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		type scored struct {
			Path  string
			Score float64
		}
		var sa, sb []scored
		for _, h := range ha {
			sa = append(sa, scored{h.Path, h.Score})
		}
		for _, h := range hb {
			sb = append(sb, scored{h.Path, h.Score})
		}
		if diff := cmp.Diff(sa, sb); diff != "" {
			t.Errorf("%q: batches of 500 vs one batch (-500 +one):\n%s", q.Text, diff)
		}
	}
}
