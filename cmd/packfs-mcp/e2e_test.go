package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

// The end-to-end tests build the real binary and drive it over stdio with the mcp-go client, in
// both protocol eras. Their oracle does not trust the server: a marker in a file outside the root
// must never appear in any response, and nothing outside the root may change.

const marker = "OUTSIDE-SECRET-MARKER-7f3a"

var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "packfs-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "packfs-mcp")
	// Servers started by the tests, in this process or as children, keep their index and history
	// in this temporary cache, never in the user's. The go commands the tests run keep the user's
	// build cache, which is also under XDG_CACHE_HOME by default: in an empty one each build
	// compiled everything, the standard library included, a minute or two of CPU.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env GOCACHE:", err)
		os.Exit(1)
	}
	os.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	// The folder must exist: a server leaves out a cache folder whose parent does not, and
	// falls back to the user's /var/tmp/packfs-mcp-UID.
	userState := stateFolders()
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	os.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data")) // the history's folder
	for _, d := range []string{"cache", "data"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	build := exec.Command("go", "build", "-o", binPath, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the binary:", err)
		os.Exit(1)
	}
	before := stateEntries(userState)
	code := m.Run()
	if left := newEntries(before, stateEntries(userState)); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests left %d indexes or history folders in the user's state folders, e.g. %s: a test that serves a root must give its server a state folder of its own (XDG_CACHE_HOME, --index-dir) or remove what it made\n", len(left), left[0])
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// cacheEnv is the environment of a server whose user's home, and cache folder, are in the test's
// folder dir: HOME and XDG_CACHE_HOME, the cache folder made (a server leaves out a cache folder
// that does not exist, for the user's /var/tmp/packfs-mcp-UID).
func cacheEnv(dir string) []string {
	cache := filepath.Join(dir, "cache")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		panic(err)
	}
	return []string{"HOME=" + dir, "XDG_CACHE_HOME=" + cache}
}

// stateFolders are the folders where a server run by this user keeps its indexes and
// history when the test gives it none: the user's cache and data folders and the shared temporary
// folders.
func stateFolders() []string {
	user := "packfs-mcp-" + strconv.Itoa(os.Geteuid())
	out := []string{filepath.Join("/var/tmp", user), filepath.Join(os.TempDir(), user)}
	if cache, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(cache, "packfs-mcp"))
	}
	data := os.Getenv("XDG_DATA_HOME")
	if home, err := os.UserHomeDir(); err == nil && !filepath.IsAbs(data) {
		data = filepath.Join(home, ".local", "share")
	}
	return append(out, filepath.Join(data, "packfs-mcp"))
}

// stateEntries lists the indexes and history folders (and the backup folders older versions kept)
// in the folders of stateFolders.
func stateEntries(folders []string) map[string]bool {
	out := map[string]bool{}
	for _, f := range folders {
		for _, kind := range []string{"index", "backups", "history"} {
			entries, _ := os.ReadDir(filepath.Join(f, kind))
			for _, e := range entries {
				out[filepath.Join(f, kind, e.Name())] = true
			}
		}
	}
	return out
}

// newEntries returns the entries of after that before lacks, sorted.
func newEntries(before, after map[string]bool) []string {
	var out []string
	for p := range after {
		if !before[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// fixture is a temporary directory holding the served root and, beside it, an outside tree that the
// server must never reveal or touch.
type fixture struct {
	dir, root, outside string
	pwned              string // a path outside that a dangling link points at; it must never appear
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{dir: dir, root: filepath.Join(dir, "root"), outside: filepath.Join(dir, "outside")}
	f.pwned = filepath.Join(dir, "pwned.md")
	files := map[string]string{
		"outside/secret.txt":   marker + "\n",
		"outside/secret.md":    marker + "\n",
		"outside/sub/deep.md":  marker + "\n",
		"root/notes/a.md":      "# A\nhello world\nsecond line\n",
		"root/notes/b.md":      "see [a](a.md)\nhello again\n",
		"root/notes/dup.md":    "x = 1\nx = 1\n",
		"root/notes/crlf.md":   "one\r\ntwo\r\nthree\r\n",
		"root/.env":            "TOKEN=" + marker + "\n",
		"root/.git/config":     marker + "\n",
		"root/keys/server.pem": marker + "\n",
		"root/image.png":       "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"root/utf16.txt":       "\xff\xfeh\x00i\x00",
		"root/full/inner.md":   "inner\n",
		"root/program.exe":     "MZ",
	}
	var big strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&big, "line %05d of a long file that is read in chunks\n", i)
	}
	files["root/big.txt"] = big.String()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	links := map[string]string{
		"root/link_out.md": "../outside/secret.md",
		"root/abs_out.md":  filepath.Join(f.outside, "secret.md"),
		"root/dirlink":     "../outside",
		"root/link_in.md":  "notes/a.md",
		"root/env_link.md": ".env",
		"root/chain1.md":   "chain2.md",
		"root/chain2.md":   "../outside/secret.md",
		"root/dangling.md": f.pwned,
		"root/notes/up.md": "../../outside/secret.md",
		"root/loop/self":   "..",
		"root/zero.md":     "/dev/zero",
		"root/passwd.md":   "/etc/passwd",
	}
	for name, target := range links {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.Symlink(target, p))
	}
	testfs.Mkfifo(t, filepath.Join(f.root, "fifo.md"))
	return f
}

