package serving

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// logSession is a client session that keeps its log level and the notifications sent to it.
type logSession struct {
	ch    chan mcp.JSONRPCNotification
	mu    sync.Mutex
	level mcp.LoggingLevel
}

func (s *logSession) Initialize()                                         {}
func (s *logSession) Initialized() bool                                   { return true }
func (s *logSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.ch }
func (s *logSession) SessionID() string                                   { return "log-test" }
func (s *logSession) SetLogLevel(l mcp.LoggingLevel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.level = l
}
func (s *logSession) GetLogLevel() mcp.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.level == "" {
		return mcp.LoggingLevelError // as mcp-go's sessions start
	}
	return s.level
}

// received drains the notifications sent so far, as "level: data".
func (s *logSession) received() []string {
	var out []string
	for {
		select {
		case n := <-s.ch:
			f := n.Params.AdditionalFields
			if n.Method != "notifications/message" || f["logger"] != clientLogger {
				out = append(out, "unexpected "+n.Method)
				continue
			}
			out = append(out, string(f["level"].(mcp.LoggingLevel))+": "+f["data"].(string))
		default:
			return out
		}
	}
}

// TestClientLog checks that the log's lines all reach stderr whole, and reach a client only once
// it has set a level, only at or above that level, as their first line without host paths, and no
// more once its session has ended.
func TestClientLog(t *testing.T) {
	var stderr bytes.Buffer
	l := newClientLog(log.New(&stderr, "packfs-mcp: ", 0))
	info, warn, errs := l.at(mcp.LoggingLevelInfo), l.at(mcp.LoggingLevelWarning), l.at(mcp.LoggingLevelError)
	hooks := &server.Hooks{}
	m := server.NewMCPServer("test", "1", server.WithLogging(), server.WithHooks(hooks))
	l.attach(m, hooks, "/srv/My Notes", "relative/ignored")
	sess := &logSession{ch: make(chan mcp.JSONRPCNotification, 10)}
	ctx := m.WithContext(context.Background(), sess)
	must(t, m.RegisterSession(ctx, sess))

	errs.Print("an error before the client asked")
	if got := sess.received(); len(got) > 0 {
		t.Errorf("before logging/setLevel the client received %q", got)
	}
	setLevel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": map[string]any{"level": "warning"}})
	if res, _ := json.Marshal(m.HandleMessage(ctx, setLevel)); !strings.Contains(string(res), `"result":{}`) {
		t.Fatalf("logging/setLevel: %s", res)
	}
	info.Print("search index ready: 3 files")
	warn.Printf("the search index in %s is in use", "/srv/My Notes/.cache/index")
	errs.Printf("panic in packfs-file-reader: boom\ngoroutine 1:\n\t/home/dev/tools/server.go:187")
	l.stderr().Print("mcp-go: error writing a notification")
	want := []string{
		"warning: the search index in <host path>/.cache/index is in use",
		"error: panic in packfs-file-reader: boom",
	}
	if diff := cmp.Diff(want, sess.received()); diff != "" {
		t.Errorf("received (-want +got):\n%s", diff)
	}
	m.UnregisterSession(ctx, sess.SessionID())
	errs.Print("after the session ended")
	if got := sess.received(); len(got) > 0 {
		t.Errorf("after its session ended the client received %q", got)
	}
	l.listeners.Range(func(id, _ any) bool {
		t.Errorf("the log still holds session %v after it ended (HTTP sessions come and go)", id)
		return true
	})
	wantStderr := `packfs-mcp: an error before the client asked
packfs-mcp: search index ready: 3 files
packfs-mcp: the search index in /srv/My Notes/.cache/index is in use
packfs-mcp: panic in packfs-file-reader: boom
goroutine 1:
	/home/dev/tools/server.go:187
packfs-mcp: mcp-go: error writing a notification
packfs-mcp: after the session ended
`
	if diff := cmp.Diff(wantStderr, stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

// TestClientLine checks what a client receives of a log line: no absolute path, wherever it
// stands, and everything else as it was.
func TestClientLine(t *testing.T) {
	l := &clientLog{known: []string{"/srv/My Notes"}}
	tests := []struct{ line, want string }{
		{"search index ready: 38404 files in 1.2s", "search index ready: 38404 files in 1.2s"},
		{`index refresh of "notes/a.md": took 2s`, `index refresh of "notes/a.md": took 2s`},
		{"serving /srv/My Notes; index /home/u/.cache/packfs-mcp/index/ab12", "serving <host path>; index <host path>"},
		{"backups are off: mkdir /var/lib/x: permission denied", "backups are off: mkdir <host path>: permission denied"},
		{`open "/etc/passwd": denied`, `open "<host path>": denied`},
		{"journal (/tmp/j.jsonl) failed", "journal (<host path>) failed"},
		{"at [/a/b] and dir=/c/d, then 1/2", "at [<host path>] and dir=<host path>, then 1/2"},
		{"/leading/path first", "<host path> first"},
		{"listening on http://127.0.0.1:8080/mcp", "listening on http://127.0.0.1:8080/mcp"},
		{"client root file:///home/u/notes refused", "client root file://<host path> refused"},
		{"client root file:/// refused", "client root file://<host path> refused"},
		{"two lines /x\n/y", "two lines <host path>"},
		// Windows host paths: a drive, either slash, a UNC share.
		{`index C:\Users\you\AppData\Local\packfs-mcp\index\ab12: in use`, "index <host path>: in use"},
		{`serving "D:/Notes/work"`, `serving "<host path>"`},
		{`root \\server\share\notes refused`, "root <host path> refused"},
		{"client root file:///C:/Users/you/Notes refused", "client root file://<host path> refused"},
		{"a drive-relative name x:y.md stays", "a drive-relative name x:y.md stays"},
	}
	for _, tt := range tests {
		if got := l.clientLine([]byte(tt.line + "\n")); got != tt.want {
			t.Errorf("clientLine(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
