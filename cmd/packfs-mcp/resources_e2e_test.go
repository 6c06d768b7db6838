package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/tools"
)

// TestResourcesEndToEnd drives the binary over stdio with the mcp-go client, in both protocol eras:
// the root's files are listed page by page (only what the tools can see, each once), read by the
// URIs listed and by the template, text with its media type and binary as a blob, and every URI
// that leads out of the root or past the policy is refused with its rule, leaking nothing.
func TestResourcesEndToEnd(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t)
			want := []string{"big.txt", "full/inner.md", "image.png", "link_in.md", "notes/a.md", "notes/b.md",
				"notes/crlf.md", "notes/dup.md", "utf16.txt"}
			for i := range tools.ResourcePageSize + 50 {
				name := fmt.Sprintf("many/n%03d.md", i)
				must(t, os.MkdirAll(filepath.Join(f.root, "many"), 0o755))
				must(t, os.WriteFile(filepath.Join(f.root, name), []byte("note\n"), 0o644))
				want = append(want, name)
			}
			must(t, os.WriteFile(filepath.Join(f.root, "many", "with space.md"), []byte("spaced\n"), 0o644))
			want = append(want, "many/with space.md")
			slices.Sort(want)
			before := f.snapshot(t)
			s := start(t, f, era.opts, "--no-index")
			if s.c.GetServerCapabilities().Resources == nil {
				t.Fatal("the server does not declare resources")
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			var got []string
			uris := map[string]string{}
			req := mcp.ListResourcesRequest{}
			for pages := 0; ; pages++ {
				res, err := s.c.ListResourcesByPage(ctx, req)
				must(t, err)
				if len(res.Resources) > tools.ResourcePageSize {
					t.Errorf("a page of %d resources, more than %d", len(res.Resources), tools.ResourcePageSize)
				}
				for _, r := range res.Resources {
					got = append(got, r.Name)
					uris[r.Name] = r.URI
					s.seen = append(s.seen, r.URI)
				}
				if res.NextCursor == "" {
					if pages < 1 {
						t.Errorf("%d files listed in one page", len(got))
					}
					break
				}
				req.Params.Cursor = res.NextCursor
			}
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("listed resources (-want +got):\n%s", diff)
			}
			tpls, err := s.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
			must(t, err)
			if len(tpls.ResourceTemplates) != 1 || tpls.ResourceTemplates[0].URITemplate.Raw() != tools.ResourceTemplate {
				t.Errorf("resource templates: %+v, want %s alone", tpls.ResourceTemplates, tools.ResourceTemplate)
			}

			read := func(uri string) (mcp.ResourceContents, error) { return readResource(t, s, uri) }
			text := func(uri, mime, body string) mcp.ResourceContents {
				return mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: body}
			}
			reads := []struct {
				uri  string
				want mcp.ResourceContents
			}{
				{uris["notes/a.md"], text("file:///notes/a.md", "text/markdown", "# A\nhello world\nsecond line\n")},
				{uris["many/with space.md"], text("file:///many/with%20space.md", "text/markdown", "spaced\n")},
				{uris["link_in.md"], text("file:///link_in.md", "text/markdown", "# A\nhello world\nsecond line\n")},
				// By the template, not as listed.
				{"file:///full/../notes/b.md", text("file:///full/../notes/b.md", "text/markdown", "see [a](a.md)\nhello again\n")},
				{"file:///image.png", mcp.BlobResourceContents{URI: "file:///image.png", MIMEType: "image/png",
					Blob: base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))}},
			}
			for _, r := range reads {
				c, err := read(r.uri)
				if err != nil {
					t.Errorf("read %s: %v", r.uri, err)
					continue
				}
				if diff := cmp.Diff(r.want, c); diff != "" {
					t.Errorf("read %s (-want +got):\n%s", r.uri, diff)
				}
			}
			if c, err := read(uris["big.txt"]); err != nil || len(c.(mcp.TextResourceContents).Text) != 20000*len("line 00001 of a long file that is read in chunks\n") {
				t.Errorf("read big.txt whole: %v", err)
			}

			refusals := []struct{ uri, code string }{
				{"file:///../outside/secret.md", "PATH_OUTSIDE_ROOT"},
				{"file:///%2e%2e/outside/secret.md", "PATH_OUTSIDE_ROOT"},
				{"file:///notes/%2E%2E%2F..%2Foutside%2Fsecret.md", "PATH_OUTSIDE_ROOT"},
				{"file:////etc/passwd", "PATH_OUTSIDE_ROOT"},
				{"file:///" + f.outside + "/secret.md", "PATH_OUTSIDE_ROOT"},
				{"file://" + f.outside + "/secret.md", "NOT_FOUND"}, // a path under the root, which holds no tmp/
				{"file://evil.example/notes/a.md", "PATH_OUTSIDE_ROOT"},
				{"file:///link_out.md", "PATH_OUTSIDE_ROOT"},
				{"file:///abs_out.md", "PATH_OUTSIDE_ROOT"},
				{"file:///notes/up.md", "PATH_OUTSIDE_ROOT"},
				{"file:///chain1.md", "PATH_OUTSIDE_ROOT"},
				{"file:///dirlink/secret.md", "PATH_OUTSIDE_ROOT"},
				{"file:///passwd.md", "PATH_OUTSIDE_ROOT"},
				{"file:///dangling.md", "PATH_OUTSIDE_ROOT"},
				{"file:///.env", "PATH_BLOCKED"},
				{"file:///.git/config", "PATH_BLOCKED"},
				{"file:///keys/server.pem", "PATH_BLOCKED"},
				{"file:///env_link.md", "PATH_BLOCKED"},
				{"file:///program.exe", "EXTENSION_NOT_ALLOWED"},
				{"file:///etc/passwd", "NOT_FOUND"}, // the root's etc/passwd, which it does not have
				{"file:///fifo.md", "NOT_REGULAR_FILE"},
				{"file:///notes", "IS_DIRECTORY"},
				{"file:///missing.md", "NOT_FOUND"},
			}
			for _, r := range refusals {
				c, err := read(r.uri)
				if err == nil {
					t.Errorf("read %s: %v, want a refusal", r.uri, c)
					continue
				}
				if !strings.Contains(err.Error(), r.code+": ") {
					t.Errorf("read %s: %v, want %s", r.uri, err, r.code)
				}
			}
			s.checkNoLeak()
			if diff := snapshotDiff(before, f.snapshot(t)); diff != "" {
				t.Errorf("outside the root changed:\n%s", diff)
			}
		})
	}
}

