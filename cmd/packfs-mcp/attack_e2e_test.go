package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/internal/tier"
	"github.com/packfs/packfs-mcp/tools"
)

// TestSecurityCases runs the attack cases of sections A, B, D, E, G, I and J (J55, J56) of the
// shared security-cases document against the built binary. Each case is named by its number there.
// The oracle does not trust the server: no response may carry the outside marker, an outside host
// path or the version of a file the reader may not read, and nothing outside the root may change.
func TestSecurityCases(t *testing.T) {
	tier.Full(t, "every attack case through the built binary, in both protocol eras")
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t)
			extras(t, f)
			before := f.snapshot(t)
			// D32 is about the writer's own limit: the message bound, below it by default, would
			// refuse the call first (TestStdioMessageBound).
			s := start(t, f, era.opts, "--allow-write", "--max-request-bytes", roomForHugeWrites)
			t0 := time.Now()
			runCases(t, s, securityCases(f))
			s.checkNoLeak()
			// J56: no answer carries the version of a file the reader may not read, outside
			// the root (reached by a link or a hard link) or blocked.
			for name, content := range map[string]string{"outside/secret.md": marker + "\n", ".env": "TOKEN=" + marker + "\n"} {
				for _, text := range s.seen {
					if strings.Contains(text, versionOf(content)) {
						t.Errorf("a response carries the version of %s: %s", name, text)
					}
				}
			}
			after := f.snapshot(t)
			if d := snapshotDiff(before, after); d != "" {
				t.Errorf("outside the root changed: %s", d)
			}
			if _, err := os.Lstat(f.pwned); err == nil {
				t.Errorf("%s was created", f.pwned)
			}
			t.Logf("%d cases in %v", len(securityCases(f)), time.Since(t0))
		})
	}
}

