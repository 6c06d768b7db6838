package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/search"
)

// resourceEnv serves a root through an MCP server with the resources registered, and speaks to it
// in JSON-RPC messages, so the tests go through mcp-go's template matching and the hooks.
type resourceEnv struct {
	t    *testing.T
	root string
	m    *server.MCPServer
	id   int
}

// rpcAnswer is a JSON-RPC response: a result or an error.
type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

const resourceMarker = "OUTSIDE-RESOURCE-MARKER"

// newResourceEnv builds base/outside/secret.md (holding the marker) and base/root from entries
// (see testfs.Tree), and serves the root with cfg's permissions, limiter and size limit.
func newResourceEnv(t *testing.T, cfg Config, entries ...string) *resourceEnv {
	t.Helper()
	base := testfs.TempDir(t)
	dir := filepath.Join(base, "root")
	testfs.Tree(t, base, base, "outside/secret.md="+resourceMarker+"\n", "root/")
	testfs.Tree(t, dir, base, entries...)
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(t, err)
	cfg.Root, cfg.Policy = root, policy
	if cfg.Limiter == nil {
		cfg.Limiter = security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30})
	}
	if cfg.Permissions == (security.Permissions{}) {
		cfg.Permissions = security.AllPermissions()
	}
	s := New(cfg)
	hooks := &server.Hooks{}
	var opts []server.ServerOption
	if s.OffersResources() {
		opts = append(opts, server.WithResourceCapabilities(false, false))
	}
	m := server.NewMCPServer("test", "1", append(opts, server.WithHooks(hooks))...)
	s.RegisterResources(m, hooks)
	return &resourceEnv{t: t, root: dir, m: m}
}

// send sends one request and returns its answer.
func (e *resourceEnv) send(method string, params any) rpcAnswer {
	e.t.Helper()
	e.id++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": e.id, "method": method, "params": params})
	mustOK(e.t, err)
	raw, err := json.Marshal(e.m.HandleMessage(context.Background(), msg))
	mustOK(e.t, err)
	var a rpcAnswer
	mustOK(e.t, json.Unmarshal(raw, &a))
	if strings.Contains(string(raw), resourceMarker) || strings.Contains(string(raw), filepath.Dir(e.root)) {
		e.t.Errorf("%s %v: the answer reveals what is outside the root: %s", method, params, raw)
	}
	return a
}

// read reads uri and returns its one content, or the code its refusal starts with.
func (e *resourceEnv) read(uri string) (map[string]any, string) {
	e.t.Helper()
	a := e.send("resources/read", map[string]any{"uri": uri})
	if a.Error != nil {
		code, _, _ := strings.Cut(a.Error.Message, ": ")
		return nil, code
	}
	var res struct{ Contents []map[string]any }
	mustOK(e.t, json.Unmarshal(a.Result, &res))
	if len(res.Contents) != 1 {
		e.t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0], ""
}

// list lists every page from the first and returns the names in order, and each page's length.
func (e *resourceEnv) list() (names []string, pages []int) {
	e.t.Helper()
	params := map[string]any{}
	for {
		a := e.send("resources/list", params)
		if a.Error != nil {
			e.t.Fatalf("resources/list %v: %s", params, a.Error.Message)
		}
		var res mcp.ListResourcesResult
		mustOK(e.t, json.Unmarshal(a.Result, &res))
		pages = append(pages, len(res.Resources))
		for _, r := range res.Resources {
			if want := fileURI(r.Name); r.URI != want {
				e.t.Errorf("resource %q has URI %q, want %q", r.Name, r.URI, want)
			}
			names = append(names, r.Name)
		}
		if res.NextCursor == "" {
			return names, pages
		}
		if len(pages) > 1000 {
			e.t.Fatal("the listing does not end")
		}
		params = map[string]any{"cursor": res.NextCursor}
	}
}

