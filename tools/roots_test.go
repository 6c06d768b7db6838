package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
)

// rootsEnv is the tools over two roots, notes and work, side by side in base with a folder
// outside both.
type rootsEnv struct {
	base  string
	roots *Roots
	tools map[string]server.ServerTool
}

func newRootsEnv(t *testing.T, trees map[string][]string) *rootsEnv {
	t.Helper()
	base := testfs.TempDir(t)
	env := &rootsEnv{base: base, roots: NewRoots(Config{
		Limiter:     security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30}),
		Permissions: security.AllPermissions(),
	}, true), tools: map[string]server.ServerTool{}}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range trees {
			if !yield(n) {
				return
			}
		}
	}) {
		dir := filepath.Join(base, name)
		mustOK(t, os.MkdirAll(dir, 0o755))
		testfs.Tree(t, dir, base, trees[name]...)
	}
	for _, name := range []string{"notes", "work"} {
		mustOK(t, env.roots.Add(testMount(t, name, filepath.Join(base, name), true)))
	}
	for _, st := range env.roots.Tools() {
		env.tools[st.Tool.Name] = st
	}
	return env
}

// call runs one tool call and returns its flat result without metadata.
func (e *rootsEnv) call(t *testing.T, tool string, args string) map[string]any {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = json.RawMessage(args)
	res, err := e.tools[tool].Handler(context.Background(), req)
	mustOK(t, err)
	var out map[string]any
	mustOK(t, json.Unmarshal(structured(t, res), &out))
	delete(out, "metadata")
	return out
}

func (e *rootsEnv) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.base, rel))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

var twoRoots = map[string][]string{
	"notes": {"a.md=# Aardvark\nsee [[b]] and [work](../work/w.md)\n", "b.md=# Bee\naardvark facts\n", ".env=SECRET=1\n",
		"dir/c.md=# Cee\n", "sub/x.md=# Ex\n", "towork => ../work"},
	"work":   {"w.md=# Work\naardvark plans\n", "sub/x.md=# X\n"},
	"secret": {"s.md=secret\n"},
}

// testMount opens the folder dir as the mount named name, under the default policy, with a built
// search index when indexed.
func testMount(t *testing.T, name, dir string, indexed bool) Mount {
	t.Helper()
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(t, err)
	m := Mount{Name: name, Root: root, Policy: policy}
	if indexed {
		m.Engine = semantic.New(semantic.Options{FS: root.FS(), Allow: func(name string, isDir bool) bool { return policy.CheckName(name, isDir) == nil }})
		mustOK(t, m.Engine.Build(context.Background()))
		t.Cleanup(func() { m.Engine.Close() })
	}
	return m
}

