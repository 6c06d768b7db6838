package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/tools/errs"
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
		"photo.png": "image", "key.conf2": "if text",
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
		{name: "read binary content", tool: ReaderName, args: read("blob.dat"), code: errs.CodeNotText},
		{name: "read Latin-1 content", tool: ReaderName, args: read("latin.txt1"), code: errs.CodeNotText},
		{name: "read closed type", tool: ReaderName, args: read("tool.exe"), code: errs.CodeExtension},
		{name: "read run type", tool: ReaderName, args: read("run.bat"), code: errs.CodeExtension},
		{name: "read dotfile", tool: ReaderName, args: read(".zshrc"), code: errs.CodeExtension},
		{name: "read key", tool: ReaderName, args: read("key.conf2"), code: errs.CodeBlocked},
		{name: "edit Kconfig", tool: WriterName, args: write("edit", "Kconfig", edit), file: "Kconfig", want: "config FOO\n\tbool \"baz bar\"\n"},
		{name: "append tmpl", tool: WriterName, args: write("append", "page.tmpl", map[string]any{"content": "more\n"}), file: "page.tmpl", want: "{{ .Title }} foo bar\nmore\n"},
		{name: "update txtar", tool: WriterName, args: write("update", "case.txtar", map[string]any{"content": "new\n"}), file: "case.txtar", want: "new\n"},
		{name: "edit binary content", tool: WriterName, args: write("edit", "blob.dat", edit), code: errs.CodeNotText},
		{name: "edit run type", tool: WriterName, args: write("edit", "run.bat", edit), code: errs.CodeExtension},
		{name: "create new tmpl", tool: WriterName, args: write("create", "new.tmpl", map[string]any{"content": "x\n"}), code: errs.CodeExtension},
		{name: "copy to new tmpl", tool: WriterName, args: map[string]any{"purpose": "copy", "target": map[string]any{"path": "notes.md", "destination": "n.tmpl"}}, code: errs.CodeExtension},
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

// TestReadImage checks that a read of an image answers it as image content a model sees, scaled
// to its bounds, beside the JSON that gives its size; a read of several files names it without
// sending it.
func TestReadImage(t *testing.T) {
	var b bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 2400, 1200))
	mustOK(t, png.Encode(&b, img))
	e := newOptionEnv(t, optionTable{tree: []string{"shot.png=" + b.String(), "a.md=a\n"}})
	var req mcp.CallToolRequest
	req.Params.Name = ReaderName
	req.Params.Arguments = map[string]any{"purpose": "read", "target": map[string]any{"path": "shot.png"}}
	res, err := e.tools[ReaderName].Handler(context.Background(), req)
	mustOK(t, err)
	var images []mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(mcp.ImageContent); ok {
			images = append(images, ic)
		}
	}
	if len(images) != 1 || images[0].MIMEType != "image/png" {
		t.Fatalf("content %+v, want one PNG image", res.Content)
	}
	data, err := base64.StdEncoding.DecodeString(images[0].Data)
	mustOK(t, err)
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 1516 || cfg.Height != 758 {
		t.Errorf("image sent: %dx%d (%v), want 1516x758", cfg.Width, cfg.Height, err)
	}
	out := e.call(t, ReaderName, req.Params.Arguments.(map[string]any))
	if out.Result["widthPx"] != 2400.0 || out.Result["heightPx"] != 1200.0 || !strings.Contains(fmt.Sprint(out.Result["imageSent"]), "1516x758 png") {
		t.Errorf("answer %s", out.json())
	}
	many := e.call(t, ReaderName, map[string]any{"purpose": "read", "target": map[string]any{"paths": []string{"shot.png", "a.md"}}})
	if !strings.Contains(many.json(), "read it alone") {
		t.Errorf("read of several: %s", many.json())
	}
}
