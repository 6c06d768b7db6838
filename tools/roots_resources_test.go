package tools

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/search"
)

// newRootsResourceEnv serves the roots notes and work (see newRootsEnv) with their resources
// registered, beside base/outside/secret.md, which holds the marker no answer may show.
func newRootsResourceEnv(t *testing.T, trees map[string][]string) (*resourceEnv, *rootsEnv) {
	t.Helper()
	trees["outside"] = []string{"secret.md=" + resourceMarker + "\n"}
	re := newRootsEnv(t, trees)
	if !re.roots.OffersResources() {
		t.Fatal("two roots offer no resources")
	}
	hooks := &server.Hooks{}
	m := server.NewMCPServer("test", "1", server.WithResourceCapabilities(false, false), server.WithHooks(hooks))
	re.roots.RegisterResources(m, hooks)
	// send fails on any answer naming base, the folder of both roots.
	return &resourceEnv{t: t, root: filepath.Join(re.base, "notes"), m: m}, re
}

// TestRootsOffersResources checks that several roots offer resources on the conditions one root
// does, and that tools with no root yet (the client's roots, before it names one) offer none.
func TestRootsOffersResources(t *testing.T) {
	for _, tt := range []struct {
		name  string
		cfg   Config
		roots int
		want  bool
	}{
		{"two roots", Config{Permissions: security.AllPermissions()}, 2, true},
		{"one named root", Config{Permissions: security.AllPermissions()}, 1, true},
		{"no root yet (the client's roots to come)", Config{Permissions: security.AllPermissions()}, 0, true},
		{"no read permission", Config{Permissions: security.Permissions{}.With(security.PermList)}, 2, false},
		{"reader disabled", Config{Permissions: security.AllPermissions(), Disabled: []string{ReaderName}}, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRoots(tt.cfg, true)
			e := newRootsEnv(t, map[string][]string{"notes": nil, "work": nil})
			for _, s := range e.roots.list()[:tt.roots] {
				mustOK(t, r.Add(Mount{Name: s.cfg.Name, Root: s.cfg.Root, Policy: s.cfg.Policy}))
			}
			if got := r.OffersResources(); got != tt.want {
				t.Errorf("OffersResources() = %v, want %v", got, tt.want)
			}
		})
	}
}

// resourceAnswer reads uri and returns its one content, or the code and message of its refusal.
func (e *resourceEnv) resourceAnswer(uri string) (map[string]any, string, string) {
	e.t.Helper()
	a := e.send("resources/read", map[string]any{"uri": uri})
	if a.Error != nil {
		code, msg, _ := strings.Cut(a.Error.Message, ": ")
		return nil, code, msg
	}
	var res struct{ Contents []map[string]any }
	mustOK(e.t, json.Unmarshal(a.Result, &res))
	if len(res.Contents) != 1 {
		e.t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0], "", ""
}

