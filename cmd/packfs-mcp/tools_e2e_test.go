package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/packfs/packfs-mcp/internal/tier"
)

// toolCase is one call and what its result must be: the error code, or "" for success and a check.
type toolCase struct {
	name  string
	tool  string
	args  map[string]any
	code  string
	check func(t *testing.T, res map[string]any)
}

const (
	reader   = "packfs-file-reader"
	searcher = "packfs-file-searcher"
	writer   = "packfs-file-writer"
)

func access(purpose, path string) map[string]any {
	return map[string]any{"purpose": purpose, "target": map[string]any{"path": path}}
}

func runCases(t *testing.T, s *session, cases []toolCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, isErr := s.call(tc.tool, tc.args)
			code, _ := res["code"].(string)
			if code != tc.code {
				t.Fatalf("code = %q, want %q; result %v", code, tc.code, res)
			}
			if tc.code != "" && !isErr {
				t.Fatalf("want isError for %s", tc.code)
			}
			if tc.code != "" {
				if msg, _ := res["error"].(string); len(msg) < 20 {
					t.Errorf("error message too thin to act on: %q", msg)
				}
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
}

func contentOf(t *testing.T, res map[string]any) string {
	t.Helper()
	c, ok := res["content"].(string)
	if !ok {
		t.Fatalf("no content in %v", res)
	}
	return c
}

func paths(res map[string]any) []string {
	var out []string
	files, _ := res["files"].([]any)
	for _, f := range files {
		m, _ := f.(map[string]any)
		p, _ := m["path"].(string)
		out = append(out, p)
	}
	return out
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestReaderEndToEnd(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t)
			before := f.snapshot(t)
			s := start(t, f, era.opts)
			runCases(t, s, readerCases(f))
			s.checkNoLeak()
			if diff := snapshotDiff(before, f.snapshot(t)); diff != "" {
				t.Errorf("outside the root changed: %s", diff)
			}
		})
	}
}

