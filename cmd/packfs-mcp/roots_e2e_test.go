package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The roots tests run the built binary serving several folders, given with --root NAME=DIR or
// offered by the client as MCP roots, and drive it with the mcp-go client over stdio and HTTP.

// rootsFixture makes, in a temporary folder, the roots named in files ("a/x.md" is x.md in the
// folder a) beside an outside folder holding the marker, and returns it as a fixture whose root is
// the first root.
func rootsFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{dir: dir, root: filepath.Join(dir, "a"), outside: filepath.Join(dir, "outside"), pwned: filepath.Join(dir, "pwned.md")}
	files["outside/secret.md"] = marker + "\n"
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	// A link in one root into another is a link out of its root: never followed.
	must(t, os.Symlink(filepath.Join(dir, "b", "y.md"), filepath.Join(dir, "a", "to-b.md")))
	return f
}

// logBuffer collects a server's stderr.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// waitFor reports whether the log holds want within 30 seconds: the server's stderr arrives
// through a pipe of its own, after the answer the line was written before, at times, and on a
// machine busy with other tests' servers it has come after 5 seconds. It returns once the line is
// there, so a passing run does not wait.
func (l *logBuffer) waitFor(want string) bool {
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(l.String(), want) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// eventually calls the searcher with args until ok holds of its result, for up to 30 seconds
// (the index is built in the background), and returns the last result.
func eventually(t *testing.T, s *session, args map[string]any, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, _ := s.call(searcher, args)
		if ok(res) || time.Now().After(deadline) {
			return res
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func hasAll(got []string, want ...string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

// TestSeveralRoots serves two folders named a and b, over stdio and HTTP, and checks that paths
// name their root, "." holds the roots, searches of "." cover both, copy crosses roots and move
// does not, and nothing climbs from one root into another.
func TestSeveralRoots(t *testing.T) {
	transports := []struct {
		name  string
		start func(t *testing.T, f *fixture, args []string) *session
	}{
		{"stdio", func(t *testing.T, f *fixture, args []string) *session {
			env := cacheEnv(f.dir)
			return startTransport(t, f, transport.NewStdio(binPath, env, append([]string{"serve"}, args...)...), nil)
		}},
		{"http", func(t *testing.T, f *fixture, args []string) *session {
			srv := startHTTPArgs(t, httpEnv(f), append(append([]string{"serve"}, args...), "--http", "127.0.0.1:0")...)
			return httpSession(t, f, srv.url, nil)
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			f := rootsFixture(t, map[string]string{
				"a/x.md":        "# Alpha\nThe heron nests by the river.\n",
				"a/sub/one.md":  "# One\nheron notes\n",
				"a/sub/two.txt": "two\n",
				"b/y.md":        "# Beta\nA heron fishes in the river at dawn.\n",
			})
			b := filepath.Join(f.dir, "b")
			s := tr.start(t, f, []string{"--root", "a=" + f.root, "--root", "b=" + b, "--allow-write",
				"--history-dir", filepath.Join(f.dir, "history")})

			res, _ := s.call(searcher, access("list", "."))
			if got := paths(res); !slices.Equal(got, []string{"a", "b"}) {
				t.Errorf("list .: %v, want the roots a and b: %v", got, res)
			}
			res, isErr := s.call(reader, access("read", "a/x.md"))
			if isErr || !strings.Contains(fmt.Sprint(res["content"]), "heron nests") {
				t.Errorf("read a/x.md: %v", res)
			}
			res, _ = s.call(searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "heron"}})
			if got := paths(res); !hasAll(got, "a/x.md", "a/sub/one.md", "b/y.md") {
				t.Errorf("search_content of .: %v, want the files of both roots: %v", got, res)
			}
			semantic := map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "heron river"}}
			res = eventually(t, s, semantic, func(res map[string]any) bool { return hasAll(paths(res), "a/x.md", "b/y.md") })
			if got := paths(res); !hasAll(got, "a/x.md", "b/y.md") {
				t.Errorf("search_semantic of .: %v, want the files of both roots: %v", got, res)
			}

			res, isErr = s.call(writer, map[string]any{"purpose": "copy", "target": map[string]any{"path": "a/x.md", "destination": "b/x-copy.md"}})
			if isErr || res["destination"] != "b/x-copy.md" {
				t.Errorf("copy a/x.md to b: %v", res)
			}
			if got, err := os.ReadFile(filepath.Join(b, "x-copy.md")); err != nil || !strings.Contains(string(got), "heron nests") {
				t.Errorf("b/x-copy.md after the copy: %q, %v", got, err)
			}
			res, isErr = s.call(writer, map[string]any{"purpose": "copy", "target": map[string]any{"path": "a/sub", "destination": "b/sub"},
				"options": map[string]any{"recursive": true}})
			if isErr {
				t.Errorf("copy the folder a/sub to b: %v", res)
			}
			for _, name := range []string{"one.md", "two.txt"} {
				if _, err := os.Stat(filepath.Join(b, "sub", name)); err != nil {
					t.Errorf("b/sub/%s after the copy: %v", name, err)
				}
			}

			for _, tc := range []struct {
				name, tool     string
				args           map[string]any
				code, field    string
				inError        []string
				unchangedFiles []string
			}{
				{name: "move across roots", tool: writer,
					args: map[string]any{"purpose": "move", "target": map[string]any{"path": "a/x.md", "destination": "b/moved.md"}},
					code: "INVALID_ARGUMENT", field: "target.destination", unchangedFiles: []string{"a/x.md"}},
				{name: "climb from one root into another", tool: reader, args: access("read", "a/../b/y.md"), code: "PATH_OUTSIDE_ROOT"},
				{name: "a link into another root", tool: reader, args: access("read", "a/to-b.md"), code: "PATH_OUTSIDE_ROOT"},
				{name: "an unknown root", tool: reader, args: access("read", "zzz/x.md"), code: "NOT_FOUND", inError: []string{`"zzz"`, "a, b"}},
				{name: "a path without its root", tool: reader, args: access("read", "x.md"), code: "NOT_FOUND", inError: []string{`"x.md"`, `it is at "a/x.md"`}},
				{name: "a path in both roots without its root", tool: reader, args: access("read", "sub/one.md"), code: "NOT_FOUND",
					inError: []string{`it is at each of "a/sub/one.md", "b/sub/one.md"`}},
				{name: "write the folder of roots", tool: writer,
					args: map[string]any{"purpose": "create", "target": map[string]any{"path": "new.md"}, "content": "x"}, code: "NOT_FOUND"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res, isErr := s.call(tc.tool, tc.args)
					if !isErr || res["code"] != tc.code {
						t.Fatalf("code %v, want %s: %v", res["code"], tc.code, res)
					}
					if tc.field != "" && res["field"] != tc.field {
						t.Errorf("field %v, want %s", res["field"], tc.field)
					}
					for _, w := range tc.inError {
						if !strings.Contains(fmt.Sprint(res["error"]), w) {
							t.Errorf("error %q lacks %s", res["error"], w)
						}
					}
					for _, name := range tc.unchangedFiles {
						if _, err := os.Stat(filepath.Join(f.dir, name)); err != nil {
							t.Errorf("%s: %v", name, err)
						}
					}
				})
			}
			if _, err := os.Stat(filepath.Join(b, "moved.md")); err == nil {
				t.Error("the refused move wrote b/moved.md")
			}
			s.checkNoLeak()
		})
	}
}