// TestRootsPaths checks how a path names its root: the first element is the root's name, "." holds
// the roots, and every way out of a root, into another or above them all, is refused.
func TestRootsPaths(t *testing.T) {
	e := newRootsEnv(t, twoRoots)
	tests := []struct {
		name, tool, args string
		code, field      string
		has              string // in the error or, on success, in the result's JSON
	}{
		{"read in a root", ReaderName, `{"purpose":"read","target":{"path":"notes/b.md"}}`, "", "", "aardvark facts"},
		{"a host path routes to its root", ReaderName, `{"purpose":"read","target":{"path":"{base}/work/w.md"}}`, "", "", "aardvark plans"},
		{"no root named", ReaderName, `{"purpose":"read","target":{"path":"nope.md"}}`, errs.CodeNotFound, "target.path", `(notes, work), such as "notes/nope.md"`},
		{"no root named, the path in one", ReaderName, `{"purpose":"read","target":{"path":"b.md"}}`, errs.CodeNotFound, "target.path", `it is at "notes/b.md"`},
		{"no root named, the path in both", ReaderName, `{"purpose":"exists","target":{"path":"sub/x.md"}}`, errs.CodeNotFound, "target.path", `it is at each of "notes/sub/x.md", "work/sub/x.md"; name the one`},
		{"no root named, a blocked path not shown", ReaderName, `{"purpose":"read","target":{"path":".env"}}`, errs.CodeNotFound, "target.path", `such as "notes/.env"; list`},
		{"climbs into another root", ReaderName, `{"purpose":"read","target":{"path":"notes/../work/w.md"}}`, errs.CodeOutsideRoot, "", `path "notes/../work/w.md" climbs out of root "notes"`},
		{"climbs above the roots", ReaderName, `{"purpose":"read","target":{"path":"../secret/s.md"}}`, errs.CodeOutsideRoot, "target.path", ""},
		{"a host path outside every root", ReaderName, `{"purpose":"read","target":{"path":"{base}/secret/s.md"}}`, errs.CodeOutsideRoot, "target.path", "outside every root"},
		{"a link into another root", ReaderName, `{"purpose":"read","target":{"path":"notes/towork/w.md"}}`, errs.CodeOutsideRoot, "", `"notes/towork/w.md"`},
		{"blocked, named with its root", ReaderName, `{"purpose":"read","target":{"path":"notes/.env"}}`, errs.CodeBlocked, "", `"notes/.env"`},
		{"missing, named with its root", ReaderName, `{"purpose":"read","target":{"path":"work/nope.md"}}`, errs.CodeNotFound, "", `"work/nope.md"`},
		{"read of the roots", ReaderName, `{"purpose":"read","target":{"path":"."}}`, errs.CodeIsDir, "target.path", ""},
		{"the roots exist", ReaderName, `{"purpose":"exists","target":{"path":"."}}`, "", "", `"exists":true`},
		{"a root exists", ReaderName, `{"purpose":"exists","target":{"path":"work"}}`, "", "", `"exists":true`},
		{"list the roots", SearcherName, `{"purpose":"list","target":{"path":"."}}`, "", "", `[{"path":"notes","type":"directory"},{"path":"work","type":"directory"}]`},
		{"list a root", SearcherName, `{"purpose":"list","target":{"path":"work"}}`, "", "", `"files":[{"path":"work/sub","type":"directory"},{"path":"work/w.md"`},
		{"relationships of the roots", SearcherName, `{"purpose":"relationships","target":{"path":"."}}`, errs.CodeInvalidArgument, "target.path", "within one root"},
		{"write the roots", WriterName, `{"purpose":"mkdir","target":{"path":"."}}`, errs.CodeRoot, "target.path", ""},
		{"delete a root", WriterName, `{"purpose":"delete","target":{"path":"work"},"options":{"recursive":true}}`, errs.CodeRoot, "", ""},
		{"move across roots", WriterName, `{"purpose":"move","target":{"path":"notes/b.md","destination":"work/b.md"}}`, errs.CodeInvalidArgument, "target.destination", `"work/b.md" is in root "work"`},
		{"move several across roots", WriterName, `{"purpose":"move","target":{"paths":["notes/b.md","work/w.md"],"destination":"notes/dir"}}`, errs.CodeInvalidArgument, "target.paths[1]", `target.paths[0] is in "notes"`},
		{"move several, named with their root", WriterName, `{"purpose":"move","target":{"paths":["notes/b.md"],"destination":"notes/dir"},"options":{"dryRun":true}}`, "", "", `"moved":[{"destination":"notes/dir/b.md","path":"notes/b.md"}]`},
		{"edit across roots", WriterName, `{"purpose":"edit","target":{"path":"notes/b.md"},"edits":[{"oldText":"x","newText":"y","path":"work/w.md"}]}`, errs.CodeInvalidArgument, "edits[0].path", "one root"},
		{"copy over the roots", WriterName, `{"purpose":"copy","target":{"path":"notes/b.md","destination":"."}}`, errs.CodeRoot, "target.destination", ""},
		{"an edit's diff names the root", WriterName, `{"purpose":"edit","target":{"path":"notes/b.md"},"edits":[{"oldText":"facts","newText":"lore"}],"options":{"dryRun":true}}`, "", "", `"diff":"--- a/notes/b.md\n+++ b/notes/b.md`},
		{"an append's diff names the root", WriterName, `{"purpose":"append","target":{"path":"work/w.md"},"content":"more\n"}`, "", "", `"diff":"--- a/work/w.md\n+++ b/work/w.md`},
		{"copy a file onto a folder", WriterName, `{"purpose":"copy","target":{"path":"notes/b.md","destination":"work/sub"}}`, errs.CodeIsDir, "target.destination", `"work/sub" is a folder: give the file's path inside it, such as "work/sub/b.md"`},
		{"move a file onto a folder", WriterName, `{"purpose":"move","target":{"path":"notes/b.md","destination":"notes/dir/"}}`, errs.CodeIsDir, "target.destination", `such as "notes/dir/b.md"`},
		{"copy a file to a new extensionless name", WriterName, `{"purpose":"copy","target":{"path":"notes/b.md","destination":"work/b"}}`, errs.CodeExtension, "target.destination", `such as .md, .txt`},
		{"create with a missing folder", WriterName, `{"purpose":"create","target":{"path":"work/no/x.md"},"content":"x"}`, errs.CodeNotFound, "", `"work/no"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := e.call(t, tt.tool, strings.ReplaceAll(tt.args, "{base}", e.base))
			b, _ := json.Marshal(out)
			if out["success"] != (tt.code == "") || tt.code != "" && out["code"] != tt.code {
				t.Fatalf("want code %q, got %s", tt.code, b)
			}
			if tt.field != "" && out["field"] != tt.field {
				t.Errorf("field = %v, want %s", out["field"], tt.field)
			}
			text := string(b)
			if tt.code != "" {
				text, _ = out["error"].(string)
			}
			if !strings.Contains(text, tt.has) {
				t.Errorf("answer lacks %s: %s", tt.has, b)
			}
			if strings.Contains(string(b), e.base) {
				t.Errorf("answer shows a host path: %s", b)
			}
		})
	}
	if got := e.read(t, "secret/s.md"); got != "secret\n" {
		t.Errorf("secret/s.md = %q", got)
	}
}

// TestRootsSearch checks that a search or listing of "." covers every root, in one answer whose
// paths name their roots, paged with one offset across them; and that a root's path keeps it to
// that root.
func TestRootsSearch(t *testing.T) {
	e := newRootsEnv(t, twoRoots)
	paths := func(out map[string]any) []string {
		var got []string
		files, _ := out["files"].([]any)
		for _, f := range files {
			got = append(got, f.(map[string]any)["path"].(string))
		}
		return got
	}
	content := `{"purpose":"search_content","target":{"path":".","query":"aardvark"},"options":{"filesOnly":true}}`
	if got, want := paths(e.call(t, SearcherName, content)), []string{"notes/a.md", "notes/b.md", "work/w.md"}; !slices.Equal(got, want) {
		t.Errorf("search_content of . = %v, want %v", got, want)
	}
	// Paged one file at a time, the pages join into the whole answer.
	var paged []string
	next := 0.0
	for range 5 {
		out := e.call(t, SearcherName, `{"purpose":"search_content","target":{"path":".","query":"aardvark"},"options":{"filesOnly":true,"maxResults":1,"offset":`+strings.TrimSuffix(strings.TrimSuffix(jsonNum(next), ".0"), ".")+`}}`)
		paged = append(paged, paths(out)...)
		n, ok := out["nextOffset"].(float64)
		if !ok {
			if out["truncated"] == true {
				t.Errorf("truncated without nextOffset: %v", out)
			}
			break
		}
		next = n
	}
	if want := []string{"notes/a.md", "notes/b.md", "work/w.md"}; !slices.Equal(paged, want) {
		t.Errorf("paged search_content = %v, want %v", paged, want)
	}
	list := e.call(t, SearcherName, `{"purpose":"list","target":{"path":"."},"options":{"recursive":true}}`)
	if got, want := paths(list), []string{"notes", "notes/a.md", "notes/b.md", "notes/dir", "notes/dir/c.md", "notes/sub", "notes/sub/x.md", "work", "work/sub", "work/sub/x.md", "work/w.md"}; !slices.Equal(got, want) {
		t.Errorf("recursive list of . = %v, want %v", got, want)
	}
	sem := e.call(t, SearcherName, `{"purpose":"search_semantic","target":{"path":".","query":"aardvark"}}`)
	got := paths(sem)
	slices.Sort(got)
	if want := []string{"notes/a.md", "notes/b.md", "work/w.md"}; !slices.Equal(got, want) || sem["totalFound"] != nil {
		t.Errorf("search_semantic of . = %v (totalFound %v), want %v and no totalFound", got, sem["totalFound"], want)
	}
	if got := paths(e.call(t, SearcherName, `{"purpose":"search_semantic","target":{"path":"work","query":"aardvark"}}`)); !slices.Equal(got, []string{"work/w.md"}) {
		t.Errorf("search_semantic of work = %v", got)
	}
}

func jsonNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestRootsRelationships checks that links resolve within their root, named with it, and that a
// call about documents of both roots answers for each in order.
func TestRootsRelationships(t *testing.T) {
	e := newRootsEnv(t, twoRoots)
	out := e.call(t, SearcherName, `{"purpose":"relationships","target":{"path":"notes/a.md"}}`)
	b, _ := json.Marshal(out)
	if !strings.Contains(string(b), `"to":"notes/b.md"`) {
		t.Errorf("the wiki link does not reach notes/b.md: %s", b)
	}
	var links []result.LinkEntry
	field := func(name string, v any) {
		b, _ := json.Marshal(out[name])
		mustOK(t, json.Unmarshal(b, v))
	}
	field("links", &links)
	want := []result.LinkEntry{
		{Target: "b", Kind: "wiki", Status: "internal", To: "notes/b.md", Line: 2},
		{Target: "../work/w.md", Kind: "markdown", Status: statusOtherRoot, To: "work/w.md", Line: 2, Text: "work"},
	}
	if diff := cmp.Diff(want, links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if broken, _ := out["broken"].([]any); len(broken) > 0 {
		t.Errorf("the link into another root is called broken: %s", b)
	}
	out = e.call(t, SearcherName, `{"purpose":"relationships","target":{"paths":["work/w.md","nope/x.md","notes/b.md","/etc/passwd"]}}`)
	var docs []result.DocumentEntry
	b, _ = json.Marshal(out["documents"])
	mustOK(t, json.Unmarshal(b, &docs))
	var got []string
	for _, d := range docs {
		got = append(got, d.Path+" "+d.Code)
	}
	wantDocs := []string{"work/w.md ", "nope/x.md NOT_FOUND", "notes/b.md ", "target.paths[3] PATH_OUTSIDE_ROOT"}
	if diff := cmp.Diff(wantDocs, got); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if len(docs) == 4 && (len(docs[2].Backlinks) != 1 || docs[2].Backlinks[0].Path != "notes/a.md") {
		t.Errorf("notes/b.md's backlinks = %+v", docs[2].Backlinks)
	}
	read := e.call(t, ReaderName, `{"purpose":"read","target":{"paths":["work/w.md","notes/b.md","notes/.env"]}}`)
	b, _ = json.Marshal(read["files"])
	for _, s := range []string{`"path":"work/w.md"`, `"path":"notes/b.md"`, `"code":"PATH_BLOCKED"`, "aardvark plans", "aardvark facts"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("read of both roots lacks %s: %s", s, b)
		}
	}
	// Each root reads its own ranges; a file outside every root, and one the policy refuses in a
	// root's own call, are named by their places in target.reads.
	read = e.call(t, ReaderName, `{"purpose":"read","target":{"reads":[{"path":"/etc/passwd"},{"path":"work/w.md"},{"path":"notes/b.md","offset":1},{"path":"notes/../../x.md"}]}}`)
	b, _ = json.Marshal(read["files"])
	var files []result.ReadEntry
	mustOK(t, json.Unmarshal(b, &files))
	got = nil
	for _, f := range files {
		got = append(got, f.Path+" "+f.Code)
	}
	if diff := cmp.Diff([]string{"target.reads[0] PATH_OUTSIDE_ROOT", "work/w.md ", "notes/b.md ", "target.reads[3] PATH_OUTSIDE_ROOT"}, got); diff != "" {
		t.Errorf("reads across roots (-want +got):\n%s", diff)
	}
	if len(files) == 4 && (files[2].Content == nil || *files[2].Content != "aardvark facts\n") {
		t.Errorf("notes/b.md from line 1 = %s", b)
	}
}

// TestRootsCopy checks a copy from one root to another, of a file and of a folder, and that each
// end is judged by its own root's policy.
func TestRootsCopy(t *testing.T) {
	e := newRootsEnv(t, twoRoots)
	out := e.call(t, WriterName, `{"purpose":"copy","target":{"path":"notes/b.md","destination":"work/b.md"}}`)
	if out["success"] != true || out["path"] != "notes/b.md" || out["destination"] != "work/b.md" {
		t.Fatalf("copy of a file = %v", out)
	}
	if got := e.read(t, "work/b.md"); got != "# Bee\naardvark facts\n" {
		t.Errorf("work/b.md = %q", got)
	}
	out = e.call(t, WriterName, `{"purpose":"copy","target":{"path":"notes/b.md","destination":"work/b.md"}}`)
	if out["code"] != errs.CodeExists || !strings.Contains(out["error"].(string), `"work/b.md"`) {
		t.Errorf("copy over a file = %v", out)
	}
	out = e.call(t, WriterName, `{"purpose":"copy","target":{"path":"notes","destination":"work/notes-copy"},"options":{"recursive":true}}`)
	if out["success"] != true || out["filesCopied"] != 4.0 {
		t.Fatalf("copy of a root into another = %v", out)
	}
	if got := e.read(t, "work/notes-copy/dir/c.md"); got != "# Cee\n" {
		t.Errorf("work/notes-copy/dir/c.md = %q", got)
	}
	b, _ := json.Marshal(out)
	for _, s := range []string{`"hiddenEntries":2`} { // .env, and the link out of notes
		if !strings.Contains(string(b), s) {
			t.Errorf("folder copy lacks %s: %s", s, b)
		}
	}
	if _, err := os.Lstat(filepath.Join(e.base, "work/notes-copy/.env")); err == nil {
		t.Error("the blocked .env was copied into the other root")
	}
	sem := e.call(t, SearcherName, `{"purpose":"search_semantic","target":{"path":"work","query":"cee"}}`)
	if b, _ := json.Marshal(sem["files"]); !strings.Contains(string(b), `"work/notes-copy/dir/c.md"`) {
		t.Errorf("the copy is not in its root's index: %s", b)
	}
	for _, tt := range []struct{ args, code, field string }{
		{`{"purpose":"copy","target":{"path":"notes/.env","destination":"work/env.md"}}`, errs.CodeBlocked, ""},
		{`{"purpose":"copy","target":{"path":"notes/b.md","destination":"work/.env"}}`, errs.CodeBlocked, "target.destination"},
		{`{"purpose":"copy","target":{"path":"notes/missing.md","destination":"work/m.md"}}`, errs.CodeNotFound, ""},
		{`{"purpose":"copy","target":{"path":"notes/dir","destination":"work/dir"}}`, errs.CodeInvalidArgument, "options.recursive"},
		{`{"purpose":"copy","target":{"path":"notes/b.md","destination":"work/../notes/z.md"}}`, errs.CodeOutsideRoot, "target.destination"},
	} {
		out := e.call(t, WriterName, tt.args)
		if out["code"] != tt.code || tt.field != "" && out["field"] != tt.field {
			t.Errorf("%s = %v, want %s on %q", tt.args, out, tt.code, tt.field)
		}
	}
	if _, err := os.Lstat(filepath.Join(e.base, "notes/z.md")); err == nil {
		t.Error("a copy climbed from work into notes")
	}
}

// TestRebaseCoversEveryPath sets every string of every result type and asks rebase to name its
// paths in a root: the fields it changes must be the path fields, so a path field added to a
// result and not to rebase fails here.
func TestRebaseCoversEveryPath(t *testing.T) {
	notPaths := map[string]bool{ // strings that are not paths inside a root
		"error": true, "code": true, "field": true, "currentVersion": true, "currentContent": true,
		"content": true, "encoding": true, "version": true, "modified": true, "type": true, "mode": true,
		"mediaType": true, "text": true, "before": true, "after": true, "title": true, "heading": true,
		"snippet": true, "via": true, "anchor": true, "target": true, "fragment": true, "kind": true,
		"status": true, "source": true, "unknownWords": true, "message": true, "tags": true, "aliases": true,
		"diff": true, "reason": true, "mentionsIncomplete": true, "hiddenHint": true,
		"opens": true, "notKept": true, "time": true, "purpose": true, "call": true, "imageSent": true, "-": true,
		"author": true, "created": true, "textCut": true, "place": true,
	}
	for _, v := range []any{&result.Reader{}, &result.Searcher{}, &result.Writer{}} {
		fill(reflect.ValueOf(v).Elem())
		out := reflect.ValueOf(result.Rebase(reflect.ValueOf(v).Elem().Interface(), func(p string) string { return "R/" + p }))
		seen := map[string]bool{}
		strs(out, "", func(name, s string) {
			base := name[strings.LastIndex(name, ".")+1:]
			if strings.HasPrefix(s, "R/") == notPaths[base] {
				t.Errorf("%T: %s = %q: rebase should %s it", v, name, s, map[bool]string{true: "leave", false: "change"}[notPaths[base]])
			}
			seen[base] = true
		})
		if len(seen) < 5 {
			t.Fatalf("%T: only %v seen", v, seen)
		}
	}
}

// fill sets every string in v to "p", with one element in each slice.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("p")
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.String || v.Type().Elem().Kind() == reflect.Struct {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	}
}

// strs calls f with every string in v and its field's JSON name, dotted from the top.
func strs(v reflect.Value, name string, f func(name, s string)) {
	switch v.Kind() {
	case reflect.String:
		f(name, v.String())
	case reflect.Pointer:
		if !v.IsNil() {
			strs(v.Elem(), name, f)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			if !sf.IsExported() {
				continue
			}
			n := strings.Split(sf.Tag.Get("json"), ",")[0]
			if sf.Anonymous || n == "" {
				strs(v.Field(i), name, f)
				continue
			}
			strs(v.Field(i), strings.TrimPrefix(name+"."+n, "."), f)
		}
	case reflect.Slice:
		for i := range v.Len() {
			strs(v.Index(i), name, f)
		}
	}
}

// TestCoverageMerge checks what a search over several roots says of their indexes while one is
// being built: the counts add up, a total still being counted leaves the merged total out rather
// than showing a part as the whole, and each root's message is named.
func TestCoverageMerge(t *testing.T) {
	building := func(indexed int, total *int, msg string) result.Searcher {
		return result.Searcher{IndexComplete: ptr(false), IndexedFiles: ptr(indexed), TotalFiles: total, Message: msg, Status: result.Status{RetryAfterMs: 2000}}
	}
	done := result.Searcher{IndexComplete: ptr(true)}
	tests := []struct {
		name           string
		answers        []result.Searcher
		complete       bool
		indexed, total *int
		message        string
	}{
		{"all complete", []result.Searcher{done, done}, true, nil, nil, ""},
		{"one counted", []result.Searcher{done, building(3, ptr(10), "m")}, false, ptr(3), ptr(10), `In root "r1": m`},
		{"both counted", []result.Searcher{building(1, ptr(5), "a"), building(3, ptr(10), "b")}, false, ptr(4), ptr(15), `In root "r0": a In root "r1": b`},
		{"one still counting", []result.Searcher{building(1, ptr(5), "a"), building(3, nil, "b")}, false, ptr(4), nil, `In root "r0": a In root "r1": b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cv coverage
			for i, a := range tt.answers {
				cv.add(a, fmt.Sprintf("r%d", i))
			}
			var out result.Searcher
			cv.apply(&out)
			got := []any{*out.IndexComplete, out.IndexedFiles, out.TotalFiles, out.Message}
			want := []any{tt.complete, tt.indexed, tt.total, tt.message}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !tt.complete && out.RetryAfterMs != 2000 {
				t.Errorf("retryAfterMs = %d", out.RetryAfterMs)
			}
		})
	}
}

// TestRootsToolDescriptions checks that the tools of several roots say, in each description, that
// paths start with a root's name (a client may show the model the tools without the
// instructions), and that one root's tools do not.
func TestRootsToolDescriptions(t *testing.T) {
	e := newRootsEnv(t, twoRoots)
	if len(e.tools) != 3 {
		t.Fatalf("%d tools, want 3", len(e.tools))
	}
	for name, st := range e.tools {
		if !strings.HasSuffix(st.Tool.Description, severalRoots) {
			t.Errorf("%s's description does not say how paths name their root: %q", name, st.Tool.Description)
		}
	}
	one := NewRoots(Config{Permissions: security.AllPermissions()}, false)
	mustOK(t, one.Add(testMount(t, "", testfs.TempDir(t), false)))
	for _, st := range one.Tools() {
		if strings.Contains(st.Tool.Description, "Several folders") {
			t.Errorf("one root's %s speaks of several folders: %q", st.Tool.Name, st.Tool.Description)
		}
	}
}