// TestReadResource reads files by URI through mcp-go's template matching and the reader's
// pipeline: text with its media type, binary as a bounded blob, and every way out of the root or
// past the policy refused with the rule that refused it.
func TestReadResource(t *testing.T) {
	bin := "\x89PNG\r\n\x1a\n\x00\x01\x02"
	e := newResourceEnv(t, Config{MaxFileSize: 1 << 20},
		"notes/a.md=# A\nhello\n",
		"notes/to do.md=spaces\n",
		"café.md=accents\n",
		"etc/passwd.md=the root's own\n",
		"img.png="+bin,
		"big.png="+"\x89PNG\r\n\x1a\n"+strings.Repeat("\x00", MaxContentBytes),
		"huge.md="+strings.Repeat("x", 1<<20+1),
		".env=SECRET\n",
		".git/config=x\n",
		"tool.exe=MZ",
		"link_in.md => notes/a.md",
		"link_out.md => {base}/outside/secret.md",
		"link_dir => ../outside",
		"env_link.md => .env",
		"dangling.md => {base}/gone.md",
	)
	testfs.Mkfifo(t, filepath.Join(e.root, "fifo.md"))
	text := func(uri, mime, body string) map[string]any {
		return map[string]any{"uri": uri, "mimeType": mime, "text": body}
	}
	tests := []struct {
		uri  string
		want map[string]any // the content, or nil for a refusal
		code string         // the refusal's code
	}{
		{"file:///notes/a.md", text("file:///notes/a.md", "text/markdown", "# A\nhello\n"), ""},
		{"file:///notes/to%20do.md", text("file:///notes/to%20do.md", "text/markdown", "spaces\n"), ""},
		{"file:///caf%C3%A9.md", text("file:///caf%C3%A9.md", "text/markdown", "accents\n"), ""},
		{"file:///notes/./a.md", text("file:///notes/./a.md", "text/markdown", "# A\nhello\n"), ""},
		{"file:///link_in.md", text("file:///link_in.md", "text/markdown", "# A\nhello\n"), ""},
		{"file:///img.png", map[string]any{"uri": "file:///img.png", "mimeType": "image/png", "blob": base64.StdEncoding.EncodeToString([]byte(bin))}, ""},
		// A path is the root's, never the host's.
		{"file:///etc/passwd.md", text("file:///etc/passwd.md", "text/markdown", "the root's own\n"), ""},
		{"file:///etc/passwd", nil, errs.CodeNotFound}, // the root has no etc/passwd
		{"file:/etc/passwd.md", text("file:/etc/passwd.md", "text/markdown", "the root's own\n"), ""},
		{"file:////etc/passwd", nil, errs.CodeOutsideRoot},
		{"file:///../outside/secret.md", nil, errs.CodeOutsideRoot},
		{"file:///notes/../../outside/secret.md", nil, errs.CodeOutsideRoot},
		{"file:///%2e%2e/outside/secret.md", nil, errs.CodeOutsideRoot},
		{"file:///%2E%2E%2Foutside%2Fsecret.md", nil, errs.CodeOutsideRoot},
		{"file://evil.example/notes/a.md", nil, errs.CodeOutsideRoot},
		{"file://localhost/notes/a.md", nil, errs.CodeOutsideRoot},
		{"file://user@/notes/a.md", nil, errs.CodeOutsideRoot},
		{"file:///link_out.md", nil, errs.CodeOutsideRoot},
		{"file:///link_dir/secret.md", nil, errs.CodeOutsideRoot},
		{"file:///dangling.md", nil, errs.CodeOutsideRoot},
		{"file:///.env", nil, errs.CodeBlocked},
		{"file:///.git/config", nil, errs.CodeBlocked},
		{"file:///env_link.md", nil, errs.CodeBlocked},
		{"file:///tool.exe", nil, errs.CodeExtension},
		{"file:///notes/a.md?raw=1", nil, errs.CodeInvalidPath},
		{"file:///notes/a.md#top", nil, errs.CodeInvalidPath},
		{"file:///notes/a%00.md", nil, errs.CodeInvalidPath},
		{"file:notes/a.md", nil, errs.CodeInvalidPath},
		{"file:///nothing.md", nil, errs.CodeNotFound},
		{"file:///notes", nil, errs.CodeIsDir},
		{"file:///", nil, errs.CodeIsDir},
		{"file:///fifo.md", nil, errs.CodeNotRegular},
		{"file:///huge.md", nil, errs.CodeTooLarge},
		{"file:///big.png", nil, errs.CodeTooLarge},
		// Not a file URI: no template matches it, and mcp-go says so.
		{"http://example.com/notes/a.md", nil, "handler not found for resource URI 'http://example.com/notes/a.md'"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			got, code := e.read(tt.uri)
			if code != tt.code {
				t.Fatalf("read %s: refused with %q, want %q (content %v)", tt.uri, code, tt.code, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("read %s (-want +got):\n%s", tt.uri, diff)
			}
		})
	}
}

