package fulltext

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/internal/corpora"
	"github.com/packfs/packfs-mcp/markdown"
)

// filler is neutral text that makes a body long enough for length normalisation to matter.
const filler = "The quick brown fox jumps over the lazy dog while the cat watches from the window sill. "

// fixtureDocs is the small hand-written set the ranking and criteria tests search.
func fixtureDocs() []markdown.Doc {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	docs := []markdown.Doc{
		// title boost
		{Path: "food/pancakes.md", Title: "Pancake recipes", Sections: []markdown.Section{{Line: 1, Text: "Mix flour, eggs and milk into a batter. " + filler}}},
		{Path: "food/breakfast.md", Title: "Breakfast", Sections: []markdown.Section{{Line: 1, Text: strings.Repeat(filler, 2) + "Sometimes a pancake. " + filler}}},
		// alias boost
		{Path: "ops/k8s.md", Title: "K8s notes", Aliases: []string{"Kubernetes"}, Sections: []markdown.Section{{Line: 1, Text: "Clusters, pods and nodes. " + filler}}},
		{Path: "ops/cloud.md", Title: "Cloud", Sections: []markdown.Section{{Line: 1, Text: filler + "We may run kubernetes one day. " + filler}}},
		// OR semantics
		{Path: "colors/two.md", Title: "Palette", Sections: []markdown.Section{{Line: 1, Text: "Red and green paint. " + filler}}},
		{Path: "colors/one.md", Title: "Sky", Sections: []markdown.Section{{Line: 1, Text: "Blue paint. " + filler}}},
		// criteria: every zebra document differs in one criterion
		{Path: "zoo/a/zebra.md", Title: "Zebra A", Tags: []string{"Animal", "stripes"}, Size: 100, ModTime: day(1),
			Sections: []markdown.Section{{Line: 1, Text: "A zebra grazes."}}},
		{Path: "zoo/b/zebra.txt", Title: "zebra", Tags: []string{"animal"}, Size: 5000, ModTime: day(10),
			Sections: []markdown.Section{{Line: 1, Text: "Another zebra sleeps."}}},
		{Path: "zoology.md", Title: "Zebra notes", Size: 300, ModTime: day(20),
			Sections: []markdown.Section{{Line: 1, Text: "Zebra facts."}}},
		// grouping and snippets: many sections mention the same word
		{Path: "guide/search.md", Title: "Searching notes", Sections: []markdown.Section{
			{Line: 1, Text: "How to search your notes."},
			{Heading: "Operators", Level: 2, Line: 3, Text: "## Operators\nSearch operators narrow a search: " + filler},
			{Heading: "Regex", Level: 2, Line: 5, Text: "## Regex\nA regular expression search.\nIt spans\nlines."},
		}},
		// paraphrase only
		{Path: "animals/quokka.md", Title: "Small marsupial", Sections: []markdown.Section{{Line: 1, Text: "The quokka smiles on Rottnest Island."}}},
	}
	for i := range docs {
		docs[i].Markdown = strings.HasSuffix(docs[i].Path, ".md")
		if docs[i].ModTime.IsZero() {
			docs[i].ModTime = day(15)
		}
		if docs[i].Size == 0 {
			docs[i].Size = 1000
		}
	}
	return docs
}

func fixtureIndex(t *testing.T) *Index {
	t.Helper()
	ix := newTestIndex(t, IndexOptions{})
	if err := ix.PutBatch(fixtureDocs()); err != nil {
		t.Fatal(err)
	}
	return ix
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func TestSearchRanking(t *testing.T) {
	ix := fixtureIndex(t)
	tests := []struct {
		name  string
		q     Query
		first string // expected top hit
		above string // a hit that must rank below first
	}{
		{"title boost", Query{Text: "pancake"}, "food/pancakes.md", "food/breakfast.md"},
		{"alias boost", Query{Text: "kubernetes"}, "ops/k8s.md", "ops/cloud.md"},
		{"two of three words beat one", Query{Text: "red green blue"}, "colors/two.md", "colors/one.md"},
		{"stemming", Query{Text: "searches"}, "guide/search.md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, _, err := ix.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			got := paths(hits)
			if len(got) == 0 || got[0] != tt.first {
				t.Fatalf("hits = %v, want %s first", got, tt.first)
			}
			if tt.above != "" && !slices.Contains(got, tt.above) {
				t.Errorf("hits = %v, want %s among them (OR semantics)", got, tt.above)
			}
			if hits[0].Score != 1 {
				t.Errorf("top score = %v, want 1", hits[0].Score)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("hit %d scores %v above hit %d's %v", i, hits[i].Score, i-1, hits[i-1].Score)
				}
			}
		})
	}
}

