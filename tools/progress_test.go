package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/progress"
)

// progressSession is an initialized MCP client session whose notifications stay in a queue the test
// reads.
type progressSession struct{ ch chan mcp.JSONRPCNotification }

func (s *progressSession) Initialize()                                         {}
func (s *progressSession) Initialized() bool                                   { return true }
func (s *progressSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s *progressSession) SessionID() string                                   { return "progress-test" }

// TestProgressThroughServer serves a tree of 1,500 files through a real MCP server and checks the
// notifications that recursive listings and searches send, with and without a progress token.
func TestProgressThroughServer(t *testing.T) {
	dir := testfs.TempDir(t)
	for i := range 1500 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%30), fmt.Sprintf("f%04d.txt", i))
		mustOK(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mustOK(t, os.WriteFile(p, []byte("plain text\n"), 0o644))
	}
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(t, err)

	tests := []struct {
		name      string
		args      string
		meta      string // the request's _meta, or ""
		hook      bool
		wantNotes bool
	}{
		{"list with token", `{"purpose":"list","target":{"path":".","criteria":{"name":"f0007.txt"}},"options":{"recursive":true}}`, `{"progressToken":"tok-list"}`, true, true},
		{"search with numeric token", `{"purpose":"search_content","target":{"path":".","query":"absent needle"}}`, `{"progressToken":42}`, false, true},
		{"list without token", `{"purpose":"list","target":{"path":".","criteria":{"name":"f0007.txt"}},"options":{"recursive":true}}`, ``, true, false},
		{"search with empty meta", `{"purpose":"search_content","target":{"path":".","query":"absent needle"}}`, `{}`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hooked []progress.Report
			cfg := Config{Mount: Mount{Root: root, Policy: policy}, Permissions: security.AllPermissions(),
				Limiter: security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30})}
			if tt.hook {
				cfg.Progress = func(p progress.Report) { hooked = append(hooked, p) }
			}
			m := server.NewMCPServer("progress-test", "1", server.WithToolCapabilities(false))
			New(cfg).Register(m)
			sess := &progressSession{ch: make(chan mcp.JSONRPCNotification, 1000)}
			params := `{"name":"` + SearcherName + `","arguments":` + tt.args
			if tt.meta != "" {
				params += `,"_meta":` + tt.meta
			}
			req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}}`
			resp := m.HandleMessage(m.WithContext(context.Background(), sess), json.RawMessage(req))
			b, err := json.Marshal(resp)
			mustOK(t, err)
			if !strings.Contains(string(b), `\"success\":true`) {
				t.Fatalf("response = %s", b)
			}
			close(sess.ch)
			var notes []mcp.JSONRPCNotification
			for n := range sess.ch {
				notes = append(notes, n)
			}
			if got := len(notes) > 0; got != tt.wantNotes {
				t.Fatalf("%d notifications, want some: %v", len(notes), tt.wantNotes)
			}
			if tt.hook && len(hooked) == 0 {
				t.Errorf("the hook heard nothing")
			}
			var token any
			if tt.meta != "" {
				var meta map[string]any
				mustOK(t, json.Unmarshal([]byte(tt.meta), &meta))
				token = meta["progressToken"]
			}
			last := -1
			for i, n := range notes {
				f := n.Params.AdditionalFields
				if n.Method != "notifications/progress" || f["progressToken"] != token {
					t.Errorf("notification %d = %s %v, want progress for token %v", i, n.Method, f, token)
				}
				p, _ := f["progress"].(int)
				if p <= last {
					t.Errorf("notification %d: progress %v after %d", i, f["progress"], last)
				}
				last = p
				if msg, _ := f["message"].(string); msg == "" {
					t.Errorf("notification %d has no message", i)
				}
			}
		})
	}
}
