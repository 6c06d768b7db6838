package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
)

// TestRelationshipsVia checks that each related document of relationships and of
// followRelationships says how it is related: the kind of link, the frontmatter field, or a
// backlink. relationships leaves out from, which would repeat target.path on every entry.
func TestRelationshipsVia(t *testing.T) {
	e := newOptionEnv(t, optionTable{engine: true, tree: []string{
		"a.md=# Aardvark\n[md](b.md) [[c]] ![[d]] [ref][r] [again](c.md)\n\n[r]: e.md\n",
		"b.md=# B\n", "c.md=# C\n", "d.md=# D\n", "e.md=# E\n",
		"fm.md=---\nrelated: [\"[[b]]\"]\n---\n# FM\n[[c]]\n",
		"back.md=# Back\nsee [[a]]\n",
	}})
	tests := []struct {
		path string
		want []result.RelatedEntry
	}{
		{"a.md", []result.RelatedEntry{
			{Path: "b.md", Via: "markdown"}, {Path: "c.md", Via: "wiki"},
			{Path: "d.md", Via: "embed"}, {Path: "e.md", Via: "reference"},
		}},
		{"fm.md", []result.RelatedEntry{{Path: "b.md", Via: "frontmatter:related"}}}, // from is the target: left out
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			out := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": tt.path}})
			var got []result.RelatedEntry
			field(t, out, "related", &got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("related (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("followRelationships", func(t *testing.T) {
		out := e.call(t, SearcherName, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "aardvark"},
			"options": map[string]any{"followRelationships": true, "maxResults": 1}})
		var got []result.RelatedEntry
		field(t, out, "related", &got)
		via := map[string]string{}
		for _, r := range got {
			via[r.Path] = r.Via
		}
		want := map[string]string{"b.md": "markdown", "c.md": "wiki", "d.md": "embed", "e.md": "reference", "back.md": "backlink"}
		if diff := cmp.Diff(want, via); diff != "" {
			t.Errorf("via (-want +got):\n%s\n%s", diff, out.json())
		}
	})
}

// field decodes one field of a result into v.
func field(t *testing.T, r optionResult, name string, v any) {
	t.Helper()
	b, _ := json.Marshal(r.Result[name])
	mustOK(t, json.Unmarshal(b, v))
}

