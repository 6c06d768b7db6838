package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/tools"
)

// listResources lists every page of s's resources and returns the names in order, each page's
// length and the URI of each name; every URI is kept for the leak oracle.
func listResources(t *testing.T, s *session) (names []string, pages []int, uris map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uris = map[string]string{}
	req := mcp.ListResourcesRequest{}
	for {
		res, err := s.c.ListResourcesByPage(ctx, req)
		must(t, err)
		pages = append(pages, len(res.Resources))
		for _, r := range res.Resources {
			names = append(names, r.Name)
			uris[r.Name] = r.URI
			s.seen = append(s.seen, r.URI)
		}
		if res.NextCursor == "" {
			return names, pages, uris
		}
		if len(pages) > 100 {
			t.Fatal("the listing does not end")
		}
		req.Params.Cursor = res.NextCursor
	}
}

// readResource reads uri and returns its one content, or the refusal; a refusal's text is kept
// for the leak oracle.
func readResource(t *testing.T, s *session, uri string) (mcp.ResourceContents, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := s.c.ReadResource(ctx, req)
	if err != nil {
		s.seen = append(s.seen, err.Error())
		return nil, err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0], nil
}

// TestSeveralRootsResources drives the binary serving two folders, --root a=DIR --root b=DIR, over
// stdio with the mcp-go client in both protocol eras: it declares resources, lists both roots'
// files as file:///NAME/path page by page (a then b, a page that ends a goes on in b), reads each
// root's file by the URI listed, and refuses a URI that climbs from one root into the other, in
// any spelling, or names no root, as the tools refuse such a path. Without --root, the resources
// are the client's roots' files, and follow its changes.
func TestSeveralRootsResources(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			files := map[string]string{
				"a/x.md":      "# Alpha\n",
				"a/.env":      "TOKEN=1\n",
				"b/y.md":      "# Beta\n",
				"b/sub/z.txt": "zed\n",
			}
			var want []string
			for i := range tools.ResourcePageSize + 20 {
				name := fmt.Sprintf("a/many/n%03d.md", i)
				files[name] = "note\n"
				want = append(want, name)
			}
			want = append(want, "a/x.md", "b/sub/z.txt", "b/y.md")
			f := rootsFixture(t, files)
			b := filepath.Join(f.dir, "b")
			env := cacheEnv(f.dir)
			s := startTransport(t, f, transport.NewStdio(binPath, env, "serve", "--root", "a="+f.root, "--root", "b="+b, "--no-index"), era.opts)
			if s.c.GetServerCapabilities().Resources == nil {
				t.Fatal("a server of two roots does not declare resources")
			}

			got, pages, uris := listResources(t, s)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
			if !slices.Equal(pages, []int{tools.ResourcePageSize, 23}) {
				t.Errorf("pages %v, want %d and the rest: a page that ends root a goes on in b", pages, tools.ResourcePageSize)
			}
			for _, r := range []struct{ name, uri, text string }{
				{"a/x.md", "file:///a/x.md", "# Alpha\n"},
				{"b/y.md", "file:///b/y.md", "# Beta\n"},
				{"b/sub/z.txt", "file:///b/sub/z.txt", "zed\n"},
			} {
				if uris[r.name] != r.uri {
					t.Errorf("%s listed as %q, want %q", r.name, uris[r.name], r.uri)
				}
				c, err := readResource(t, s, r.uri)
				if err != nil {
					t.Errorf("read %s: %v", r.uri, err)
					continue
				}
				if tc, ok := c.(mcp.TextResourceContents); !ok || tc.Text != r.text || tc.URI != r.uri {
					t.Errorf("read %s: %+v, want %q", r.uri, c, r.text)
				}
			}

			for _, r := range []struct{ uri, code, has string }{
				{"file:///a/../b/y.md", "PATH_OUTSIDE_ROOT", `climbs out of root "a"`},
				{"file:///a/%2e%2e/b/y.md", "PATH_OUTSIDE_ROOT", `root "a"`},
				{"file:///a%2F..%2Fb%2Fy.md", "PATH_OUTSIDE_ROOT", `root "a"`},
				{"file:///a/to-b.md", "PATH_OUTSIDE_ROOT", `"a/to-b.md"`},
				{"file:///../outside/secret.md", "PATH_OUTSIDE_ROOT", "above the roots"},
				{"file:///%2e%2e/outside/secret.md", "PATH_OUTSIDE_ROOT", "above the roots"},
				{"file:////" + strings.TrimPrefix(f.outside, "/") + "/secret.md", "PATH_OUTSIDE_ROOT", "outside every root"},
				{"file:///outside/secret.md", "NOT_FOUND", `no root is named "outside"`},
				{"file:///a/.env", "PATH_BLOCKED", `"a/.env"`},
				{"file:///b/nothing.md", "NOT_FOUND", `"b/nothing.md"`},
				{"file:///", "IS_DIRECTORY", "a, b"},
			} {
				c, err := readResource(t, s, r.uri)
				if err == nil {
					t.Errorf("read %s: %+v, want a refusal", r.uri, c)
					continue
				}
				if !strings.Contains(err.Error(), r.code+": ") || !strings.Contains(err.Error(), r.has) {
					t.Errorf("read %s: %v, want %s naming %s", r.uri, err, r.code, r.has)
				}
			}
			s.checkNoLeak()
			for _, text := range s.seen {
				if strings.Contains(text, f.dir) {
					t.Errorf("an answer names a host path: %s", text)
				}
			}
		})
	}

	t.Run("client roots", func(t *testing.T) {
		f := rootsFixture(t, map[string]string{"a/x.md": "x\n", "b/y.md": "y\n", "c/z.md": "z\n"})
		list := &rootList{}
		list.set(mcp.Root{URI: fileURI(f.root), Name: "notes"}, mcp.Root{URI: fileURI(filepath.Join(f.dir, "b"))})
		opts := []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20251125), client.WithRootsHandler(list)}
		r := startRoots(t, f, opts, "--no-index")
		if r.c.GetServerCapabilities().Resources == nil {
			t.Fatal("a server of the client's roots declares no resources")
		}
		if got, _, _ := listResources(t, r.session); !slices.Equal(got, []string{"b/y.md", "notes/x.md"}) {
			t.Errorf("the client's roots' resources: %v, want b/y.md and notes/x.md", got)
		}
		if c, err := readResource(t, r.session, "file:///notes/x.md"); err != nil {
			t.Errorf("read file:///notes/x.md: %v", err)
		} else if tc, ok := c.(mcp.TextResourceContents); !ok || tc.Text != "x\n" {
			t.Errorf("read file:///notes/x.md: %+v", c)
		}
		// The client's roots change: the listing follows.
		list.set(mcp.Root{URI: fileURI(filepath.Join(f.dir, "c"))})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		must(t, r.c.RootListChanges(ctx))
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, _, _ := listResources(t, r.session)
			if slices.Equal(got, []string{"c/z.md"}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the resources after the roots changed: %v, want c/z.md", got)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := readResource(t, r.session, "file:///notes/x.md"); err == nil || !strings.Contains(err.Error(), "NOT_FOUND: ") {
			t.Errorf("read of a removed root's file: %v, want NOT_FOUND", err)
		}
		r.checkNoLeak()
	})
}
