package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// homeEnv is the environment of a server started as a user whose home folder is home: no
// XDG_CACHE_HOME, so the user cache folder ($HOME/.cache) lies inside the root.
func homeEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_CACHE_HOME=", "XDG_DATA_HOME="}
}

// doctorRows runs doctor with env and args and returns its rows by name.
func doctorRows(t *testing.T, env []string, args ...string) map[string]string {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"doctor"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("doctor %v: %v\n%s", args, err, out)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			if rows[k] != "" { // the checks: "ok ..." lines, each kept
				v = rows[k] + "\n" + strings.TrimSpace(v)
			}
			rows[k] = strings.TrimSpace(v)
		}
	}
	return rows
}

// TestServeHomeFolder serves a home folder with the default flags (plus --allow-write), the root
// people most often give a filesystem server, through the built binary. Its cache folder is inside
// the root, so the index and the history must live elsewhere: the test checks that the server
// starts, reads, lists, searches and writes, that its index and history are outside the home
// folder, and that no tool reaches them, by name, by link (absolute or climbing) or by moving and
// deleting the folders where they would be by default; and that the index never indexes itself.
func TestServeHomeFolder(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	for name, content := range map[string]string{
		"notes/todo.md":                "# Todo\nwater the plants\n",
		"Documents/report.md":          "# Report\nquarterly numbers\n",
		".cache/other-app/data.json":   `{"k": 1}`,
		".cache/packfs-mcp/planted.md": "planted by someone else\n",
	} {
		p := filepath.Join(home, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	env := homeEnv(home)
	rows := doctorRows(t, env, "--root", home, "--allow-write")
	indexDir := strings.Fields(rows["index"])[0]
	histDir := strings.Fields(rows["history"])[0]
	resolvedHome, err := filepath.EvalSymlinks(home)
	must(t, err)
	for what, dir := range map[string]string{"index": indexDir, "history": histDir} {
		if !filepath.IsAbs(dir) || within(dir, resolvedHome) || within(dir, home) {
			t.Fatalf("doctor places the %s at %q: want an absolute folder outside the root %s", what, dir, home)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}

	s := startOn(t, &fixture{dir: home, root: home, outside: indexDir, pwned: histDir}, env, "--allow-write")

	// The index is built, of the home folder's own files only.
	waitIndexed(t, s)
	res, _ := s.call(searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "water the plants"}})
	if files, _ := res["files"].([]any); len(files) == 0 || files[0].(map[string]any)["path"] != "notes/todo.md" {
		t.Errorf("search_semantic in the home folder: want notes/todo.md first, got %v", res)
	}
	entries, err := os.ReadDir(filepath.Join(indexDir, "bleve"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("the index folder %s holds nothing after the build (%v)", indexDir, err)
	}

	// Links to the index and the history, absolute and climbing, are refused by every tool.
	relIndex, err := filepath.Rel(home, indexDir)
	must(t, err)
	relHistory, err := filepath.Rel(home, histDir)
	must(t, err)
	for name, target := range map[string]string{"idx-abs": indexDir, "idx-rel": relIndex, "bak-abs": histDir, "bak-rel": relHistory} {
		must(t, os.Symlink(target, filepath.Join(home, name)))
	}
	for _, link := range []string{"idx-abs", "idx-rel", "bak-abs", "bak-rel"} {
		inner := link + "/bleve/index_meta.json"
		if strings.HasPrefix(link, "bak") {
			inner = link + "/calls/x.json"
		}
		for _, tc := range []struct {
			tool string
			args map[string]any
		}{
			{reader, map[string]any{"purpose": "read", "target": map[string]any{"path": inner}}},
			{reader, map[string]any{"purpose": "metadata", "target": map[string]any{"path": link}}},
			{searcher, map[string]any{"purpose": "list", "target": map[string]any{"path": link}}},
			{searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": link, "query": "scorch"}}},
			{searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": link, "query": "scorch"}}},
			{writer, map[string]any{"purpose": "create", "target": map[string]any{"path": link + "/planted.md"}, "content": "x"}},
			{writer, map[string]any{"purpose": "delete", "target": map[string]any{"path": inner}}},
			{writer, map[string]any{"purpose": "move", "target": map[string]any{"path": inner}, "destination": "stolen.json"}},
		} {
			res, isErr := s.call(tc.tool, tc.args)
			if !isErr || res["code"] != "PATH_OUTSIDE_ROOT" {
				t.Errorf("%s %s on %s: want PATH_OUTSIDE_ROOT, got %v", tc.tool, tc.args["purpose"], link, res)
			}
		}
	}

	// Nothing of the index shows in a listing or a search of the whole home folder.
	res, _ = s.call(searcher, map[string]any{"purpose": "list", "target": map[string]any{"path": "."}, "options": map[string]any{"recursive": true}})
	for _, f := range res["files"].([]any) {
		if p := f.(map[string]any)["path"].(string); strings.Contains(p, "bleve") || strings.Contains(p, "index_meta") {
			t.Errorf("a listing of the home folder shows %s", p)
		}
	}
	for _, q := range []string{"scorch", "index_type"} {
		res, _ = s.call(searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": q}})
		if n, _ := res["totalFound"].(float64); n != 0 {
			t.Errorf("search_content %q in the home folder finds %v: the index's own files", q, res["files"])
		}
	}

	// Writes work, kept in the history, and moving or deleting the folder where the cache would be
	// by default leaves the index and the history alone.
	write := func(purpose string, args map[string]any) {
		t.Helper()
		args["purpose"] = purpose
		if res, isErr := s.call(writer, args); isErr {
			t.Fatalf("%s: %v", purpose, res)
		}
	}
	write("update", map[string]any{"target": map[string]any{"path": "notes/todo.md"}, "content": "# Todo\nrepot the fern\n"})
	write("move", map[string]any{"target": map[string]any{"path": ".cache"}, "destination": "old-cache"})
	write("delete", map[string]any{"target": map[string]any{"path": "old-cache"}, "options": map[string]any{"recursive": true}})
	for _, dir := range []string{filepath.Join(indexDir, "bleve"), histDir} {
		if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
			t.Errorf("%s is gone or empty after the home folder's cache was moved and deleted (%v)", dir, err)
		}
	}
	if calls, err := os.ReadDir(filepath.Join(histDir, "calls")); err != nil || len(calls) == 0 {
		t.Errorf("the history kept nothing in %s (%v)", histDir, err)
	}
	res, _ = s.call(searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "repot the fern"}})
	if files, _ := res["files"].([]any); len(files) == 0 {
		t.Errorf("an update is not searchable: %v", res)
	}

	// The server never put anything of its own in the home folder.
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && (strings.Contains(d.Name(), "bleve") || d.Name() == "index_meta.json") {
			t.Errorf("the server left %s in the root", p)
		}
		return nil
	})
	s.checkNoLeak()
}