// extras adds to the fixture what only the attack cases need.
func extras(t *testing.T, f *fixture) {
	t.Helper()
	for name, target := range map[string]string{
		"loop_a.md":  "loop_b.md",
		"loop_b.md":  "loop_a.md",
		"abs_in.md":  filepath.Join(f.root, "notes/a.md"),
		"stdin.md":   "/dev/stdin",
		"environ.md": "/proc/self/environ",
		"link_b.md":  "notes/b.md",
		"link_c.md":  "notes/crlf.md",
	} {
		must(t, os.Symlink(target, filepath.Join(f.root, name)))
	}
	must(t, os.WriteFile(filepath.Join(f.root, "NOTES.MD"), []byte("upper\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.root, "Mixed.Md"), []byte("mixed\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.root, "latin1.md"), []byte(latin1), 0o644))
	// One line of 1 MiB, for a read of several files (J55): only the first name of it gets its line.
	must(t, os.WriteFile(filepath.Join(f.root, "oneline.md"), bytes.Repeat([]byte("x"), 1<<20), 0o644))
	sparse, err := os.Create(filepath.Join(f.root, "sparse.txt"))
	must(t, err)
	must(t, sparse.Truncate(10<<30))
	must(t, sparse.Close())
	ln, err := net.Listen("unix", filepath.Join(f.root, "sock.md"))
	must(t, err)
	t.Cleanup(func() { ln.Close() })
	// mixed/ is a folder for the copy cases: one file beside everything a copy must leave out.
	mixed := filepath.Join(f.root, "mixed")
	must(t, os.Mkdir(mixed, 0o755))
	must(t, os.WriteFile(filepath.Join(mixed, "ok.md"), []byte("ok\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(mixed, ".env"), []byte("TOKEN="+marker+"\n"), 0o644))
	must(t, os.Symlink("../../outside/secret.md", filepath.Join(mixed, "out.md")))
	must(t, os.Symlink("ok.md", filepath.Join(mixed, "in.md")))
	testfs.Mkfifo(t, filepath.Join(mixed, "fifo.md"))
	ln2, err := net.Listen("unix", filepath.Join(mixed, "sock.md"))
	must(t, err)
	t.Cleanup(func() { ln2.Close() })
	// A hard link to a file outside, for the versioned writes (J56); TestHardLinks has the rest.
	must(t, os.Link(filepath.Join(f.outside, "secret.md"), filepath.Join(f.root, "hard.md")))
	// A device node (/dev/null's numbers) needs CAP_MKNOD: CI runs as root and has it; elsewhere
	// the device cases are left out, and say so.
	for _, name := range []string{"dev.md", "mixed/dev.md"} {
		if err := mknodNull(filepath.Join(f.root, name)); err != nil {
			t.Logf("no device node (%v): the device cases do not run", err)
		}
	}
}

// latin1 is text in ISO 8859-1, which is not valid UTF-8 (case D30): a reader that decoded it would
// show U+FFFD, and a writer that edited the decoded text would write U+FFFD back.
const latin1 = "caf\xe9 cr\xe8me br\xfbl\xe9e\n"

func securityCases(f *fixture) []toolCase {
	// unchanged checks that a refused write left latin1.md byte for byte as it was.
	unchanged := func(t *testing.T, _ map[string]any) {
		if b, err := os.ReadFile(filepath.Join(f.root, "latin1.md")); err != nil || string(b) != latin1 {
			t.Errorf("latin1.md = %q, %v; want %q", b, err, latin1)
		}
	}
	move := func(from, to string, overwrite bool) map[string]any {
		return map[string]any{"purpose": "move", "target": map[string]any{"path": from, "destination": to}, "options": map[string]any{"overwrite": overwrite}}
	}
	create := func(p string) map[string]any { return intent("create", p, map[string]any{"content": "x"}) }
	cases := []toolCase{
		// A. Lexical.
		{name: "A1 ../x", tool: reader, args: access("read", "../outside/secret.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "A1 a/../../x", tool: reader, args: access("read", "notes/../../outside/secret.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "A1 ./././../x", tool: reader, args: access("read", "./././../outside/secret.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "A1 .. alone", tool: searcher, args: intent("list", "..", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "A1 a/.. is the root", tool: searcher, args: intent("list", "notes/..", nil)},
		{name: "A2 absolute outside", tool: reader, args: access("read", filepath.Join(f.outside, "secret.md")), code: "PATH_OUTSIDE_ROOT"},
		{name: "A2 absolute inside", tool: reader, args: access("read", filepath.Join(f.root, "notes", "a.md"))},
		{name: "A3 sibling prefix dir", tool: reader, args: access("read", f.root+"_evil/x.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "A3 sibling prefix name", tool: reader, args: access("read", f.root+"x"), code: "PATH_OUTSIDE_ROOT"},
		{name: "A3 back out and in", tool: reader, args: access("read", f.root+"/../root_evil/x.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "A4 list .", tool: searcher, args: intent("list", ".", nil)},
		{name: "A4 list empty path", tool: searcher, args: intent("list", "", nil)},
		{name: "A4 list absolute root", tool: searcher, args: intent("list", f.root, nil)},
		{name: "A4 stat root", tool: reader, args: access("metadata", ".")},
		{name: "A4 delete root", tool: writer, args: intent("delete", ".", map[string]any{"options": map[string]any{"recursive": true}}), code: "ROOT_PROTECTED"},
		{name: "A4 delete absolute root", tool: writer, args: intent("delete", f.root, map[string]any{"options": map[string]any{"recursive": true}}), code: "ROOT_PROTECTED"},
		{name: "A4 move root", tool: writer, args: move(".", "elsewhere", false), code: "ROOT_PROTECTED"},
		{name: "A4 move onto root", tool: writer, args: move("notes/a.md", ".", true), code: "ROOT_PROTECTED"},
		{name: "A4 overwrite root", tool: writer, args: intent("update", ".", map[string]any{"content": "x"}), code: "ROOT_PROTECTED"},
		{name: "A5 backslash", tool: reader, args: access("read", `notes\..\..\outside\secret.md`), code: "INVALID_PATH"},
		{name: "A5 windows drive", tool: writer, args: create(`C:\Users\x.md`), code: "INVALID_PATH"},
		{name: "A5 UNC", tool: reader, args: access("read", `\\server\share\x.md`), code: "INVALID_PATH"},
		{name: "A6 NUL", tool: writer, args: create("x\x00.md"), code: "INVALID_PATH"},
		{name: "A6 CR LF", tool: writer, args: create("x\r\ninjected.md"), code: "INVALID_PATH"},
		{name: "A6 control", tool: reader, args: access("read", "x\x1b[31m.md"), code: "INVALID_PATH"},
		{name: "A6 bidi", tool: writer, args: create("x\u202egnp.md"), code: "INVALID_PATH"},
		{name: "A6 zero width", tool: reader, args: access("read", "notes/\u200ba.md"), code: "INVALID_PATH"},
		{name: "A7 path over 4096 bytes", tool: reader, args: access("read", strings.Repeat("d/", 2048)+"x.md"), code: "INVALID_ARGUMENT"},
		{name: "A7 component over 255 bytes", tool: writer, args: create(strings.Repeat("n", 256) + ".md"), code: "INVALID_PATH"},
		{name: "A7 deep nesting", tool: writer, args: intent("mkdir", strings.Repeat("d/", 2000), nil)},
		{name: "A8 tilde", tool: reader, args: access("read", "~/.ssh/id_rsa"), code: "PATH_BLOCKED"},
		{name: "A8 percent encoding", tool: reader, args: access("read", "%2e%2e%2foutside%2fsecret.md"), code: "NOT_FOUND"},
		{name: "A9 relative to the root", tool: reader, args: access("exists", "attack_e2e_test.go"), check: func(t *testing.T, r map[string]any) {
			if r["exists"] != false {
				t.Errorf("a path resolved against the working directory: %v", r)
			}
		}},
		// B. Symbolic links.
		{name: "B10 file link out", tool: reader, args: access("read", "link_out.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B10 dir link out", tool: searcher, args: intent("list", "dirlink", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "B10 link/secret", tool: reader, args: access("read", "dirlink/secret.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B11 chain", tool: reader, args: access("read", "chain1.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B11 relative ../../", tool: reader, args: access("read", "notes/up.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B11 absolute back inside is refused", tool: reader, args: access("read", "abs_in.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B12 create on dangling", tool: writer, args: create("dangling.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B12 update on dangling", tool: writer, args: intent("update", "dangling.md", map[string]any{"content": "x"}), code: "PATH_OUTSIDE_ROOT"},
		{name: "B12 append on dangling", tool: writer, args: intent("append", "dangling.md", map[string]any{"content": "x"}), code: "PATH_OUTSIDE_ROOT"},
		{name: "B12 mkdir on dangling", tool: writer, args: intent("mkdir", "dangling.md", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "B12 move onto dangling", tool: writer, args: move("notes/dup.md", "dangling.md", true), code: "PATH_OUTSIDE_ROOT"},
		{name: "B13 new path under dir link", tool: writer, args: intent("create", "dirlink/new/deeper/f.md", map[string]any{"content": "x", "options": map[string]any{"createPath": true}}), code: "PATH_OUTSIDE_ROOT"},
		{name: "B14 link loop", tool: reader, args: access("read", "loop_a.md"), code: "INVALID_PATH"},
		{name: "B14 walk through d/loop -> ..", tool: searcher, args: intent("list", ".", map[string]any{"options": map[string]any{"recursive": true}})},
		{name: "B14 search terminates", tool: searcher, args: intent("search_content", ".", map[string]any{"target": map[string]any{"path": ".", "query": "hello"}})},
		{name: "B15 /dev/zero", tool: reader, args: access("read", "zero.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B15 /dev/stdin", tool: reader, args: access("read", "stdin.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B15 /proc/self/environ", tool: reader, args: access("read", "environ.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B15 /etc/passwd", tool: reader, args: access("read", "passwd.md"), code: "PATH_OUTSIDE_ROOT"},
		{name: "B17 move onto a link replaces the link", tool: writer, args: move("notes/dup.md", "link_b.md", true), check: func(t *testing.T, r map[string]any) {
			fi, err := os.Lstat(filepath.Join(f.root, "link_b.md"))
			b, _ := os.ReadFile(filepath.Join(f.root, "notes/b.md"))
			if err != nil || fi.Mode()&os.ModeSymlink != 0 || string(b) != "see [a](a.md)\nhello again\n" {
				t.Errorf("the move wrote through the link: %v %v %q", fi.Mode(), err, b)
			}
		}},
		{name: "B18 notes.md -> .env", tool: reader, args: access("read", "env_link.md"), code: "PATH_BLOCKED"},
		// D. Special files and exhaustion.
		{name: "D25 FIFO read", tool: reader, args: access("read", "fifo.md"), code: "NOT_REGULAR_FILE"},
		{name: "D25 FIFO metadata", tool: reader, args: access("metadata", "fifo.md"), check: func(t *testing.T, r map[string]any) {
			if r["type"] != "other" {
				t.Errorf("fifo metadata = %v", r)
			}
		}},
		{name: "D25 FIFO append", tool: writer, args: intent("append", "fifo.md", map[string]any{"content": "x"}), code: "NOT_REGULAR_FILE"},
		{name: "D25 FIFO update", tool: writer, args: intent("update", "fifo.md", map[string]any{"content": "x"}), code: "NOT_REGULAR_FILE"},
		{name: "D25 FIFO edit", tool: writer, args: intent("edit", "fifo.md", map[string]any{"edits": []map[string]any{{"oldText": "a", "newText": "b"}}}), code: "NOT_REGULAR_FILE"},
		{name: "D26 socket", tool: reader, args: access("read", "sock.md"), code: "NOT_REGULAR_FILE"},
		{name: "D28 sparse 10 GB", tool: reader, args: access("read", "sparse.txt"), code: "TOO_LARGE"},
		{name: "D28 sparse 10 GB edit", tool: writer, args: intent("edit", "sparse.txt", map[string]any{"edits": []map[string]any{{"oldText": "a", "newText": "b"}}}), code: "TOO_LARGE"},
		{name: "D30 binary", tool: reader, args: access("read", "image.png"), check: func(t *testing.T, r map[string]any) {
			if r["binary"] != true {
				t.Errorf("binary = %v", r)
			}
		}},
		{name: "D30 UTF-16 edit refused", tool: writer, args: intent("edit", "utf16.txt", map[string]any{"edits": []map[string]any{{"oldText": "h", "newText": "H"}}}), code: "NOT_TEXT"},
		{name: "D30 invalid UTF-8 read as binary", tool: reader, args: access("read", "latin1.md"), check: func(t *testing.T, r map[string]any) {
			if r["binary"] != true || r["content"] != nil {
				t.Errorf("read of invalid UTF-8 = %v, want binary without content", r)
			}
		}},
		{name: "D30 invalid UTF-8 edit refused", tool: writer, args: intent("edit", "latin1.md", map[string]any{"edits": []map[string]any{{"oldText": "caf", "newText": "CAF"}}}), code: "NOT_TEXT", check: unchanged},
		{name: "D30 invalid UTF-8 append refused", tool: writer, args: intent("append", "latin1.md", map[string]any{"content": "more\n"}), code: "NOT_TEXT", check: unchanged},
		{name: "D32 huge write", tool: writer, args: intent("create", "huge.md", map[string]any{"content": strings.Repeat("y", 10<<20+1)}), code: "TOO_LARGE"},
		{name: "D32 too many edits", tool: writer, args: intent("edit", "notes/a.md", map[string]any{"edits": manyEdits(101)}), code: "INVALID_ARGUMENT"},
		// E. Name policy.
		{name: "E33 FILE.MD", tool: reader, args: access("read", "NOTES.MD")},
		{name: "E33 Mixed.Md", tool: reader, args: access("read", "Mixed.Md")},
		{name: "E33 x.md.exe", tool: writer, args: create("x.md.exe"), code: "EXTENSION_NOT_ALLOWED"},
		{name: "E33 x.exe.md", tool: writer, args: create("x.exe.md")},
		{name: "E33 trailing dot", tool: writer, args: create("x.exe."), code: "INVALID_PATH"},
		{name: "E33 trailing space", tool: writer, args: create("x.md "), code: "INVALID_PATH"},
		{name: "E34 Makefile", tool: writer, args: create("Makefile")},
		{name: "E34 id_rsa", tool: writer, args: create("id_rsa"), code: "PATH_BLOCKED"},
		{name: "E34 .env", tool: writer, args: create(".env.local"), code: "PATH_BLOCKED"},
		{name: "E35 fullwidth dot", tool: writer, args: create("x\uff0eexe"), code: "EXTENSION_NOT_ALLOWED"},
		{name: "E35 RTLO", tool: writer, args: create("x\u202eexe.md"), code: "INVALID_PATH"},
		{name: "E36 move to a blocked name", tool: writer, args: move("x.exe.md", ".git/x.md", false), code: "PATH_BLOCKED"},
		{name: "E36 move from a blocked name", tool: writer, args: move(".env", "env.md", false), code: "PATH_BLOCKED"},
		{name: "E36 edit a disallowed file", tool: writer, args: intent("edit", "program.exe", map[string]any{"edits": []map[string]any{{"oldText": "M", "newText": "N"}}}), code: "EXTENSION_NOT_ALLOWED"},
		{name: "E37 .git/config", tool: reader, args: access("read", ".git/config"), code: "PATH_BLOCKED"},
		{name: "E37 a/.GIT/x", tool: writer, args: intent("create", "notes/.GIT/x.md", map[string]any{"content": "x", "options": map[string]any{"createPath": true}}), code: "PATH_BLOCKED"},
		{name: "E37 my.github.md is not .git", tool: writer, args: create("my.github.md")},
		// G. Load and denial of service (the rate limits have their own tests).
		{name: "G40 glob of stars", tool: searcher, args: map[string]any{"purpose": "list", "target": map[string]any{"path": ".", "criteria": map[string]any{"name": strings.Repeat("*a", 120) + "*b"}}, "options": map[string]any{"recursive": true}}},
		{name: "G40 10 KB query", tool: searcher, args: intent("search_content", ".", map[string]any{"target": map[string]any{"path": ".", "query": strings.Repeat("q", 10_000)}}), code: "INVALID_ARGUMENT"},
		{name: "G40 huge alternation", tool: searcher, args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": strings.Repeat("(a|aa)*", 140)}, "options": map[string]any{"regex": true}}},
		{name: "G40 nested repetition", tool: searcher, args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "((((a*)*)*)*)*b"}, "options": map[string]any{"regex": true}}},
		{name: "G40 huge repeat count", tool: searcher, args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "a{1000}{1000}"}, "options": map[string]any{"regex": true}}, code: "INVALID_ARGUMENT"},
		// I. Protocol.
		{name: "I48 wrong type", tool: searcher, args: map[string]any{"purpose": "list", "target": map[string]any{"path": "."}, "options": map[string]any{"recursive": "perhaps"}}, code: "INVALID_ARGUMENT"},
		{name: "I48 missing purpose", tool: writer, args: map[string]any{"target": map[string]any{"path": "a.md"}}, code: "INVALID_ARGUMENT"},
		{name: "I48 unknown argument", tool: searcher, args: map[string]any{"purpose": "list", "target": map[string]any{"path": ".", "glob": "*"}}, code: "INVALID_ARGUMENT"},
		{name: "I51 errors name only root-relative paths", tool: reader, args: access("read", filepath.Join(f.outside, "sub", "deep.md")), code: "PATH_OUTSIDE_ROOT"},
	}
	cases = append(cases, copyCases(f)...)
	cases = append(cases, readManyCases(f)...)
	return append(cases, versionCases(f)...)
}

// readManyCases are case J55, a read of several files (target.paths): each path is answered on its
// own, as a read of it alone would be, without the content of any refused one; the list is
// bounded in count, and the files in bytes, however often one large file is named.
func readManyCases(f *fixture) []toolCase {
	readMany := func(paths ...string) map[string]any {
		return map[string]any{"purpose": "read", "target": map[string]any{"paths": paths}}
	}
	// files checks that the answer holds one entry per path, in order, with the codes want ("" for
	// a file read), and returns the entries.
	files := func(t *testing.T, r map[string]any, want ...string) []map[string]any {
		t.Helper()
		list, _ := r["files"].([]any)
		if len(list) != len(want) {
			t.Fatalf("%d files, want %d: %v", len(list), len(want), r)
		}
		var out []map[string]any
		for i, e := range list {
			m := e.(map[string]any)
			code, _ := m["code"].(string)
			if code != want[i] || (code == "") != (m["success"] == true) || code != "" && m["content"] != nil {
				t.Errorf("files[%d] = %v, want code %q", i, m, want[i])
			}
			out = append(out, m)
		}
		return out
	}
	var many []string
	for i := range 5000 {
		many = append(many, fmt.Sprintf("f%04d.md", i))
	}
	// big.txt (1 MB of 50-byte lines) named 20 ways: one answer's budget holds for them all.
	var bigs []string
	for i := range 20 {
		bigs = append(bigs, strings.Repeat("./", i)+"big.txt")
	}
	var sparse, oneline []string
	for i := range 20 {
		sparse = append(sparse, strings.Repeat("./", i)+"sparse.txt")
		oneline = append(oneline, strings.Repeat("./", i)+"oneline.md")
	}
	cases := []toolCase{
		{name: "J55 allowed, blocked, missing, special and outside files", tool: reader,
			args: readMany("notes/a.md", ".env", "missing.md", "fifo.md", "sock.md", "sparse.txt", "link_out.md", "hard.md", "zero.md", "environ.md", "program.exe", "notes", f.outside+"/secret.md"),
			check: func(t *testing.T, r map[string]any) {
				got := files(t, r, "", "PATH_BLOCKED", "NOT_FOUND", "NOT_REGULAR_FILE", "NOT_REGULAR_FILE", "TOO_LARGE", "PATH_OUTSIDE_ROOT", "HARD_LINK",
					"PATH_OUTSIDE_ROOT", "PATH_OUTSIDE_ROOT", "EXTENSION_NOT_ALLOWED", "IS_DIRECTORY", "PATH_OUTSIDE_ROOT")
				if got[0]["content"] != "# A\nhello world\nsecond line\n" {
					t.Errorf("notes/a.md = %v", got[0])
				}
			}},
		{name: "J55 each refused as a read of it alone", tool: reader, args: readMany("fifo.md", "sock.md"), check: func(t *testing.T, r map[string]any) {
			files(t, r, "NOT_REGULAR_FILE", "NOT_REGULAR_FILE")
		}},
		{name: "J55 21 paths", tool: reader, args: readMany(many[:21]...), code: "INVALID_ARGUMENT"},
		{name: "J55 5000 paths", tool: reader, args: readMany(many...), code: "INVALID_ARGUMENT"},
		{name: "J55 a path twice", tool: reader, args: readMany("notes/a.md", "notes/a.md"), code: "INVALID_ARGUMENT"},
		{name: "J55 one large file named 20 ways", tool: reader, args: readMany(bigs...), check: func(t *testing.T, r map[string]any) {
			total := 0
			for _, e := range files(t, r, make([]string, 20)...) {
				c, _ := e["content"].(string)
				total += len(c)
			}
			if total > tools.MaxContentBytes {
				t.Errorf("%d bytes of content in one answer, want at most %d", total, tools.MaxContentBytes)
			}
		}},
		{name: "J55 one line of 1 MiB named 20 ways", tool: reader, args: readMany(oneline...), check: func(t *testing.T, r map[string]any) {
			// The first name gets the line, as a read of it alone would; the others wait for a
			// call of their own, so the answer holds the line once, not twenty times.
			for i, e := range files(t, r, make([]string, 20)...) {
				c, _ := e["content"].(string)
				if want := map[bool]int{true: 1 << 20, false: 0}[i == 0]; len(c) != want || i > 0 && e["truncated"] != true {
					t.Errorf("files[%d]: %d bytes of content (truncated %v), want %d", i, len(c), e["truncated"], want)
				}
			}
		}},
		{name: "J55 a 10 GB sparse file named 20 ways", tool: reader, args: readMany(sparse...), check: func(t *testing.T, r map[string]any) {
			want := make([]string, 20)
			for i := range want {
				want[i] = "TOO_LARGE"
			}
			files(t, r, want...)
		}},
	}
	if _, err := os.Lstat(filepath.Join(f.root, "dev.md")); err == nil {
		cases = append(cases, toolCase{name: "J55 a device among files", tool: reader, args: readMany("notes/a.md", "dev.md"), check: func(t *testing.T, r map[string]any) {
			files(t, r, "", "NOT_REGULAR_FILE")
		}})
	}
	return cases
}

// versionCases are case J56, versioned writes (target.version): a forged version is refused with
// CONFLICT and writes nothing, and a version on a file the reader may not read is refused as the
// reader would refuse it, never answered with the file's version or text.
func versionCases(f *fixture) []toolCase {
	const forged = "0123456789abcdef"
	const a = "# A\nhello world\nsecond line\n"
	versioned := func(purpose, path string, extra map[string]any) map[string]any {
		args := intent(purpose, path, extra)
		args["target"].(map[string]any)["version"] = forged
		return args
	}
	// kept checks that notes/a.md is as it was, and nothing was made at notes/moved.md.
	kept := func(t *testing.T, r map[string]any) {
		if b, err := os.ReadFile(filepath.Join(f.root, "notes/a.md")); err != nil || string(b) != a {
			t.Errorf("notes/a.md = %q, %v; want it unchanged", b, err)
		}
		if _, err := os.Lstat(filepath.Join(f.root, "notes/moved.md")); err == nil {
			t.Error("a refused move made notes/moved.md")
		}
		if r["currentVersion"] != versionOf(a) || r["field"] != "target.version" {
			t.Errorf("answer %v, want currentVersion %s on target.version", r, versionOf(a))
		}
	}
	// nothing checks that a refusal carries no version and no text.
	nothing := func(t *testing.T, r map[string]any) {
		if r["currentVersion"] != nil || r["currentContent"] != nil || r["version"] != nil {
			t.Errorf("a refusal carries a version or text: %v", r)
		}
	}
	edit := map[string]any{"edits": []map[string]any{{"oldText": "hello", "newText": "bye"}}}
	cases := []toolCase{
		{name: "J56 forged version, update", tool: writer, args: versioned("update", "notes/a.md", map[string]any{"content": "x"}), code: "CONFLICT", check: kept},
		{name: "J56 forged version, append", tool: writer, args: versioned("append", "notes/a.md", map[string]any{"content": "x"}), code: "CONFLICT", check: kept},
		{name: "J56 forged version, edit", tool: writer, args: versioned("edit", "notes/a.md", edit), code: "CONFLICT", check: kept},
		{name: "J56 forged version, delete", tool: writer, args: versioned("delete", "notes/a.md", nil), code: "CONFLICT", check: kept},
		{name: "J56 forged version, move", tool: writer, args: versioned("move", "notes/a.md", nil), code: "CONFLICT", check: kept},
		{name: "J56 forged version, binary file", tool: writer, args: versioned("update", "latin1.md", map[string]any{"content": "x"}), code: "CONFLICT", check: func(t *testing.T, r map[string]any) {
			// The reader returns its version but not its text: so does the conflict.
			if r["currentVersion"] != versionOf(latin1) || r["currentContent"] != nil {
				t.Errorf("answer %v, want the version and no text", r)
			}
		}},
		{name: "J56 not a version", tool: writer, args: map[string]any{"purpose": "update", "content": "x", "target": map[string]any{"path": "notes/a.md", "version": "../../etc/passwd"}}, code: "INVALID_ARGUMENT"},
		{name: "J56 version of a blocked file", tool: writer, args: versioned("update", ".env", map[string]any{"content": "x"}), code: "PATH_BLOCKED", check: nothing},
		{name: "J56 version through a link out", tool: writer, args: versioned("delete", "link_out.md", nil), code: "PATH_OUTSIDE_ROOT", check: nothing},
		{name: "J56 version through a folder link out", tool: writer, args: versioned("edit", "dirlink/secret.md", edit), code: "PATH_OUTSIDE_ROOT", check: nothing},
		{name: "J56 version of a hard link out", tool: writer, args: versioned("move", "hard.md", nil), code: "HARD_LINK", check: nothing},
		{name: "J56 version of a hard link out, delete", tool: writer, args: versioned("delete", "hard.md", nil), code: "HARD_LINK", check: nothing},
		{name: "J56 version of a FIFO", tool: writer, args: versioned("append", "fifo.md", map[string]any{"content": "x"}), code: "NOT_REGULAR_FILE", check: nothing},
		{name: "J56 version of a disallowed extension", tool: writer, args: versioned("delete", "program.exe", nil), code: "EXTENSION_NOT_ALLOWED", check: nothing},
		{name: "J56 version of the 10 GB sparse file", tool: writer, args: versioned("update", "sparse.txt", map[string]any{"content": "x"}), code: "TOO_LARGE", check: nothing},
	}
	for i := range cases {
		if p, _ := cases[i].args["purpose"].(string); p == "move" {
			cases[i].args["target"].(map[string]any)["destination"] = "notes/moved.md"
		}
	}
	return cases
}

// copyCases are the attack cases for purpose copy, which reads at one path and writes at another:
// each end is attacked on its own, and neither may leave the root, reach a special file or slip
// past the policy.
func copyCases(f *fixture) []toolCase {
	dest := func(t *testing.T, r map[string]any) {
		if r["field"] != "target.destination" {
			t.Errorf("field = %v, want target.destination", r["field"])
		}
	}
	folder := map[string]any{"recursive": true}
	cases := []toolCase{
		{name: "A1 copy to ../x", tool: writer, args: copyOf("notes/a.md", "../outside/copied.md", nil), code: "PATH_OUTSIDE_ROOT", check: dest},
		{name: "A1 copy to a/../../x", tool: writer, args: copyOf("notes/a.md", "notes/../../copied.md", nil), code: "PATH_OUTSIDE_ROOT", check: dest},
		{name: "A1 copy a folder to ../x", tool: writer, args: copyOf("notes", "../outside/notes", folder), code: "PATH_OUTSIDE_ROOT", check: dest},
		{name: "A1 copy from ../x", tool: writer, args: copyOf("../outside/secret.md", "stolen.md", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "A2 copy to an absolute path outside", tool: writer, args: copyOf("notes/a.md", filepath.Join(f.outside, "copied.md"), nil), code: "PATH_OUTSIDE_ROOT", check: dest},
		{name: "A2 copy from an absolute path outside", tool: writer, args: copyOf(filepath.Join(f.outside, "secret.md"), "stolen.md", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "A4 copy the root", tool: writer, args: copyOf(".", "rootcopy", folder), code: "ROOT_PROTECTED"},
		{name: "A4 copy onto the root", tool: writer, args: copyOf("notes", ".", map[string]any{"recursive": true, "overwrite": true}), code: "ROOT_PROTECTED", check: dest},
		{name: "B10 copy a link out", tool: writer, args: copyOf("link_out.md", "stolen.md", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "B10 copy a folder link out", tool: writer, args: copyOf("dirlink", "stolen", folder), code: "PATH_OUTSIDE_ROOT"},
		{name: "B10 copy into a folder link out", tool: writer, args: copyOf("notes/a.md", "dirlink/copied.md", nil), code: "PATH_OUTSIDE_ROOT", check: dest},
		{name: "B10 copy a folder into a folder link out", tool: writer, args: copyOf("notes", "dirlink/notes", folder), code: "PATH_OUTSIDE_ROOT", check: dest},
		{name: "B11 copy a chain out", tool: writer, args: copyOf("chain1.md", "stolen.md", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "B12 copy onto dangling", tool: writer, args: copyOf("notes/a.md", "dangling.md", map[string]any{"overwrite": true}), code: "PATH_OUTSIDE_ROOT", check: dest},
		{name: "B13 copy to a new path under a folder link", tool: writer, args: copyOf("notes/a.md", "dirlink/new/deeper/f.md", map[string]any{"createPath": true}), code: "PATH_OUTSIDE_ROOT", check: dest},
		{name: "B15 copy /dev/zero", tool: writer, args: copyOf("zero.md", "zero-copy.md", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "B15 copy /proc/self/environ", tool: writer, args: copyOf("environ.md", "env-copy.md", nil), code: "PATH_OUTSIDE_ROOT"},
		{name: "B17 copy onto a link replaces the link", tool: writer, args: copyOf("notes/a.md", "link_c.md", map[string]any{"overwrite": true}), check: func(t *testing.T, r map[string]any) {
			fi, err := os.Lstat(filepath.Join(f.root, "link_c.md"))
			b, _ := os.ReadFile(filepath.Join(f.root, "notes/crlf.md"))
			if err != nil || fi.Mode()&os.ModeSymlink != 0 || string(b) != "one\r\ntwo\r\nthree\r\n" {
				t.Errorf("the copy wrote through the link: %v %v %q", fi.Mode(), err, b)
			}
		}},
		{name: "B18 copy notes.md -> .env", tool: writer, args: copyOf("env_link.md", "env-copy.md", nil), code: "PATH_BLOCKED"},
		{name: "D25 FIFO copy", tool: writer, args: copyOf("fifo.md", "fifo-copy.md", nil), code: "NOT_REGULAR_FILE"},
		{name: "D26 socket copy", tool: writer, args: copyOf("sock.md", "sock-copy.md", nil), code: "NOT_REGULAR_FILE"},
		{name: "D28 sparse 10 GB copy", tool: writer, args: copyOf("sparse.txt", "sparse-copy.txt", nil), code: "TOO_LARGE", check: func(t *testing.T, r map[string]any) {
			if _, err := os.Lstat(filepath.Join(f.root, "sparse-copy.txt")); err == nil {
				t.Error("a refused copy left its file")
			}
		}},
		{name: "E36 copy to a blocked name", tool: writer, args: copyOf("notes/a.md", ".git/a.md", nil), code: "PATH_BLOCKED", check: dest},
		{name: "E36 copy a folder into a blocked folder", tool: writer, args: copyOf("notes", ".git/notes", folder), code: "PATH_BLOCKED", check: dest},
		{name: "E36 copy from a blocked name", tool: writer, args: copyOf(".env", "env.md", nil), code: "PATH_BLOCKED"},
		{name: "E36 copy to a disallowed extension", tool: writer, args: copyOf("notes/a.md", "notes/a.exe", nil), code: "EXTENSION_NOT_ALLOWED", check: dest},
		{name: "E36 copy from a disallowed extension", tool: writer, args: copyOf("program.exe", "program.md", nil), code: "EXTENSION_NOT_ALLOWED"},
		// mixed/ holds a file, a FIFO, a socket, a device (where mknod works), a link out, a link
		// in, and a secret: only the file is copied, the link in is named as skipped, and what the
		// listing hides is counted, never named.
		{name: "D25 D26 B10 E37 copy a folder of special files, links and secrets", tool: writer, args: copyOf("mixed", "mixed2", folder), check: func(t *testing.T, r map[string]any) {
			entries, err := os.ReadDir(filepath.Join(f.root, "mixed2"))
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			skipped, _ := r["skipped"].([]any)
			if err != nil || !slices.Equal(names, []string{"ok.md"}) || r["filesCopied"] != 1.0 || r["hiddenEntries"] != 2.0 || len(skipped) != 1 {
				t.Errorf("mixed2 holds %v (%v); result %v", names, err, r)
			}
			if text := fmt.Sprint(r); strings.Contains(text, ".env") || strings.Contains(text, "out.md") {
				t.Errorf("the result names what the listing hides: %v", r)
			}
		}},
	}
	if _, err := os.Lstat(filepath.Join(f.root, "dev.md")); err == nil {
		cases = append(cases, toolCase{name: "D26 device copy", tool: writer, args: copyOf("dev.md", "dev-copy.md", nil), code: "NOT_REGULAR_FILE"})
	}
	return cases
}

func manyEdits(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"oldText": fmt.Sprint(i), "newText": "x"}
	}
	return out
}

// TestHugeDirectory is case D29: a 100,000-entry directory is listed page by page, every answer
// bounded, and the pages meet without gap or overlap.
func TestHugeDirectory(t *testing.T) {
	tier.Full(t, "creates 100,000 files")
	f := newFixture(t)
	dir := filepath.Join(f.root, "huge")
	must(t, os.Mkdir(dir, 0o755))
	const n = 100_000
	for i := 0; i < n; i++ {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%06d.md", i)), nil, 0o644))
	}
	s := start(t, f, nil)
	page := func(offset int) map[string]any {
		res, _ := s.call(searcher, intent("list", "huge", map[string]any{"options": map[string]any{"maxResults": 500, "offset": offset}}))
		return res
	}
	first := page(0)
	if p := paths(first); len(p) != 500 || p[0] != "huge/f000000.md" || first["truncated"] != true || first["nextOffset"] != 500.0 {
		t.Fatalf("first page: %d entries, truncated %v, next %v", len(p), first["truncated"], first["nextOffset"])
	}
	second := page(500)
	if p := paths(second); p[0] != "huge/f000500.md" {
		t.Errorf("second page starts at %s", p[0])
	}
	last := page(n - 100)
	if p := paths(last); len(p) != 100 || p[99] != fmt.Sprintf("huge/f%06d.md", n-1) || last["truncated"] == true {
		t.Errorf("last page: %d entries, truncated %v", len(p), last["truncated"])
	}
	all, _ := s.call(searcher, intent("list", ".", map[string]any{"options": map[string]any{"recursive": true}}))
	if len(paths(all)) != 200 || all["truncated"] != true {
		t.Errorf("a recursive listing without maxResults returned %d entries", len(paths(all)))
	}
}

// TestUnreadable is case D31: files and folders the server's user cannot read give a clean error
// with the root-relative path, and walks go on past them. Run as root, the server runs as nobody
// (see startUnprivileged), since root reads everything.
func TestUnreadable(t *testing.T) {
	f := newFixture(t)
	must(t, os.Chmod(filepath.Join(f.root, "notes/b.md"), 0))
	must(t, os.Chmod(filepath.Join(f.root, "full"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(f.root, "full"), 0o755) })
	must(t, os.MkdirAll(filepath.Join(f.root, "box", "locked"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.root, "box", "open.md"), []byte("open\n"), 0o644))
	must(t, os.Chmod(filepath.Join(f.root, "box", "locked"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(f.root, "box", "locked"), 0o755) })
	s := startUnprivileged(t, f, "--allow-write", "--no-index")
	runCases(t, s, []toolCase{
		{name: "file", tool: reader, args: access("read", "notes/b.md"), code: "ACCESS_DENIED", check: func(t *testing.T, r map[string]any) {
			if !strings.Contains(r["error"].(string), `"notes/b.md"`) {
				t.Errorf("error = %v", r["error"])
			}
		}},
		{name: "edit a file", tool: writer, args: intent("edit", "notes/b.md", map[string]any{"edits": []map[string]any{{"oldText": "see", "newText": "saw"}}}), code: "ACCESS_DENIED"},
		{name: "folder", tool: searcher, args: intent("list", "full", nil), code: "ACCESS_DENIED"},
		{name: "file in a folder", tool: reader, args: access("read", "full/inner.md"), code: "ACCESS_DENIED"},
		{name: "copy a file", tool: writer, args: copyOf("notes/b.md", "b2.md", nil), code: "ACCESS_DENIED"},
		{name: "copy a folder", tool: writer, args: copyOf("full", "full2", map[string]any{"recursive": true}), code: "ACCESS_DENIED"},
		{name: "copy a folder holding one", tool: writer, args: copyOf("box", "box2", map[string]any{"recursive": true}), code: "ACCESS_DENIED",
			check: func(t *testing.T, r map[string]any) {
				// A copy without the folder it cannot read would lose what that folder holds.
				if _, err := os.Lstat(filepath.Join(f.root, "box2")); err == nil || !strings.Contains(r["error"].(string), `"box/locked"`) {
					t.Errorf("want nothing copied and box/locked named: %v", r)
				}
			}},
		{name: "search goes past them", tool: searcher, args: intent("search_content", ".", map[string]any{"target": map[string]any{"path": ".", "query": "hello"}}), check: func(t *testing.T, r map[string]any) {
			if got := paths(r); !slices.Contains(got, "notes/a.md") || slices.Contains(got, "notes/b.md") {
				t.Errorf("search found %v, want notes/a.md and not the unreadable notes/b.md", got)
			}
		}},
	})
	s.checkNoLeak()
}
