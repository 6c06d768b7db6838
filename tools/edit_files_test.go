package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
)

// editFilesTree is what the tests of an edit of several files start from: a note, another, a JSON
// menu, a blocked file, a link to the note, and more files than one edit may change.
func editFilesTree() []string {
	tree := []string{"a.md=alpha one\n", "b.md=beta two\n", "c.json={\"menu\": [\"old\"]}\n", ".env=TOKEN=x\n", "link.md => a.md", "run.exe=MZ"}
	for i := range intents.MaxEditFiles + 1 {
		tree = append(tree, fmt.Sprintf("many/f%02d.md=n\n", i))
	}
	return tree
}

// edit is an edit of oldText to newText, in path unless it is "".
func edit(path, oldText, newText string) map[string]any {
	e := map[string]any{"oldText": oldText, "newText": newText}
	if path != "" {
		e["path"] = path
	}
	return e
}

// editCall is an edit call on target with edits and options.
func editCall(target string, options map[string]any, edits ...map[string]any) map[string]any {
	a := toolArgs("edit", target, map[string]any{"edits": edits})
	if options != nil {
		a["options"] = options
	}
	return a
}

// version is the version a read of a file holding content returns (TestReadVersion).
func version(content string) string { return fsroot.Version([]byte(content)) }

// editedFiles is the files list of a writer's answer.
func editedFiles(t *testing.T, out optionResult) []result.EditedFile {
	t.Helper()
	var files []result.EditedFile
	b, _ := json.Marshal(out.Result["files"])
	mustOK(t, json.Unmarshal(b, &files))
	return files
}