func readerCases(f *fixture) []toolCase {
	return []toolCase{
		{name: "read", tool: reader, args: access("read", "notes/a.md"), check: func(t *testing.T, r map[string]any) {
			if got := contentOf(t, r); got != "# A\nhello world\nsecond line\n" {
				t.Errorf("content = %q", got)
			}
			if m, _ := r["metadata"].(map[string]any); len(m) != 1 || m["executionMs"] == nil {
				t.Errorf("metadata = %v, want only executionMs", m)
			}
		}},
		{name: "read lines", tool: reader, args: map[string]any{"purpose": "read", "target": map[string]any{"path": "notes/a.md"}, "preferences": map[string]any{"offset": 1, "limit": 1}},
			check: func(t *testing.T, r map[string]any) {
				if got := contentOf(t, r); got != "hello world\n" {
					t.Errorf("content = %q", got)
				}
				if r["totalLines"] != 3.0 || r["nextOffset"] != 2.0 {
					t.Errorf("totalLines/nextOffset = %v/%v", r["totalLines"], r["nextOffset"])
				}
			}},
		{name: "read several", tool: reader, args: map[string]any{"purpose": "read", "target": map[string]any{
			"paths": []string{"notes/a.md", "link_out.md", ".env", filepath.Join(f.outside, "secret.txt"), "notes/missing.md", "link_in.md"}}},
			check: func(t *testing.T, r map[string]any) {
				files, _ := r["files"].([]any)
				want := []struct{ path, code string }{{"notes/a.md", ""}, {"link_out.md", "PATH_OUTSIDE_ROOT"}, {".env", "PATH_BLOCKED"},
					{"target.reads[3]", "PATH_OUTSIDE_ROOT"}, {"notes/missing.md", "NOT_FOUND"}, {"link_in.md", ""}}
				if len(files) != len(want) || r["content"] != nil {
					t.Fatalf("files = %v, want %d entries and no top-level content", r, len(want))
				}
				for i, w := range want {
					e := files[i].(map[string]any)
					code, _ := e["code"].(string)
					if code != w.code || e["path"] != w.path || (code == "") != (e["success"] == true) {
						t.Errorf("files[%d] = %v, want path %q code %q", i, e, w.path, w.code)
					}
					if strings.Contains(fmt.Sprint(e), f.dir) || strings.Contains(fmt.Sprint(e), "secret") && code == "" {
						t.Errorf("files[%d] leaks a host path or the outside file: %v", i, e)
					}
				}
				if c, _ := files[0].(map[string]any)["content"].(string); c != "# A\nhello world\nsecond line\n" {
					t.Errorf("notes/a.md content = %q", c)
				}
			}},
		{name: "read a range of each", tool: reader, args: map[string]any{"purpose": "read", "target": map[string]any{
			"reads": []map[string]any{{"path": "notes/a.md", "offset": 1, "limit": 1}, {"path": "big.txt", "offset": 2, "limit": 2}, {"path": "notes/a.md", "offset": 2}}}},
			check: func(t *testing.T, r map[string]any) {
				var got []string
				for _, f := range r["files"].([]any) {
					got = append(got, fmt.Sprint(f.(map[string]any)["content"]))
				}
				if want := []string{"hello world\n", "line 00003 of a long file that is read in chunks\nline 00004 of a long file that is read in chunks\n", "second line\n"}; fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("contents = %q, want %q", got, want)
				}
			}},
		{name: "read in chunks", tool: reader, args: map[string]any{"purpose": "read", "target": map[string]any{"path": "big.txt"}, "preferences": map[string]any{"chunkIfLarge": true}},
			check: func(t *testing.T, r map[string]any) {
				c := contentOf(t, r)
				if r["truncated"] != true || len(c) > 64<<10 || !strings.HasPrefix(c, "line 00001") || !strings.HasSuffix(c, "\n") {
					t.Errorf("chunk: truncated=%v len=%d", r["truncated"], len(c))
				}
				if n, _ := r["nextOffset"].(float64); int(n) != strings.Count(c, "\n") {
					t.Errorf("nextOffset %v, lines in chunk %d", n, strings.Count(c, "\n"))
				}
			}},
		{name: "read binary", tool: reader, args: access("read", "image.png"), check: func(t *testing.T, r map[string]any) {
			if r["binary"] != true || r["mediaType"] != "image/png" || r["content"] != nil {
				t.Errorf("binary result = %v", r)
			}
		}},
		{name: "read utf16 as binary", tool: reader, args: access("read", "utf16.txt"), check: func(t *testing.T, r map[string]any) {
			if r["binary"] != true {
				t.Errorf("utf-16 not reported as binary: %v", r)
			}
		}},
		{name: "read base64", tool: reader, args: map[string]any{"purpose": "read", "target": map[string]any{"path": "image.png", "encoding": "base64"}},
			check: func(t *testing.T, r map[string]any) {
				if r["encoding"] != "base64" || !strings.HasPrefix(contentOf(t, r), "iVBORw0K") {
					t.Errorf("base64 result = %v", r)
				}
			}},
		{name: "metadata", tool: reader, args: access("metadata", "notes/a.md"), check: func(t *testing.T, r map[string]any) {
			if r["sizeBytes"] != 28.0 || r["lines"] != 3.0 || r["type"] != "file" || r["mode"] != "0644" || r["mediaType"] != "text/markdown" {
				t.Errorf("metadata = %v", r)
			}
		}},
		{name: "metadata of the root", tool: reader, args: access("metadata", "."), check: func(t *testing.T, r map[string]any) {
			if r["type"] != "directory" {
				t.Errorf("root metadata = %v", r)
			}
		}},
		{name: "exists", tool: reader, args: access("exists", "notes/a.md"), check: func(t *testing.T, r map[string]any) {
			if r["exists"] != true {
				t.Errorf("exists = %v", r["exists"])
			}
		}},
		{name: "exists missing", tool: reader, args: access("exists", "notes/none.md"), check: func(t *testing.T, r map[string]any) {
			if r["exists"] != false {
				t.Errorf("exists = %v", r["exists"])
			}
		}},
		{name: "absolute inside", tool: reader, args: access("read", filepath.Join(f.root, "notes/a.md"))},
		{name: "link inside", tool: reader, args: access("read", "link_in.md")},
		{name: "target as JSON string", tool: reader, args: map[string]any{"purpose": "read", "target": `{"path":"notes/a.md"}`}},
		{name: "top-level path", tool: reader, args: map[string]any{"purpose": "read", "path": "notes/a.md"}},
		{name: "numbers as strings", tool: reader, args: map[string]any{"purpose": "read", "target": map[string]any{"path": "notes/a.md"}, "preferences": map[string]any{"limit": "1"}},
			check: func(t *testing.T, r map[string]any) {
				if contentOf(t, r) != "# A\n" {
					t.Errorf("limit as a string was not honoured: %v", r)
				}
			}},
		// Errors.
		{name: "missing", tool: reader, args: access("read", "notes/none.md"), code: "NOT_FOUND"},
		{name: "directory", tool: reader, args: access("read", "notes"), code: "IS_DIRECTORY"},
		{name: "dotdot", tool: reader, args: access("read", "../outside/secret.txt"), code: "PATH_OUTSIDE_ROOT"},
		{name: "nested dotdot", tool: reader, args: access("read", "notes/../../outside/secret.txt"), code: "PATH_OUTSIDE_ROOT"},
		{name: "absolute outside", tool: reader, args: access("read", filepath.Join(f.outside, "secret.txt")), code: "PATH_OUTSIDE_ROOT"},
		{name: "sibling prefix", tool: reader, args: access("read", f.root+"_evil/x.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "link to outside file", tool: reader, args: access("read", "link_out.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "absolute link to outside", tool: reader, args: access("read", "abs_out.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "through dir link", tool: reader, args: access("read", "dirlink/secret.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "chain to outside", tool: reader, args: access("read", "chain1.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "relative link up", tool: reader, args: access("read", "notes/up.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "link to /dev/zero", tool: reader, args: access("read", "zero.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "link to /etc/passwd", tool: reader, args: access("read", "passwd.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "exists through escaping link", tool: reader, args: access("exists", "dirlink/secret.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "blocked .env", tool: reader, args: access("read", ".env"), code: "PATH_BLOCKED"},
		{name: "blocked .git", tool: reader, args: access("read", ".git/config"), code: "PATH_BLOCKED"},
		{name: "blocked case", tool: reader, args: access("read", ".GIT/config"), code: "PATH_BLOCKED"},
		{name: "blocked pem", tool: reader, args: access("read", "keys/server.pem"), code: "PATH_BLOCKED"},
		{name: "link named .md to .env", tool: reader, args: access("read", "env_link.md"), code: "PATH_BLOCKED"},
		{name: "extension", tool: reader, args: access("read", "program.exe"), code: "EXTENSION_NOT_ALLOWED"},
		{name: "fifo", tool: reader, args: access("read", "fifo.md"), code: "NOT_REGULAR_FILE"},
		{name: "nul byte", tool: reader, args: access("read", "notes/a.md\x00.txt"), code: "INVALID_PATH"},
		{name: "newline", tool: reader, args: access("read", "notes/a\n.md"), code: "INVALID_PATH"},
		{name: "bidi", tool: reader, args: access("read", "notes/a\u202e.md"), code: "INVALID_PATH"},
		{name: "windows path", tool: reader, args: access("read", `C:\Users\x.md`), code: "INVALID_PATH"},
		{name: "backslash traversal", tool: reader, args: access("read", `a\..\..\outside\secret.md`), code: "INVALID_PATH"},
		{name: "too long", tool: reader, args: access("read", strings.Repeat("a/", 2100)+"x.md"), code: "INVALID_ARGUMENT"},
		{name: "home", tool: reader, args: access("read", "~/.ssh/id_rsa"), code: "PATH_BLOCKED"},
		{name: "percent", tool: reader, args: access("read", "%2e%2e%2fsecret.md"), code: "NOT_FOUND"},
		{name: "unknown purpose", tool: reader, args: access("write", "notes/a.md"), code: "INVALID_ARGUMENT", check: func(t *testing.T, r map[string]any) {
			if r["field"] != "purpose" || !strings.Contains(r["error"].(string), "metadata") {
				t.Errorf("unknown purpose error = %v", r)
			}
		}},
		{name: "missing path", tool: reader, args: map[string]any{"purpose": "read"}, code: "INVALID_ARGUMENT"},
		{name: "unknown field", tool: reader, args: map[string]any{"purpose": "read", "target": map[string]any{"path": "a.md"}, "bogus": 1}, code: "INVALID_ARGUMENT", check: func(t *testing.T, r map[string]any) {
			if r["field"] != "bogus" {
				t.Errorf("field = %v", r["field"])
			}
		}},
		{name: "wrong type", tool: reader, args: map[string]any{"purpose": "read", "target": map[string]any{"path": 7}}, code: "INVALID_ARGUMENT"},
	}
}

func snapshotDiff(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, "changed or removed: "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "created: "+k)
		}
	}
	return strings.Join(out, "; ")
}

func TestSearcherEndToEnd(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t)
			before := f.snapshot(t)
			s := start(t, f, era.opts)
			runCases(t, s, searcherCases())
			s.checkNoLeak()
			if diff := snapshotDiff(before, f.snapshot(t)); diff != "" {
				t.Errorf("outside the root changed: %s", diff)
			}
		})
	}
}