// rootList is a client's list of roots, which a test changes.
type rootList struct {
	mu    sync.Mutex
	roots []mcp.Root
}

func (c *rootList) set(roots ...mcp.Root) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.roots = roots
}

func (c *rootList) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &mcp.ListRootsResult{Roots: slices.Clone(c.roots)}, nil
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }

// rootsClient is a client of a server started with args over stdio, with the server's stderr,
// the log lines the client received, and the server's instructions.
type rootsClient struct {
	*session
	stderr       *logBuffer
	instructions string
	mu           sync.Mutex
	clientLog    []string
}

func (r *rootsClient) received() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.clientLog, "\n")
}

// startRoots starts the binary with args and connects a client made with opts, which asks for
// every log line.
func startRoots(t *testing.T, f *fixture, opts []client.ClientOption, args ...string) *rootsClient {
	t.Helper()
	r := &rootsClient{stderr: &logBuffer{}}
	env := cacheEnv(f.dir)
	tr := transport.NewStdioWithOptions(binPath, env, append([]string{"serve", "--history-dir", filepath.Join(f.dir, "history")}, args...),
		transport.WithCommandStderrWriter(r.stderr))
	c := client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start: %v\n%s", err, r.stderr)
	}
	t.Cleanup(func() { c.Close() })
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/message" {
			r.mu.Lock()
			r.clientLog = append(r.clientLog, fmt.Sprint(n.Params.AdditionalFields["data"]))
			r.mu.Unlock()
		}
	})
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "roots-e2e", Version: "1"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, r.stderr)
	}
	r.instructions = init.Instructions
	r.session = &session{t: t, c: c, f: f, schemas: map[string]*jsonschema.Schema{}}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v\n%s", err, r.stderr)
	}
	for _, tool := range list.Tools {
		raw := tool.RawOutputSchema
		if len(raw) == 0 {
			raw, err = json.Marshal(tool.OutputSchema)
			must(t, err)
		}
		r.schemas[tool.Name] = compileSchema(t, raw)
	}
	return r
}