// TestEditFiles checks an edit whose edits name several files: every file is edited, or, when one
// edit fails for any reason, none is, and the answer names the edit and its file.
func TestEditFiles(t *testing.T) {
	many := func(n int) []map[string]any {
		var edits []map[string]any
		for i := range n {
			edits = append(edits, edit(fmt.Sprintf("many/f%02d.md", i), "n", "m"))
		}
		return edits
	}
	tests := []struct {
		name  string
		args  map[string]any
		saved map[string]string // what a person saves between the caller's read and the call
		code  string
		field string
		// changed is what the files changed hold after a call that succeeds; a failed call must
		// leave every file as it was (as saved).
		changed map[string]string
		check   func(t *testing.T, root string, out optionResult)
	}{
		{
			name:    "three files",
			args:    editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("b.md", "beta", "BETA"), edit("c.json", `"old"`, `"new"`)),
			changed: map[string]string{"a.md": "ALPHA one\n", "b.md": "BETA two\n", "c.json": "{\"menu\": [\"new\"]}\n"},
			check: func(t *testing.T, root string, out optionResult) {
				want := []result.EditedFile{
					{Path: "a.md", Version: version("ALPHA one\n"), SizeBytes: ptr(10), Replacements: 1},
					{Path: "b.md", Version: version("BETA two\n"), SizeBytes: ptr(9), Replacements: 1},
					{Path: "c.json", Version: version("{\"menu\": [\"new\"]}\n"), SizeBytes: ptr(18), Replacements: 1},
				}
				if diff := cmp.Diff(want, editedFiles(t, out)); diff != "" {
					t.Errorf("files (-want +got):\n%s", diff)
				}
				if out.Result["path"] != "a.md" || out.Result["replacements"] != 3.0 || out.Result["version"] != nil || out.Result["sizeBytes"] != nil {
					t.Errorf("answer %s: want path a.md, 3 replacements, and each file's version in files only", out.json())
				}
				d, _ := out.Result["diff"].(string)
				for _, h := range []string{"--- a/a.md\n+++ b/a.md\n", "-alpha one\n+ALPHA one\n", "--- a/b.md\n+++ b/b.md\n", "--- a/c.json\n+++ b/c.json\n"} {
					if !strings.Contains(d, h) {
						t.Errorf("diff %q lacks %q", d, h)
					}
				}
			},
		},
		{
			name:    "a file's edits apply in order, between other files'",
			args:    editCall("a.md", nil, edit("", "alpha", "X"), edit("b.md", "beta", "BETA"), edit("", "X one", "Y")),
			changed: map[string]string{"a.md": "Y\n", "b.md": "BETA two\n"},
		},
		{
			name:    "versions given for each file",
			args:    editCall("a.md", nil, edit("", "alpha", "ALPHA"), with(edit("b.md", "beta", "BETA"), map[string]any{"version": version("beta two\n")})),
			changed: map[string]string{"a.md": "ALPHA one\n", "b.md": "BETA two\n"},
		},
		{
			name:    "same file by two spellings and a link",
			args:    editCall("a.md", nil, edit("", "alpha", "A"), edit("sub/../a.md", "one", "1"), edit("link.md", "A 1", "done")),
			changed: map[string]string{"a.md": "done\n"},
			check: func(t *testing.T, root string, out optionResult) {
				// One file: the answer is a one-file edit's.
				if out.Result["files"] != nil || out.Result["version"] != version("done\n") || out.Result["replacements"] != 3.0 {
					t.Errorf("answer %s: want a one-file answer with the file's version", out.json())
				}
			},
		},
		{
			name:    "every edit names another file than target.path",
			args:    editCall("a.md", nil, edit("b.md", "beta", "BETA")),
			changed: map[string]string{"b.md": "BETA two\n"},
			check: func(t *testing.T, root string, out optionResult) {
				if out.Result["path"] != "b.md" || out.Result["version"] != version("BETA two\n") {
					t.Errorf("answer %s: want b.md's path and version", out.json())
				}
			},
		},
		{
			name: "twenty files",
			args: editCall("a.md", nil, many(intents.MaxEditFiles)...),
			changed: func() map[string]string {
				m := map[string]string{}
				for i := range intents.MaxEditFiles {
					m[fmt.Sprintf("many/f%02d.md", i)] = "m\n"
				}
				return m
			}(),
		},
		{
			name: "dry run",
			args: editCall("a.md", map[string]any{"dryRun": true}, edit("", "alpha", "ALPHA"), edit("b.md", "beta", "BETA")),
			check: func(t *testing.T, root string, out optionResult) {
				want := []result.EditedFile{
					{Path: "a.md", Version: version("alpha one\n"), Replacements: 1},
					{Path: "b.md", Version: version("beta two\n"), Replacements: 1},
				}
				if diff := cmp.Diff(want, editedFiles(t, out)); diff != "" {
					t.Errorf("files (-want +got):\n%s", diff)
				}
				d, _ := out.Result["diff"].(string)
				if out.Result["dryRun"] != true || !strings.Contains(d, "+ALPHA one\n") || !strings.Contains(d, "+BETA two\n") {
					t.Errorf("answer %s: want dryRun and both diffs", out.json())
				}
			},
		},
		{name: "second file's edit does not match", code: errs.CodeEditNotFound, field: "edits[1].oldText",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("b.md", "gamma", "G"), edit("c.json", "old", "new"))},
		{name: "second file's edit is ambiguous", code: errs.CodeAmbiguousEdit, field: "edits[1].oldText",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("b.md", "t", "T"))},
		{name: "first file's second edit does not match after another file's", code: errs.CodeEditNotFound, field: "edits[2].oldText",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("b.md", "beta", "BETA"), edit("", "alpha", "again"))},
		{name: "blocked path", code: errs.CodeBlocked, field: "edits[1].path",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit(".env", "TOKEN", "X"))},
		{name: "path outside the root", code: errs.CodeOutsideRoot, field: "edits[1].path",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("../outside.md", "x", "y"))},
		{name: "absolute path outside the root", code: errs.CodeOutsideRoot, field: "edits[1].path",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("/etc/passwd", "root", "x"))},
		{name: "extension not allowed", code: errs.CodeExtension, field: "edits[1].path",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("run.exe", "MZ", "x"))},
		{name: "missing file", code: errs.CodeNotFound, field: "edits[1].path",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("none.md", "x", "y"))},
		{name: "the root", code: errs.CodeRoot, field: "edits[1].path",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit(".", "x", "y"))},
		{name: "second file changed since its read", code: errs.CodeConflict, field: "edits[1].version",
			args:  editCall("a.md", nil, edit("", "alpha", "ALPHA"), with(edit("b.md", "beta", "BETA"), map[string]any{"version": version("beta two\n")})),
			saved: map[string]string{"b.md": "beta two\nthe person's line\n"},
			check: func(t *testing.T, root string, out optionResult) {
				msg, _ := out.Result["error"].(string)
				if out.Result["currentVersion"] != version("beta two\nthe person's line\n") || out.Result["currentContent"] != "beta two\nthe person's line\n" ||
					!strings.Contains(msg, `"b.md" changed since the read that returned edits[1].version`) {
					t.Errorf("answer %s: want b.md's version and text now, and the file named", out.json())
				}
			},
		},
		{name: "target.version conflicts, another file's edits given", code: errs.CodeConflict, field: "target.version",
			args:  with(editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("b.md", "beta", "BETA")), map[string]any{"target.version": version("alpha one\n")}),
			saved: map[string]string{"a.md": "alpha one\nthe person's line\n"}},
		{name: "two versions of one file", code: errs.CodeInvalidArgument, field: "edits[2].version",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), with(edit("b.md", "beta", "BETA"), map[string]any{"version": version("beta two\n")}),
				with(edit("./b.md", "two", "2"), map[string]any{"version": version("other")}))},
		{name: "an edit's version differs from target.version", code: errs.CodeInvalidArgument, field: "edits[1].version",
			args: with(editCall("a.md", nil, edit("", "alpha", "ALPHA"), with(edit("a.md", "one", "1"), map[string]any{"version": version("other")})),
				map[string]any{"target.version": version("alpha one\n")})},
		{name: "not a version", code: errs.CodeInvalidArgument, field: "edits[1].version",
			args: editCall("a.md", nil, edit("", "alpha", "ALPHA"), with(edit("b.md", "beta", "BETA"), map[string]any{"version": "v2"}))},
		{name: "target.version of a file no edit applies to", code: errs.CodeInvalidArgument, field: "target.version",
			args: with(editCall("a.md", nil, edit("b.md", "beta", "BETA")), map[string]any{"target.version": version("alpha one\n")})},
		{name: "more files than one edit changes", code: errs.CodeInvalidArgument, field: "edits",
			args: editCall("a.md", nil, append([]map[string]any{edit("", "alpha", "ALPHA")}, many(intents.MaxEditFiles)...)...)},
		{name: "dry run of a failing edit", code: errs.CodeEditNotFound, field: "edits[1].oldText",
			args: editCall("a.md", map[string]any{"dryRun": true}, edit("", "alpha", "ALPHA"), edit("b.md", "gamma", "G"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: editFilesTree()})
			for name, text := range tt.saved {
				mustOK(t, os.WriteFile(filepath.Join(e.root, name), []byte(text), 0o644))
			}
			before := e.call(t, ReaderName, toolArgs("exists", "a.md", nil)).Tree
			out := e.call(t, WriterName, tt.args)
			if code, _ := out.Result["code"].(string); code != tt.code || tt.code != "" && out.Result["field"] != tt.field {
				t.Fatalf("code %q, field %v; want %q, %q: %s", code, out.Result["field"], tt.code, tt.field, out.json())
			}
			want := maps.Clone(before)
			maps.Copy(want, tt.changed)
			want["link.md"] = want["a.md"] // the tree reads a link as what it leads to
			if diff := cmp.Diff(want, out.Tree); diff != "" {
				t.Errorf("files afterwards (-want +got):\n%s", diff)
			}
			if msg, _ := out.Result["error"].(string); tt.code != "" && strings.Contains(msg, "/etc") {
				t.Errorf("error echoes a host path: %q", msg)
			}
			if tt.check != nil {
				tt.check(t, e.root, out)
			}
		})
	}
}

