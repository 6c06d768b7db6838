package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// BenchmarkReadCall measures the server's share of a read's round trip, in process: a tools/call
// line handled by an MCP server with the tools registered, and its response encoded as the stdio
// transport encodes it, for 4 KiB files at depth 1 and 8, with purposes read and metadata. Besides
// wall time it reports the process's CPU time per call (cpu-ns/op), steadier on a shared machine.
// Profile it with -cpuprofile to see where a read's time goes without pipes and another process.
func BenchmarkReadCall(b *testing.B) {
	m, ctx := benchServer(b, strings.Repeat("0123456789abcde\n", 256))
	for _, bc := range []struct{ name, purpose, path string }{
		{"read/depth1", "read", "4k.md"},
		{"read/depth8", "read", benchDeep},
		{"metadata/depth1", "metadata", "4k.md"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + ReaderName +
				`","arguments":{"purpose":"` + bc.purpose + `","target":{"path":"` + bc.path + `"}}}}`)
			cpu0 := cpuTime(b)
			for b.Loop() {
				out, err := json.Marshal(m.HandleMessage(ctx, req))
				if err != nil || !strings.Contains(string(out), `\"success\":true`) {
					b.Fatalf("%s: %s %v", bc.name, out, err)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// benchDeep is the file of depth 8 that benchServer writes, beside 4k.md.
const benchDeep = "a/b/c/d/e/f/g/4k.md"

// benchServer serves a folder holding 4k.md and benchDeep, each holding content, through an MCP
// server with the tools registered and every permission, and returns it with the context its calls
// are handled in.
func benchServer(b *testing.B, content string) (*server.MCPServer, context.Context) {
	m, ctx, _ := historyServer(b, map[string]string{"4k.md": content, benchDeep: content}, false)
	return m, ctx
}

func mustOKB(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkEditCall measures an edit's round trip in process, as BenchmarkReadCall does a read's:
// one exact-match edit of a 4 KiB file at depth 1 and 8, each call putting back what the one
// before changed, so the file stays 4 KiB. It reports the process's CPU time per call too.
func BenchmarkEditCall(b *testing.B) {
	m, ctx := benchServer(b, strings.Repeat("0123456789abcde\n", 255)+"word-a\n")
	for _, bc := range []struct{ name, path string }{{"depth1", "4k.md"}, {"depth8", benchDeep}} {
		b.Run(bc.name, func(b *testing.B) {
			edit := func(from, to string) json.RawMessage {
				return json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + WriterName +
					`","arguments":{"purpose":"edit","target":{"path":"` + bc.path + `"},"edits":[{"oldText":"` + from + `","newText":"` + to + `"}]}}}`)
			}
			reqs := []json.RawMessage{edit("word-a", "word-b"), edit("word-b", "word-a")}
			cpu0 := cpuTime(b)
			i := 0
			for b.Loop() {
				out, err := json.Marshal(m.HandleMessage(ctx, reqs[i%2]))
				if err != nil || !strings.Contains(string(out), `\"success\":true`) {
					b.Fatalf("%s: %s %v", bc.name, out, err)
				}
				i++
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