// TestLoggingEndToEnd drives the binary over stdio in the protocol era that has logging/setLevel:
// the server's log lines reach the client as notifications/message only once it has set a level,
// and only at or above it. The line here is the warning a message over --max-request-bytes logs.
// Notifications keep their order, so when the third refusal's warning arrives, the first two's
// would have arrived before it had they been sent.
func TestLoggingEndToEnd(t *testing.T) {
	f := newFixture(t)
	s := start(t, f, []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125)},
		"--no-index", "--max-request-bytes", "4096")
	if s.c.GetServerCapabilities().Logging == nil {
		t.Fatal("the server does not declare logging")
	}
	var mu sync.Mutex
	var got []mcp.JSONRPCNotification
	s.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationMessage) {
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	oversized := func() {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name = reader
		req.Params.Arguments = access("read", strings.Repeat("x/", 4096)+"a.md")
		if _, err := s.c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), "4096 bytes") {
			t.Fatalf("an oversized call: %v, want the refusal", err)
		}
	}
	setLevel := func(level mcp.LoggingLevel) {
		t.Helper()
		req := mcp.SetLevelRequest{}
		req.Params.Level = level
		must(t, s.c.SetLevel(ctx, req))
	}
	oversized() // before setLevel: nothing
	setLevel(mcp.LoggingLevelError)
	oversized() // a warning, below error: nothing
	setLevel(mcp.LoggingLevelWarning)
	oversized() // sent
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // room for a wrong second one to arrive
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("received %d log notifications, want 1: %+v", len(got), got)
	}
	p := got[0].Params.AdditionalFields
	if p["level"] != "warning" || p["logger"] != "packfs-mcp" ||
		p["data"] != "refused a message of more than 4096 bytes on stdin (--max-request-bytes)" {
		t.Errorf("notification %+v", p)
	}
}

