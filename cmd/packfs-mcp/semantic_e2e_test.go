package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/internal/tier"
)

// workspace copies the bundled sample workspace into a fresh root beside an outside folder.
func workspace(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{dir: dir, root: filepath.Join(dir, "root"), outside: filepath.Join(dir, "outside"), pwned: filepath.Join(dir, "pwned.md")}
	must(t, os.MkdirAll(f.outside, 0o755))
	must(t, os.WriteFile(filepath.Join(f.outside, "secret.md"), []byte("# Secret\nsandbox "+marker+"\n"), 0o644))
	src := filepath.Join("..", "..", "examples", "workspace")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(f.root, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(f.root, rel), b, 0o644)
	})
	must(t, err)
	// A link out of the root that the index must never follow, and a FIFO it must never open.
	must(t, os.Symlink(filepath.Join("..", "outside"), filepath.Join(f.root, "escape")))
	testfs.Mkfifo(t, filepath.Join(f.root, "notes", "pipe.md"))
	return f
}

func semanticQuery(q string, extra map[string]any) map[string]any {
	m := map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": q}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// waitIndexed polls until the server says its index is complete.
func waitIndexed(t *testing.T, s *session) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		res, _ := s.call(searcher, semanticQuery("index", nil))
		if res["indexComplete"] == true {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the index did not complete")
}

func TestSemanticEndToEnd(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := workspace(t)
			before := f.snapshot(t)
			s := start(t, f, era.opts, "--allow-write")
			waitIndexed(t, s)
			runCases(t, s, semanticCases(f))
			s.checkNoLeak()
			if d := snapshotDiff(before, f.snapshot(t)); d != "" {
				t.Errorf("outside the root changed: %s", d)
			}
		})
	}
}

func first(t *testing.T, r map[string]any) map[string]any {
	t.Helper()
	files, _ := r["files"].([]any)
	if len(files) == 0 {
		t.Fatalf("no hits: %v", r)
	}
	return files[0].(map[string]any)
}

// scoresFall fails unless the hits of search_semantic answer r score less and less, best first,
// down to the floor of 0.01, and r gives no totalFound: a count of every document holding one
// word of the query tells a model nothing.
func scoresFall(t *testing.T, r map[string]any) {
	t.Helper()
	files, _ := r["files"].([]any)
	prev := 2.0
	for _, f := range files {
		sc, _ := f.(map[string]any)["score"].(float64)
		if sc >= prev && sc != 0.01 || sc <= 0 {
			t.Errorf("scores do not fall with rank: %v", files)
			break
		}
		prev = sc
	}
	if r["totalFound"] != nil {
		t.Errorf("totalFound = %v, want none", r["totalFound"])
	}
}

