package tools

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
)

// TestPurposeTable holds the table of purposes to the intents' purpose lists (the oneof of each
// intent's validate tag, which the schemas publish), and checks the rules the table encodes.
func TestPurposeTable(t *testing.T) {
	intentOf := map[string]reflect.Type{
		ReaderName:   reflect.TypeFor[intents.Access](),
		SearcherName: reflect.TypeFor[intents.Discover](),
		WriterName:   reflect.TypeFor[intents.Update](),
	}
	for tool, typ := range intentOf {
		f, ok := typ.FieldByName("Purpose")
		if !ok {
			t.Fatalf("%s has no Purpose field", typ)
		}
		_, list, ok := strings.Cut(f.Tag.Get("validate"), "oneof=")
		if !ok {
			t.Fatalf("%s.Purpose has no oneof rule", typ)
		}
		var table []string
		for _, p := range Purposes() {
			if p.Tool == tool {
				table = append(table, p.Name)
			}
		}
		if want := strings.Fields(list); !slices.Equal(table, want) {
			t.Errorf("%s: the table has purposes %v, the intent takes %v", tool, table, want)
		}
	}
	for _, p := range Purposes() {
		// Each row answers its purpose: the handler of its tool, and no other.
		handlers := map[string]bool{ReaderName: p.access != nil, SearcherName: p.discover != nil, WriterName: p.write != nil}
		for tool, has := range handlers {
			if has != (tool == p.Tool) {
				t.Errorf("%s (%s): handler for %s set %v", p.Name, p.Tool, tool, has)
			}
		}
		if p.Permission == security.PermWrite && p.Tool != WriterName || p.Tool == WriterName && p.Permission != security.PermWrite {
			t.Errorf("%s: only the writer's purposes need write (%s, %s)", p.Name, p.Tool, p.Permission)
		}
		if p.Cost < security.CostLight || p.Cost > security.CostHeavy || p.cost(true) < p.Cost {
			t.Errorf("%s: cost %d (recursive %d) out of order", p.Name, p.Cost, p.cost(true))
		}
	}
	// G39: heavy operations cost more than a stat.
	search, _ := PurposeOf(SearcherName, "search_content")
	stat, _ := PurposeOf(ReaderName, "metadata")
	list, _ := PurposeOf(SearcherName, "list")
	if search.Cost <= stat.Cost || list.cost(true) != security.CostHeavy {
		t.Errorf("costs: search %d, metadata %d, recursive list %d", search.Cost, stat.Cost, list.cost(true))
	}
	if _, ok := PurposeOf(ReaderName, "delete"); ok {
		t.Error("the reader takes delete")
	}
}
