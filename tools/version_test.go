package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// versionTree is what the version tests start from.
var versionTree = []string{"a.md=alpha\n", "big.md=" + strings.Repeat("a line long enough to be read in chunks\n", 4000),
	"dir/inner.md=inner\n", "link.md => a.md", "dirlink => dir"}

// TestReadVersion checks that every read of a file, whole or in part, and its metadata give the
// version of the whole file, and that nothing else does.
func TestReadVersion(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: versionTree})
	big := fsroot.Version([]byte(strings.Repeat("a line long enough to be read in chunks\n", 4000)))
	alpha := fsroot.Version([]byte("alpha\n"))
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"read", toolArgs("read", "a.md", nil), alpha},
		{"read through a link", toolArgs("read", "link.md", nil), alpha},
		{"lines", toolArgs("read", "big.md", map[string]any{"preferences": map[string]any{"offset": 10, "limit": 2}}), big},
		{"chunk", toolArgs("read", "big.md", map[string]any{"preferences": map[string]any{"chunkIfLarge": true}}), big},
		{"base64", toolArgs("read", "a.md", map[string]any{"target": map[string]any{"path": "a.md", "encoding": "base64"}}), alpha},
		{"metadata", toolArgs("metadata", "big.md", nil), big},
		{"metadata of a folder", toolArgs("metadata", "dir", nil), ""},
		{"exists", toolArgs("exists", "a.md", nil), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := e.call(t, ReaderName, tt.args)
			if out.Result["success"] != true {
				t.Fatalf("result %s", out.json())
			}
			if got, _ := out.Result["version"].(string); got != tt.want {
				t.Errorf("version = %q, want %q", got, tt.want)
			}
			if tt.name == "chunk" && out.Result["truncated"] != true {
				t.Errorf("the chunk holds the whole file, so it shows nothing: %s", out.json())
			}
		})
	}
}