// TestClientRoots serves the roots a client offers, in both protocol eras: the good ones are
// served under their names, each bad one is refused with a line in the log saying why, and when
// the client changes its roots the removed one stops answering at once and the new one is served
// and indexed.
func TestClientRoots(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := rootsFixture(t, map[string]string{
				"a/one.md":      "# One\nThe kestrel hovers.\n",
				"a/inner/in.md": "inside\n",
				"b/y.md":        "# Two\nA kestrel again.\n",
				"c/three.md":    "# Three\nThe kestrel of the third root.\n",
				"plain-file.md": "not a folder\n",
			})
			a, b, c := f.root, filepath.Join(f.dir, "b"), filepath.Join(f.dir, "c")
			bad := []struct {
				root mcp.Root
				why  string
			}{
				{mcp.Root{URI: fileURI(filepath.Join(f.dir, "missing"))}, "it does not exist"},
				{mcp.Root{URI: "file:///", Name: "everything"}, "it is the whole filesystem, which the server serves only when started with it as --root"},
				{mcp.Root{URI: fileURI(filepath.Join(a, "inner"))}, `it overlaps root "notes"`},
				{mcp.Root{URI: "http://example.com/notes"}, "only file:// roots"},
				{mcp.Root{URI: fileURI(filepath.Join(f.dir, "plain-file.md"))}, "it is not a folder"},
			}
			list := &rootList{}
			roots := []mcp.Root{{URI: fileURI(a), Name: "notes"}, {URI: fileURI(b), Name: "my work"}}
			for _, r := range bad {
				roots = append(roots, r.root)
			}
			list.set(roots...)
			s := startRoots(t, f, append(slices.Clone(era.opts), client.WithRootsHandler(list)), "--allow-write")
			if !strings.Contains(s.instructions, "the folders your client offers") {
				t.Errorf("the instructions do not say the roots are the client's: %s", s.instructions)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if era.name != "default" { // protocol 2026-07-28 has no logging/setLevel
				must(t, s.c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}))
			}

			res, _ := s.call(searcher, access("list", "."))
			if got := paths(res); !slices.Equal(got, []string{"b", "notes"}) {
				t.Fatalf("list .: %v, want b (named after its folder: \"my work\" is no root name) and notes: %v\n%s", got, res, s.stderr)
			}
			if res, isErr := s.call(reader, access("read", "notes/one.md")); isErr || !strings.Contains(fmt.Sprint(res["content"]), "kestrel") {
				t.Errorf("read notes/one.md: %v", res)
			}
			for _, r := range bad {
				want := "client root " + r.root.URI + " refused: " + r.why
				if r.root.Name != "" {
					want = "client root " + r.root.URI + ` ("` + r.root.Name + `") refused: ` + r.why
				}
				if !s.stderr.waitFor(want) {
					t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
				}
			}

			// The client drops notes, keeps b and the bad roots (but a/inner, which would not
			// overlap a root now), and adds c.
			changed := []mcp.Root{{URI: fileURI(b)}, {URI: fileURI(c)}}
			for _, r := range bad {
				if !strings.HasSuffix(r.root.URI, "/inner") {
					changed = append(changed, r.root)
				}
			}
			list.set(changed...)
			must(t, s.c.RootListChanges(ctx))
			res, isErr := s.call(reader, access("read", "notes/one.md"))
			if !isErr || res["code"] != "NOT_FOUND" || !strings.Contains(fmt.Sprint(res["error"]), "b, c") {
				t.Errorf("read notes/one.md after notes was removed: %v, want NOT_FOUND naming the roots b, c", res)
			}
			res, _ = s.call(searcher, access("list", "."))
			if got := paths(res); !slices.Equal(got, []string{"b", "c"}) {
				t.Errorf("list . after the change: %v, want b and c", got)
			}
			semantic := map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "kestrel third root"}}
			res = eventually(t, s.session, semantic, func(res map[string]any) bool {
				return hasAll(paths(res), "c/three.md") && res["indexComplete"] != false
			})
			if got := paths(res); !hasAll(got, "c/three.md", "b/y.md") || slices.Contains(got, "notes/one.md") {
				t.Errorf("search_semantic of . after the change: %v, want c's and b's files and none of notes: %v", got, res)
			}
			if res["indexComplete"] == false {
				t.Errorf("c's index was not built: %v", res)
			}
			for _, want := range []string{"root notes: no longer served: the client removed " + fileURI(a), "root c: serving the client's root " + fileURI(c), "root c: search index ready"} {
				if !s.stderr.waitFor(want) {
					t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
				}
			}
			if era.name != "default" {
				// The refusals of the second list reached the client too, without host paths.
				got := s.received()
				for _, want := range []string{
					`client root file://<host path> ("everything") refused: it is the whole filesystem`,
					"client root file://<host path> refused: it does not exist",
					"root c: serving the client's root file://<host path>",
				} {
					if !strings.Contains(got, want) {
						t.Errorf("the client's log lacks %q:\n%s", want, got)
					}
				}
				if strings.Contains(got, f.dir) {
					t.Errorf("the client's log shows a host path:\n%s", got)
				}
			}
			s.checkNoLeak()
		})
	}
}

