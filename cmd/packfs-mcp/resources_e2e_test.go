package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
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
				{"file:///etc/passwd", "EXTENSION_NOT_ALLOWED"}, // the root's etc/passwd, judged by its name
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