// TestRootsReadResource reads the files of two roots by URI, file:/// and the path as the tools
// name it, and refuses every URI that a tool's path would be refused as: an unknown root, a climb
// out of one root into the other or above them, the same in percent-encoding, a link into the
// other root, and each root's policy; the refusals name paths as the caller does.
func TestRootsReadResource(t *testing.T) {
	e, re := newRootsResourceEnv(t, map[string][]string{
		"notes": {"a.md=# A\n", "to do.md=spaces\n", ".env=SECRET=1\n", "towork => ../work", "tow.md => ../work/w.md", "dir/"},
		"work":  {"w.md=# W\n", "sub/x.md=# X\n", "tool.exe=MZ", ".git/config=x\n"},
	})
	text := func(uri, body string) map[string]any {
		return map[string]any{"uri": uri, "mimeType": "text/markdown", "text": body}
	}
	tests := []struct {
		uri  string
		want map[string]any // the content, or nil for a refusal
		code string
		has  string // in the refusal's message
	}{
		{"file:///notes/a.md", text("file:///notes/a.md", "# A\n"), "", ""},
		{"file:///work/sub/x.md", text("file:///work/sub/x.md", "# X\n"), "", ""},
		{"file:///notes/to%20do.md", text("file:///notes/to%20do.md", "spaces\n"), "", ""},
		{"file:///work/./w.md", text("file:///work/./w.md", "# W\n"), "", ""},
		{"file:///./work/w.md", text("file:///./work/w.md", "# W\n"), "", ""},
		{"file:///work%2Fw.md", text("file:///work%2Fw.md", "# W\n"), "", ""}, // the tool path work/w.md
		{"file:/work/w.md", text("file:/work/w.md", "# W\n"), "", ""},
		// Out of one root into the other, or above both, however spelled.
		{"file:///notes/../work/w.md", nil, errs.CodeOutsideRoot, `"notes/../work/w.md" climbs out of root "notes"`},
		{"file:///notes/%2e%2e/work/w.md", nil, errs.CodeOutsideRoot, `climbs out of root "notes"`},
		{"file:///notes%2F..%2Fwork%2Fw.md", nil, errs.CodeOutsideRoot, `climbs out of root "notes"`},
		{"file:///notes/dir/../../work/w.md", nil, errs.CodeOutsideRoot, `root "notes"`},
		{"file:///../outside/secret.md", nil, errs.CodeOutsideRoot, "climbs above the roots"},
		{"file:///%2e%2e/outside/secret.md", nil, errs.CodeOutsideRoot, "climbs above the roots"},
		{"file:///%2E%2E%2Foutside%2Fsecret.md", nil, errs.CodeOutsideRoot, "climbs above the roots"},
		{"file:///./../outside/secret.md", nil, errs.CodeOutsideRoot, "climbs above the roots"},
		{"file:////{base}/outside/secret.md", nil, errs.CodeOutsideRoot, "outside every root"},
		{"file:///notes/towork/w.md", nil, errs.CodeOutsideRoot, `"notes/towork/w.md"`},
		{"file:///notes/tow.md", nil, errs.CodeOutsideRoot, `"notes/tow.md"`},
		// Not a root.
		{"file:///outside/secret.md", nil, errs.CodeNotFound, `no root is named "outside"`},
		{"file:///a.md", nil, errs.CodeNotFound, `no root is named "a.md"`},
		{"file:///%2e/notes/a.md", nil, "", ""}, // "./notes/a.md", as a tool path
		{"file:///", nil, errs.CodeIsDir, "the folder of the roots"},
		{"file:///.", nil, errs.CodeIsDir, "the folder of the roots"},
		{"file:///notes", nil, errs.CodeIsDir, `"notes"`},
		{"file:///notes/", nil, errs.CodeIsDir, `"notes"`},
		// Each root's policy, and its paths named with the root.
		{"file:///notes/.env", nil, errs.CodeBlocked, `"notes/.env"`},
		{"file:///work/.git/config", nil, errs.CodeBlocked, `"work/.git/config"`},
		{"file:///work/tool.exe", nil, errs.CodeExtension, `"work/tool.exe"`},
		{"file:///work/nothing.md", nil, errs.CodeNotFound, `"work/nothing.md"`},
		{"file:///work/w.md%00", nil, errs.CodeInvalidPath, ""},
		{"file://evil.example/notes/a.md", nil, errs.CodeOutsideRoot, "starting with its root's name"},
		{"file:///notes/a.md#top", nil, errs.CodeInvalidPath, ""},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			uri := strings.ReplaceAll(tt.uri, "{base}", strings.TrimPrefix(re.base, "/"))
			got, code, msg := e.resourceAnswer(uri)
			if tt.want == nil && tt.code == "" { // read, whatever its URI
				if code != "" || got == nil {
					t.Fatalf("read %s: refused with %s: %s", uri, code, msg)
				}
				return
			}
			if code != tt.code {
				t.Fatalf("read %s: refused with %q (%s), want %q (content %v)", uri, code, msg, tt.code, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("read %s (-want +got):\n%s", uri, diff)
			}
			if !strings.Contains(msg, tt.has) {
				t.Errorf("read %s: message %q lacks %q", uri, msg, tt.has)
			}
		})
	}

	// A root removed while serving is no longer read; with none left, a read says so.
	re.roots.Remove("work")
	if _, code, msg := e.resourceAnswer("file:///work/w.md"); code != errs.CodeNotFound || !strings.Contains(msg, `no root is named "work"`) {
		t.Errorf("read of a removed root: %s %s", code, msg)
	}
	re.roots.Remove("notes")
	if _, code, _ := e.resourceAnswer("file:///notes/a.md"); code != errs.CodeNotAvailable {
		t.Errorf("read with no root: %s, want %s", code, errs.CodeNotAvailable)
	}
}

// sortedWalk returns names sorted in walk order (see walkOrder).
func sortedWalk(names []string) []string {
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case search.WalkOrder(a, b):
			return -1
		}
		return 1
	})
	return names
}

// TestRootsListResources lists two roots page by page: every visible file of both exactly once,
// the first root's before the second's, each page as full as one root's (a page that ends a root
// goes on in the next), whether a root ends inside a page or exactly at its end.
func TestRootsListResources(t *testing.T) {
	files := func(root string, n int) (entries, names []string) {
		for i := range n {
			name := fmt.Sprintf("d%d/f%03d.md", i%3, i)
			entries, names = append(entries, name+"=x\n"), append(names, root+"/"+name)
		}
		return entries, sortedWalk(names)
	}
	tests := []struct {
		name        string
		notes, work int
		pages       []int
	}{
		{"a root ends inside a page", ResourcePageSize + 30, ResourcePageSize + 10, []int{ResourcePageSize, ResourcePageSize, 40}},
		{"a root ends with a page", ResourcePageSize, 5, []int{ResourcePageSize, 5}},
		{"both in one page", 3, 4, []int{7}},
		{"an empty root", 0, 4, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ne, nn := files("notes", tt.notes)
			we, wn := files("work", tt.work)
			hidden := []string{".env=x\n", ".git/config=x\n", "tool.exe=MZ", "towork => ../work", "out.md => ../outside/secret.md"}
			e, _ := newRootsResourceEnv(t, map[string][]string{"notes": append(ne, hidden...), "work": append(we, hidden[:3]...)})
			got, pages := e.list()
			if diff := cmp.Diff(append(nn, wn...), got); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
			if !slices.Equal(pages, tt.pages) {
				t.Errorf("pages %v, want %v", pages, tt.pages)
			}
		})
	}

	// A page looks at ResourceScanLimit entries in all, not in each root: one that spends most of
	// them on the first root's hidden entries stops short in the second.
	t.Run("the scan limit spans the roots", func(t *testing.T) {
		ne, nn := files("notes", 1)
		for i := range ResourceScanLimit - 20 {
			ne = append(ne, fmt.Sprintf("h/x%04d.exe=MZ", i))
		}
		we, wn := files("work", 50)
		e, _ := newRootsResourceEnv(t, map[string][]string{"notes": ne, "work": we})
		got, pages := e.list()
		if diff := cmp.Diff(append(nn, wn...), got); diff != "" {
			t.Errorf("listed (-want +got):\n%s", diff)
		}
		if len(pages) < 2 || pages[0] >= 1+20 {
			t.Errorf("pages %v: the first page looked at more than %d entries", pages, ResourceScanLimit)
		}
	})
}