// startOn starts the binary serving f.root with env added to the environment, and connects a client.
func startOn(t *testing.T, f *fixture, env []string, args ...string) *session {
	t.Helper()
	return startWith(t, f, env, nil, args...)
}

// startWith starts the binary serving f.root with env added to the environment, and connects a
// client made with opts, keeping the output schema of every tool listed.
func startWith(t *testing.T, f *fixture, env []string, opts []client.ClientOption, args ...string) *session {
	t.Helper()
	return startTransport(t, f, transport.NewStdio(binPath, env, append([]string{"serve", "--root", f.root}, args...)...), opts)
}

// startTransport connects a client made with opts to the server tr starts, keeping the output
// schema of every tool listed.
func startTransport(t *testing.T, f *fixture, tr *transport.Stdio, opts []client.ClientOption) *session {
	t.Helper()
	c := client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	must(t, c.Start(context.Background()))
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("serving %s: initialize: %v", f.root, err)
	}
	s := &session{t: t, c: c, f: f, schemas: map[string]*jsonschema.Schema{}}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		b, _ := io.ReadAll(tr.Stderr())
		t.Fatalf("tools/list: %v\n%s", err, b)
	}
	for _, tool := range list.Tools {
		raw, err := json.Marshal(tool.OutputSchema)
		if len(tool.RawOutputSchema) > 0 {
			raw = tool.RawOutputSchema
		}
		must(t, err)
		s.schemas[tool.Name] = compileSchema(t, raw)
	}
	return s
}