// intent builds tool arguments: a purpose, a target path, and any other top-level fields.
func intent(purpose, path string, extra map[string]any) map[string]any {
	m := map[string]any{"purpose": purpose, "target": map[string]any{"path": path}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func searcherCases() []toolCase {
	return []toolCase{
		{name: "list root", tool: searcher, args: intent("list", ".", nil), check: func(t *testing.T, r map[string]any) {
			p := paths(r)
			for _, want := range []string{"notes", "big.txt", "image.png"} {
				if !has(p, want) {
					t.Errorf("listing lacks %s: %v", want, p)
				}
			}
			for _, hidden := range []string{".env", ".git", "keys/server.pem", "link_out.md", "dirlink", "env_link.md", "fifo.md"} {
				if has(p, hidden) {
					t.Errorf("listing shows %s: %v", hidden, p)
				}
			}
			// A file of a type the tools do not open is named, with its size and what they do.
			for _, f := range r["files"].([]any) {
				if m := f.(map[string]any); m["path"] == "program.exe" && (m["opens"] != "no" || m["sizeBytes"] == nil) {
					t.Errorf("program.exe listed as %v, want opens no, with its size", m)
				}
			}
			if !has(p, "program.exe") {
				t.Errorf("listing lacks program.exe: %v", p)
			}
		}},
		{name: "list recursive", tool: searcher, args: intent("list", ".", map[string]any{"options": map[string]any{"recursive": true}}), check: func(t *testing.T, r map[string]any) {
			p := paths(r)
			if !has(p, "notes/a.md") || !has(p, "full/inner.md") {
				t.Errorf("recursive listing = %v", p)
			}
			for _, x := range p {
				if strings.HasPrefix(x, "dirlink/") || strings.HasPrefix(x, "loop/self/") || strings.HasPrefix(x, ".git") {
					t.Errorf("recursive listing followed or showed %s", x)
				}
			}
		}},
		{name: "list with criteria", tool: searcher, args: intent("list", ".", map[string]any{"options": map[string]any{"recursive": true},
			"target": map[string]any{"path": ".", "criteria": map[string]any{"extension": "md", "sizeBytes": map[string]any{"max": 100}}}}), check: func(t *testing.T, r map[string]any) {
			for _, x := range paths(r) {
				if !strings.HasSuffix(x, ".md") {
					t.Errorf("criteria let through %s", x)
				}
			}
			if !has(paths(r), "notes/a.md") {
				t.Errorf("criteria lost notes/a.md: %v", paths(r))
			}
		}},
		{name: "list several names", tool: searcher, args: intent("list", ".", map[string]any{"options": map[string]any{"recursive": true},
			"target": map[string]any{"path": ".", "criteria": map[string]any{"name": "{a,dup,inner}.md"}}}), check: func(t *testing.T, r map[string]any) {
			if p := paths(r); strings.Join(p, " ") != "full/inner.md notes/a.md notes/dup.md" {
				t.Errorf("listing of three names = %v", p)
			}
		}},
		{name: "list pages", tool: searcher, args: intent("list", "notes", map[string]any{"options": map[string]any{"maxResults": 2}}), check: func(t *testing.T, r map[string]any) {
			if len(paths(r)) != 2 || r["truncated"] != true || r["nextOffset"] != 2.0 {
				t.Errorf("page = %v", r)
			}
		}},
		{name: "search content", tool: searcher, args: intent("search_content", ".", map[string]any{"target": map[string]any{"path": ".", "query": "HELLO"}}), check: func(t *testing.T, r map[string]any) {
			if p := paths(r); len(p) != 2 || p[0] != "notes/a.md" || p[1] != "notes/b.md" {
				t.Fatalf("search hits = %v", p)
			}
			first := r["files"].([]any)[0].(map[string]any)
			m := first["matches"].([]any)[0].(map[string]any)
			if m["line"] != 2.0 || m["text"] != "hello world" {
				t.Errorf("match = %v", m)
			}
		}},
		{name: "search content not recursive", tool: searcher, args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "hello"},
			"options": map[string]any{"recursive": false}}, check: func(t *testing.T, r map[string]any) {
			if p := paths(r); len(p) != 0 {
				t.Errorf("recursive:false searched below the root's own files: %v", p)
			}
		}},
		{name: "search content not recursive finds the folder's own files", tool: searcher, args: map[string]any{"purpose": "search_content",
			"target": map[string]any{"path": ".", "query": "line 00001 of"}, "options": map[string]any{"recursive": false}}, check: func(t *testing.T, r map[string]any) {
			if p := paths(r); len(p) != 1 || p[0] != "big.txt" {
				t.Errorf("search hits = %v, want big.txt", p)
			}
		}},
		{name: "list refuses includeContent", tool: searcher, args: intent("list", ".", map[string]any{"options": map[string]any{"includeContent": true}}), code: "INVALID_ARGUMENT",
			check: func(t *testing.T, r map[string]any) {
				if msg, _ := r["error"].(string); r["field"] != "options.includeContent" || !strings.Contains(msg, "search_content or search_semantic") {
					t.Errorf("refusal = %v, want it to name options.includeContent and the purposes that take it", r)
				}
			}},
		{name: "search regex with context", tool: searcher, args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": "notes", "query": "^hello (w|a)"}, "options": map[string]any{"regex": true, "contextLines": 1}},
			check: func(t *testing.T, r map[string]any) {
				if len(paths(r)) != 2 {
					t.Fatalf("regex hits = %v", paths(r))
				}
				m := r["files"].([]any)[0].(map[string]any)["matches"].([]any)[0].(map[string]any)
				if b, _ := m["before"].([]any); len(b) != 1 || b[0] != "# A" {
					t.Errorf("context = %v", m)
				}
			}},
		{name: "search finds nothing outside", tool: searcher, args: intent("search_content", ".", map[string]any{"target": map[string]any{"path": ".", "query": marker}}), check: func(t *testing.T, r map[string]any) {
			if len(paths(r)) != 0 {
				t.Errorf("search reached %v", paths(r))
			}
		}},
		{name: "bad regex", tool: searcher, args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "("}, "options": map[string]any{"regex": true}}, code: "INVALID_ARGUMENT"},
		{name: "search without query", tool: searcher, args: intent("search_content", ".", nil), code: "INVALID_ARGUMENT"},
		{name: "list outside", tool: searcher, args: intent("list", "..", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "list dir link", tool: searcher, args: intent("list", "dirlink", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "list blocked", tool: searcher, args: intent("list", ".git", nil), code: "PATH_BLOCKED"},
		{name: "list a file", tool: searcher, args: intent("list", "notes/a.md", nil), code: "NOT_DIRECTORY"},
		{name: "loop terminates", tool: searcher, args: intent("list", "loop", map[string]any{"options": map[string]any{"recursive": true}})},
	}
}