func TestSearchCriteria(t *testing.T) {
	ix := fixtureIndex(t)
	at := func(d int) *time.Time { v := time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC); return &v }
	size := func(n int64) *int64 { return &n }
	tests := []struct {
		name string
		q    Query
		want []string // sorted
	}{
		{"all", Query{}, []string{"zoo/a/zebra.md", "zoo/b/zebra.txt", "zoology.md"}},
		{"prefix", Query{Prefix: "zoo"}, []string{"zoo/a/zebra.md", "zoo/b/zebra.txt"}},
		{"prefix is a folder, not a string prefix", Query{Prefix: "zoo/"}, []string{"zoo/a/zebra.md", "zoo/b/zebra.txt"}},
		{"nested prefix", Query{Prefix: "./zoo/b"}, []string{"zoo/b/zebra.txt"}},
		{"dot prefix", Query{Prefix: "."}, []string{"zoo/a/zebra.md", "zoo/b/zebra.txt", "zoology.md"}},
		{"extension", Query{Extensions: []string{".txt"}}, []string{"zoo/b/zebra.txt"}},
		{"extensions", Query{Extensions: []string{".md", ".pdf"}}, []string{"zoo/a/zebra.md", "zoology.md"}},
		{"min size", Query{MinSize: size(300)}, []string{"zoo/b/zebra.txt", "zoology.md"}},
		{"size range inclusive", Query{MinSize: size(100), MaxSize: size(300)}, []string{"zoo/a/zebra.md", "zoology.md"}},
		{"after inclusive", Query{After: at(10)}, []string{"zoo/b/zebra.txt", "zoology.md"}},
		{"before exclusive", Query{Before: at(10)}, []string{"zoo/a/zebra.md"}},
		{"between", Query{After: at(2), Before: at(15)}, []string{"zoo/b/zebra.txt"}},
		{"tag, case-insensitive", Query{Tags: []string{"ANIMAL"}}, []string{"zoo/a/zebra.md", "zoo/b/zebra.txt"}},
		{"every tag", Query{Tags: []string{"animal", "stripes"}}, []string{"zoo/a/zebra.md"}},
		{"combined", Query{Prefix: "zoo", Extensions: []string{".md"}, Tags: []string{"animal"}}, []string{"zoo/a/zebra.md"}},
		{"nothing", Query{Prefix: "food"}, nil},
		{"keep", Query{Keep: func(p string) bool { return strings.HasSuffix(p, ".md") }}, []string{"zoo/a/zebra.md", "zoology.md"}},
		{"keep with prefix", Query{Prefix: "zoo", Keep: func(p string) bool { return p != "zoo/a/zebra.md" }}, []string{"zoo/b/zebra.txt"}},
		{"keep nothing", Query{Keep: func(string) bool { return false }}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Text = "zebra"
			hits, total, err := ix.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			got := paths(hits)
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if total != len(tt.want) {
				t.Errorf("total = %d, want %d", total, len(tt.want))
			}
		})
	}
}

func TestSearchGroupingAndSnippet(t *testing.T) {
	ix := fixtureIndex(t)
	hits, total, err := ix.Search(context.Background(), Query{Text: "regular expression search"})
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(hits) != 1 {
		t.Fatalf("hits = %v, total %d; want one document", paths(hits), total)
	}
	want := Hit{
		Path: "guide/search.md", Title: "Searching notes", Score: 1, Heading: "Regex", Line: 5,
		Snippet: "## Regex A **regular** **expression** **search**. It spans lines.",
	}
	if diff := cmp.Diff(want, hits[0]); diff != "" {
		t.Errorf("hit (-want +got):\n%s", diff)
	}
}

func TestSearchFuzzyFallback(t *testing.T) {
	ix := fixtureIndex(t)
	if err := ix.Put(markdown.Doc{Path: "serach.md", Title: "Typo", Sections: []markdown.Section{{Line: 1, Text: "Someone wrote serach here."}}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		want       []string
	}{
		{"exact match wins, no fuzzy", "serach", []string{"serach.md"}},
		{"fuzzy when nothing matches", "zebar", []string{"zoo/a/zebra.md", "zoo/b/zebra.txt", "zoology.md"}},
		{"nothing near", "xylophone", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, _, err := ix.Search(context.Background(), Query{Text: tt.text})
			if err != nil {
				t.Fatal(err)
			}
			got := paths(hits)
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			for _, h := range hits {
				if !strings.Contains(h.Snippet, "**") {
					t.Errorf("snippet %q highlights nothing", h.Snippet)
				}
			}
		})
	}
}

