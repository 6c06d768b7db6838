package serving

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/audit"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/tools"
)

// TestJournalWriteFailure: a journal that cannot be written never fails the call, and the failure
// is logged once, not once per call.
func TestJournalWriteFailure(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("a\n"), 0o644))
	var logs bytes.Buffer
	a, err := build(Config{RootPath: root, Semantic: SemanticConfig{Disabled: true},
		Journal: JournalConfig{File: filepath.Join(t.TempDir(), "j.jsonl")}}, log.New(&logs, "", 0))
	must(t, err)
	defer a.close()
	// Swap the file for one that fails, as a full disk would.
	a.journal.w = audit.NewWriter(failingWriter{}, audit.Options{OnError: func(err error) {
		a.log.Printf("%v: tool calls go on unjournalled; later journal failures are not logged", err)
	}})
	tool := a.tools.Tools()[0]
	for i := range 3 {
		req := mcp.CallToolRequest{}
		req.Params.Name = tool.Tool.Name
		req.Params.Arguments = map[string]any{"purpose": "read", "target": map[string]any{"path": "a.md"}}
		res, err := tool.Handler(context.Background(), req)
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %v", i, err, res)
		}
		a.record(context.Background(), i, &req, res, time.Now())
	}
	if n := strings.Count(logs.String(), "disk full"); n != 1 {
		t.Errorf("the failure was logged %d times, want once:\n%s", n, logs.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// fakeSession is an MCP session with a chosen id, as an HTTP session would have.
type fakeSession struct{ id string }

func (fakeSession) Initialize()                                         {}
func (fakeSession) Initialized() bool                                   { return true }
func (fakeSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s fakeSession) SessionID() string                                 { return s.id }

// TestJournalIDs: a toolCallId is the JSON-RPC id as text, qualified by a hash of the session over
// HTTP, where every client numbers its requests from 1 and the session id must not spread.
func TestJournalIDs(t *testing.T) {
	srv := server.NewMCPServer("t", "1")
	stdio := srv.WithContext(context.Background(), fakeSession{"stdio"})
	http := srv.WithContext(context.Background(), fakeSession{"mcp-session-0123456789abcdef"})
	tests := []struct {
		name string
		ctx  context.Context
		id   any
		want string
	}{
		{"number", stdio, float64(7), "7"},
		{"fraction", stdio, 1.5, "1.5"},
		{"string", stdio, "req-a", "req-a"},
		{"request id", stdio, mcp.NewRequestId(int64(3)), "3"},
		{"no session", context.Background(), "call_1", "call_1"},
		{"http", http, float64(7), journalSessionLabel("mcp-session-0123456789abcdef") + "/7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := journalCallID(tt.ctx, tt.id); got != tt.want {
				t.Errorf("journalCallID = %q, want %q", got, tt.want)
			}
		})
	}
	label := journalSessionLabel("mcp-session-0123456789abcdef")
	if !regexp.MustCompile(`^http-[0-9a-f]{12}$`).MatchString(label) || strings.Contains(label, "0123456789abcdef") {
		t.Errorf("HTTP session label %q", label)
	}
	if got := journalCallID(stdio, nil); !strings.HasPrefix(got, "call-") || got == journalCallID(stdio, nil) {
		t.Errorf("a call without an id got %q, want a fresh call-…", got)
	}
	if journalKey(stdio, float64(7)) == journalKey(http, float64(7)) {
		t.Error("two sessions' request 7 share a start time")
	}
}

// TestJournalHooks drives the MCP server in process from many goroutines, so the race detector
// sees the hooks: every call is journalled, and no start time is left behind.
func TestJournalHooks(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("a\n"), 0o644))
	file := filepath.Join(t.TempDir(), "j.jsonl")
	a, err := build(Config{RootPath: root, Semantic: SemanticConfig{Disabled: true}, Journal: JournalConfig{File: file}},
		log.New(io.Discard, "", 0))
	must(t, err)
	defer a.close()
	ctx := a.mcp.WithContext(context.Background(), fakeSession{"stdio"})
	const goroutines, calls = 8, 25
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				tool := tools.ReaderName
				if i%5 == 0 {
					tool = "packfs-nope" // answered with a protocol error
				}
				msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"purpose":"read","target":{"path":"a.md"}}}}`,
					g*1000+i, tool)
				a.mcp.HandleMessage(ctx, json.RawMessage(msg))
			}
		}()
	}
	wg.Wait()
	recs := testfs.ReadJSONLines[audit.Record](t, file, audit.Check)
	states := map[string]int{}
	for _, rec := range recs {
		states[rec.Part().State+" "+rec.Metadata.Code]++
	}
	want := map[string]int{audit.StateOutput + " ": goroutines * calls * 4 / 5, audit.StateError + " UNKNOWN_TOOL": goroutines * calls / 5}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	left := 0
	a.journal.starts.Range(func(any, any) bool { left++; return true })
	if left != 0 {
		t.Errorf("%d start times left behind", left)
	}
}