// TestClientRootsNotServed checks the two cases where the client's roots are not served: with
// --root, which wins, and a client that offers none to a server started without --root, whose
// calls then answer NOT_AVAILABLE.
func TestClientRootsNotServed(t *testing.T) {
	f := rootsFixture(t, map[string]string{"a/x.md": "x\n", "b/y.md": "y\n"})
	list := &rootList{}
	list.set(mcp.Root{URI: fileURI(filepath.Join(f.dir, "b"))})
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			s := startRoots(t, f, append(slices.Clone(era.opts), client.WithRootsHandler(list)), "--root", f.root)
			if !strings.Contains(s.instructions, "which win over the roots your client offers: those are not served") {
				t.Errorf("the instructions do not say --root wins: %s", s.instructions)
			}
			if res, isErr := s.call(reader, access("read", "x.md")); isErr {
				t.Errorf("read x.md of --root: %v", res)
			}
			if res, _ := s.call(reader, access("read", "y.md")); res["code"] != "NOT_FOUND" {
				t.Errorf("read y.md of the client's root: %v, want NOT_FOUND", res)
			}
			if want := "the client offers folders as MCP roots; they are not served"; !s.stderr.waitFor(want) {
				t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
			}

			s = startRoots(t, f, era.opts)
			res, isErr := s.call(reader, access("read", "b/y.md"))
			if !isErr || res["code"] != "NOT_AVAILABLE" {
				t.Errorf("read without any root: %v, want NOT_AVAILABLE", res)
			}
			if want := "the client offers no MCP roots; every call answers NOT_AVAILABLE: start the server with --root DIR"; !s.stderr.waitFor(want) {
				t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
			}
		})
	}
}