func semanticCases(f *fixture) []toolCase {
	return []toolCase{
		{name: "ranked hit with section and snippet", tool: searcher, args: semanticQuery("what were the goals of the sandbox", nil), check: func(t *testing.T, r map[string]any) {
			h := first(t, r)
			if h["path"] != "projects/packfs/design.md" || h["title"] != "Sandbox design" || h["score"] != 1.0 {
				t.Errorf("top hit = %v", h)
			}
			if snip, _ := h["snippet"].(string); !strings.Contains(snip, "**") {
				t.Errorf("snippet without highlight: %q", snip)
			}
			if h["line"] == nil || h["heading"] == nil {
				t.Errorf("no section: %v", h)
			}
			if r["indexComplete"] != true {
				t.Errorf("indexComplete = %v", r["indexComplete"])
			}
			scoresFall(t, r)
		}},
		{name: "paraphrases fused: scores order the hits, no count of candidates", tool: searcher,
			args: semanticQuery("sandbox", map[string]any{"queries": []string{"design goals", "index search benchmark", "vocabulary glossary"}}), check: func(t *testing.T, r map[string]any) {
				if len(paths(r)) < 3 {
					t.Fatalf("hits = %v, want several", paths(r))
				}
				scoresFall(t, r)
			}},
		{name: "alias finds the glossary", tool: searcher, args: semanticQuery("vocabulary", nil), check: func(t *testing.T, r map[string]any) {
			if h := first(t, r); h["path"] != "notes/glossary.md" {
				t.Errorf("top hit = %v", h)
			}
		}},
		{name: "path prefix", tool: searcher, args: map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": "notes", "query": "sandbox design"}}, check: func(t *testing.T, r map[string]any) {
			for _, p := range paths(r) {
				if !strings.HasPrefix(p, "notes/") {
					t.Errorf("hit outside notes/: %s", p)
				}
			}
		}},
		{name: "extension criteria", tool: searcher, args: map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "index search benchmark", "criteria": map[string]any{"extension": []string{"txt"}}}},
			check: func(t *testing.T, r map[string]any) {
				if p := paths(r); len(p) != 1 || p[0] != "projects/packfs/todo.txt" {
					t.Errorf("hits = %v", p)
				}
			}},
		{name: "paraphrases widen the search", tool: searcher, args: semanticQuery("zzqx nothing matches this", map[string]any{"queries": []string{"books and authors"}}), check: func(t *testing.T, r map[string]any) {
			if h := first(t, r); h["path"] != "data/books.csv" {
				t.Errorf("top hit = %v", h)
			}
			if u, _ := r["unknownWords"].([]any); !slices.Contains(u, any("zzqx")) || slices.Contains(u, any("books")) {
				t.Errorf("unknownWords = %v, want zzqx and not books", r["unknownWords"])
			}
		}},
		{name: "follow relationships", tool: searcher, args: semanticQuery("weekly meeting attendees", map[string]any{"options": map[string]any{"followRelationships": true, "maxResults": 1}}),
			check: func(t *testing.T, r map[string]any) {
				rel, _ := r["related"].([]any)
				if len(rel) == 0 {
					t.Fatalf("no related documents: %v", r)
				}
				for _, x := range rel {
					m := x.(map[string]any)
					if m["via"] == "" || m["from"] != "notes/meeting-2026-11-02.md" {
						t.Errorf("related entry %v", m)
					}
				}
			}},
		{name: "query syntax is text", tool: searcher, args: semanticQuery(`path:/etc/* +sandbox -design ^5 /re.*/ "unclosed`, nil)},
		{name: "nothing from outside", tool: searcher, args: semanticQuery("secret sandbox", nil), check: func(t *testing.T, r map[string]any) {
			for _, p := range paths(r) {
				if strings.HasPrefix(p, "escape") {
					t.Errorf("the index followed a link out: %s", p)
				}
			}
		}},
		{name: "relationships of the glossary", tool: searcher, args: intent("relationships", "notes/glossary.md", nil), check: func(t *testing.T, r map[string]any) {
			var from []string
			for _, b := range r["backlinks"].([]any) {
				m := b.(map[string]any)
				from = append(from, m["path"].(string))
				// Each backlink shows its line as written, so the link can be edited without a read.
				src, _ := os.ReadFile(filepath.Join(f.root, m["path"].(string)))
				lines := strings.Split(string(src), "\n")
				if n := int(m["line"].(float64)); n > len(lines) || m["source"] != strings.TrimSpace(lines[n-1]) {
					t.Errorf("backlink %v: source is not line %d of the file", m, n)
				}
			}
			if !has(from, "notes/index.md") || !has(from, "notes/meeting-2026-11-02.md") {
				t.Errorf("backlinks = %v", from)
			}
			if a, _ := json.Marshal(r["aliases"]); string(a) != `["terms","vocabulary"]` {
				t.Errorf("aliases = %s", a)
			}
			rel, _ := r["related"].([]any)
			if len(rel) == 0 {
				t.Errorf("no related documents: %v", r)
			}
			for _, x := range rel {
				if m := x.(map[string]any); m["from"] != nil || m["via"] == "" {
					t.Errorf("related entry %v: want via, and no from (it is the target itself)", m)
				}
			}
			if r["title"] != "Glossary" || len(r["outline"].([]any)) != 1 {
				t.Errorf("title/outline = %v / %v", r["title"], r["outline"])
			}
		}},
		{name: "relationships of the design", tool: searcher, args: intent("relationships", "projects/packfs/design.md", nil), check: func(t *testing.T, r map[string]any) {
			if p, _ := json.Marshal(r["parent"]); string(p) != `["notes/index.md"]` {
				t.Errorf("parent = %s", p)
			}
			var to []string
			for _, l := range r["links"].([]any) {
				if m := l.(map[string]any); m["status"] == "internal" {
					to = append(to, m["to"].(string))
				}
			}
			if !has(to, "notes/meeting-2026-11-02.md") {
				t.Errorf("links = %v", to)
			}
		}},
		{name: "relationships of a blocked file", tool: searcher, args: intent("relationships", ".env", nil), code: "PATH_BLOCKED"},
		{name: "relationships of several documents", tool: searcher, args: map[string]any{"purpose": "relationships",
			"target": map[string]any{"paths": []string{"notes/glossary.md", ".env", "escape/secret.md", "/etc/passwd"}}}, check: func(t *testing.T, r map[string]any) {
			got := map[string]any{}
			for _, d := range r["documents"].([]any) {
				m := d.(map[string]any)
				got[m["path"].(string)] = m["code"]
				if m["path"] == "notes/glossary.md" && (m["success"] != true || len(m["backlinks"].([]any)) == 0) {
					t.Errorf("the glossary: %v, want its backlinks", m)
				}
			}
			want := map[string]any{"notes/glossary.md": nil, ".env": "PATH_BLOCKED", "escape/secret.md": "PATH_OUTSIDE_ROOT", "target.paths[3]": "PATH_OUTSIDE_ROOT"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("documents' codes = %v, want %v", got, want)
			}
			if strings.Contains(fmt.Sprint(r), "/etc/passwd") {
				t.Errorf("the answer echoes a host path: %v", r)
			}
		}},
		{name: "relationships outside", tool: searcher, args: intent("relationships", "escape/secret.md", nil), code: "PATH_OUTSIDE_ROOT"},
		// Read your writes.
		{name: "create is searchable at once", tool: writer, args: intent("create", "notes/new.md", map[string]any{"content": "# Zanzibarian notes\nA word nobody else uses.\n"})},
		{name: "found after create", tool: searcher, args: semanticQuery("zanzibarian", nil), check: func(t *testing.T, r map[string]any) {
			if h := first(t, r); h["path"] != "notes/new.md" {
				t.Errorf("top hit = %v", h)
			}
		}},
		{name: "markup in the text", tool: writer, args: intent("create", "notes/bold.md", map[string]any{"content": "# Wombats\nFeed the **wallabies** first, then run `wallabies --count` and see [[wallabies|the herd]].\n"})},
		{name: "a snippet marks matches without breaking the markup", tool: searcher, args: semanticQuery("wallabies", nil), check: func(t *testing.T, r map[string]any) {
			h := first(t, r)
			snip, _ := h["snippet"].(string)
			if h["path"] != "notes/bold.md" || !strings.Contains(snip, "the **wallabies** first") ||
				!strings.Contains(snip, "`wallabies --count`") || !strings.Contains(snip, "[[wallabies|the herd]]") || strings.Contains(snip, "****") {
				t.Errorf("hit %v, want notes/bold.md with its markup as written", h)
			}
		}},
		{name: "update replaces the words", tool: writer, args: intent("update", "notes/new.md", map[string]any{"content": "# Quokka notes\n"})},
		{name: "old words gone after update", tool: searcher, args: semanticQuery("zanzibarian", nil), check: func(t *testing.T, r map[string]any) {
			if has(paths(r), "notes/new.md") {
				t.Errorf("stale hit after update: %v", paths(r))
			}
		}},
		{name: "delete reports who linked", tool: writer, args: intent("delete", "notes/reading-list.md", nil), check: func(t *testing.T, r map[string]any) {
			if l, _ := json.Marshal(r["linkedFrom"]); string(l) != `["notes/index.md"]` {
				t.Errorf("linkedFrom = %s", l)
			}
		}},
		{name: "gone after delete", tool: searcher, args: semanticQuery("Okapi BM25 ranking function", nil), check: func(t *testing.T, r map[string]any) {
			if has(paths(r), "notes/reading-list.md") {
				t.Errorf("deleted file still found: %v", paths(r))
			}
		}},
		// Moves that keep links working.
		{name: "a publish menu names the meeting", tool: writer, args: intent("create", "data/menu.json", map[string]any{"content": "{\n  \"nav\": [\n    \"notes/meeting-2026-11-02.md\"\n  ]\n}\n"})},
		{name: "move dry run shows the edits", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "notes/meeting-2026-11-02.md", "destination": "archive/2026/meeting.md"},
			"options": map[string]any{"preserveRelationships": true, "dryRun": true}}, check: func(t *testing.T, r map[string]any) {
			if u, _ := json.Marshal(r["updatedFiles"]); string(u) != `["notes/index.md","projects/packfs/design.md"]` {
				t.Errorf("updatedFiles = %s", u)
			}
			// Each link it would rewrite, the wiki link keeping the name it showed.
			want := `[{"after":"[[meeting|meeting-2026-11-02]]","before":"[[meeting-2026-11-02]]","line":9,"path":"notes/index.md"},` +
				`{"after":"[meeting notes](../../archive/2026/meeting.md)","before":"[meeting notes](../../notes/meeting-2026-11-02.md)","line":18,"path":"projects/packfs/design.md"}]`
			if got, _ := json.Marshal(r["rewrites"]); string(got) != want {
				t.Errorf("rewrites = %s\nwant %s", got, want)
			}
			if got, _ := json.Marshal(r["mentions"]); string(got) != `[{"line":3,"path":"data/menu.json","text":"\"notes/meeting-2026-11-02.md\""}]` {
				t.Errorf("mentions = %s", got)
			}
			// The links as they would resolve after the move: what the move itself then says.
			if lost, ok := r["linksLost"].([]any); r["linksChecked"] != 7.0 || !ok || len(lost) > 0 {
				t.Errorf("dry run: linksChecked = %v, linksLost = %v; want 7 and [], as the move says", r["linksChecked"], r["linksLost"])
			}
			if _, err := os.Stat(filepath.Join(f.root, "notes/meeting-2026-11-02.md")); err != nil || r["dryRun"] != true {
				t.Errorf("the dry run moved the file")
			}
			if index, _ := os.ReadFile(filepath.Join(f.root, "notes/index.md")); !strings.Contains(string(index), "[[meeting-2026-11-02]]") {
				t.Errorf("the dry run rewrote index.md:\n%s", index)
			}
		}},
		{name: "move keeps links", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "notes/meeting-2026-11-02.md", "destination": "archive/2026/meeting.md"},
			"options": map[string]any{"preserveRelationships": true, "createPath": true}}, check: func(t *testing.T, r map[string]any) {
			design, _ := os.ReadFile(filepath.Join(f.root, "projects/packfs/design.md"))
			if !strings.Contains(string(design), "[meeting notes](../../archive/2026/meeting.md)") {
				t.Errorf("design.md link not rewritten:\n%s", design)
			}
			index, _ := os.ReadFile(filepath.Join(f.root, "notes/index.md"))
			if !strings.Contains(string(index), "- [[meeting|meeting-2026-11-02]]: the weekly meeting") {
				t.Errorf("index.md wiki link not rewritten, or not showing what it showed:\n%s", index)
			}
			menu, _ := os.ReadFile(filepath.Join(f.root, "data/menu.json"))
			if !strings.Contains(string(menu), "notes/meeting-2026-11-02.md") {
				t.Errorf("the mention was changed:\n%s", menu)
			}
			// The move checked the links of the files involved, and lost none: index.md's 3, design.md's
			// 2 and the meeting note's own 2 (its frontmatter's related, and the glossary).
			if lost, ok := r["linksLost"].([]any); r["linksChecked"] != 7.0 || !ok || len(lost) > 0 {
				t.Errorf("linksChecked = %v, linksLost = %v; want 7 and [] (checked, none lost)", r["linksChecked"], r["linksLost"])
			}
		}},
		{name: "no broken links after the move", tool: searcher, args: intent("relationships", "projects/packfs/design.md", nil), check: func(t *testing.T, r map[string]any) {
			if b, _ := r["broken"].([]any); len(b) != 0 {
				t.Errorf("broken = %v", b)
			}
		}},
		{name: "move a folder keeps links in and out", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "projects", "destination": "work/projects"},
			"options": map[string]any{"preserveRelationships": true, "createPath": true}}, check: func(t *testing.T, r map[string]any) {
			index, _ := os.ReadFile(filepath.Join(f.root, "notes/index.md"))
			if !strings.Contains(string(index), "(../work/projects/packfs/design.md)") {
				t.Errorf("index.md link into the moved folder not rewritten:\n%s", index)
			}
			design, _ := os.ReadFile(filepath.Join(f.root, "work/projects/packfs/design.md"))
			if !strings.Contains(string(design), "(../../../archive/2026/meeting.md)") {
				t.Errorf("the moved document's own link not rewritten:\n%s", design)
			}
			if m, _ := json.Marshal(r["mentions"]); !strings.Contains(string(m), `"line":4,"path":"data/settings.json"`) {
				t.Errorf("mentions = %s, want settings.json's recent files", m)
			}
		}},
		{name: "relationships of the moved folder", tool: searcher, args: intent("relationships", "work/projects", nil), check: func(t *testing.T, r map[string]any) {
			docs, _ := r["documents"].([]any)
			if len(docs) == 0 || r["totalFound"] != float64(len(docs)) || r["truncated"] != nil {
				t.Fatalf("documents = %v, totalFound %v; want every document of the folder in one page", docs, r["totalFound"])
			}
			var design map[string]any
			for _, d := range docs {
				m := d.(map[string]any)
				if !strings.HasPrefix(m["path"].(string), "work/projects/") || m["success"] != true {
					t.Errorf("document %v: want a success under work/projects", m)
				}
				if m["path"] == "work/projects/packfs/design.md" {
					design = m
				}
			}
			if broken, ok := design["broken"].([]any); design == nil || !ok || len(broken) > 0 || design["backlinks"] == nil {
				t.Errorf("design.md = %v, want its backlinks and broken [] (checked, none)", design)
			}
		}},
		{name: "no broken links after the folder move", tool: searcher, args: intent("relationships", "work/projects/packfs/design.md", nil), check: func(t *testing.T, r map[string]any) {
			if b, _ := r["broken"].([]any); len(b) != 0 {
				t.Errorf("broken = %v", b)
			}
			if p, _ := json.Marshal(r["parent"]); string(p) != `["notes/index.md"]` {
				t.Errorf("parent = %s", p)
			}
		}},
	}
}