func TestWriterEndToEnd(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t)
			before := f.snapshot(t)
			// "content too large" is about the writer's own limit: the message bound, below it by
			// default, would refuse the call first (TestStdioMessageBound).
			s := start(t, f, era.opts, "--allow-write", "--max-request-bytes", roomForHugeWrites)
			runCases(t, s, writerCases(f))
			s.checkNoLeak()
			after := f.snapshot(t)
			if diff := snapshotDiff(before, after); diff != "" {
				t.Errorf("outside the root changed: %s", diff)
			}
			if _, err := os.Lstat(f.pwned); err == nil {
				t.Errorf("a write through the dangling link created %s", f.pwned)
			}
		})
	}
}

// TestEditRestoresEndToEnd makes the second write of an edit of two files fail, the second file
// sitting in a folder the server's user may read and not write, and checks that the first file,
// written by then, is put back. Run as root, the server runs as nobody (see startUnprivileged),
// since root writes everywhere.
func TestEditRestoresEndToEnd(t *testing.T) {
	f := newFixture(t)
	locked := filepath.Join(f.root, "locked")
	must(t, os.Mkdir(locked, 0o755))
	must(t, os.WriteFile(filepath.Join(locked, "l.md"), []byte("locked\n"), 0o644))
	must(t, os.Chmod(locked, 0o555))
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	s := startUnprivileged(t, f, "--allow-write", "--no-index")
	runCases(t, s, []toolCase{
		{name: "second write refused, first put back", tool: writer, code: "ACCESS_DENIED",
			args: intent("edit", "notes/a.md", map[string]any{"edits": []map[string]any{
				{"oldText": "# A", "newText": "# A2"}, {"path": "locked/l.md", "oldText": "locked", "newText": "open"}}}),
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "notes/a.md", "# A\nhello world\nsecond line\n")(t, r)
				fileIs(f, "locked/l.md", "locked\n")(t, r)
				msg, _ := r["error"].(string)
				if r["field"] != "edits[1].path" || !strings.Contains(msg, `"locked/l.md"`) || !strings.Contains(msg, `put back as they were ("notes/a.md")`) {
					t.Errorf("answer %v: want locked/l.md named and notes/a.md put back", r)
				}
			}},
	})
	s.checkNoLeak()
}

