package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/security"
)

// historyServer serves a folder holding files (name to content) through an MCP server, with a
// history in a folder beside it when kept, which it returns ("" without).
func historyServer(b *testing.B, files map[string]string, kept bool) (*server.MCPServer, context.Context, string) {
	dir := b.TempDir()
	root := filepath.Join(dir, "root")
	for name, content := range files {
		mustOKB(b, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
		mustOKB(b, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	r, err := fsroot.Open(root, fsroot.Options{})
	mustOKB(b, err)
	b.Cleanup(func() { r.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: r.Dir(), RootResolved: r.ResolvedDir()})
	mustOKB(b, err)
	cfg := Config{Mount: Mount{Root: r, Policy: policy}, Permissions: security.AllPermissions(), MaxFileSize: 4 << 20,
		Limiter: security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30})}
	histDir := ""
	if kept {
		histDir = filepath.Join(dir, "history")
		mustOKB(b, os.Mkdir(histDir, 0o700))
		h, err := fsroot.Open(histDir, fsroot.Options{})
		mustOKB(b, err)
		b.Cleanup(func() { h.Close() })
		cfg.History = history.Open(h)
	}
	m := server.NewMCPServer("bench", "1", server.WithToolCapabilities(false))
	New(cfg).Register(m)
	return m, m.WithContext(context.Background(), &progressSession{ch: make(chan mcp.JSONRPCNotification, 1)}), histDir
}

// BenchmarkHistory measures what keeping the history costs a write, side by side with it off: an
// edit of a 4 KiB note and an update of a 1 MiB file, each call a change never made before (the
// history keeps each content once, so a change back and forth would cost it nothing).
func BenchmarkHistory(b *testing.B) {
	note := strings.Repeat("0123456789abcde\n", 255) + "word-0\n"
	big := strings.Repeat("0123456789abcdefghijklmnopqrstu\n", 32768) // 1 MiB
	for _, kept := range []bool{false, true} {
		state := map[bool]string{false: "off", true: "on"}[kept]
		b.Run("edit-4KiB/history-"+state, func(b *testing.B) {
			m, ctx, _ := historyServer(b, map[string]string{"note.md": note}, kept)
			i := 0
			runCalls(b, m, ctx, func() string {
				i++
				return `{"purpose":"edit","target":{"path":"note.md"},"edits":[{"oldText":"word-` + fmt.Sprint(i-1) + `","newText":"word-` + fmt.Sprint(i) + `"}]}`
			})
		})
		b.Run("update-1MiB/history-"+state, func(b *testing.B) {
			m, ctx, _ := historyServer(b, map[string]string{"big.txt": big}, kept)
			i := 0
			runCalls(b, m, ctx, func() string {
				i++
				content, _ := json.Marshal(fmt.Sprintf("%07d", i) + big[7:])
				return `{"purpose":"update","target":{"path":"big.txt"},"content":` + string(content) + `}`
			})
		})
	}
}

// BenchmarkHistoryDisk reports what the history of 1,000 edits of one 10 KiB note takes on disk,
// each edit changing one word: every version is kept whole, once.
func BenchmarkHistoryDisk(b *testing.B) {
	note := strings.Repeat("0123456789abcde\n", 640) + "word-0\n"
	for b.Loop() {
		m, ctx, dir := historyServer(b, map[string]string{"note.md": note}, true)
		for i := 1; i <= 1000; i++ {
			writeCallB(b, m, ctx, `{"purpose":"edit","target":{"path":"note.md"},"edits":[{"oldText":"word-`+fmt.Sprint(i-1)+`","newText":"word-`+fmt.Sprint(i)+`"}]}`)
		}
		var bytes int64
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					bytes += info.Size()
				}
			}
			return nil
		})
		b.ReportMetric(float64(bytes)/(1<<20), "MiB/1000-edits")
	}
}

// runCalls sends the writer the call args gives, once per iteration, and reports its CPU time.
func runCalls(b *testing.B, m *server.MCPServer, ctx context.Context, args func() string) {
	cpu0 := cpuTime(b)
	for b.Loop() {
		writeCallB(b, m, ctx, args())
	}
	b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// writeCallB sends the writer one call of args and fails b unless it succeeds.
func writeCallB(b *testing.B, m *server.MCPServer, ctx context.Context, args string) {
	req := json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + WriterName + `","arguments":` + args + `}}`)
	out, err := json.Marshal(m.HandleMessage(ctx, req))
	if err != nil || !strings.Contains(string(out), `\"success\":true`) {
		b.Fatalf("%.300s %v", out, err)
	}
}
