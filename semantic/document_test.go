package semantic

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/markdown"
)

func TestSplitAtMarks(t *testing.T) {
	text := "[page 1]\n\nintro\n\n# Terms\n\nrent\n\n[page 2]\n\nmore rent\n"
	marks := []extract.Mark{{Line: 1, Place: "page 1", N: 1}, {Line: 9, Place: "page 2", N: 2}}
	in := []markdown.Section{
		{Line: 1, EndLine: 4, Text: "[page 1]\n\nintro\n\n"},
		{Heading: "Terms", Level: 1, Line: 5, EndLine: 11, Text: "# Terms\n\nrent\n\n[page 2]\n\nmore rent\n"},
	}
	want := []markdown.Section{
		{Line: 1, EndLine: 4, Text: "[page 1]\n\nintro\n\n"},
		{Heading: "Terms", Level: 1, Line: 5, EndLine: 8, Text: "# Terms\n\nrent\n\n"},
		{Heading: "page 2", Line: 9, EndLine: 11, Text: "[page 2]\n\nmore rent\n"},
	}
	if diff := cmp.Diff(want, splitAtMarks(in, text, marks)); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if got := splitAtMarks(in, text, nil); len(got) != 2 {
		t.Errorf("without marks: %d sections, want them as they were", len(got))
	}
}