// snapshot records everything outside the root (the fixture minus root/), by path, mode and content.
func (f *fixture) snapshot(t *testing.T) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, own := range []string{"history", "cache"} { // the server's own stores, outside by design
			if p == filepath.Join(f.dir, own) {
				return filepath.SkipDir
			}
		}
		if p == f.root || strings.HasPrefix(p, f.root+string(filepath.Separator)) {
			if d.IsDir() && p != f.dir {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := info.Mode().String()
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		snap[p] = v
		return nil
	})
	must(t, err)
	return snap
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// session is one client connected to one server process.
type session struct {
	t       *testing.T
	c       *client.Client
	f       *fixture
	schemas map[string]*jsonschema.Schema
	seen    []string // every response text, for the leak oracle
	mu      sync.Mutex
}

// eras are the protocol modes every end-to-end test runs in.
var eras = []struct {
	name string
	opts []client.ClientOption
}{
	{"default", nil},
	{"2025-11-25", []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125)}},
}

func start(t *testing.T, f *fixture, opts []client.ClientOption, args ...string) *session {
	t.Helper()
	env := cacheEnv(f.dir)
	return startWith(t, f, env, opts, append([]string{"--history-dir", filepath.Join(f.dir, "history")}, args...)...)
}

func compileSchema(t *testing.T, raw []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	must(t, err)
	c := jsonschema.NewCompiler()
	must(t, c.AddResource("schema.json", doc))
	sch, err := c.Compile("schema.json")
	must(t, err)
	return sch
}

// call runs one tool call and returns its flat result. It checks what every result must satisfy:
// structured content equal to the text block's JSON, valid against the tool's output schema, and
// isError exactly when success is false.
func (s *session) call(tool string, args any) (map[string]any, bool) {
	s.t.Helper()
	// The deadline catches a hang, not a slow call: an 11 MB argument through the race-built
	// client takes 4-9 s on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		s.t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		s.t.Fatalf("%s: want one text block, got %d", tool, len(res.Content))
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		s.t.Fatalf("%s: content is %T, want text", tool, res.Content[0])
	}
	s.mu.Lock()
	s.seen = append(s.seen, text.Text)
	s.mu.Unlock()
	var fromText, structured map[string]any
	must(s.t, json.Unmarshal([]byte(text.Text), &fromText))
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		s.t.Fatalf("%s: no structured content", tool)
	}
	must(s.t, json.Unmarshal(raw, &structured))
	if !equalJSON(fromText, structured) {
		s.t.Errorf("%s: text and structured content differ:\n%s\n%s", tool, text.Text, raw)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	must(s.t, err)
	if sch := s.schemas[tool]; sch == nil {
		s.t.Errorf("%s: tool not listed", tool)
	} else if err := sch.Validate(inst); err != nil {
		s.t.Errorf("%s: result does not match the output schema: %v\n%s", tool, err, raw)
	}
	if success, _ := structured["success"].(bool); success == res.IsError {
		s.t.Errorf("%s: success=%v but isError=%v", tool, success, res.IsError)
	}
	if _, ok := structured["data"]; ok {
		s.t.Errorf("%s: result has a data wrapper", tool)
	}
	return structured, res.IsError
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// checkNoLeak fails if any response revealed the outside marker or a host path outside the root.
func (s *session) checkNoLeak() {
	s.t.Helper()
	for _, text := range s.seen {
		if strings.Contains(text, marker) {
			s.t.Errorf("a response leaked the outside marker: %s", text)
		}
		if strings.Contains(text, s.f.outside) || strings.Contains(text, s.f.pwned) {
			s.t.Errorf("a response leaked a host path outside the root: %s", text)
		}
	}
}
