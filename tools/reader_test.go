package tools

import (
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// TestReadMany reads several files in one call: each path is answered in order with its own
// success or error, under the rules a read of it alone follows, and the files share one answer's
// budget.
func TestReadMany(t *testing.T) {
	bigLine := strings.Repeat("x", 999) + "\n"
	longLine := strings.Repeat("y", MaxContentBytes+1)
	e := newRaceEnv(t, "a.md=alpha\n", "b.md=beta\nline two\n", ".env=SECRET=1\n", "big.txt="+strings.Repeat(bigLine, 300), "big2.txt="+strings.Repeat(bigLine, 300), "long.md="+longLine, "d/")
	read := func(paths []string, reads []map[string]any, prefs map[string]any) map[string]any {
		a := map[string]any{"purpose": "read", "target": map[string]any{"paths": paths}}
		if reads != nil {
			a["target"] = map[string]any{"reads": reads}
		}
		if prefs != nil {
			a["preferences"] = prefs
		}
		return e.call(ReaderName, a)
	}
	type want struct {
		path, code, content string
		truncated           bool
	}
	tests := []struct {
		name  string
		paths []string
		reads []map[string]any // target.reads in place of paths
		prefs map[string]any
		want  []want
	}{
		{"two files, in the order given", []string{"b.md", "a.md"}, nil, nil, []want{
			{path: "b.md", content: "beta\nline two\n"}, {path: "a.md", content: "alpha\n"}}},
		{"each refused as alone, the rest read", []string{"missing.md", ".env", "../outside/secret.md", "d", "./a.md"}, nil, nil, []want{
			{path: "missing.md", code: errs.CodeNotFound}, {path: ".env", code: errs.CodeBlocked}, {path: "target.reads[2]", code: errs.CodeOutsideRoot},
			{path: "d", code: errs.CodeIsDir}, {path: "a.md", content: "alpha\n"}}},
		{"preferences apply to each", []string{"b.md", "a.md"}, nil, map[string]any{"limit": 1}, []want{
			{path: "b.md", content: "beta\n"}, {path: "a.md", content: "alpha\n"}}},
		// big.txt leaves 144 bytes: big2.txt's first line waits for a read of its own, and a.md fits.
		{"one answer's budget, shared", []string{"big.txt", "big2.txt", "a.md"}, nil, nil, []want{
			{path: "big.txt", content: strings.Repeat(bigLine, MaxContentBytes/len(bigLine)), truncated: true},
			{path: "big2.txt", content: "", truncated: true}, {path: "a.md", content: "alpha\n"}}},
		// Only the first file gets a line longer than the budget: the names of one long line cost one.
		{"one long line, named again", []string{"long.md", "./long.md", "d/../long.md"}, nil, nil, []want{
			{path: "long.md", content: longLine}, {path: "long.md", content: "", truncated: true}, {path: "long.md", content: "", truncated: true}}},
		{"a range each", nil, []map[string]any{{"path": "b.md", "offset": 1}, {"path": "a.md"}}, nil, []want{
			{path: "b.md", content: "line two\n"}, {path: "a.md", content: "alpha\n"}}},
		{"two sections of one file", nil, []map[string]any{{"path": "b.md", "limit": 1}, {"path": "b.md", "offset": 1}}, nil, []want{
			{path: "b.md", content: "beta\n"}, {path: "b.md", content: "line two\n"}}},
		// A read's own offset wins; its limit left out is the preferences'.
		{"a range over the preferences", nil, []map[string]any{{"path": "big.txt", "offset": 299}, {"path": "b.md"}}, map[string]any{"offset": 1, "limit": 2}, []want{
			{path: "big.txt", content: bigLine}, {path: "b.md", content: "line two\n"}}},
		{"each refused as alone, named by its place", nil, []map[string]any{{"path": "../outside/secret.md", "limit": 1}, {"path": ".env"}, {"path": "a.md", "offset": 5}}, nil, []want{
			{path: "target.reads[0]", code: errs.CodeOutsideRoot}, {path: ".env", code: errs.CodeBlocked}, {path: "a.md", content: ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := read(tt.paths, tt.reads, tt.prefs)
			files, _ := out["files"].([]any)
			if out["success"] != true || len(files) != len(tt.want) {
				t.Fatalf("answer %v, want %d files", out, len(tt.want))
			}
			for i, w := range tt.want {
				f := files[i].(map[string]any)
				code, _ := f["code"].(string)
				content, _ := f["content"].(string)
				truncated, _ := f["truncated"].(bool)
				if f["path"] != w.path || code != w.code || content != w.content || truncated != w.truncated {
					t.Errorf("files[%d] = %.300v, want %+v", i, f, w)
				}
				if (code == "") != (f["success"] == true) {
					t.Errorf("files[%d]: success %v with code %q", i, f["success"], code)
				}
			}
		})
	}
	t.Run("base64 past the budget left", func(t *testing.T) {
		out := e.call(ReaderName, map[string]any{"purpose": "read", "target": map[string]any{"paths": []string{"b.md", "big.txt"}, "encoding": "base64"}})
		files, _ := out["files"].([]any)
		if len(files) != 2 || files[0].(map[string]any)["encoding"] != "base64" || files[1].(map[string]any)["code"] != errs.CodeTooLarge {
			t.Errorf("answer %.500v, want b.md in base64 and big.txt TOO_LARGE", out)
		}
	})
}

// TestExists checks that exists answers for what the tools can see: a name that reaches nothing is
// missing whatever its extension (a folder moved away has none), and a file of a type the tools
// do not open is there, as a listing names it. The rules every path obeys still refuse a blocked
// name, and a link of a closed type that leads to a blocked file.
func TestExists(t *testing.T) {
	tree := []string{"notes/a.md=# A\n", "blob=data\n", "tool.exe=MZ\n", ".env=T=1\n"}
	if !testfs.UnderWine { // Wine shows no links
		tree = append(tree, "env.zip => .env")
	}
	e := newOptionEnv(t, optionTable{tree: tree})
	tests := []struct {
		path   string
		exists any // true, false, or nil when refused
		code   string
	}{
		{path: "notes", exists: true},
		{path: "notes/a.md", exists: true},
		{path: "Archive", exists: false}, // a folder moved away, or never made
		{path: "notes/Archive/old", exists: false},
		{path: "gone.md", exists: false},
		{path: "blob", exists: true},     // opened when its content is text
		{path: "tool.exe", exists: true}, // named, never opened
		{path: "other.exe", exists: false},
		{path: ".ssh/id_rsa", code: errs.CodeBlocked},
		{path: ".env", code: errs.CodeBlocked},
	}
	if !testfs.UnderWine {
		tests = append(tests, struct {
			path   string
			exists any
			code   string
		}{path: "env.zip", code: errs.CodeBlocked})
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			out := e.call(t, ReaderName, map[string]any{"purpose": "exists", "target": map[string]any{"path": tt.path}})
			if out.Result["exists"] != tt.exists || (out.Result["code"] != nil || tt.code != "") && out.Result["code"] != tt.code {
				t.Errorf("exists %q = %s; want exists %v, code %q", tt.path, out.json(), tt.exists, tt.code)
			}
		})
	}
}

