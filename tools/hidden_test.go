package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
)

// TestHintNamesTheRule checks that an answer whose every candidate the ignore rules left out says
// so first, names the rule and the file and line it is written on, and says how to include them.
func TestHintNamesTheRule(t *testing.T) {
	env := newPolicyEnv(t, security.PolicyConfig{}, ".git/HEAD=ref\n", ".gitignore=# top\n/*\n!/debian/\n", "kernel/sched.c=int x;\n", "README=kernel\n")
	for _, args := range []map[string]any{
		{"purpose": "list", "target": map[string]any{"path": "."}, "options": map[string]any{"recursive": true}},
		{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "int"}},
	} {
		got := env.call(t, SearcherName, args).Result
		hint, _ := got["hiddenHint"].(string)
		for _, want := range []string{"nothing found", `.gitignore line 2 "/*"`, "options.includeIgnored"} {
			if !strings.Contains(hint, want) {
				t.Errorf("%s: hint %q lacks %q (%v)", args["purpose"], hint, want, got)
			}
		}
	}
}

// TestHintNamesOthers checks that a listing's hint names a few of the entries it left out for a
// reason other than the rules and the policy, with the reason, and never a blocked one.
func TestHintNamesOthers(t *testing.T) {
	env := newPolicyEnv(t, security.PolicyConfig{}, "a.md=a\n", "out.md => ../outside.md", "gone.md => nothing.md", ".env=T=1\n")
	got := env.call(t, SearcherName, map[string]any{"purpose": "list", "target": map[string]any{"path": "."}}).Result
	hint, _ := got["hiddenHint"].(string)
	for _, want := range []string{"2 other", "out.md: a link out of the root or to nothing", "gone.md: a link"} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint %q lacks %q", hint, want)
		}
	}
	if strings.Contains(hint, ".env") {
		t.Errorf("hint %q names the blocked .env", hint)
	}
}

// TestEmptyIndexSaysWhy checks that a ranked search that finds nothing says how many files the
// index holds, and when it holds none, that ignored files are left out and how to search them.
func TestEmptyIndexSaysWhy(t *testing.T) {
	for _, tt := range []struct {
		name string
		tree []string
		want string
	}{
		{"all ignored", []string{".git/HEAD=ref\n", ".gitignore=/*\n", "k/sched.c=kernel scheduler\n"}, "the index holds no file"},
		{"held, not found", []string{"a.md=# A\nferns\n", "b.md=# B\nmoss\n"}, "among the 2 files the index holds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testfs.TempDir(t)
			testfs.Tree(t, dir, dir, tt.tree...)
			root, err := fsroot.Open(dir, fsroot.Options{})
			mustOK(t, err)
			defer root.Close()
			policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
			mustOK(t, err)
			ig := security.NewIgnore(root, policy, security.IgnoreConfig{})
			engine := semantic.New(semantic.Options{FS: security.IndexFS(policy, root), Allow: security.Indexed(policy, root, ig)})
			mustOK(t, engine.Build(context.Background()))
			defer engine.Close()
			s := New(Config{Mount: Mount{Root: root, Policy: policy, Ignore: ig, Engine: engine}, Permissions: security.AllPermissions(),
				Limiter: security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30})})
			var req mcp.CallToolRequest
			req.Params.Name = SearcherName
			req.Params.Arguments = map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "kernel"}}
			var got map[string]any
			for _, st := range s.Tools() {
				if st.Tool.Name == SearcherName {
					res, err := st.Handler(context.Background(), req)
					mustOK(t, err)
					mustOK(t, json.Unmarshal(structured(t, res), &got))
				}
			}
			if msg, _ := got["message"].(string); !strings.Contains(msg, tt.want) {
				t.Errorf("message %q lacks %q (%v)", msg, tt.want, got)
			}
		})
	}
}