// TestResourcesAsTheReader is case J53 with the reader as the oracle: over the attack fixture
// (links out, special files, a hard link, a 10 GB sparse file, blocked names), every URI that
// names a path is answered by resources/read as packfs-file-reader's read answers that path, with
// the same code; a URI the reader has no path for (a query, a fragment, a host, another scheme) is
// refused; and resources/list offers no blocked, special or outside file, only files that read as
// the reader reads them.
func TestResourcesAsTheReader(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t)
			extras(t, f)
			before := f.snapshot(t)
			s := start(t, f, era.opts, "--no-index")
			codeOf := func(err error) string {
				if err == nil {
					return ""
				}
				if m := regexp.MustCompile(`\b([A-Z][A-Z_]+[A-Z]): `).FindStringSubmatch(err.Error()); m != nil {
					return m[1]
				}
				return err.Error()
			}
			readerCode := func(p string) string {
				res, _ := s.call(reader, access("read", p))
				code, _ := res["code"].(string)
				return code
			}
			// A URI, and the path the reader is given for it.
			same := []struct{ uri, path string }{
				{"file:///notes/a.md", "notes/a.md"},
				{"file:///link_in.md", "link_in.md"},
				{"file:///NOTES.MD", "NOTES.MD"},
				{"file:///../outside/secret.md", "../outside/secret.md"},
				{"file:///%2e%2e/outside/secret.md", "../outside/secret.md"},
				{"file:///notes/..%2f..%2foutside%2fsecret.md", "notes/../../outside/secret.md"},
				{"file:////etc/passwd", "/etc/passwd"},
				{"file:///etc/passwd", "etc/passwd"},
				{"file:///" + f.root + "/../outside/secret.md", f.root + "/../outside/secret.md"},
				{"file://" + f.root + "/../outside/secret.md", strings.TrimPrefix(f.root, "/") + "/../outside/secret.md"},
				{"file:///notes%5C..%5C..%5Coutside%5Csecret.md", `notes\..\..\outside\secret.md`},
				{"file:///notes/%E2%80%8Ba.md", "notes/\u200ba.md"},
				{"file:///notes/a.md%00.md", "notes/a.md\x00.md"},
				{"file:///~/.ssh/id_rsa", "~/.ssh/id_rsa"},
			}
			for _, name := range []string{"link_out.md", "abs_out.md", "notes/up.md", "chain1.md", "dirlink/secret.md", "passwd.md",
				"dangling.md", "zero.md", "stdin.md", "environ.md", "loop_a.md", "abs_in.md", ".env", ".git/config", "keys/server.pem",
				"env_link.md", "program.exe", "fifo.md", "sock.md", "dev.md", "hard.md", "sparse.txt", "notes", "missing.md", "image.png"} {
				same = append(same, struct{ uri, path string }{"file:///" + name, name})
			}
			allowed := []string{"notes/a.md", "link_in.md", "NOTES.MD", "image.png"}
			for _, tt := range same {
				_, err := readResource(t, s, tt.uri)
				got, want := codeOf(err), readerCode(tt.path)
				if got != want {
					t.Errorf("resources/read %s: %q, want %q as the reader answers %q", tt.uri, got, want, tt.path)
				}
				if (want == "") != slices.Contains(allowed, tt.path) {
					t.Errorf("the reader answers %q with %q: the oracle itself is wrong", tt.path, want)
				}
			}
			// URIs the reader has no path for.
			for _, uri := range []string{"file:///notes/a.md?raw=1", "file:///notes/a.md#top", "file://evil.example/notes/a.md",
				"file://localhost/notes/a.md", "file:notes/a.md", "http://example.com/notes/a.md", "ftp:///notes/a.md", "notes/a.md"} {
				if c, err := readResource(t, s, uri); err == nil {
					t.Errorf("resources/read %s: %v, want a refusal", uri, c)
				}
			}

			var listed []string
			req := mcp.ListResourcesRequest{}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for {
				res, err := s.c.ListResourcesByPage(ctx, req)
				must(t, err)
				for _, r := range res.Resources {
					listed = append(listed, r.Name)
					s.seen = append(s.seen, r.URI)
				}
				if res.NextCursor == "" {
					break
				}
				req.Params.Cursor = res.NextCursor
			}
			for _, hidden := range []string{"link_out.md", "abs_out.md", "chain1.md", "passwd.md", "dangling.md", "zero.md", "stdin.md",
				"environ.md", "loop_a.md", ".env", ".git/config", "keys/server.pem", "env_link.md", "program.exe", "fifo.md", "sock.md",
				"dev.md", "hard.md", "mixed/.env", "mixed/out.md", "mixed/fifo.md", "mixed/sock.md", "mixed/dev.md"} {
				if slices.Contains(listed, hidden) {
					t.Errorf("resources/list offers %s", hidden)
				}
			}
			if !slices.Contains(listed, "notes/a.md") || !slices.Contains(listed, "mixed/ok.md") {
				t.Errorf("resources/list: %v, want notes/a.md and mixed/ok.md among them", listed)
			}
			for _, name := range listed {
				_, err := readResource(t, s, "file:///"+(&url.URL{Path: name}).EscapedPath())
				if got, want := codeOf(err), readerCode(name); got != want {
					t.Errorf("listed %s reads as %q, want %q as the reader", name, got, want)
				}
			}
			s.checkNoLeak()
			if diff := snapshotDiff(before, f.snapshot(t)); diff != "" {
				t.Errorf("outside the root changed:\n%s", diff)
			}
		})
	}
}
