package fulltext

import (
	"testing"

	"github.com/packfs/packfs-mcp/markdown"
)

// TestStatsFollowBatches checks that the cached document frequencies change with every put and
// delete, and equal what the index itself counts.
func TestStatsFollowBatches(t *testing.T) {
	ix, err := OpenIndex(IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	df := func() (uint64, uint64) {
		t.Helper()
		gen := ix.dfs.generation()
		r, err := ix.reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		st, err := ix.stats(r, gen, nil, []string{"zebra"}, fieldText)
		if err != nil {
			t.Fatal(err)
		}
		// A second read is served from the cache and must agree.
		again, err := ix.stats(r, gen, nil, []string{"zebra"}, fieldText)
		if err != nil {
			t.Fatal(err)
		}
		if again.df[fieldText]["zebra"] != st.df[fieldText]["zebra"] || again.total != st.total {
			t.Fatalf("cached stats %+v differ from read ones %+v", again, st)
		}
		return st.df[fieldText]["zebra"], st.total
	}
	if err := ix.Put(textDoc("a.md", "A", "a zebra")); err != nil {
		t.Fatal(err)
	}
	if n, _ := df(); n != 1 {
		t.Fatalf("df = %d, want 1", n)
	}
	if err := ix.PutBatch([]markdown.Doc{textDoc("b.md", "B", "zebra crossing"), textDoc("c.md", "C", "horse")}); err != nil {
		t.Fatal(err)
	}
	n, total := df()
	if n != 2 {
		t.Fatalf("df = %d, want 2", n)
	}
	if err := ix.Delete("a.md"); err != nil {
		t.Fatal(err)
	}
	if n2, total2 := df(); n2 != 1 || total2 >= total {
		t.Fatalf("after delete df = %d (want 1), total %d (was %d)", n2, total2, total)
	}
}