func fileIs(f *fixture, name, want string) func(t *testing.T, r map[string]any) {
	return func(t *testing.T, r map[string]any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(f.root, name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", name, b, err, want)
		}
	}
}

func writerCases(f *fixture) []toolCase {
	edit := func(path string, edits []map[string]any, opts map[string]any) map[string]any {
		m := intent("edit", path, map[string]any{"edits": edits})
		if opts != nil {
			m["options"] = opts
		}
		return m
	}
	return []toolCase{
		{name: "create", tool: writer, args: intent("create", "new/deep/n.md", map[string]any{"content": "fresh\n", "options": map[string]any{"createPath": true}}),
			check: fileIs(f, "new/deep/n.md", "fresh\n")},
		{name: "create exists", tool: writer, args: intent("create", "notes/a.md", map[string]any{"content": "x"}), code: "ALREADY_EXISTS",
			check: fileIs(f, "notes/a.md", "# A\nhello world\nsecond line\n")},
		{name: "create without parent", tool: writer, args: intent("create", "nope/n.md", map[string]any{"content": "x"}), code: "NOT_FOUND"},
		{name: "create on dangling link", tool: writer, args: intent("create", "dangling.md", map[string]any{"content": "x"}), code: "PATH_OUTSIDE_ROOT"},
		{name: "update on dangling link", tool: writer, args: intent("update", "dangling.md", map[string]any{"content": "x"}), code: "PATH_OUTSIDE_ROOT"},
		{name: "append on dangling link", tool: writer, args: intent("append", "dangling.md", map[string]any{"content": "x"}), code: "PATH_OUTSIDE_ROOT"},
		{name: "create under dir link", tool: writer, args: intent("create", "dirlink/new/deeper/f.md", map[string]any{"content": "x", "options": map[string]any{"createPath": true}}), code: "PATH_OUTSIDE_ROOT"},
		{name: "update", tool: writer, args: intent("update", "notes/b.md", map[string]any{"content": "replaced\n"}),
			check: fileIs(f, "notes/b.md", "replaced\n")},
		{name: "update missing", tool: writer, args: intent("update", "notes/none.md", map[string]any{"content": "x"}), code: "NOT_FOUND"},
		{name: "update through inner link keeps the link", tool: writer, args: intent("update", "link_in.md", map[string]any{"content": "# A\nhello world\nsecond line\n"}),
			check: func(t *testing.T, r map[string]any) {
				if fi, err := os.Lstat(filepath.Join(f.root, "link_in.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("link_in.md is no longer a link")
				}
			}},
		{name: "append", tool: writer, args: intent("append", "notes/b.md", map[string]any{"content": "more\n"}), check: func(t *testing.T, r map[string]any) {
			fileIs(f, "notes/b.md", "replaced\nmore\n")(t, r)
			if d, _ := r["diff"].(string); !strings.HasSuffix(d, " replaced\n+more\n") {
				t.Errorf("append's diff = %q, want the file's last line and the added one", d)
			}
			if r["bytesAppended"] != 5.0 || r["sizeBytes"] != 14.0 {
				t.Errorf("append of 5 bytes to 9: bytesAppended %v, sizeBytes %v; want 5 and 14", r["bytesAppended"], r["sizeBytes"])
			}
		}},
		{name: "append to binary", tool: writer, args: intent("append", "utf16.txt", map[string]any{"content": "x"}), code: "NOT_TEXT"},
		{name: "edit", tool: writer, args: edit("notes/a.md", []map[string]any{{"oldText": "hello world", "newText": "hello there"}}, nil),
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "notes/a.md", "# A\nhello there\nsecond line\n")(t, r)
				if r["replacements"] != 1.0 || !strings.Contains(r["diff"].(string), "-hello world\n+hello there\n") {
					t.Errorf("edit result = %v", r)
				}
			}},
		{name: "edit dry run", tool: writer, args: edit("notes/a.md", []map[string]any{{"oldText": "second line", "newText": "2nd"}}, map[string]any{"dryRun": true}),
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "notes/a.md", "# A\nhello there\nsecond line\n")(t, r)
				want := "--- a/notes/a.md\n+++ b/notes/a.md\n@@ -1,3 +1,3 @@\n # A\n hello there\n-second line\n+2nd\n"
				if r["diff"] != want || r["dryRun"] != true {
					t.Errorf("diff = %q", r["diff"])
				}
			}},
		{name: "edit ambiguous", tool: writer, args: edit("notes/dup.md", []map[string]any{{"oldText": "x = 1", "newText": "x = 2"}}, nil), code: "AMBIGUOUS_EDIT",
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "notes/dup.md", "x = 1\nx = 1\n")(t, r)
				if r["field"] != "edits[0].oldText" || !strings.Contains(r["error"].(string), "2 places") {
					t.Errorf("ambiguous = %v", r)
				}
			}},
		{name: "edit replace all", tool: writer, args: edit("notes/dup.md", []map[string]any{{"oldText": "x = 1", "newText": "x = 2", "replaceAll": true}}, nil),
			check: fileIs(f, "notes/dup.md", "x = 2\nx = 2\n")},
		{name: "edit not found", tool: writer, args: edit("notes/a.md", []map[string]any{{"oldText": "hello thère", "newText": "y"}}, nil), code: "EDIT_NOT_FOUND",
			check: func(t *testing.T, r map[string]any) {
				if !strings.Contains(r["error"].(string), "hello there") {
					t.Errorf("no nearest line in %q", r["error"])
				}
			}},
		{name: "edit second fails, nothing written", tool: writer, args: edit("notes/a.md", []map[string]any{{"oldText": "# A", "newText": "# B"}, {"oldText": "absent", "newText": "z"}}, nil), code: "EDIT_NOT_FOUND",
			check: fileIs(f, "notes/a.md", "# A\nhello there\nsecond line\n")},
		{name: "edit keeps CRLF", tool: writer, args: edit("notes/crlf.md", []map[string]any{{"oldText": "one\ntwo", "newText": "uno\ndos"}}, nil),
			check: fileIs(f, "notes/crlf.md", "uno\r\ndos\r\nthree\r\n")},
		{name: "edit two files", tool: writer, args: edit("notes/dup.md", []map[string]any{
			{"oldText": "x = 2", "newText": "y = 3", "replaceAll": true}, {"path": "notes/crlf.md", "oldText": "dos", "newText": "two"}}, nil),
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "notes/dup.md", "y = 3\ny = 3\n")(t, r)
				fileIs(f, "notes/crlf.md", "uno\r\ntwo\r\nthree\r\n")(t, r)
				d, _ := r["diff"].(string)
				if got := paths(r); !slices.Equal(got, []string{"notes/dup.md", "notes/crlf.md"}) || r["replacements"] != 3.0 ||
					!strings.Contains(d, "+++ b/notes/dup.md\n") || !strings.Contains(d, "+++ b/notes/crlf.md\n") {
					t.Errorf("edit of two files = %v", r)
				}
			}},
		{name: "edit two files, second refused", tool: writer, args: edit("notes/dup.md", []map[string]any{
			{"oldText": "y = 3", "newText": "z", "replaceAll": true}, {"path": "notes/crlf.md", "oldText": "absent", "newText": "z"}}, nil), code: "EDIT_NOT_FOUND",
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "notes/dup.md", "y = 3\ny = 3\n")(t, r)
				fileIs(f, "notes/crlf.md", "uno\r\ntwo\r\nthree\r\n")(t, r)
				if r["field"] != "edits[1].oldText" || !strings.Contains(r["error"].(string), `"notes/crlf.md"`) {
					t.Errorf("refused edit = %v", r)
				}
			}},
		{name: "edit two files, second blocked", tool: writer, args: edit("notes/dup.md", []map[string]any{
			{"oldText": "y = 3", "newText": "z", "replaceAll": true}, {"path": ".env", "oldText": "TOKEN", "newText": "X"}}, nil), code: "PATH_BLOCKED",
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "notes/dup.md", "y = 3\ny = 3\n")(t, r)
				if r["field"] != "edits[1].path" {
					t.Errorf("field = %v", r["field"])
				}
			}},
		{name: "edit blocked", tool: writer, args: edit(".env", []map[string]any{{"oldText": "TOKEN", "newText": "X"}}, nil), code: "PATH_BLOCKED"},
		{name: "edits missing", tool: writer, args: intent("edit", "notes/a.md", nil), code: "INVALID_ARGUMENT"},
		{name: "write disallowed extension", tool: writer, args: intent("create", "evil.exe", map[string]any{"content": "MZ"}), code: "EXTENSION_NOT_ALLOWED"},
		{name: "write into .git", tool: writer, args: intent("create", ".git/hooks/post-commit.md", map[string]any{"content": "x"}), code: "PATH_BLOCKED"},
		{name: "write outside", tool: writer, args: intent("create", "../outside/x.md", map[string]any{"content": "x"}), code: "PATH_OUTSIDE_ROOT"},
		{name: "write fifo", tool: writer, args: intent("append", "fifo.md", map[string]any{"content": "x"}), code: "NOT_REGULAR_FILE"},
		{name: "mkdir", tool: writer, args: intent("mkdir", "made/here", nil), check: func(t *testing.T, r map[string]any) {
			if fi, err := os.Stat(filepath.Join(f.root, "made/here")); err != nil || !fi.IsDir() || r["created"] != true {
				t.Errorf("mkdir: %v %v", err, r)
			}
		}},
		{name: "mkdir through link", tool: writer, args: intent("mkdir", "dirlink/x", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "move", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "notes/b.md", "destination": "made/b.md"}},
			check: fileIs(f, "made/b.md", "replaced\nmore\n")},
		{name: "move onto existing", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "made/b.md", "destination": "notes/a.md"}}, code: "ALREADY_EXISTS"},
		{name: "move outside", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "made/b.md", "destination": "../outside/b.md"}}, code: "PATH_OUTSIDE_ROOT",
			check: func(t *testing.T, r map[string]any) {
				if r["field"] != "target.destination" {
					t.Errorf("field = %v", r["field"])
				}
			}},
		{name: "move to disallowed extension", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "made/b.md", "destination": "made/b.exe"}}, code: "EXTENSION_NOT_ALLOWED"},
		{name: "move the root", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": ".", "destination": "x"}}, code: "ROOT_PROTECTED"},
		{name: "move a link moves the link", tool: writer, args: map[string]any{"purpose": "move", "target": map[string]any{"path": "link_in.md", "destination": "made/link.md"}},
			check: func(t *testing.T, r map[string]any) {
				if fi, err := os.Lstat(filepath.Join(f.root, "made/link.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link was not moved as a link: %v", err)
				}
			}},
		{name: "delete non-empty", tool: writer, args: intent("delete", "full", nil), code: "NOT_EMPTY"},
		{name: "delete recursive", tool: writer, args: intent("delete", "full", map[string]any{"options": map[string]any{"recursive": true}}), check: func(t *testing.T, r map[string]any) {
			if _, err := os.Stat(filepath.Join(f.root, "full")); !os.IsNotExist(err) {
				t.Errorf("full still there")
			}
		}},
		{name: "delete the root", tool: writer, args: intent("delete", ".", nil), code: "ROOT_PROTECTED"},
		{name: "delete escaping link refused", tool: writer, args: intent("delete", "dirlink", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "delete file", tool: writer, args: intent("delete", "new/deep/n.md", nil), check: func(t *testing.T, r map[string]any) {
			if r["deleted"] != true {
				t.Errorf("delete = %v", r)
			}
		}},
		{name: "content too large", tool: writer, args: intent("create", "huge.md", map[string]any{"content": strings.Repeat("x", 11<<20)}), code: "TOO_LARGE"},
		{name: "copy a file", tool: writer, args: copyOf("notes/crlf.md", "copies/crlf.md", map[string]any{"createPath": true}),
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "copies/crlf.md", "uno\r\ntwo\r\nthree\r\n")(t, r)
				fileIs(f, "notes/crlf.md", "uno\r\ntwo\r\nthree\r\n")(t, r)
				if r["created"] != true || r["sizeBytes"] != 17.0 || r["destination"] != "copies/crlf.md" || len(fmt.Sprint(r["version"])) != 16 {
					t.Errorf("copy = %v", r)
				}
			}},
		{name: "copy onto a file", tool: writer, args: copyOf("notes/crlf.md", "notes/a.md", nil), code: "ALREADY_EXISTS",
			check: func(t *testing.T, r map[string]any) {
				fileIs(f, "notes/a.md", "# A\nhello there\nsecond line\n")(t, r)
				if r["field"] != "target.destination" {
					t.Errorf("field = %v", r["field"])
				}
			}},
		{name: "copy a folder without recursive", tool: writer, args: copyOf("notes", "notes2", nil), code: "INVALID_ARGUMENT",
			check: func(t *testing.T, r map[string]any) {
				if r["field"] != "options.recursive" {
					t.Errorf("field = %v", r["field"])
				}
			}},
		{name: "copy a folder, dry run", tool: writer, args: copyOf("notes", "notes2", map[string]any{"recursive": true, "dryRun": true}),
			check: func(t *testing.T, r map[string]any) {
				if _, err := os.Lstat(filepath.Join(f.root, "notes2")); err == nil || r["dryRun"] != true || r["filesCopied"] != 3.0 {
					t.Errorf("dry run = %v (notes2: %v)", r, err)
				}
			}},
		{name: "copy a folder", tool: writer, args: copyOf("notes", "notes2", map[string]any{"recursive": true}),
			check: func(t *testing.T, r map[string]any) {
				for _, name := range []string{"a.md", "dup.md", "crlf.md"} {
					want, _ := os.ReadFile(filepath.Join(f.root, "notes", name))
					fileIs(f, "notes2/"+name, string(want))(t, r)
				}
				// notes/up.md leads out of the root: the listing hides it, so the copy counts it.
				if _, err := os.Lstat(filepath.Join(f.root, "notes2/up.md")); err == nil || r["filesCopied"] != 3.0 || r["foldersCopied"] != 1.0 || r["hiddenEntries"] != 1.0 {
					t.Errorf("folder copy = %v", r)
				}
			}},
		{name: "copy is searchable at once", tool: searcher, args: intent("search_semantic", "notes2", map[string]any{"target": map[string]any{"path": "notes2", "query": "hello there"}}),
			check: func(t *testing.T, r map[string]any) {
				if !has(paths(r), "notes2/a.md") {
					t.Errorf("search in the copy found %v", paths(r))
				}
			}},
		{name: "copy a folder into itself", tool: writer, args: copyOf("notes", "notes/again", map[string]any{"recursive": true}), code: "INVALID_ARGUMENT"},
		{name: "copy outside", tool: writer, args: copyOf("notes/a.md", "../outside/a.md", nil), code: "PATH_OUTSIDE_ROOT",
			check: func(t *testing.T, r map[string]any) {
				if r["field"] != "target.destination" {
					t.Errorf("field = %v", r["field"])
				}
			}},
		{name: "copy a FIFO", tool: writer, args: copyOf("fifo.md", "f.md", nil), code: "NOT_REGULAR_FILE"},
	}
}

