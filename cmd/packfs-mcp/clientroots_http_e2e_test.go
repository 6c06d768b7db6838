package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestClientRootsHTTP serves, over HTTP and without --root, the folders each client offers as MCP
// roots inside --client-roots-within: each client sees its own roots and none of another's, a
// folder two clients offer is shared (one index, kept in step with both clients' writes), a
// client's list_changed changes its roots alone, a root outside the allowed folders is refused,
// and a client of protocol 2026-07-28, which has no session, brings its roots with each call.
func TestClientRootsHTTP(t *testing.T) {
	f := rootsFixture(t, map[string]string{
		"a/one.md":   "# One\nThe kestrel hovers.\n",
		"b/y.md":     "# Two\nA kestrel again.\n",
		"c/three.md": "# Three\nThe kestrel of the third root.\n",
	})
	a, b, c := f.root, filepath.Join(f.dir, "b"), filepath.Join(f.dir, "c")
	srv := startHTTPArgs(t, httpEnv(f), "serve", "--http", "127.0.0.1:0", "--allow-write",
		"--client-roots-within", a, "--client-roots-within", b, "--client-roots-within", c)
	if want := "serving the folders the clients offer as MCP roots inside"; !strings.Contains(srv.log(), want) {
		t.Errorf("the banner lacks %q:\n%s", want, srv.log())
	}
	handshake := func(roots *rootList) *session {
		return httpSession(t, f, srv.url, []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125), client.WithRootsHandler(roots)},
			transport.WithContinuousListening())
	}
	list := func(s *session) []string {
		t.Helper()
		res, _ := s.call(searcher, access("list", "."))
		return paths(res)
	}

	first, second := &rootList{}, &rootList{}
	first.set(mcp.Root{URI: fileURI(a), Name: "notes"}, mcp.Root{URI: fileURI(b)})
	// A link inside an allowed folder is judged by where it lands.
	escape := filepath.Join(c, "escape")
	must(t, os.Symlink(f.outside, escape))
	second.set(mcp.Root{URI: fileURI(b), Name: "shared"}, mcp.Root{URI: fileURI(c)}, mcp.Root{URI: fileURI(f.outside)}, mcp.Root{URI: fileURI(escape)})
	one, two := handshake(first), handshake(second)
	// Each asks for log lines: those about a client's roots reach it alone.
	logs := map[*session]*logBuffer{one: {}, two: {}}
	for s, buf := range logs {
		s.c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == "notifications/message" {
				fmt.Fprintln(buf, n.Params.AdditionalFields["data"])
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		must(t, s.c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}))
		cancel()
	}
	if got := list(one); !slices.Equal(got, []string{"b", "notes"}) {
		t.Fatalf("first client's roots: %v, want b and notes\n%s", got, srv.log())
	}
	if got := list(two); !slices.Equal(got, []string{"c", "shared"}) {
		t.Fatalf("second client's roots: %v, want c and shared (outside refused)\n%s", got, srv.log())
	}
	for _, dir := range []string{f.outside, escape} {
		if want := "client root " + fileURI(dir) + " refused: it is outside the folders the server lets clients offer (--client-roots-within)"; !strings.Contains(srv.log(), want) {
			t.Errorf("the log lacks %q:\n%s", want, srv.log())
		}
	}
	for _, tc := range []struct {
		s    *session
		path string
	}{{one, "c/three.md"}, {one, "shared/y.md"}, {two, "notes/one.md"}, {two, "b/y.md"}} {
		if res, _ := tc.s.call(reader, access("read", tc.path)); res["code"] != "NOT_FOUND" {
			t.Errorf("read %s of another client's root: %v, want NOT_FOUND", tc.path, res)
		}
	}

	// The folder both offer is one mount, indexed once: a file the first client writes, the
	// second finds at once, with no reconcile between.
	complete := func(s *session) {
		t.Helper()
		args := map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "kestrel"}}
		if res := eventually(t, s, args, func(res map[string]any) bool { return res["indexComplete"] != false }); res["indexComplete"] == false {
			t.Fatalf("the index was not built: %v", res)
		}
	}
	complete(one)
	complete(two)
	if n := strings.Count(srv.log(), "search index ready"); n != 3 {
		t.Errorf("%d indexes built, want 3 (a, b shared, c):\n%s", n, srv.log())
	}
	write := map[string]any{"purpose": "create", "target": map[string]any{"path": "b/new.md"}, "content": "# New\nA merlin over the moor.\n"}
	if res, isErr := one.call(writer, write); isErr {
		t.Fatalf("create b/new.md: %v", res)
	}
	res, _ := two.call(searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": "shared", "query": "merlin moor"}})
	if !slices.Contains(paths(res), "shared/new.md") {
		t.Errorf("the second client's search of the shared folder misses the first's write: %v", res)
	}

	// The first client drops b: its roots change, the second's do not.
	first.set(mcp.Root{URI: fileURI(a), Name: "notes"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	must(t, one.c.RootListChanges(ctx))
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(list(one), []string{"notes"}) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := list(one); !slices.Equal(got, []string{"notes"}) {
		t.Errorf("first client's roots after list_changed: %v, want notes", got)
	}
	if res, isErr := two.call(reader, access("read", "shared/y.md")); isErr {
		t.Errorf("the second client's shared root after the first dropped it: %v", res)
	}
	if want := "root b: no longer served: the client removed file://<host path> from its roots"; !logs[one].waitFor(want) {
		t.Errorf("the first client's log lacks %q:\n%s", want, logs[one])
	}
	if got := logs[two].String(); strings.Contains(got, "no longer served") {
		t.Errorf("the second client received the first's root lines:\n%s", got)
	}

	// A client of protocol 2026-07-28 has no session: each call asks for its roots.
	third := &rootList{}
	third.set(mcp.Root{URI: fileURI(c)})
	three := httpSession(t, f, srv.url, []client.ClientOption{client.WithRootsHandler(third)})
	if res, isErr := three.call(reader, access("read", "c/three.md")); isErr || !strings.Contains(fmt.Sprint(res["content"]), "third root") {
		t.Errorf("stateless client's read of c/three.md: %v", res)
	}
	if got := list(three); !slices.Equal(got, []string{"c"}) {
		t.Errorf("stateless client's roots: %v, want c", got)
	}
	if res, _ := three.call(reader, access("read", "notes/one.md")); res["code"] != "NOT_FOUND" {
		t.Errorf("stateless client's read of another client's root: %v, want NOT_FOUND", res)
	}
	if strings.Contains(srv.log(), "panic") {
		t.Errorf("the server panicked:\n%s", srv.log())
	}
}
