package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// newPolicyEnv is a server with every permission over a root built from tree, with the policy
// cfg (its root filled in).
func newPolicyEnv(t *testing.T, cfg security.PolicyConfig, tree ...string) *optionEnv {
	t.Helper()
	base := testfs.TempDir(t)
	dir := filepath.Join(base, "root")
	mustOK(t, os.Mkdir(dir, 0o755))
	testfs.Tree(t, dir, base, tree...)
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	cfg.RootDir, cfg.RootResolved = root.Dir(), root.ResolvedDir()
	policy, err := security.NewPolicy(cfg)
	mustOK(t, err)
	env := &optionEnv{root: dir, tools: map[string]server.ServerTool{}, srv: New(Config{
		Mount:       Mount{Root: root, Policy: policy},
		Limiter:     security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30}),
		Permissions: security.AllPermissions(),
	})}
	for _, st := range env.srv.Tools() {
		env.tools[st.Tool.Name] = st
	}
	return env
}

// TestDeleteFolderHoldingBlocked checks that a recursive delete of a folder refuses, deleting
// nothing, when the folder holds entries the policy blocks (which no call can see), and says how
// many and what to do instead; that a folder of visible entries alone, files of other types
// included, is deleted; that moving the folder whole stays allowed; and that an entry the
// operator unblocked is deleted with its folder.
func TestDeleteFolderHoldingBlocked(t *testing.T) {
	tree := []string{
		"proj/notes.md=notes\n",
		"proj/sub/deep.md=deep\n",
		"plain/a.md=a\n",
		"plain/sub/b.txt=b\n",
		"plain/.DS_Store=finder\n",
	}
	del := func(p string) map[string]any {
		return map[string]any{"purpose": "delete", "target": map[string]any{"path": p}, "options": map[string]any{"recursive": true}}
	}
	tests := []struct {
		name    string
		extra   []string
		policy  security.PolicyConfig
		args    map[string]any
		code    string
		message []string // in the error, in order
		gone    []string // host paths below the root gone after the call
		kept    []string // and kept
	}{
		{name: "env file", extra: []string{"proj/.env=TOKEN=x\n"}, args: del("proj"), code: errs.CodeNotEmpty,
			message: []string{`"proj" holds an entry that the policy blocks`, "nothing was deleted", `purpose "move"`, "--unblock"},
			kept:    []string{"proj/.env", "proj/notes.md", "proj/sub/deep.md"}},
		{name: "git folder and nested env", extra: []string{"proj/.git/config=[core]\n", "proj/.git/HEAD=ref\n", "proj/sub/.env.local=x\n"},
			args: del("proj"), code: errs.CodeNotEmpty, message: []string{"holds 2 entries that the policy blocks"},
			kept: []string{"proj/.git/config", "proj/sub/.env.local", "proj/notes.md"}},
		{name: "visible only", args: del("plain"), gone: []string{"plain"}},
		{name: "move whole", extra: []string{"proj/.git/config=[core]\n"},
			args: map[string]any{"purpose": "move", "target": map[string]any{"path": "proj", "destination": "moved"}},
			gone: []string{"proj"}, kept: []string{"moved/.git/config", "moved/notes.md"}},
		{name: "unblocked", extra: []string{"proj/.env=TOKEN=x\n"}, policy: security.PolicyConfig{Unblock: []string{".env"}},
			args: del("proj"), gone: []string{"proj"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newPolicyEnv(t, tt.policy, append(tree, tt.extra...)...)
			got := env.call(t, WriterName, tt.args).Result
			code, _ := got["code"].(string)
			if code != tt.code {
				t.Fatalf("code = %q, want %q: %v", code, tt.code, got)
			}
			msg, _ := got["error"].(string)
			for _, m := range tt.message {
				i := strings.Index(msg, m)
				if i < 0 {
					t.Errorf("error %q lacks %q", msg, m)
					continue
				}
				msg = msg[i+len(m):]
			}
			for _, p := range tt.gone {
				if _, err := os.Lstat(filepath.Join(env.root, p)); !os.IsNotExist(err) {
					t.Errorf("%s still there (%v)", p, err)
				}
			}
			for _, p := range tt.kept {
				if _, err := os.Lstat(filepath.Join(env.root, p)); err != nil {
					t.Errorf("%s: %v, want it kept", p, err)
				}
			}
		})
	}
}