// copyOf is a copy of path to dest, with options if not nil.
func copyOf(path, dest string, options map[string]any) map[string]any {
	m := map[string]any{"purpose": "copy", "target": map[string]any{"path": path, "destination": dest}}
	if options != nil {
		m["options"] = options
	}
	return m
}

func TestReadOnlyServer(t *testing.T) {
	tier.Full(t, "every write purpose refused through the binary")
	f := newFixture(t)
	s := start(t, f, nil)
	if _, ok := s.schemas[writer]; ok {
		t.Errorf("the writer is listed on a read-only server")
	}
	s2 := start(t, f, nil, "--permissions", "read")
	if _, ok := s2.schemas[searcher]; ok {
		t.Errorf("the searcher is listed without list or search permission")
	}
	s4 := start(t, f, nil, "--allow-write", "--read-only")
	if _, ok := s4.schemas[writer]; ok {
		t.Errorf("the writer is listed with --read-only")
	}
	s5 := start(t, f, nil, "--allow-write", "--disable-tool", "packfs-file-reader,packfs-file-writer")
	if len(s5.schemas) != 1 || s5.schemas[searcher] == nil {
		t.Errorf("with the reader and writer disabled, tools = %v, want only the searcher", slices.Collect(maps.Keys(s5.schemas)))
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "packfs-file-reader"
	req.Params.Arguments = access("read", "notes/a.md")
	if res, err := s5.c.CallTool(context.Background(), req); err == nil && !res.IsError {
		t.Errorf("a disabled tool answered: %+v", res)
	}
	s3 := start(t, f, nil, "--permissions", "read,list")
	res, _ := s3.call(searcher, intent("search_content", ".", map[string]any{"target": map[string]any{"path": ".", "query": "x"}}))
	if res["code"] != "PERMISSION_DENIED" || !strings.Contains(res["error"].(string), "search") {
		t.Errorf("search without permission = %v", res)
	}
}

func TestProtocol(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t)
			s := start(t, f, era.opts, "--allow-write")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			req := mcp.CallToolRequest{}
			req.Params.Name = "no-such-tool"
			if _, err := s.c.CallTool(ctx, req); !errors.Is(err, mcp.ErrInvalidParams) {
				t.Errorf("unknown tool: err = %v, want -32602", err)
			}
			list, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
			must(t, err)
			if len(list.Tools) != 3 {
				t.Fatalf("tools = %d", len(list.Tools))
			}
			for _, tool := range list.Tools {
				a := tool.Annotations
				ro := tool.Name != writer
				if a.Title == "" || a.ReadOnlyHint == nil || *a.ReadOnlyHint != ro || a.DestructiveHint == nil || *a.DestructiveHint == ro ||
					a.OpenWorldHint == nil || *a.OpenWorldHint || a.IdempotentHint == nil || *a.IdempotentHint != ro {
					t.Errorf("%s annotations = %+v", tool.Name, a)
				}
			}
			// The server keeps answering after all of that.
			if res, _ := s.call(reader, access("exists", ".")); res["exists"] != true {
				t.Errorf("root exists = %v", res)
			}
		})
	}
}
