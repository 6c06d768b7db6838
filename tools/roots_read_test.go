package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
)

// TestRootsReadBudget reads target.paths spread over two roots and checks the answer against the
// same read of one root that holds both folders (base, with notes/ and work/ in it, so the paths
// are the same): whichever roots the files are in, the answer holds one MaxContentBytes of
// content, cut in the same places, with the same nextOffset, errors and order.
func TestRootsReadBudget(t *testing.T) {
	big := func(tag string, kb int) string {
		var b strings.Builder
		for i := 0; b.Len() < kb<<10; i++ {
			fmt.Fprintf(&b, "%s line %05d of a file that fills the answer's budget\n", tag, i)
		}
		return b.String()
	}
	trees := map[string][]string{
		"notes": {"a.md=" + big("a", 150), "c.md=" + big("c", 150), "small.md=small\n", ".env=X=1\n", "img.png=\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 100<<10)},
		"work":  {"b.md=" + big("b", 150), "d.md=" + big("d", 40), "f.md=" + big("f", 150), "e.png=\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 90<<10)},
	}
	two := newRootsEnv(t, trees)
	root, err := fsroot.Open(two.base, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(t, err)
	one := NewRoots(Config{
		Limiter:     security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30}),
		Permissions: security.AllPermissions(),
	}, false)
	mustOK(t, one.Add(Mount{Root: root, Policy: policy}))
	read := func(r *Roots, args string) map[string]any {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = ReaderName
		req.Params.Arguments = json.RawMessage(args)
		for _, st := range r.Tools() {
			if st.Tool.Name == ReaderName {
				res, err := st.Handler(context.Background(), req)
				mustOK(t, err)
				var out map[string]any
				mustOK(t, json.Unmarshal(structured(t, res), &out))
				delete(out, "metadata")
				return out
			}
		}
		t.Fatal("no reader")
		return nil
	}
	content := func(out map[string]any) (n int) {
		files, _ := out["files"].([]any)
		for _, f := range files {
			c, _ := f.(map[string]any)["content"].(string)
			n += len(c)
		}
		return n
	}
	tests := []struct {
		name  string
		paths []string
		more  string // the rest of the arguments
	}{
		{"three large files across two roots", []string{"notes/a.md", "work/b.md", "notes/c.md"}, ""},
		{"the roots interleaved", []string{"notes/small.md", "work/b.md", "notes/a.md", "work/d.md", "notes/c.md"}, ""},
		{"a failure between", []string{"notes/a.md", "notes/.env", "work/b.md", "notes/c.md"}, ""},
		{"lines asked for", []string{"work/b.md", "notes/a.md", "work/d.md"}, `,"preferences":{"offset":10,"limit":3000}`},
		{"in chunks", []string{"notes/a.md", "work/b.md", "notes/c.md", "work/d.md", "work/f.md", "notes/small.md"}, `,"preferences":{"chunkIfLarge":true}`},
		{"base64", []string{"notes/img.png", "work/e.png", "notes/small.md", "work/d.md"}, `,"target":{"encoding":"base64","paths":[%s]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quoted, _ := json.Marshal(tt.paths)
			list := strings.Trim(string(quoted), "[]")
			args := fmt.Sprintf(`{"purpose":"read","target":{"paths":[%s]}%s}`, list, tt.more)
			if strings.Contains(tt.more, `"target"`) {
				args = `{"purpose":"read"` + fmt.Sprintf(tt.more, list) + `}`
			}
			want, got := read(one, args), read(two.roots, args)
			if !cmp.Equal(want, got) {
				t.Errorf("two roots answer otherwise than one (-one +two), in short:\n%s", cmp.Diff(summary(want), summary(got)))
			}
			if n := content(got); n > MaxContentBytes+4<<10 {
				t.Errorf("the answer holds %d bytes of content, more than one budget of %d", n, MaxContentBytes)
			}
		})
	}
}

// summary is a read's answer with each file's content replaced by its length, for a diff to show.
func summary(out map[string]any) map[string]any {
	b, _ := json.Marshal(out)
	var short map[string]any
	_ = json.Unmarshal(b, &short)
	files, _ := short["files"].([]any)
	for _, f := range files {
		f := f.(map[string]any)
		if c, ok := f["content"].(string); ok {
			f["content"] = len(c)
		}
	}
	return short
}