// TestReadResourceAdmission checks that a resource read needs the read permission and passes the
// reader's rate limit, as the reader's read does.
func TestReadResourceAdmission(t *testing.T) {
	t.Run("rate limit", func(t *testing.T) {
		e := newResourceEnv(t, Config{Limiter: security.NewLimiter(security.LimitConfig{MaxRequests: 2, PerTool: 2})}, "a.md=a\n")
		for i := range 2 {
			if _, code := e.read("file:///a.md"); code != "" {
				t.Fatalf("read %d refused with %s", i, code)
			}
		}
		if _, code := e.read("file:///a.md"); code != errs.CodeRateLimited {
			t.Errorf("third read: %q, want %s", code, errs.CodeRateLimited)
		}
	})
	t.Run("no read permission", func(t *testing.T) {
		s := New(Config{Permissions: security.Permissions{}.With(security.PermList)})
		if s.OffersResources() {
			t.Error("a server without the read permission offers resources")
		}
		e := newResourceEnv(t, Config{Permissions: security.Permissions{}.With(security.PermList)}, "a.md=a\n")
		if a := e.send("resources/list", map[string]any{}); a.Error == nil || a.Error.Code != mcp.METHOD_NOT_FOUND {
			t.Errorf("resources/list without the read permission: %+v, want method not found", a)
		}
	})
	t.Run("reader disabled", func(t *testing.T) {
		if New(Config{Permissions: security.AllPermissions(), Disabled: []string{ReaderName}}).OffersResources() {
			t.Error("a server whose reader is disabled offers resources")
		}
	})
}

// TestListResources lists a tree page by page: every visible file (and link to one) exactly once,
// in walk order, nothing the tools cannot see, pages of at most ResourcePageSize, and a tree of
// hidden entries longer than ResourceScanLimit crossed in shorter pages rather than one long walk.
func TestListResources(t *testing.T) {
	var entries, want []string
	for i := range 2*ResourcePageSize + 37 {
		name := fmt.Sprintf("d%d/n%03d.md", i%7, i)
		entries = append(entries, name+"=x\n")
		want = append(want, name)
	}
	for i := range ResourceScanLimit + 50 {
		entries = append(entries, fmt.Sprintf("d3/hidden/x%04d.exe=MZ", i))
	}
	entries = append(entries,
		".git/config=x\n", ".git/notes.md=x\n", ".env=x\n", "tool.exe=MZ",
		"empty/", "a-link.md => d0/n000.md", "link_out.md => {base}/outside/secret.md",
		"link_dir => d1", "env_link.md => .env",
	)
	want = append(want, "a-link.md")
	slices.SortFunc(want, func(a, b string) int {
		if search.WalkOrder(a, b) {
			return -1
		}
		return 1
	})
	e := newResourceEnv(t, Config{}, entries...)
	got, pages := e.list()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	short := false
	for i, n := range pages {
		if n > ResourcePageSize {
			t.Errorf("page %d holds %d resources, more than %d", i, n, ResourcePageSize)
		}
		short = short || (n < ResourcePageSize && i < len(pages)-1)
	}
	if !short {
		t.Errorf("pages %v: no page stopped short at the scan limit in d3/hidden", pages)
	}
}