// TestBacklinkSources checks that each backlink carries the line it is on, as written, so a caller
// can edit the link without reading the linking file: a long line cut around the link, and a file
// that changed since it was indexed read as it is now.
func TestBacklinkSources(t *testing.T) {
	long := strings.Repeat("word ", 40) + "then [[t]] and " + strings.Repeat("more ", 40)
	e := newOptionEnv(t, optionTable{engine: true, tree: []string{
		"t.md=# T\n",
		"a.md=# A\n  see [[t|the target]] here  \n\n- [t again](t.md)\n",
		"long.md=" + long + "\n",
		"fm.md=---\nparent: \"[[t]]\"\n---\nbody\n",
	}})
	out := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": "t.md"}})
	var got []result.BacklinkEntry
	field(t, out, "backlinks", &got)
	sources := map[string]string{}
	for _, b := range got {
		sources[fmt.Sprintf("%s:%d", b.Path, b.Line)] = b.Source
	}
	i := strings.Index(long, "[[t]]") + 2
	const sourceBefore, maxSourceBytes = 60, 160 // how tools/search cuts a long line around its link
	want := map[string]string{
		"a.md:2":    "see [[t|the target]] here",
		"a.md:4":    "- [t again](t.md)",
		"fm.md:2":   `parent: "[[t]]"`,
		"long.md:1": "…" + strings.TrimSpace(long[i-sourceBefore:i-sourceBefore+maxSourceBytes]) + "…",
	}
	if diff := cmp.Diff(want, sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestSourcesCapped checks that only the first search.MaxSources backlinks of a hub carry their line, so
// a note that hundreds link to does not cost a read of each of them.
func TestSourcesCapped(t *testing.T) {
	tree := []string{"hub.md=# Hub\n", "many.md=" + strings.Repeat("see [[hub]]\n", search.MaxSources+1)}
	e := newOptionEnv(t, optionTable{engine: true, tree: tree})
	out := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": "hub.md"}})
	var got []result.BacklinkEntry
	field(t, out, "backlinks", &got)
	if len(got) != search.MaxSources+1 {
		t.Fatalf("%d backlinks, want %d", len(got), search.MaxSources+1)
	}
	for i, b := range got {
		if want := i < search.MaxSources; (b.Source != "") != want {
			t.Errorf("backlink %d (line %d): source %q, want one: %v", i, b.Line, b.Source, want)
		}
	}
}

// TestSeveralDocuments checks relationships over several documents: target.paths answers one
// entry per path, in order, each with its own success or error, and a folder as target.path
// answers for the documents below it, a page at a time.
func TestSeveralDocuments(t *testing.T) {
	tree := []string{
		"a.md=# A\n## Part\nsee [[b]] and [gone](missing.md)\n",
		"b.md=# B\nback to [A](a.md)\n",
		"pic.png=\x89PNG\r\n\x1a\n\x00\x00",
		".env=SECRET=1\n",
	}
	for i := range search.MaxDocuments + 5 {
		tree = append(tree, fmt.Sprintf("many/n%02d.md=# N%d\n[[a]]\n", i, i))
	}
	e := newOptionEnv(t, optionTable{engine: true, tree: tree})
	rel := func(target map[string]any, options map[string]any) optionResult {
		args := map[string]any{"purpose": "relationships", "target": target}
		if options != nil {
			args["options"] = options
		}
		return e.call(t, SearcherName, args)
	}

	t.Run("paths", func(t *testing.T) {
		out := rel(map[string]any{"paths": []string{"b.md", "missing.md", "many", "../outside.md", ".env", "pic.png", "a.md"}}, nil)
		var docs []map[string]any
		field(t, out, "documents", &docs)
		type entry struct {
			Path, Code string
			OK         bool
		}
		var got []entry
		for _, d := range docs {
			code, _ := d["code"].(string)
			got = append(got, entry{d["path"].(string), code, d["success"] == true})
		}
		want := []entry{
			{"b.md", "", true},
			{"missing.md", errs.CodeNotFound, false},
			{"many", errs.CodeIsDir, false},
			{"target.paths[3]", errs.CodeOutsideRoot, false},
			{".env", errs.CodeBlocked, false},
			{"pic.png", errs.CodeNotFound, false},
			{"a.md", "", true},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("documents (-want +got):\n%s\n%s", diff, out.json())
		}
		if out.Result["totalFound"] != float64(len(want)) {
			t.Errorf("totalFound = %v, want %d", out.Result["totalFound"], len(want))
		}
		if docs[2]["field"] != "target.paths[2]" {
			t.Errorf("the folder's error names field %v, want target.paths[2]", docs[2]["field"])
		}
		a := docs[6]
		for _, key := range []string{"outline", "related"} {
			if _, ok := a[key]; ok {
				t.Errorf("a document of several carries %s: %v", key, a)
			}
		}
		var links []result.LinkEntry
		b, _ := json.Marshal(a["links"])
		mustOK(t, json.Unmarshal(b, &links))
		if len(links) != 2 || links[0].To != "b.md" || links[1].Status != "broken" {
			t.Errorf("a.md's links = %+v, want b.md and a broken one", links)
		}
		if a["title"] != "A" || a["broken"] == nil || a["backlinks"] == nil {
			t.Errorf("a.md = %v, want its title, broken links and backlinks", a)
		}
	})

	t.Run("folder pages", func(t *testing.T) {
		var seen []string
		for offset := 0; ; {
			out := rel(map[string]any{"path": "many"}, map[string]any{"offset": offset})
			if out.Result["totalFound"] != float64(search.MaxDocuments+5) {
				t.Fatalf("totalFound = %v, want %d", out.Result["totalFound"], search.MaxDocuments+5)
			}
			var docs []result.DocumentEntry
			field(t, out, "documents", &docs)
			for _, d := range docs {
				if !d.Success || len(d.Links) != 1 || d.Links[0].To != "a.md" {
					t.Errorf("%s: %+v, want its link to a.md", d.Path, d)
				}
				seen = append(seen, d.Path)
			}
			next, ok := out.Result["nextOffset"].(float64)
			if !ok {
				break
			}
			if out.Result["truncated"] != true || len(docs) != search.MaxDocuments {
				t.Fatalf("a page with nextOffset: truncated %v, %d documents", out.Result["truncated"], len(docs))
			}
			offset = int(next)
		}
		if len(seen) != search.MaxDocuments+5 || seen[0] != "many/n00.md" || seen[len(seen)-1] != fmt.Sprintf("many/n%02d.md", search.MaxDocuments+4) {
			t.Errorf("pages gave %d documents, %v", len(seen), seen)
		}
	})

	t.Run("offset on a document", func(t *testing.T) {
		wantRefused(t, rel(map[string]any{"path": "a.md"}, map[string]any{"offset": 1}), "options.offset")
	})
	t.Run("path and paths", func(t *testing.T) {
		wantRefused(t, rel(map[string]any{"path": "a.md", "paths": []string{"b.md"}}, nil), "target.paths")
	})
	t.Run("no path", func(t *testing.T) {
		wantRefused(t, rel(map[string]any{}, nil), "target.path")
	})
}

// TestSeveralSourcesShared checks that the backlinks of several documents share one budget of
// search.MaxSources source lines, as one document's do.
func TestSeveralSourcesShared(t *testing.T) {
	n := search.MaxSources/2 + 5
	tree := []string{"x.md=# X\n", "y.md=# Y\n",
		"lx.md=" + strings.Repeat("see [[x]]\n", n), "ly.md=" + strings.Repeat("see [[y]]\n", n)}
	e := newOptionEnv(t, optionTable{engine: true, tree: tree})
	out := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"paths": []string{"x.md", "y.md"}}})
	var docs []result.DocumentEntry
	field(t, out, "documents", &docs)
	with := 0
	for _, d := range docs {
		for i, b := range d.Backlinks {
			if b.Source != "" {
				with++
			} else if d.Path == "x.md" {
				t.Errorf("x.md's backlink %d has no source, though x.md comes first", i)
			}
		}
	}
	if with != search.MaxSources {
		t.Errorf("%d backlinks carry a source, want %d", with, search.MaxSources)
	}
}

