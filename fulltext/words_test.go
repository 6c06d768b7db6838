package fulltext

import (
	"context"
	"slices"
	"testing"

	"github.com/packfs/packfs-mcp/markdown"
)

// TestRunTokenizer checks the terms of the words and lines fields: maximal runs, an invalid byte
// or U+FFFD a separator of words (where bleve's tokenizer stopped) and part of a line, offsets
// and positions as bleve gives them.
func TestRunTokenizer(t *testing.T) {
	lines := runTokenizer(func(r rune) bool { return r != '\n' })
	tests := []struct {
		name  string
		tok   runTokenizer
		input string
		want  []string
	}{
		{"empty", runTokenizer(isWordRune), "", nil},
		{"no word", runTokenizer(isWordRune), " ,;\n", nil},
		{"words", runTokenizer(isWordRune), "spin_lock(x, 0x1f);", []string{"spin", "lock", "x", "0x1f"}},
		{"letters and marks", runTokenizer(isWordRune), "Cafe\u0301 über", []string{"Cafe\u0301", "über"}},
		{"after U+FFFD", runTokenizer(isWordRune), "alpha \uFFFD beta gamma\uFFFDdelta", []string{"alpha", "beta", "gamma", "delta"}},
		{"after an invalid byte", runTokenizer(isWordRune), "alpha\xffbeta", []string{"alpha", "beta"}},
		{"lines", lines, "a b\n\nc", []string{"a b", "c"}},
		{"a line with an invalid byte", lines, "x\xffy\nz\uFFFD", []string{"x\xffy", "z\uFFFD"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for i, tok := range tt.tok.Tokenize([]byte(tt.input)) {
				got = append(got, string(tok.Term))
				if tt.input[tok.Start:tok.End] != string(tok.Term) || tok.Position != i+1 {
					t.Errorf("token %q at %d..%d, position %d: want its bytes at its offsets, position %d", tok.Term, tok.Start, tok.End, tok.Position, i+1)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tt.input, got, tt.want)
			}
		})
	}
}

// TestCandidatesAfterReplacementChar checks that a word after text that did not decode (U+FFFD,
// as PDFs' and web pages' text holds) makes its document a candidate.
func TestCandidatesAfterReplacementChar(t *testing.T) {
	ix := newTestIndex(t, IndexOptions{})
	if err := ix.PutBatch([]markdown.Doc{textDoc("report.md", "Report", "totals \uFFFD quarterly revenue")}); err != nil {
		t.Fatal(err)
	}
	for _, literal := range []string{"totals", "quarterly", "revenue"} {
		got, ok, err := ix.Candidates(context.Background(), literal, ".", 0)
		if err != nil || !ok || !slices.Equal(got, []string{"report.md"}) {
			t.Errorf("Candidates(%q) = %q, %v, %v; want report.md", literal, got, ok, err)
		}
	}
}