// TestEditFilesRestore makes the write of an edit's second file fail after the first was written,
// as a person saving the second file (and then the first) at that moment would, and checks that
// the first is put back, or when it cannot be, that the answer names it.
func TestEditFilesRestore(t *testing.T) {
	const person = "the person's text\n"
	tests := []struct {
		name  string
		saves []string // what the person saves, right before b.md is written
		// files is what the files hold afterwards.
		files map[string]string
		note  string // what the error adds about a.md
	}{
		{name: "put back", saves: []string{"b.md"}, files: map[string]string{"a.md": "alpha one\n", "b.md": person, "c.json": "{\"menu\": [\"old\"]}\n"},
			note: `The files written before it were put back as they were ("a.md"): no file changed`},
		{name: "cannot be put back", saves: []string{"b.md", "a.md"}, files: map[string]string{"a.md": person, "b.md": person, "c.json": "{\"menu\": [\"old\"]}\n"},
			note: `Files written before it could not be put back and stay changed ("a.md"): read them before you retry`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: editFilesTree()})
			var writes []string
			e.srv.beforeWrite = func(name string) {
				writes = append(writes, name)
				if name == "b.md" {
					for _, f := range tt.saves {
						mustOK(t, os.WriteFile(filepath.Join(e.root, f), []byte(person), 0o644))
					}
				}
			}
			out := e.call(t, WriterName, editCall("a.md", nil, edit("", "alpha", "ALPHA"), edit("b.md", "beta", "BETA"), edit("c.json", "old", "new")))
			if out.Result["code"] != errs.CodeConflict || out.Result["field"] != "edits[1].version" {
				t.Fatalf("want CONFLICT on edits[1].version: %s", out.json())
			}
			if diff := cmp.Diff([]string{"a.md", "b.md"}, writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			msg, _ := out.Result["error"].(string)
			if !strings.Contains(msg, `"b.md" changed while this call was editing it`) || !strings.Contains(msg, tt.note) {
				t.Errorf("error %q does not name b.md and say %q", msg, tt.note)
			}
			if out.Result["currentContent"] != person {
				t.Errorf("currentContent = %v, want b.md's text now", out.Result["currentContent"])
			}
			for f, want := range tt.files {
				if got := out.Tree[f]; got != want {
					t.Errorf("%s = %q, want %q", f, got, want)
				}
			}
		})
	}
}