// TestWriteVersion runs each writing purpose after a read: with the version the read returned, and
// with that version after a person saved the file in between, which must fail with CONFLICT,
// report the version now on disk and leave the person's text.
func TestWriteVersion(t *testing.T) {
	const person = "alpha\nthe person's line\n"
	tests := []struct {
		name    string
		args    map[string]any // the write, with target.version set to version
		version string         // "read" is the version a read of a.md returned
		saved   bool           // a person saves person into a.md between the read and the write
		code    string
		files   map[string]string // what the files hold afterwards; "" for gone
	}{
		{name: "update", args: writeArgs("update", "a.md", "new\n", false), version: "read", files: map[string]string{"a.md": "new\n"}},
		{name: "update, saved since", args: writeArgs("update", "a.md", "new\n", false), version: "read", saved: true, code: errs.CodeConflict},
		{name: "update, saved unchanged since", args: writeArgs("update", "a.md", "new\n", false), version: "read", files: map[string]string{"a.md": "new\n"}},
		{name: "update in capitals", args: writeArgs("update", "a.md", "new\n", false), version: "READ", files: map[string]string{"a.md": "new\n"}},
		{name: "update through a link", args: writeArgs("update", "link.md", "new\n", false), version: "read", files: map[string]string{"a.md": "new\n"}},
		{name: "update without a version", args: writeArgs("update", "a.md", "new\n", false), saved: true, files: map[string]string{"a.md": "new\n"}},
		{name: "append", args: writeArgs("append", "a.md", "more\n", false), version: "read", files: map[string]string{"a.md": "alpha\nmore\n"}},
		{name: "append, saved since", args: writeArgs("append", "a.md", "more\n", false), version: "read", saved: true, code: errs.CodeConflict},
		{name: "append to a file deleted since", args: writeArgs("append", "gone.md", "more\n", false), version: "read", code: errs.CodeNotFound, files: map[string]string{"gone.md": ""}},
		{name: "edit", args: toolArgs("edit", "a.md", map[string]any{"edits": []any{map[string]any{"oldText": "alpha", "newText": "beta"}}}),
			version: "read", files: map[string]string{"a.md": "beta\n"}},
		{name: "edit, saved since", args: toolArgs("edit", "a.md", map[string]any{"edits": []any{map[string]any{"oldText": "alpha", "newText": "beta"}}}),
			version: "read", saved: true, code: errs.CodeConflict},
		{name: "edit dry run", args: toolArgs("edit", "a.md", map[string]any{"edits": []any{map[string]any{"oldText": "alpha", "newText": "beta"}}, "options": map[string]any{"dryRun": true}}),
			version: "read", files: map[string]string{"a.md": "alpha\n"}},
		{name: "edit dry run, saved since", args: toolArgs("edit", "a.md", map[string]any{"edits": []any{map[string]any{"oldText": "alpha", "newText": "beta"}}, "options": map[string]any{"dryRun": true}}),
			version: "read", saved: true, code: errs.CodeConflict},
		{name: "delete", args: toolArgs("delete", "a.md", nil), version: "read", files: map[string]string{"a.md": ""}},
		{name: "delete, saved since", args: toolArgs("delete", "a.md", nil), version: "read", saved: true, code: errs.CodeConflict},
		{name: "delete a link", args: toolArgs("delete", "link.md", nil), version: "read", files: map[string]string{"link.md": "", "a.md": "alpha\n"}},
		{name: "move", args: moveArgs("a.md", "moved.md", nil), version: "read", files: map[string]string{"a.md": "", "moved.md": "alpha\n"}},
		{name: "move, saved since", args: moveArgs("a.md", "moved.md", nil), version: "read", saved: true, code: errs.CodeConflict, files: map[string]string{"moved.md": ""}},
		{name: "move into new folders, saved since", args: moveArgs("a.md", "sub/moved.md", map[string]any{"createPath": true}), version: "read", saved: true, code: errs.CodeConflict},
		{name: "move dry run, saved since", args: moveArgs("a.md", "moved.md", map[string]any{"dryRun": true}), version: "read", saved: true, code: errs.CodeConflict},
		{name: "delete a folder", args: toolArgs("delete", "dir", map[string]any{"options": map[string]any{"recursive": true}}), version: "read", code: errs.CodeInvalidArgument, files: map[string]string{"dir/inner.md": "inner\n"}},
		{name: "delete a link to a folder", args: toolArgs("delete", "dirlink", nil), version: "read", code: errs.CodeInvalidArgument},
		{name: "move a folder", args: moveArgs("dir", "dir2", nil), version: "read", code: errs.CodeInvalidArgument, files: map[string]string{"dir/inner.md": "inner\n"}},
		{name: "create", args: writeArgs("create", "new.md", "x", false), version: "read", code: errs.CodeInvalidArgument, files: map[string]string{"new.md": ""}},
		{name: "mkdir", args: toolArgs("mkdir", "newdir", nil), version: "read", code: errs.CodeInvalidArgument},
		{name: "not a version", args: writeArgs("update", "a.md", "new\n", false), version: "v1", code: errs.CodeInvalidArgument},
		{name: "not hex", args: writeArgs("update", "a.md", "new\n", false), version: "0123456789abcdeg", code: errs.CodeInvalidArgument},
		{name: "too long", args: writeArgs("update", "a.md", "new\n", false), version: "0123456789abcdef0", code: errs.CodeInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: append(versionTree, "gone.md=soon gone\n")})
			read := e.call(t, ReaderName, toolArgs("read", "a.md", nil))
			version := tt.version
			if strings.EqualFold(version, "read") {
				version, _ = read.Result["version"].(string)
				if tt.version == "READ" {
					version = strings.ToUpper(version)
				}
			}
			if tt.name == "append to a file deleted since" {
				version = fsroot.Version([]byte("soon gone\n"))
				mustOK(t, os.Remove(filepath.Join(e.root, "gone.md")))
			}
			if tt.saved {
				mustOK(t, os.WriteFile(filepath.Join(e.root, "a.md"), []byte(person), 0o644))
			}
			if tt.name == "update, saved unchanged since" {
				mustOK(t, os.WriteFile(filepath.Join(e.root, "a.md"), []byte("alpha\n"), 0o644))
			}
			before := e.call(t, ReaderName, toolArgs("exists", "a.md", nil)).Tree
			out := e.call(t, WriterName, with(tt.args, map[string]any{"target.version": version}))
			if code, _ := out.Result["code"].(string); code != tt.code {
				t.Fatalf("code = %q, want %q: %s", code, tt.code, out.json())
			}
			if tt.code != "" && tt.code != errs.CodeNotFound && out.Result["field"] != "target.version" {
				t.Errorf("field = %v, want target.version", out.Result["field"])
			}
			if tt.code != "" {
				if diff := cmp.Diff(before, out.Tree); diff != "" {
					t.Errorf("a failed write changed the files (-before +after):\n%s", diff)
				}
			}
			files := tt.files
			if tt.code == errs.CodeConflict {
				if out.Result["currentVersion"] != fsroot.Version([]byte(person)) {
					t.Errorf("currentVersion = %v, want the version of the person's text", out.Result["currentVersion"])
				}
				// A text write is answered with the text now, so the caller merges without a read;
				// delete and move, which carry no text, say to read again.
				next, content := "read it again", any(nil)
				if p := tt.args["purpose"]; p == "update" || p == "append" || p == "edit" {
					next, content = "merge your change into currentContent", person
				}
				if msg, _ := out.Result["error"].(string); !strings.Contains(msg, next) {
					t.Errorf("error %q does not say %q", msg, next)
				}
				if out.Result["currentContent"] != content {
					t.Errorf("currentContent = %v, want %v", out.Result["currentContent"], content)
				}
				files = map[string]string{"a.md": person}
				for f, c := range tt.files {
					files[f] = c
				}
			}
			for f, want := range files {
				if got := out.Tree[f]; got != want {
					t.Errorf("%s = %q, want %q", f, got, want)
				}
			}
			if tt.code != "" {
				if out.Result["version"] != nil {
					t.Errorf("a failed write returned version %v", out.Result["version"])
				}
				return
			}
			// A write that leaves a file at target.path returns its version now, for the next write.
			want := ""
			if c, ok := out.Tree[targetPath(tt.args)]; ok && tt.args["purpose"] != "move" {
				want = fsroot.Version([]byte(c))
			}
			if got, _ := out.Result["version"].(string); got != want {
				t.Errorf("version = %q, want %q", got, want)
			}
		})
	}
}