// TestIndexFollowsOtherPrograms checks that a file changed by another program is picked up by the
// periodic reconcile, and that a restart reuses the persisted index.
func TestIndexFollowsOtherPrograms(t *testing.T) {
	f := workspace(t)
	cfg := filepath.Join(f.dir, "config.json")
	must(t, os.WriteFile(cfg, []byte(`{"rootPath": "`+f.root+`", "semantic": {"reconcileMs": 100}}`), 0o644))
	s := start(t, f, nil, "--config", cfg)
	waitIndexed(t, s)
	must(t, os.WriteFile(filepath.Join(f.root, "notes/outside-edit.md"), []byte("# Wombat census\n"), 0o644))
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, _ := s.call(searcher, semanticQuery("wombat census", nil))
		if has(paths(res), "notes/outside-edit.md") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a file written by another program was never indexed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.c.Close()
	// Restart: the persisted index answers at once, before the rebuild ends.
	s2 := start(t, f, nil, "--config", cfg)
	res, _ := s2.call(searcher, semanticQuery("wombat census", nil))
	if !has(paths(res), "notes/outside-edit.md") {
		t.Errorf("the restarted server lost the persisted index: %v", res)
	}
}

// TestSearchContentSameWithIndex runs literal searches on two servers over one tree, one narrowing
// the files with the index and one scanning everything: the results must be the same, and so must
// filesSearched, which counts the files the search covered, not the candidates it read (the
// narrowing itself is TestProgressCandidates'). A word after U+FFFD is found with the index too.
func TestSearchContentSameWithIndex(t *testing.T) {
	f := workspace(t)
	big := strings.Repeat("filler line of a large log\n", 120_000) + "needle-in-a-large-file\n" // over 2 MiB: not indexed
	must(t, os.WriteFile(filepath.Join(f.root, "notes/big.txt"), []byte(big), 0o644))
	must(t, os.WriteFile(filepath.Join(f.root, "notes/fm.md"), []byte("---\nstatus: frontmatterword\n---\n# Body\nplain\n"), 0o644))
	// Text that did not decode, as PDFs' and web pages' text holds it: the words after it count.
	must(t, os.WriteFile(filepath.Join(f.root, "notes/garbled.md"), []byte("# Garbled\ntotals \uFFFD afterword grew\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(f.root, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.root, ".git/sandbox.md"), []byte("sandbox in a blocked folder\n"), 0o644))
	indexed := start(t, f, nil)
	waitIndexed(t, indexed)
	scanning := start(t, f, nil, "--no-index")
	for _, q := range []string{"sandbox", "Sandbox design", "os.Root", "every call", "andbo", "frontmatterword", "needle-in-a-large-file",
		"TODO", "title:", "2026", "hello, ", "zzz-no-such-text", "[[glossary", "afterword"} {
		args := map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": q}, "options": map[string]any{"contextLines": 1}}
		a, _ := indexed.call(searcher, args)
		b, _ := scanning.call(searcher, args)
		ja, _ := json.Marshal(a["files"])
		jb, _ := json.Marshal(b["files"])
		if string(ja) != string(jb) || a["totalFound"] != b["totalFound"] {
			t.Errorf("query %q: with the index\n%s\nwithout\n%s", q, ja, jb)
		}
		if na, nb := a["filesSearched"], b["filesSearched"]; na == nil || na != nb {
			t.Errorf("query %q: filesSearched %v with the index, %v without", q, na, nb)
		}
	}
	// Narrowed to markdown, each says how many files the criteria left out.
	args := map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "sandbox", "criteria": map[string]any{"extension": []string{"md"}}}}
	a, _ := indexed.call(searcher, args)
	b, _ := scanning.call(searcher, args)
	t.Logf("narrowed to md: with the index %v searched, %v excluded; without %v, %v", a["filesSearched"], a["filesExcluded"], b["filesSearched"], b["filesExcluded"])
	if a["filesSearched"] != b["filesSearched"] || a["filesExcluded"] == nil || b["filesExcluded"] == nil {
		t.Errorf("narrowed to md: filesSearched %v, filesExcluded %v with the index; %v, %v without", a["filesSearched"], a["filesExcluded"], b["filesSearched"], b["filesExcluded"])
	}
}

// TestIndexProgress checks that a search made while the index is still building says so in its
// result, and that a client that sent a progress token gets a progress notification.
func TestIndexProgress(t *testing.T) {
	tier.Full(t, "follows an index build through the binary")
	f := workspace(t)
	for i := 0; i < 6000; i++ {
		dir := filepath.Join(f.root, "many", fmt.Sprintf("d%02d", i%50))
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%04d.md", i)), []byte(fmt.Sprintf("# Note %d\nbody of note %d about otters\n", i, i)), 0o644))
	}
	s := start(t, f, nil)
	var mu sync.Mutex
	var progress []mcp.JSONRPCNotification
	s.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			mu.Lock()
			progress = append(progress, n)
			mu.Unlock()
		}
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = searcher
	req.Params.Arguments = semanticQuery("otters", nil)
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.c.CallTool(ctx, req)
	must(t, err)
	var out map[string]any
	must(t, json.Unmarshal(res.RawStructuredContent, &out))
	if out["indexComplete"] == true {
		t.Skip("the index finished before the first call; nothing to observe")
	}
	switch msg, _ := out["error"].(string); {
	case out["code"] == "NOT_AVAILABLE": // nothing found yet in what was read: say how far, and when to ask again
		if ms, _ := out["retryAfterMs"].(float64); ms <= 0 || !strings.Contains(msg, "files indexed") {
			t.Errorf("NOT_AVAILABLE without a wait or how far the index is: %v", out)
		}
	default:
		if _, ok := out["indexedFiles"]; !ok {
			t.Errorf("an incomplete result does not say how far the index is: %v", out)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(progress)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no progress notification arrived")
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if tok := progress[0].Params.AdditionalFields["progressToken"]; tok != "tok-1" {
		t.Errorf("progress notification = %+v", progress[0].Params)
	}
}

// TestSearchNamesEndToEnd checks, through the binary, that a query naming a page puts that page
// first, above a page that uses the query's words more (see fulltext.NamesIn).
func TestSearchNamesEndToEnd(t *testing.T) {
	f := workspace(t)
	must(t, os.WriteFile(filepath.Join(f.root, "notes", "tar.md"), []byte("# tar\n\nArchiving utility.\n\nExtract an archive into the current folder:\n\n`tar xf archive.tar`\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.root, "notes", "git-get-tar-commit-id.md"), []byte("# git get-tar-commit-id\n\nExtract the commit ID from a tar archive.\n\nExtract the commit hash of a tar archive created by git archive, or extract nothing from a tar archive and exit.\n"), 0o644))
	s := start(t, f, eras[0].opts)
	waitIndexed(t, s)
	res, isErr := s.call(searcher, semanticQuery("how do I extract a tar archive", nil))
	if isErr {
		t.Fatalf("search failed: %v", res)
	}
	if got := paths(res); len(got) < 2 || got[0] != "notes/tar.md" || got[1] != "notes/git-get-tar-commit-id.md" {
		t.Errorf("hits = %v, want notes/tar.md, then notes/git-get-tar-commit-id.md", got)
	}
}

// numbered returns head followed by line formatted with 0 to n-1.
func numbered(head, line string, n int) string {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		fmt.Fprintf(&b, line, i)
	}
	return b.String()
}

// TestIndexMarkdownBombs is case J59 through the built binary: notes made to exhaust a markdown
// indexer (frontmatter whose YAML aliases expand to 9^9 strings in the fields the index keeps, a
// note of 100,000 links, emphasis runs that make a parser quadratic, 10,000 levels of nested
// lists and quotes, 100,000 open brackets, 50,000 distinct tags, which every section of the note
// carried, 20 GB in all, and 60 KB of aliases and a 100 KB heading over 2,000 sections, which
// every section repeated, 16 and 40 GB) are indexed beside an ordinary note: the build completes, the ordinary note is found, and the server's peak
// memory stays far below what any bomb expanded would take.
func TestIndexMarkdownBombs(t *testing.T) {
	tier.Full(t, "indexes pathological documents through the binary")
	root := t.TempDir()
	rep := strings.Repeat
	var laughs strings.Builder
	laughs.WriteString("---\na: &a [" + strings.TrimSuffix(rep(`"lol",`, 9), ",") + "]\n")
	prev := "a"
	for _, k := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		laughs.WriteString(k + ": &" + k + " [" + strings.TrimSuffix(rep("*"+prev+",", 9), ",") + "]\n")
		prev = k
	}
	laughs.WriteString("title: *i\ntags: *i\naliases: *i\nrelated: *i\n---\n# Laughs\nbody\n")
	for name, content := range map[string]string{
		"fern.md":     "# Fern\nrepot the fern in spring\n",
		"laughs.md":   laughs.String(),
		"links.md":    "# Links\n" + rep("- [a](b.md) [[c]] #t\n", 50_000),
		"emphasis.md": rep(rep("*a_", 1300)+"\n\n", 250),
		"nested.md":   rep("- ", 10_000) + "x\n\n" + rep("> ", 10_000) + "x\n",
		"brackets.md": rep("[", 100_000),
		"tags.md":     numbered("# Tags\n", "- word #t%d\n", 50_000),
		"aliases.md":  numbered("---\naliases:\n", "  - al%d\n", 5_500) + numbered("---\n# A\n", "## s%d\nw\n", 2_000),
		"heading.md":  numbered("# "+rep("w ", 50_000)+"\n", "## s%d\nw\n", 2_000),
	} {
		must(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	s := startRaw(t, root)
	search := func(id int, q string) map[string]any {
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": searcher, "arguments": semanticQuery(q, nil)}})
		must(t, err)
		var a struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		must(t, json.Unmarshal([]byte(s.roundTrip(t, string(line)+"\n")), &a))
		return a.Result.StructuredContent
	}
	// The deadline catches a build that does not end; it is no measure of speed.
	var res map[string]any
	for deadline, id := time.Now().Add(2*time.Minute), 2; ; id++ {
		if res = search(id, "repot the fern"); res["indexComplete"] == true {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index of the bombs did not complete: %v", res)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if files, _ := res["files"].([]any); len(files) == 0 || files[0].(map[string]any)["path"] != "fern.md" {
		t.Errorf("search for the ordinary note: %v, want fern.md first", res)
	}
	peak, err := peakMB(s.cmd.Process.Pid)
	must(t, err)
	// 9^9 strings of "lol" alone would take gigabytes; the notes are 4.2 MB.
	if peak > 512 {
		t.Errorf("peak resident memory %.0f MB after indexing the bombs, want under 512 MB", peak)
	}
	t.Logf("peak resident memory %.1f MB", peak)
}