// TestRootsListResourcesCursor checks the cursor of several roots: a page goes on after the
// position its cursor holds, in its root or, if that root is gone (removed while the client
// pages) or never was, in the next root by name; a forged cursor never leads into what the tools
// cannot see, and one that names no root or a path out of one is refused.
func TestRootsListResourcesCursor(t *testing.T) {
	var notes, want []string
	for i := range ResourcePageSize + 10 {
		notes = append(notes, fmt.Sprintf("a/n%03d.md=x\n", i))
		want = append(want, fmt.Sprintf("notes/a/n%03d.md", i))
	}
	notes = append(notes, "c/.git/zz.md=x\n", "c/.git/zzz/deep.md=x\n", "c/d.md=x\n")
	want = append(want, "notes/c/d.md")
	work := []string{"work/w0.md", "work/w1.md", "work/w2.md"}
	e, re := newRootsResourceEnv(t, map[string][]string{"notes": notes, "work": {"w0.md=x\n", "w1.md=x\n", "w2.md=x\n"}})
	want = append(want, work...)
	page := func(cursor mcp.Cursor) ([]string, mcp.Cursor, string) {
		a := e.send("resources/list", map[string]any{"cursor": cursor})
		if a.Error != nil {
			return nil, "", a.Error.Message
		}
		names, next := listed(t, a)
		return names, next, ""
	}
	first, next, _ := page("")
	if diff := cmp.Diff(want[:ResourcePageSize], first); diff != "" {
		t.Fatalf("first page (-want +got):\n%s", diff)
	}
	if root, after, err := decodeRootsCursor(next); root != "notes" || after != "a/n199.md" || err != nil {
		t.Errorf("first page's cursor holds %q, %q, %v; want notes and a/n199.md", root, after, err)
	}
	tests := []struct {
		name, cursor string
		want         []string // the page
		more         bool     // whether a cursor follows it
		refused      bool
	}{
		{"the next page", string(next), want[ResourcePageSize:], false, false},
		{"a root's start", "notes", want[:ResourcePageSize], true, false},
		{"a root before the first", "a", want[:ResourcePageSize], true, false},
		{"in a root", "work/w0.md", work[1:], false, false},
		{"no root by that name", "o/x.md", work, false, false},
		{"past every root", "zzz", nil, false, false},
		{"into a hidden file", "notes/c/.git/zz.md", want[len(want)-4:], false, false},
		{"into a hidden folder", "notes/c/.git", want[len(want)-4:], false, false},
		{"into a hidden folder's folder", "notes/c/.git/zzz", want[len(want)-4:], false, false},
		{"above the roots", "../notes/a", nil, false, true},
		{"a climb in a root", "notes/../work", nil, false, true},
		{"absolute", "/etc", nil, false, true},
		{"the folder of the roots", ".", nil, false, true},
		{"not a root's name", ".git/x", nil, false, true},
		{"a root name with a space", "no tes/a", nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mcp.Cursor(tt.cursor)
			if tt.name != "the next page" {
				c = encodeCursor(tt.cursor)
			}
			got, end, msg := page(c)
			if tt.refused {
				if !strings.HasPrefix(msg, errs.CodeInvalidArgument+": ") {
					t.Errorf("cursor %q: %q, want a refusal with %s", tt.cursor, msg, errs.CodeInvalidArgument)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || msg != "" || (end != "") != tt.more {
				t.Errorf("cursor %q (-want +got):\n%s%s, cursor %q", tt.cursor, diff, msg, end)
			}
		})
	}
	if _, _, msg := page("not base64!"); !strings.HasPrefix(msg, errs.CodeInvalidArgument+": ") {
		t.Errorf("a cursor not in base64: %q", msg)
	}

	// The cursor's root is removed between two pages: the listing goes on with the next root.
	re.roots.Remove("notes")
	if got, end, msg := page(next); !slices.Equal(got, work) || end != "" || msg != "" {
		t.Errorf("after its root was removed, the next page: %v, cursor %q %s; want %v", got, end, msg, work)
	}
}