// TestChainedWrites checks that the version a write returns is the one the next write needs, and
// that a version a later write superseded is refused with the version to use.
func TestChainedWrites(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: versionTree})
	v0 := e.call(t, ReaderName, toolArgs("read", "a.md", nil)).Result["version"]
	edit := e.call(t, WriterName, with(toolArgs("edit", "a.md", map[string]any{"edits": []any{map[string]any{"oldText": "alpha", "newText": "beta"}}}),
		map[string]any{"target.version": v0}))
	v1 := edit.Result["version"]
	appended := e.call(t, WriterName, with(writeArgs("append", "a.md", "gamma\n", false), map[string]any{"target.version": v1}))
	v2 := appended.Result["version"]
	if appended.Result["success"] != true || v2 == v1 || v1 == v0 {
		t.Fatalf("chained edit then append: %s, %s", edit.json(), appended.json())
	}
	stale := e.call(t, WriterName, with(writeArgs("update", "a.md", "lost\n", false), map[string]any{"target.version": v1}))
	if stale.Result["code"] != errs.CodeConflict || stale.Result["currentVersion"] != v2 {
		t.Errorf("update with a superseded version: %s, want CONFLICT with currentVersion %v", stale.json(), v2)
	}
	if again := e.call(t, ReaderName, toolArgs("read", "a.md", nil)); again.Result["version"] != v2 || again.Result["content"] != "beta\ngamma\n" {
		t.Errorf("read after the chain: %s", again.json())
	}
}

// TestConflictContent checks when a CONFLICT carries the file's text: on a text file of at most
// MaxConflictContent, whose version currentVersion names, and never on a larger one, which the
// caller reads in windows.
func TestConflictContent(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: versionTree})
	for _, tt := range []struct {
		name, file string
		content    bool
	}{
		{"a note", "a.md", true},
		{"larger than MaxConflictContent", "big.md", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stale := e.call(t, WriterName, with(writeArgs("append", tt.file, "more\n", false), map[string]any{"target.version": "0123456789abcdef"}))
			now, _ := os.ReadFile(filepath.Join(e.root, tt.file))
			got, has := stale.Result["currentContent"]
			if stale.Result["code"] != errs.CodeConflict || has != tt.content || stale.Result["currentVersion"] != fsroot.Version(now) {
				t.Fatalf("stale append to %s: %s", tt.file, stale.json())
			}
			if has && got != string(now) {
				t.Errorf("currentContent = %q, want %q", got, now)
			}
		})
	}
}

// TestAppendDiff checks that an append shows what it added under the file's last lines, so an
// agent need not read the end back, and that a large append is not echoed.
func TestAppendDiff(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: versionTree})
	small := e.call(t, WriterName, writeArgs("append", "a.md", "## Related\n", false))
	if d, _ := small.Result["diff"].(string); !strings.Contains(d, " alpha\n+## Related\n") {
		t.Errorf("append's diff = %q, want the last line as context and the new one added", d)
	}
	large := e.call(t, WriterName, writeArgs("append", "a.md", strings.Repeat("x", MaxAppendDiff+1), false))
	if large.Result["success"] != true || large.Result["diff"] != nil {
		t.Errorf("an append of more than MaxAppendDiff: %s", large.json())
	}
}

// moveArgs is a move of path to dest with options.
func moveArgs(path, dest string, options map[string]any) map[string]any {
	a := map[string]any{"purpose": "move", "target": map[string]any{"path": path, "destination": dest}}
	if options != nil {
		a["options"] = options
	}
	return a
}

// targetPath is the target.path of a call's arguments.
func targetPath(args map[string]any) string {
	target, _ := args["target"].(map[string]any)
	p, _ := target["path"].(string)
	return p
}