// TestMissingNotFound checks that a name that reaches nothing is not found, whatever its extension
// (a misspelt folder has none), for every tool that looks up what is there; a blocked name is
// refused whether or not it exists, and a file of a type the tools do not open is refused as such.
func TestMissingNotFound(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"notes/a.md=# A\n", "tool.exe=MZ\n"}})
	tests := []struct {
		tool, purpose, path, code string
	}{
		{SearcherName, "list", "notes/Archive", errs.CodeNotFound},
		{SearcherName, "list", "nope/linux", errs.CodeNotFound},
		{SearcherName, "search_content", "nope", errs.CodeNotFound},
		{SearcherName, "search_content", "notes/gone.md", errs.CodeNotFound},
		{ReaderName, "read", "notes/linux", errs.CodeNotFound},
		{ReaderName, "read", "other.exe", errs.CodeNotFound},
		{ReaderName, "metadata", "nope", errs.CodeNotFound},
		{ReaderName, "read", "tool.exe", errs.CodeExtension},
		{ReaderName, "read", ".env", errs.CodeBlocked},
		{SearcherName, "list", ".git", errs.CodeBlocked},
		{SearcherName, "list", "notes/.ssh", errs.CodeBlocked},
	}
	for _, tt := range tests {
		t.Run(tt.purpose+" "+tt.path, func(t *testing.T) {
			target := map[string]any{"path": tt.path}
			if tt.purpose == "search_content" {
				target["query"] = "a"
			}
			out := e.call(t, tt.tool, map[string]any{"purpose": tt.purpose, "target": target})
			if out.Result["code"] != tt.code {
				t.Errorf("%s %q = %s; want code %s", tt.purpose, tt.path, out.json(), tt.code)
			}
		})
	}
}

// TestFinalNewline checks that metadata, and a read with preferences.includeMetadata, say whether a
// text file ends with a line break (or is empty), and say nothing of it for a binary file.
func TestFinalNewline(t *testing.T) {
	e := newRaceEnv(t, "ends.md=one\ntwo\n", "open.md=one\ntwo", "crlf.md=one\r\n", "empty.md=", "blank.md=one\n\n\n", "bin.png=\x89PNG\r\n\x1a\n\x00\x00")
	tests := []struct {
		name string
		want any // true, false, or nil when absent
	}{
		{"ends.md", true},
		{"open.md", false},
		{"crlf.md", true},
		{"empty.md", true},
		{"blank.md", true},
		{"bin.png", nil},
	}
	for _, tt := range tests {
		for _, args := range []map[string]any{
			toolArgs("metadata", tt.name, nil),
			toolArgs("read", tt.name, map[string]any{"preferences": map[string]any{"includeMetadata": true}}),
		} {
			out := e.call(ReaderName, args)
			if out["success"] != true || out["finalNewline"] != tt.want {
				t.Errorf("%s of %s: finalNewline = %v, want %v (%v)", args["purpose"], tt.name, out["finalNewline"], tt.want, out)
			}
		}
	}
}
