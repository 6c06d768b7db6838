package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// opensTree holds a file of each kind security.Policy.Opens tells apart, under the default list.
var opensTree = []string{
	"notes.md=# Notes\nsee the Kconfig\n",
	"case.txtar=-- a.txt --\nfoo bar\n",
	"Kconfig=config FOO\n\tbool \"foo bar\"\n",
	"page.tmpl={{ .Title }} foo bar\n",
	"blob.dat=foo bar\x00\x01\x02",
	"latin.txt1=caf\xe9 foo bar\n",
	"tool.exe=MZ foo bar\n",
	"run.bat=@echo foo bar\n",
	".zshrc=export TOKEN=foo bar\n",
	"photo.png=\x89PNG\r\n\x1a\n",
	"key.conf2=-----BEGIN OPENSSH PRIVATE KEY-----\nfoo bar\n",
}

// TestListingNamesEveryFile checks that a listing names every file but blocked ones, with its
// size and, when the tools do not open it as text, what they do with it; hidden counts nothing of
// them.
func TestListingNamesEveryFile(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: append([]string{".env=T=1\n"}, opensTree...)})
	out := e.call(t, SearcherName, map[string]any{"purpose": "list", "target": map[string]any{"path": "."}})
	got := map[string]string{}
	for _, f := range out.Result["files"].([]any) {
		m := f.(map[string]any)
		if m["sizeBytes"] == nil {
			t.Errorf("%v has no size", m)
		}
		o, _ := m["opens"].(string)
		got[m["path"].(string)] = o
	}
	want := map[string]string{
		"notes.md": "", "case.txtar": "if text", "Kconfig": "if text", "page.tmpl": "if text",
		"blob.dat": "if text", "latin.txt1": "if text", "tool.exe": "no", "run.bat": "no", ".zshrc": "no",
		"photo.png": "binary", "key.conf2": "if text",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listing (-want +got):\n%s\nin %s", diff, out.json())
	}
	if h, _ := out.Result["hidden"].(map[string]any); len(h) != 1 || h["blocked"] != 1.0 {
		t.Errorf("hidden = %v, want only the blocked .env", out.Result["hidden"])
	}
}

// TestOpensByContent checks that a file of a type not on the list opens as text when its content
// is text, for every purpose that reads or changes an existing file, while one whose content is
// not text, a closed type, a dotfile and a private key under any name stay refused, and no new
// file of such a type is created.
func TestOpensByContent(t *testing.T) {
	read := func(p string) map[string]any {
		return map[string]any{"purpose": "read", "target": map[string]any{"path": p}}
	}
	write := func(purpose, p string, extra map[string]any) map[string]any {
		args := map[string]any{"purpose": purpose, "target": map[string]any{"path": p}}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
	edit := map[string]any{"edits": []any{map[string]any{"oldText": "foo", "newText": "baz"}}}
	tests := []struct {
		name, tool string
		args       map[string]any
		code       string // "" for success
		file, want string // with success, file's content afterwards
	}{
		{name: "read txtar", tool: ReaderName, args: read("case.txtar")},
		{name: "read Kconfig", tool: ReaderName, args: read("Kconfig")},
		{name: "read tmpl", tool: ReaderName, args: read("page.tmpl")},
		{name: "metadata Kconfig", tool: ReaderName, args: map[string]any{"purpose": "metadata", "target": map[string]any{"path": "Kconfig"}}},
		{name: "read binary content", tool: ReaderName, args: read("blob.dat"), code: CodeNotText},
		{name: "read Latin-1 content", tool: ReaderName, args: read("latin.txt1"), code: CodeNotText},
		{name: "read closed type", tool: ReaderName, args: read("tool.exe"), code: CodeExtension},
		{name: "read run type", tool: ReaderName, args: read("run.bat"), code: CodeExtension},
		{name: "read dotfile", tool: ReaderName, args: read(".zshrc"), code: CodeExtension},
		{name: "read key", tool: ReaderName, args: read("key.conf2"), code: CodeBlocked},
		{name: "edit Kconfig", tool: WriterName, args: write("edit", "Kconfig", edit), file: "Kconfig", want: "config FOO\n\tbool \"baz bar\"\n"},
		{name: "append tmpl", tool: WriterName, args: write("append", "page.tmpl", map[string]any{"content": "more\n"}), file: "page.tmpl", want: "{{ .Title }} foo bar\nmore\n"},
		{name: "update txtar", tool: WriterName, args: write("update", "case.txtar", map[string]any{"content": "new\n"}), file: "case.txtar", want: "new\n"},
		{name: "edit binary content", tool: WriterName, args: write("edit", "blob.dat", edit), code: CodeNotText},
		{name: "edit run type", tool: WriterName, args: write("edit", "run.bat", edit), code: CodeExtension},
		{name: "create new tmpl", tool: WriterName, args: write("create", "new.tmpl", map[string]any{"content": "x\n"}), code: CodeExtension},
		{name: "copy to new tmpl", tool: WriterName, args: map[string]any{"purpose": "copy", "target": map[string]any{"path": "notes.md", "destination": "n.tmpl"}}, code: CodeExtension},
		{name: "delete tmpl", tool: WriterName, args: write("delete", "page.tmpl", nil), file: "page.tmpl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: opensTree})
			out := e.call(t, tt.tool, tt.args)
			if tt.code != "" {
				if out.Result["code"] != tt.code {
					t.Fatalf("code = %v, want %s: %s", out.Result["code"], tt.code, out.json())
				}
				return
			}
			if out.Result["success"] != true {
				t.Fatalf("failed: %s", out.json())
			}
			if c, ok := out.Result["content"].(string); ok && !strings.Contains(c, "foo") && !strings.Contains(c, "config") {
				t.Errorf("content = %q", c)
			}
			if tt.file != "" {
				got, there := out.Tree[tt.file]
				if tt.want == "" && there {
					t.Errorf("%s is still there", tt.file)
				} else if tt.want != "" && got != tt.want {
					t.Errorf("%s = %q, want %q", tt.file, got, tt.want)
				}
			}
		})
	}
}

// TestSearchOpensByContent checks that search_content reads the files that open by content, and
// only those: a match in a closed type, a dotfile, a binary or a key is never answered.
func TestSearchOpensByContent(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: opensTree})
	out := e.call(t, SearcherName, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "foo bar"}})
	var got []string
	for _, f := range out.Result["files"].([]any) {
		got = append(got, f.(map[string]any)["path"].(string))
	}
	want := []string{"Kconfig", "case.txtar", "page.tmpl"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s\nin %s", diff, out.json())
	}
}