// TestListResourcesCursor checks that a page goes on from its cursor whatever changed since, and
// that a cursor, which the client can forge, never leads into what the tools cannot see.
func TestListResourcesCursor(t *testing.T) {
	var entries []string
	for i := range ResourcePageSize + 10 {
		entries = append(entries, fmt.Sprintf("a/n%03d.md=x\n", i))
	}
	entries = append(entries, "c/.git/zz.md=x\n", "c/.git/zzz/deep.md=x\n", "c/d.md=x\n")
	e := newResourceEnv(t, Config{}, entries...)
	page := func(cursor string) ([]string, string, string) {
		a := e.send("resources/list", map[string]any{"cursor": cursor})
		if a.Error != nil {
			return nil, "", a.Error.Message
		}
		var res mcp.ListResourcesResult
		mustOK(t, json.Unmarshal(a.Result, &res))
		var names []string
		for _, r := range res.Resources {
			names = append(names, r.Name)
		}
		return names, string(res.NextCursor), ""
	}
	first, next, _ := page("")
	if len(first) != ResourcePageSize || next == "" {
		t.Fatalf("first page: %d names, cursor %q", len(first), next)
	}
	// The last file listed and the first still to come are removed: the next page starts after
	// the cursor all the same.
	mustOK(t, os.Remove(filepath.Join(e.root, filepath.FromSlash(first[len(first)-1]))))
	mustOK(t, os.Remove(filepath.Join(e.root, "a", fmt.Sprintf("n%03d.md", ResourcePageSize))))
	second, end, _ := page(next)
	var want []string
	for i := ResourcePageSize + 1; i < ResourcePageSize+10; i++ {
		want = append(want, fmt.Sprintf("a/n%03d.md", i))
	}
	want = append(want, "c/d.md")
	if diff := cmp.Diff(want, second); diff != "" || end != "" {
		t.Errorf("second page (-want +got):\n%s\ncursor %q", diff, end)
	}
	forged := func(p string) string { return base64.StdEncoding.EncodeToString([]byte(p)) }
	for _, c := range []struct{ cursor, refusal string }{
		{forged("c/.git/zz.md"), ""},
		{forged("c/.git"), ""},
		{forged("c/.git/zzz"), ""},
		{forged("../outside"), errs.CodeInvalidArgument},
		{forged("/etc"), errs.CodeInvalidArgument},
		{"not base64!", errs.CodeInvalidArgument},
	} {
		names, _, msg := page(c.cursor)
		if c.refusal != "" {
			if !strings.HasPrefix(msg, c.refusal+": ") {
				t.Errorf("cursor %q: %q, want a refusal with %s", c.cursor, msg, c.refusal)
			}
			continue
		}
		if diff := cmp.Diff([]string{"c/d.md"}, names); diff != "" || msg != "" {
			t.Errorf("forged cursor %q (-want +got):\n%s%s", c.cursor, diff, msg)
		}
	}
}

