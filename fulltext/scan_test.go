package fulltext

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/markdown"
)

// TestScanNames checks that the rough scorer of files not yet indexed lifts a page the query
// names as the index does: "tar" puts tar.md above a page that holds every word of the query in
// its text and "tar" in its title, and a page named by a common word is not lifted for words it
// does not hold.
func TestScanNames(t *testing.T) {
	tests := []struct {
		q, path string
		first   bool
	}{
		{"how do I extract a tar archive", "common/tar.md", true},
		{"install software on ubuntu", "common/install.md", false},
	}
	docs := namesDocs()
	slices.Reverse(docs) // so that a tie would put git-get-tar-commit-id.md first
	for _, tt := range tests {
		sq := NewScanQuery(Query{Text: tt.q})
		var hits []Hit
		for _, d := range docs {
			if h, ok := sq.Match(d); ok {
				hits = append(hits, h)
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
		got := paths(hits)
		if first := len(got) > 0 && got[0] == tt.path; first != tt.first {
			t.Errorf("%q: scanned hits %v; %s first = %t, want %t", tt.q, got, tt.path, first, tt.first)
		}
	}
}

// TestScanMnemonics checks that the scan reads a tldr mnemonic ("E[x]tract") as the index does,
// as the whole word, and shows it whole in the snippet with the match marked.
func TestScanMnemonics(t *testing.T) {
	d := markdown.Parse("tar.md", []byte("# tar\n\n- E[x]tract an archive:\n"), testTime)
	h, ok := NewScanQuery(Query{Text: "extract"}).Match(d)
	if !ok || !strings.Contains(h.Snippet, "- **Extract** an archive:") {
		t.Errorf("scan of E[x]tract for extract: ok %t, snippet %q; want a match showing \"- **Extract** an archive:\"", ok, h.Snippet)
	}
}