// TestSearchQuerySyntaxIsText checks that query syntax in the text is never interpreted
// (security case 47): no error, and no match by field, wildcard, regexp or operator.
func TestSearchQuerySyntaxIsText(t *testing.T) {
	ix := fixtureIndex(t)
	for _, text := range []string{
		"path:/etc/*", "title:zebra", "+zebra -pancake", "zebra^100", "/z.*a/", "*", "?",
		`"unterminated`, `\`, "z*", "_id:zoology.md#0", "body:*", "-", "+", "((", "~2", "zebra~",
		"NOT", "AND OR", "\x00", "é*", strings.Repeat("a ", 2000),
	} {
		t.Run(text[:min(len(text), 20)], func(t *testing.T) {
			hits, _, err := ix.Search(context.Background(), Query{Text: text})
			if err != nil {
				t.Fatalf("Search(%q): %v", text, err)
			}
			// The only words a field or operator could smuggle in are zebra and pancake; as
			// plain words they match only documents that contain them.
			for _, h := range hits {
				for _, w := range []string{"etc", "path", "id", "body"} {
					if strings.Contains(text, w) && strings.HasPrefix(h.Path, "zoo") {
						t.Errorf("%q matched %s", text, h.Path)
					}
				}
			}
		})
	}
	// Operators and fields are words: "-" excludes nothing, "path:" reaches no field.
	for _, tt := range []struct {
		text string
		want []string // sorted
	}{
		{"+zebra -pancake", []string{"food/breakfast.md", "food/pancakes.md", "zoo/a/zebra.md", "zoo/b/zebra.txt", "zoology.md"}},
		{"path:/etc/*", nil},
		{"ext:.txt", nil},
		{"pancake^100 NOT zebra", []string{"food/breakfast.md", "food/pancakes.md", "zoo/a/zebra.md", "zoo/b/zebra.txt", "zoology.md"}},
	} {
		hits, _, err := ix.Search(context.Background(), Query{Text: tt.text})
		if err != nil {
			t.Fatal(err)
		}
		got := paths(hits)
		sort.Strings(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Search(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
	if _, _, err := ix.Search(context.Background(), Query{Text: "  "}); err != ErrEmptyQuery {
		t.Errorf("empty query: %v, want ErrEmptyQuery", err)
	}
}

func TestSearchParaphrasesAndThreshold(t *testing.T) {
	ix := fixtureIndex(t)
	tests := []struct {
		name  string
		q     Query
		first string
		want  []string // sorted
	}{
		{"literal only", Query{Text: "marsupial smiles"}, "animals/quokka.md", []string{"animals/quokka.md"}},
		{"paraphrase adds documents", Query{Text: "pancake", Paraphrases: []string{"zebra facts"}}, "food/pancakes.md",
			[]string{"food/breakfast.md", "food/pancakes.md", "zoo/a/zebra.md", "zoo/b/zebra.txt", "zoology.md"}},
		{"paraphrase alone matches", Query{Text: "wombat", Paraphrases: []string{"quokka", "", "quokka"}}, "animals/quokka.md",
			[]string{"animals/quokka.md"}},
		{"max", Query{Text: "pancake", Max: 1}, "food/pancakes.md", []string{"food/pancakes.md"}},
		{"threshold keeps the top", Query{Text: "pancake", Threshold: 1}, "food/pancakes.md", []string{"food/pancakes.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, _, err := ix.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			got := paths(hits)
			if len(got) == 0 || got[0] != tt.first {
				t.Errorf("hits = %v, want %s first", got, tt.first)
			}
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnknownWords(t *testing.T) {
	ix := fixtureIndex(t)
	tests := []struct {
		name      string
		phrasings []string
		want      []string
	}{
		{"all known", []string{"pancake zebra"}, nil},
		{"stemmed form is known", []string{"pancakes searching"}, nil},
		{"unknown words in order, once", []string{"Zzqx pancake qwv", "zzqx quokka"}, []string{"zzqx", "qwv"}},
		{"question and stop words are not reported", []string{"how do I see the zzqx pancake"}, []string{"zzqx"}},
		{"empty", []string{"", "  "}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ix.UnknownWords(tt.phrasings...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("UnknownWords(%q) (-want +got):\n%s", tt.phrasings, diff)
			}
		})
	}
}

func TestMakeSnippet(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name  string
		body  string
		words []string // matched words, each marked at its first occurrence after the previous
		want  string
	}{
		{"no match", "a\nb", nil, "a b"},
		{"newlines", "one\n\ntwo\tthree", []string{"two"}, "one **two** three"},
		{"window skips to the matches", long + "needle hay needle " + long, []string{"needle", "needle"},
			"…" + strings.Repeat("word ", 7) + "**needle** hay **needle**" + strings.Repeat(" word", 26) + "…"},
		{"utf-8", strings.Repeat("é", 400), nil, strings.Repeat("é", 98) + "…"},
		{"ends at a sentence", strings.Repeat("alpha ", 20) + "ends here. " + strings.Repeat("beta ", 40), []string{"alpha"},
			"**alpha**" + strings.Repeat(" alpha", 19) + " ends here. …"},
		{"ends at a line", strings.Repeat("alpha ", 20) + "last line\n" + strings.Repeat("beta ", 40), []string{"alpha"},
			"**alpha**" + strings.Repeat(" alpha", 19) + " last line …"},
		{"a sentence too early is not the end", "Yes. " + strings.Repeat("gamma ", 60), []string{"Yes"},
			"**Yes**." + strings.Repeat(" gamma", 31) + "…"},
		{"already bold", "Set the **Root** folder", []string{"Root"}, "Set the **Root** folder"},
		{"inside a bold phrase", "**the Root folder** and Root", []string{"Root", "Root"}, "**the Root folder** and **Root**"},
		{"underscore bold", "a __Root__ b", []string{"Root"}, "a __Root__ b"},
		{"bold ends a paragraph", "**x\n\nRoot", []string{"Root"}, "**x **Root**"},
		{"code span", "run `vault list` for each vault", []string{"vault", "vault"}, "run `vault list` for each **vault**"},
		{"wiki link", "see [[Manage vaults|vault manager]] for a vault", []string{"vault", "vault", "vault"},
			"see [[Manage vaults|vault manager]] for a **vault**"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spans []span
			from := 0
			for _, w := range tt.words {
				i := from + strings.Index(tt.body[from:], w)
				spans = append(spans, span{i, i + len(w)})
				from = i + len(w)
			}
			got := makeSnippet(tt.body, spans, snippetMax)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("snippet (-want +got):\n%s", diff)
			}
			if len(got) > snippetMax || !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r\t") {
				t.Errorf("snippet of %d bytes is not one valid line within %d", len(got), snippetMax)
			}
		})
	}
}

func TestWithinOneEdit(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"search", "serach", true}, {"search", "searc", true}, {"search", "xsearch", true},
		{"search", "seerch", true}, {"search", "search", true}, {"", "a", true}, {"ab", "ba", true},
		{"zebra", "zebar", true}, {"héllo", "hello", true}, {"search", "sraech", false},
		{"search", "sea", false}, {"abc", "cba", false}, {"ab", "", false},
	} {
		if got := withinOneEdit(tt.a, tt.b); got != tt.want {
			t.Errorf("withinOneEdit(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

// TestCandidatesOK checks the candidates of literals on the fixture, and when the index cannot
// narrow a search. It runs with the list of indexed words held and with a list too large to hold, for which the
// index's dictionary answers instead: the candidates must be the same.
func TestCandidatesOK(t *testing.T) {
	tests := []struct {
		literal string
		want    []string
		ok      bool
	}{
		{"zebra", []string{"zoo/a/zebra.md", "zoo/b/zebra.txt", "zoology.md"}, true},
		{"EBR", []string{"zoo/a/zebra.md", "zoo/b/zebra.txt", "zoology.md"}, true},
		{"zebra facts", []string{"zoology.md"}, true},
		{"quokka.smiles", []string{"animals/quokka.md"}, true},
		{"K8s", []string{"ops/k8s.md"}, true}, // from the title
		{"Kubernetes", []string{"ops/cloud.md", "ops/k8s.md"}, true},
		{"nowhere", nil, true},
		{"", nil, false},
		{"--//..", nil, false},
		{"zébra", nil, false},
		{"a b c", nil, false},
		{"one two three four five six seven eight nine", nil, false},
	}
	for _, tooLarge := range []bool{false, true} {
		ix := fixtureIndex(t)
		if tooLarge {
			ix.wordList.limit = 1
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/tooLarge=%v", tt.literal, tooLarge), func(t *testing.T) {
				got, ok, err := ix.Candidates(context.Background(), tt.literal, ".", 0)
				if err != nil {
					t.Fatal(err)
				}
				if ok != tt.ok {
					t.Errorf("ok = %v, want %v", ok, tt.ok)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("candidates (-want +got):\n%s", diff)
				}
				if tt.ok && ix.wordList.tooLarge() != tooLarge {
					t.Errorf("list too large = %v, want %v", ix.wordList.tooLarge(), tooLarge)
				}
			})
		}
	}
}

// TestCandidatesBroadRuns checks that a run of the literal found inside more than maxWordTerms
// words is left out of the query when another run narrows, and that a literal whose runs are all
// that broad is left to a scan.
func TestCandidatesBroadRuns(t *testing.T) {
	ix := fixtureIndex(t)
	var many strings.Builder
	for i := range maxWordTerms + 1 {
		fmt.Fprintf(&many, "x%dcommon ", i)
	}
	docs := []markdown.Doc{
		{Path: "broad/many.md", Sections: []markdown.Section{{Line: 1, Text: many.String()}}},
		{Path: "broad/rare.md", Sections: []markdown.Section{{Line: 1, Text: "a zyzzyva beside no other word"}}},
	}
	if err := ix.PutBatch(docs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		literal string
		want    []string
		ok      bool
	}{
		// "common" is inside 4,097 words: the query keeps only "zyzzyva", which still
		// names the one page that can hold the literal.
		{"common zyzzyva", []string{"broad/rare.md"}, true},
		{"common", nil, false},
	}
	for _, tt := range tests {
		got, ok, err := ix.Candidates(context.Background(), tt.literal, ".", 0)
		if err != nil {
			t.Fatal(err)
		}
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("Candidates(%q) = %v, %v; want %v, %v", tt.literal, got, ok, tt.want, tt.ok)
		}
	}
}

// TestCandidatesUnder checks that Candidates returns only the documents at or below the folder
// it is given: by the folder's term, and by its prefix for a folder too deep for a term.
func TestCandidatesUnder(t *testing.T) {
	ix := newTestIndex(t, IndexOptions{})
	deep := strings.Repeat("d/", maxDirDepth) + "x"
	var docs []markdown.Doc
	for _, p := range []string{"a/x.md", "a/b/y.md", "ab/w.md", "c/z.md", "top.md", deep + "/n.md", deep + "y/n.md"} {
		docs = append(docs, textDoc(p, "Note", "a needle in the hay"))
	}
	if err := ix.PutBatch(docs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		under string
		want  []string
	}{
		{".", []string{"a/b/y.md", "a/x.md", "ab/w.md", "c/z.md", deep + "/n.md", deep + "y/n.md", "top.md"}},
		{"a", []string{"a/b/y.md", "a/x.md"}},
		{"a/b", []string{"a/b/y.md"}},
		{"c", []string{"c/z.md"}},
		{deep, []string{deep + "/n.md"}},
		{"nowhere", nil},
	}
	for _, tt := range tests {
		got, ok, err := ix.Candidates(context.Background(), "needle", tt.under, 0)
		if err != nil || !ok {
			t.Fatalf("Candidates(needle, %q) = %v, %v, %v", tt.under, got, ok, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Candidates(needle, %q) = %q, want %q", tt.under, got, tt.want)
		}
	}
	// The tree holds 7 matches: a bound below them refuses before reading any, whatever the folder.
	for _, most := range []int{1, 6, 7, 100} {
		_, ok, err := ix.Candidates(context.Background(), "needle", "a", most)
		if err != nil || ok != (most >= 7) {
			t.Errorf("Candidates(needle, a, most %d): ok %v, %v; want ok %v", most, ok, err, most >= 7)
		}
	}
}

// TestCandidatesFollowWrites checks that the cached list of indexed words never hides a word
// written, or shows one deleted, after it was read.
func TestCandidatesFollowWrites(t *testing.T) {
	ix := fixtureIndex(t)
	candidates := func(literal string) []string {
		t.Helper()
		got, ok, err := ix.Candidates(context.Background(), literal, ".", 0)
		if err != nil || !ok {
			t.Fatalf("Candidates(%q) = %v, %v, %v", literal, got, ok, err)
		}
		return got
	}
	if got := candidates("wombat"); got != nil {
		t.Fatalf("before the write: %v", got)
	}
	if err := ix.Put(markdown.Doc{Path: "new/wombats.md", Title: "Marsupials", Sections: []markdown.Section{{Line: 1, Text: "A wombat census."}}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"new/wombats.md"}, candidates("ombat")); diff != "" {
		t.Errorf("after the write (-want +got):\n%s", diff)
	}
	if err := ix.Delete("new/wombats.md"); err != nil {
		t.Fatal(err)
	}
	if got := candidates("wombat"); got != nil {
		t.Errorf("after the delete: %v", got)
	}
}

// TestWordListFollowsSmallBatches checks that a small batch carries the list of indexed words
// over to the new generation, with the new words, instead of dropping it to be read again, and
// that a large batch drops it.
func TestWordListFollowsSmallBatches(t *testing.T) {
	ix := fixtureIndex(t)
	if _, err := ix.words(ix.dfs.generation()); err != nil {
		t.Fatal(err)
	}
	held := func() (wordList, bool) {
		ix.wordList.mu.Lock()
		defer ix.wordList.mu.Unlock()
		return ix.wordList.list, ix.wordList.list != nil && ix.wordList.at == ix.dfs.generation()
	}
	if err := ix.Put(markdown.Doc{Path: "new/wombats.md", Title: "Marsupials", Sections: []markdown.Section{{Line: 1, Text: "A wombat census."}}}); err != nil {
		t.Fatal(err)
	}
	list, ok := held()
	words := list.words()
	if !ok || !slices.Contains(words, "wombat") || !slices.Contains(words, "census") || !slices.IsSorted(words) {
		t.Fatalf("after a write: held %v, has wombat %v, sorted %v", ok, slices.Contains(words, "wombat"), slices.IsSorted(words))
	}
	// Writing it again with no new word keeps the very same list.
	if err := ix.Put(markdown.Doc{Path: "new/wombats.md", Title: "Marsupials", Sections: []markdown.Section{{Line: 1, Text: "A census: wombat, wombat."}}}); err != nil {
		t.Fatal(err)
	}
	if again, ok := held(); !ok || &again[0] != &list[0] {
		t.Errorf("an edit without new words: held %v, same list %v", ok, ok && &again[0] == &list[0])
	}
	if err := ix.Delete("new/wombats.md"); err != nil {
		t.Fatal(err)
	}
	if _, ok := held(); !ok {
		t.Fatal("a delete dropped the list")
	}
	var many []markdown.Doc
	for i := range maxIncrementalDocs + 1 {
		many = append(many, markdown.Doc{Path: fmt.Sprintf("bulk/%d.md", i), Sections: []markdown.Section{{Line: 1, Text: "bulk"}}})
	}
	if err := ix.PutBatch(many); err != nil {
		t.Fatal(err)
	}
	if _, ok := held(); ok {
		t.Error("a large batch kept the list instead of leaving it to be read again")
	}
}

// TestWordList checks the packed list's lookup, merge and substring scan against a plain slice.
func TestWordList(t *testing.T) {
	pack := func(words ...string) wordList {
		l := wordList{}
		for _, w := range words {
			l = append(append(l, w...), '\n')
		}
		return l
	}
	words := []string{"archive", "archived", "list", "playlist", "unarchive"}
	l := pack(words...)
	for _, w := range append(words, "", "a", "archiv", "archivez", "lis", "zzz", "unarchived") {
		if got, want := l.has(w), slices.Contains(words, w); got != want {
			t.Errorf("has(%q) = %v, want %v", w, got, want)
		}
	}
	if pack().has("a") {
		t.Error("the empty list has a word")
	}
	merges := []struct{ a, b, want []string }{
		{nil, nil, nil},
		{[]string{"a", "c"}, nil, []string{"a", "c"}},
		{nil, []string{"b"}, []string{"b"}},
		{[]string{"a", "c", "e"}, []string{"b", "d", "f"}, []string{"a", "b", "c", "d", "e", "f"}},
		{[]string{"b"}, []string{"a", "c"}, []string{"a", "b", "c"}},
	}
	for _, tt := range merges {
		if diff := cmp.Diff(tt.want, pack(tt.a...).merge(tt.b).words()); diff != "" {
			t.Errorf("%q merge %q (-want +got):\n%s", tt.a, tt.b, diff)
		}
	}
	got, ok := l.containing("archive")
	if diff := cmp.Diff([]string{"archive", "archived", "unarchive"}, got); !ok || diff != "" {
		t.Errorf("containing = %v, %v (-want +got):\n%s", got, ok, diff)
	}
	if got, ok := l.containing("list"); !ok || !slices.Equal(got, []string{"list", "playlist"}) {
		t.Errorf("containing(list) = %v, %v", got, ok)
	}
	many := make([]string, maxWordTerms+1)
	for i := range many {
		many[i] = fmt.Sprintf("x%dlist", i)
	}
	slices.Sort(many)
	if _, ok := pack(many...).containing("list"); ok {
		t.Error("a run inside more than maxWordTerms words was not refused")
	}
}

// words returns the words of l, for tests.
func (l wordList) words() []string {
	var out []string
	for w := range bytes.SplitSeq(l, []byte("\n")) {
		if len(w) > 0 {
			out = append(out, string(w))
		}
	}
	return out
}

// every file that contains it, ignoring case.
func TestCandidatesSuperset(t *testing.T) {
	fsys, docs := evalCorpus(t, corpora.Obsidian, 400)
	ix := newTestIndex(t, IndexOptions{})
	if err := ix.PutBatch(docs); err != nil {
		t.Fatal(err)
	}
	// texts are the files without their frontmatter, which a markdown.Doc does not carry (see the
	// Candidates doc comment); frontmatter-only matches are counted, not failed.
	texts, files := map[string]string{}, map[string]string{}
	for _, d := range docs {
		b, err := fs.ReadFile(fsys, d.Path)
		if err != nil {
			t.Fatal(err)
		}
		files[d.Path] = strings.ToLower(string(b))
		texts[d.Path] = strings.ToLower(frontmatterRE.ReplaceAllString(string(b), ""))
	}
	frontmatterOnly := 0
	rng := rand.New(rand.NewPCG(7, 7))
	tried, narrowed := 0, 0
	for tried < 400 {
		d := docs[rng.IntN(len(docs))]
		src := texts[d.Path]
		if len(src) < 50 {
			continue
		}
		i := rng.IntN(len(src) - 20)
		literal := src[i : i+3+rng.IntN(15)]
		if !utf8.ValidString(literal) {
			continue
		}
		tried++
		got, ok, err := ix.Candidates(context.Background(), literal, ".", 0)
		if err != nil {
			t.Fatalf("Candidates(%q): %v", literal, err)
		}
		if !ok {
			continue
		}
		if len(got) < len(docs) {
			narrowed++
		}
		for p, text := range texts {
			switch {
			case slices.Contains(got, p):
			case strings.Contains(text, literal):
				t.Errorf("Candidates(%q) misses %s", literal, p)
			case strings.Contains(files[p], literal):
				frontmatterOnly++
			}
		}
	}
	t.Logf("%d literals, %d narrowed the files to scan, %d (literal, file) pairs only in frontmatter missed",
		tried, narrowed, frontmatterOnly)
}

// evalCorpus parses up to limit markdown files of corpus c (see [corpora.Dir]) with [markdown.Parse].
func evalCorpus(t testing.TB, c corpora.Corpus, limit int) (fs.FS, []markdown.Doc) {
	t.Helper()
	fsys := os.DirFS(corpora.Dir(t, c))
	var docs []markdown.Doc
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".md" || len(docs) >= limit {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		docs = append(docs, markdown.Parse(p, b, testTime))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fsys, docs
}

// frontmatterRE matches a YAML frontmatter block at the start of a file.
var frontmatterRE = regexp.MustCompile(`(?s)\A---\r?\n(.*?)\r?\n---\r?\n`)

// judged is one query of the ranking evaluation, in a user's own words, with graded answers:
// 2 for the note that answers it, 1 for a useful one.
type judged struct {
	text     string
	relevant map[string]int
}

var obsidianJudged = []judged{
	{"show the content of another note inside this one", map[string]int{"Linking notes and files/Embed files.md": 2}},
	{"give a note a second name", map[string]int{"Linking notes and files/Aliases.md": 2}},
	{"get my money back", map[string]int{"Licenses and payment/Refund policy.md": 2}},
	{"change keyboard shortcuts", map[string]int{"User interface/Hotkeys.md": 2, "Editing and formatting/Editing shortcuts.md": 1}},
	{"restore an older version of a note I deleted", map[string]int{"Plugins/File recovery.md": 2, "Obsidian Sync/Version history.md": 2}},
	{"use my own domain name for my published site", map[string]int{"Obsidian Publish/Custom domains.md": 2}},
	{"move my notes over from Evernote", map[string]int{"Import notes/Import from Evernote.md": 2, "Import notes/Importer.md": 1}},
	{"change how the app looks with a custom theme", map[string]int{"Extending Obsidian/Themes.md": 2, "User interface/Appearance.md": 1, "Extending Obsidian/CSS snippets.md": 1}},
	{"which notes link to this one", map[string]int{"Plugins/Backlinks.md": 2, "Plugins/Outgoing links.md": 1}},
	{"visualize connections between my notes", map[string]int{"Plugins/Graph view.md": 2}},
	{"colored boxes for warnings and tips", map[string]int{"Editing and formatting/Callouts.md": 2}},
	{"keep notes the same on my phone and computer", map[string]int{"Getting started/Sync your notes across devices.md": 2, "Obsidian Sync/Set up Obsidian Sync.md": 1, "Obsidian Sync/Introduction to Obsidian Sync.md": 1}},
	{"is my synced data encrypted end to end", map[string]int{"Obsidian Sync/Security and privacy.md": 2, "Obsidian Sync/Upgrade Sync encryption.md": 1}},
	{"open a note from another app with a link", map[string]int{"Extending Obsidian/Obsidian URI.md": 2}},
	{"a new note for each day as a journal", map[string]int{"Plugins/Daily notes.md": 2, "Plugins/Unique note creator.md": 1}},
	{"type in several places at once", map[string]int{"Editing and formatting/Multiple cursors.md": 2}},
	{"write math formulas and draw diagrams", map[string]int{"Editing and formatting/Advanced formatting syntax.md": 2}},
	{"where are my settings and plugins stored on disk", map[string]int{"Files and folders/Configuration folder.md": 2, "Files and folders/How Obsidian stores data.md": 1}},
	{"discount for students and teachers", map[string]int{"Licenses and payment/Education and non-profit discount.md": 2}},
	{"view two notes side by side", map[string]int{"User interface/Tabs.md": 2, "User interface/Workspace.md": 1, "User interface/Pop-out windows.md": 1}},
}

// ndcgAt5 returns the normalised discounted cumulative gain of the first five paths.
func ndcgAt5(got []string, rel map[string]int) float64 {
	dcg := func(gains []int) float64 {
		s := 0.0
		for i, g := range gains[:min(5, len(gains))] {
			s += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i)+2)
		}
		return s
	}
	var gains, ideal []int
	for _, p := range got {
		gains = append(gains, rel[p])
	}
	for _, g := range rel {
		ideal = append(ideal, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	return dcg(gains) / dcg(ideal)
}

// rankingEvalFloor is the least mean nDCG@5 of the default settings over obsidianJudged: the
// figure they give today (0.473 on 2026-11-24) less 0.01. A query whose one answer drops from
// first to second place costs the mean 0.018, so that fails; shuffles among helpful pages below
// the answer may pass.
const rankingEvalFloor = 0.463

// TestRankingEval compares ranking settings by mean nDCG@5 over the judged queries; run it with
// -v to see the figures. It fails if the default drops below rankingEvalFloor. The settings
// themselves were chosen on the odd-numbered queries of dev/eval/queries (go run ./dev/eval --split),
// whose floors eval's TestRankingFloors checks; these 20 queries are a further check.
func TestRankingEval(t *testing.T) {
	_, docs := evalCorpus(t, corpora.Obsidian, 1000)
	def := DefaultRanking()
	with := func(f func(*Ranking)) Ranking { r := def; f(&r); return r }
	configs := []struct {
		name    string
		ranking Ranking
	}{
		{"default", def},
		{"bm25 b=0.3", with(func(r *Ranking) { r.BM25B = 0.3 })},
		{"bm25 b=0.75 (bleve's)", with(func(r *Ranking) { r.BM25B = 0.75 })},
		{"bm25 k1=2", with(func(r *Ranking) { r.BM25K1 = 2 })},
		{"no bonuses", with(func(r *Ranking) { r.TitleBonus, r.HeadingBonus, r.LeadBonus = 0, 0, 0 })},
		{"title bonus 2", with(func(r *Ranking) { r.TitleBonus = 2 })},
		{"no lead bonus", with(func(r *Ranking) { r.LeadBonus = 0 })},
	}
	var defScore float64
	for _, c := range configs {
		ix, err := OpenIndex(IndexOptions{Ranking: &c.ranking})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.PutBatch(docs); err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		var per []string
		for _, j := range obsidianJudged {
			hits, _, err := ix.Search(context.Background(), Query{Text: j.text, Max: 5})
			if err != nil {
				t.Fatal(err)
			}
			n := ndcgAt5(paths(hits), j.relevant)
			sum += n
			per = append(per, fmt.Sprintf("%.2f", n))
		}
		mean := sum / float64(len(obsidianJudged))
		if c.name == configs[0].name {
			defScore = mean
		}
		t.Logf("%-30s nDCG@5 %.3f  [%s]", c.name, mean, strings.Join(per, " "))
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if defScore < rankingEvalFloor {
		t.Errorf("default ranking nDCG@5 = %.4f, below its floor %.3f", defScore, rankingEvalFloor)
	}
}

// benchSearch runs queries against ix b.N times and reports the latency's median, 95th and 99th
// percentiles.
func benchSearch(b *testing.B, ix *Index, queries []Query) {
	b.Helper()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, _, err := ix.Search(context.Background(), queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSearch searches 3,000 generated documents with two- and three-word queries.
func BenchmarkSearch(b *testing.B) {
	docs := randomDocs(3000, 2)
	ix := newTestIndex(b, IndexOptions{})
	for i := 0; i < len(docs); i += 500 {
		if err := ix.PutBatch(docs[i:min(i+500, len(docs))]); err != nil {
			b.Fatal(err)
		}
	}
	var queries []Query
	for i := range 100 {
		queries = append(queries, Query{Text: fmt.Sprintf("alpha%d gamma%d delta%d", i*5, i*7+2, i*3+3)})
	}
	benchSearch(b, ix, queries)
}

// tldrParaphrased are ten questions on the tldr pages with the paraphrases a calling model wrote
// for them (dev/eval/queries/tldr.paraphrases.json, t01 to t10).
var tldrParaphrased = []Query{
	{Text: "extract a compressed archive", Paraphrases: []string{"tar extract", "unzip archive", "decompress", "7z extract", "unpack archive"}},
	{Text: "see which process is using a port", Paraphrases: []string{"lsof port", "ss listening ports", "netstat process", "fuser port"}},
	{Text: "show disk usage of a folder sorted by size", Paraphrases: []string{"du disk usage", "du sort -h", "ncdu", "directory size"}},
	{Text: "how much free space is left on my drives", Paraphrases: []string{"df free disk space", "filesystem disk space usage", "df -h", "available space"}},
	{Text: "search for files changed in the last week", Paraphrases: []string{"find -mtime", "find modified files", "files modified days ago", "find by modification time"}},
	{Text: "force quit a program that froze", Paraphrases: []string{"kill process", "killall", "pkill", "kill -9 SIGKILL", "xkill"}},
	{Text: "download a file from a url in the terminal", Paraphrases: []string{"wget", "curl download", "download file URL", "aria2c"}},
	{Text: "copy files to another computer over ssh", Paraphrases: []string{"scp", "rsync remote", "copy files remote host", "sftp"}},
	{Text: "undo my last git commit", Paraphrases: []string{"git reset HEAD~1", "git revert", "undo commit", "git commit --amend"}},
	{Text: "find text inside all files in a folder recursively", Paraphrases: []string{"grep recursive", "grep -r pattern directory", "rg ripgrep", "search pattern files"}},
}

// BenchmarkTLDR indexes the tldr pages in batches of 500 (reporting docs/s) and then searches
// them (reporting the latency's percentiles): the user's words alone, and with the paraphrases
// a calling model wrote for them (dev/eval/queries/tldr.paraphrases.json, t01 to t10).
func BenchmarkTLDR(b *testing.B) {
	_, docs := evalCorpus(b, corpora.TLDR, 100000)
	b.Run("PutBatch", func(b *testing.B) {
		for b.Loop() {
			ix := newTestIndex(b, IndexOptions{})
			for i := 0; i < len(docs); i += 500 {
				if err := ix.PutBatch(docs[i:min(i+500, len(docs))]); err != nil {
					b.Fatal(err)
				}
			}
			ix.Close()
		}
		b.ReportMetric(float64(len(docs)*b.N)/b.Elapsed().Seconds(), "docs/s")
	})
	ix := newTestIndex(b, IndexOptions{})
	if err := ix.PutBatch(docs); err != nil {
		b.Fatal(err)
	}
	words := []Query{
		{Text: "extract a tar archive"}, {Text: "list open network ports"}, {Text: "find files by name"},
		{Text: "convert video to gif"}, {Text: "show disk usage of a folder"}, {Text: "change file permissions"},
		{Text: "compress images"}, {Text: "git undo last commit"}, {Text: "kill a process by name"}, {Text: "download a file"},
	}
	b.Run("Search", func(b *testing.B) { benchSearch(b, ix, words) })
	b.Run("SearchParaphrases", func(b *testing.B) {
		benchSearch(b, ix, tldrParaphrased)
	})
}

// TestSearchFeedback checks that pseudo-relevance feedback re-ranks by the vocabulary of the top
// hits: a unit sharing it beats an equal match on the query alone, and no document is added;
// and that it leaves the paraphrases' lists alone.
func TestSearchFeedback(t *testing.T) {
	var docs []markdown.Doc
	for i := range 12 {
		docs = append(docs, markdown.Doc{Path: fmt.Sprintf("other/%02d.md", i), Title: fmt.Sprintf("Other %d", i),
			Sections: []markdown.Section{{Line: 1, Text: "Unrelated words about gardening and weather."}}})
	}
	docs = append(docs,
		markdown.Doc{Path: "a/top.md", Title: "Sourdough starter", Sections: []markdown.Section{{Line: 1, Text: "Sourdough starter needs flour, levain and hydration."}}},
		markdown.Doc{Path: "b/plain.md", Title: "Plain", Sections: []markdown.Section{{Line: 1, Text: "A sourdough note."}}},
		markdown.Doc{Path: "c/related.md", Title: "Related", Sections: []markdown.Section{{Line: 1, Text: "A sourdough levain at high hydration."}}},
	)
	ix := newTestIndex(t, IndexOptions{})
	if err := ix.PutBatch(docs); err != nil {
		t.Fatal(err)
	}
	hits, total, err := ix.Search(context.Background(), Query{Text: "sourdough"})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(hits)
	want := []string{"a/top.md", "c/related.md", "b/plain.md"}
	if diff := cmp.Diff(want, got); diff != "" || total != 3 {
		t.Errorf("hits (-want +got):\n%s total = %d, want 3", diff, total)
	}
	// A paraphrase is not expanded: b and c match it equally and keep the order of their ids.
	hits, _, err = ix.Search(context.Background(), Query{Text: "wombat", Paraphrases: []string{"sourdough"}})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"a/top.md", "b/plain.md", "c/related.md"}
	if diff := cmp.Diff(want, paths(hits)); diff != "" {
		t.Errorf("paraphrase hits (-want +got):\n%s", diff)
	}
}

// TestFeedbackOn checks which documents feedback draws on in a search of several indexes: only
// this index's among the best of all (Query.Lead), scored relative to the best of all, carrying
// their share of the expansion; and, alone, its own best.
func TestFeedbackOn(t *testing.T) {
	list := []ranked{{path: "a", score: 1, cmp: 5}, {path: "b", score: 0.6, cmp: 3}, {path: "c", score: 0.2, cmp: 1}, {path: "d", score: 0.1, cmp: 0.5}}
	tests := []struct {
		name   string
		lead   []float64
		paths  []string
		scores []float64
		mass   float64
	}{
		{"alone", nil, []string{"a", "b", "c"}, []float64{1, 0.6, 0.2}, 1},
		{"the best of all", []float64{3, 5, 1, 0.5, 0.2}, []string{"a", "b", "c"}, []float64{1, 0.6, 0.2}, 1},
		{"one among the best", []float64{5, 10, 3, 4}, []string{"a"}, []float64{0.5}, 5.0 / 19},
		{"none among the best", []float64{9, 8, 7, 5}, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, mass := feedbackOn(list, tt.lead)
			var paths []string
			var scores []float64
			for _, d := range docs {
				paths, scores = append(paths, d.path), append(scores, d.score)
			}
			if !slices.Equal(paths, tt.paths) || !slices.Equal(scores, tt.scores) || math.Abs(mass-tt.mass) > 1e-12 {
				t.Errorf("feedbackOn = %v %v, mass %g; want %v %v, mass %g", paths, scores, mass, tt.paths, tt.scores, tt.mass)
			}
		})
	}
}