// TestListResourcesAdmission checks the listing's own checks, made before mcp-go serves it: the
// list permission and the rate limit, also when the method is spelled with JSON escapes, and that
// no listing gets a page without passing them.
func TestListResourcesAdmission(t *testing.T) {
	e := newResourceEnv(t, Config{Permissions: security.Permissions{}.With(security.PermRead)}, "a.md=a\n")
	if a := e.send("resources/list", nil); a.Error == nil || !strings.HasPrefix(a.Error.Message, errs.CodePermissionDenied+": ") {
		t.Errorf("resources/list without the list permission: %+v", a)
	}
	escaped := []byte(`{"jsonrpc":"2.0","id":9,"method":"resources\u002flist"}`)
	if raw, _ := json.Marshal(e.m.HandleMessage(context.Background(), escaped)); !strings.Contains(string(raw), errs.CodePermissionDenied) {
		t.Errorf("an escaped resources/list without the list permission: %s", raw)
	}
	// A listing too long to be read for its method is not admitted: it gets an empty page.
	padded := map[string]any{"_meta": map[string]any{"pad": strings.Repeat("x", maxListRequest)}}
	if names, _ := listed(t, e.send("resources/list", padded)); len(names) > 0 {
		t.Errorf("a long resources/list without the list permission listed %v", names)
	}
	e = newResourceEnv(t, Config{Limiter: security.NewLimiter(security.LimitConfig{MaxRequests: 2})}, "a.md=a\n")
	e.send("resources/list", nil) // costs CostMedium, 2
	if a := e.send("resources/list", nil); a.Error == nil || !strings.HasPrefix(a.Error.Message, errs.CodeRateLimited+": ") {
		t.Errorf("resources/list past the rate limit: %+v", a)
	}

	// A listing admitted and then refused by mcp-go (its _meta is no object) leaves no admission
	// behind for a later listing with its id, which would then skip the checks.
	e = newResourceEnv(t, Config{}, "a.md=a\n")
	if names, _ := listed(t, e.send("resources/list", padded)); len(names) > 0 {
		t.Errorf("a long resources/list listed %v", names)
	}
	bad := []byte(`{"jsonrpc":"2.0","id":99,"method":"resources/list","params":{"_meta":5}}`)
	if raw, _ := json.Marshal(e.m.HandleMessage(context.Background(), bad)); !strings.Contains(string(raw), `"error"`) {
		t.Fatalf("a resources/list with a bad _meta: %s, want mcp-go's error", raw)
	}
	e.id = 98 // the next request is id 99 again
	if names, _ := listed(t, e.send("resources/list", padded)); len(names) > 0 {
		t.Errorf("a long resources/list listed %v after a refused one with its id", names)
	}
	if names, _ := listed(t, e.send("resources/list", nil)); !slices.Equal(names, []string{"a.md"}) {
		t.Errorf("resources/list: %v, want a.md", names)
	}
}

// listed returns the names and the cursor of a resources/list answer.
func listed(t *testing.T, a rpcAnswer) ([]string, mcp.Cursor) {
	t.Helper()
	if a.Error != nil {
		t.Fatalf("resources/list: %s", a.Error.Message)
	}
	var res mcp.ListResourcesResult
	mustOK(t, json.Unmarshal(a.Result, &res))
	var names []string
	for _, r := range res.Resources {
		names = append(names, r.Name)
	}
	return names, res.NextCursor
}

// TestResourceTemplates checks that a host sees one template, the files', and not the fallback
// that refuses other file URIs, and that it matches the URI the listing gives any path, with that
// path as its variable.
func TestResourceTemplates(t *testing.T) {
	e := newResourceEnv(t, Config{}, "a.md=a\n")
	a := e.send("resources/templates/list", nil)
	var res mcp.ListResourceTemplatesResult
	mustOK(t, json.Unmarshal(a.Result, &res))
	if len(res.ResourceTemplates) != 1 {
		t.Fatalf("templates: %+v, want one", res.ResourceTemplates)
	}
	tpl := res.ResourceTemplates[0].URITemplate
	for _, name := range []string{"a.md", "notes/a.md", "notes/to do.md", "café/€.md", "50%.md", "a?b#c.md"} {
		uri := fileURI(name)
		if got := tpl.Match(uri).Get("path").String(); !tpl.Regexp().MatchString(uri) || got != name {
			t.Errorf("%s does not match %q with path %q (got %q)", tpl.Raw(), uri, name, got)
		}
	}
}