// TestSeveralDocumentsBudget checks that a page of documents ends once the answer passes
// search.MaxDocumentsBytes, with nextOffset at the first document it left out, for target.paths and for
// a folder alike.
func TestSeveralDocumentsBudget(t *testing.T) {
	tree := []string{}
	for _, name := range []string{"x", "y", "z"} {
		tree = append(tree, "hubs/"+name+".md=# "+name+"\n")
		for k := range 4 { // a document's links are capped at 512
			tree = append(tree, fmt.Sprintf("l%s%d.md=", name, k)+strings.Repeat("see [["+name+"]]\n", 200))
		}
	}
	e := newOptionEnv(t, optionTable{engine: true, tree: tree})
	for _, target := range []map[string]any{
		{"paths": []string{"hubs/x.md", "hubs/y.md", "hubs/z.md"}},
		{"path": "hubs"},
	} {
		var seen []string
		for offset, pages := 0, 0; ; pages++ {
			out := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": target, "options": map[string]any{"offset": offset}})
			if size := len(out.json()); size > 2*search.MaxDocumentsBytes {
				t.Errorf("%v: a page of %d bytes", target, size)
			}
			var docs []result.DocumentEntry
			field(t, out, "documents", &docs)
			for _, d := range docs {
				if len(d.Backlinks) != 800 {
					t.Errorf("%s: %d backlinks, want 800", d.Path, len(d.Backlinks))
				}
				seen = append(seen, d.Path)
			}
			next, ok := out.Result["nextOffset"].(float64)
			if !ok {
				if pages == 0 {
					t.Errorf("%v: one page of %d bytes, want the budget to end it early", target, len(out.json()))
				}
				break
			}
			offset = int(next)
		}
		if diff := cmp.Diff([]string{"hubs/x.md", "hubs/y.md", "hubs/z.md"}, seen); diff != "" {
			t.Errorf("%v: pages gave (-want +got):\n%s", target, diff)
		}
	}
}