// TestClientRootsOwnFiles is case J57 for the roots a client offers: a folder that holds a root's
// index or history, is one of them, or lies inside one (the index's bleve folder, the history's
// records) is refused with the reason in the log, and no tool reaches the index or the history
// through it, while the client's other root is served.
func TestClientRootsOwnFiles(t *testing.T) {
	f := rootsFixture(t, map[string]string{"a/one.md": "# One\nThe kestrel hovers.\n", "a/sub/two.md": "two\n"})
	// With the cache folder there, the index lives in it (startRoots points XDG_CACHE_HOME at it),
	// keyed by the root as stateKey keys it; the history is in --history-dir, keyed alike.
	must(t, os.Mkdir(filepath.Join(f.dir, "cache"), 0o755))
	resolved, err := filepath.EvalSymlinks(f.root)
	must(t, err)
	sum := sha256.Sum256([]byte(resolved))
	key := hex.EncodeToString(sum[:8])
	indexDir := filepath.Join(f.dir, "cache", "packfs-mcp", "index", key)
	histDir := filepath.Join(f.dir, "history", key)

	list := &rootList{}
	notes := mcp.Root{URI: fileURI(f.root), Name: "notes"}
	list.set(notes)
	s := startRoots(t, f, []client.ClientOption{client.WithRootsHandler(list)}, "--allow-write")
	if res, _ := s.call(searcher, access("list", ".")); !slices.Equal(paths(res), []string{"notes"}) {
		t.Fatalf("list .: %v, want notes", res)
	}
	if !s.stderr.waitFor("root notes: search index ready") {
		t.Fatalf("the index of notes was not built:\n%s", s.stderr)
	}
	if res, isErr := s.call(writer, map[string]any{"purpose": "update", "target": map[string]any{"path": "notes/sub/two.md"},
		"content": "two, changed\n"}); isErr {
		t.Fatalf("update: %v", res)
	}
	for _, dir := range []string{filepath.Join(indexDir, "bleve"), filepath.Join(histDir, "calls")} {
		if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
			t.Fatalf("%s holds nothing (%v): the test would not offer the server's own files", dir, err)
		}
	}

	bad := []string{
		filepath.Join(f.dir, "cache"),    // holds the index
		indexDir,                         // is the index's folder
		filepath.Join(indexDir, "bleve"), // lies in it
		filepath.Join(f.dir, "history"),  // holds the history
		histDir,                          // is the history's folder
		filepath.Join(histDir, "calls"),  // lies in it
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// offer offers notes and dirs as the client's roots, and checks that notes alone is served,
	// each of dirs refused with why in the log.
	offer := func(why string, dirs ...string) {
		t.Helper()
		roots := []mcp.Root{notes}
		for _, dir := range dirs {
			roots = append(roots, mcp.Root{URI: fileURI(dir)})
		}
		list.set(roots...)
		must(t, s.c.RootListChanges(ctx))
		if res, _ := s.call(searcher, access("list", ".")); !slices.Equal(paths(res), []string{"notes"}) {
			t.Errorf("list . after offering %v: %v, want notes alone", dirs, paths(res))
		}
		for _, dir := range dirs {
			want := "client root " + fileURI(dir) + " refused: " + why
			if !s.stderr.waitFor(want) {
				t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
			}
		}
	}
	offer("it holds, or lies in, the server's own files", bad...)
	// The names the refused folders would have been served under reach nothing.
	for _, name := range []string{"cache", "bleve", "history", "calls"} {
		if res, _ := s.call(searcher, access("list", name)); res["code"] != "NOT_FOUND" {
			t.Errorf("list %s: %v, want NOT_FOUND", name, res)
		}
	}

	// The state of a root no longer open (a client's root removed, or another server's) is the
	// server's own too: its index may open again, inside what a client would then serve.
	stale := []string{
		filepath.Join(f.dir, "cache", "packfs-mcp", "index", "0123456789abcdef", "bleve"),
		filepath.Join(f.dir, "history", "0123456789abcdef"),
	}
	for _, dir := range stale {
		must(t, os.MkdirAll(dir, 0o700))
		must(t, os.WriteFile(filepath.Join(dir, "x.md"), []byte("state\n"), 0o600))
	}
	offer("it lies where the server keeps indexes and history", stale...)
	s.checkNoLeak()
}

// within reports whether the host path p is dir or inside it.
func within(p, dir string) bool {
	_, ok := fsroot.HostRel(p, dir)
	return ok
}
