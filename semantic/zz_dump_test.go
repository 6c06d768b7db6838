package semantic

import (
	"fmt"
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	b, _ := os.ReadFile("/tmp/corpora/tldr/pages/common/tar.md")
	d := Parse("common/tar.md", b, testTime)
	fmt.Printf("%q\n%d sections\n", d.Title, len(d.Sections))
	for _, s := range d.Sections {
		fmt.Printf("H=%q L=%d\n%q\n", s.Heading, s.Level, s.Text)
	}
	ix := newTestIndex(t, IndexOptions{})
	fmt.Println(ix.terms(textAnalyzer, "E[x]tract a (compressed) archive [f]ile how do I see which process is using the port"))
}
