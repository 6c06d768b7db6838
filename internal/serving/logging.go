package serving

import (
	"bytes"
	"context"
	"log"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The server's log. Every line goes to stderr, as it always has, whole. A line also goes, as an MCP
// notifications/message at its level, to each client that has asked for log messages with
// logging/setLevel, when its level is at or above the one the client set:
//
//   - A client that has not set a level receives none. mcp-go would start a session at "error";
//     the specification leaves the default to the server, and lines a client never asked for
//     would arrive unannounced in its conversation.
//   - A client receives no host path. The operator's stderr keeps them; a log line may name
//     folders outside the root (the index, the backups, the journal), which the tools never
//     reveal, so every absolute path is cut out of the line a client receives, the root's too:
//     the instructions name the root, but one rule with no exception is one that holds.
//   - A client receives the line's first line only: a panic's stack stays on stderr.
//
// The levels are chosen where the lines are written: errors and panics "error", a degraded service
// (backups off, an index kept in memory, a refused message) "warning", progress and the ordinary
// course of things (index progress and readiness, changes picked up) "info". No line is debug
// chatter today, so there is no debug logger.
//
// Protocol 2026-07-28 drops logging/setLevel for a level sent with each request; the server's
// lines belong to no request, so a client of that era receives none.

// clientLogger names the server in the notifications it sends.
const clientLogger = "packfs-mcp"

// clientLog is the server's log: the loggers of every level, which all write through one logger
// to stderr, and the clients they send their lines to.
type clientLog struct {
	base *log.Logger // stderr, with its prefix and flags; its mutex orders every level's lines
	srv  atomic.Pointer[server.MCPServer]
	// known are the host paths the server knows of, longest first, cut out whole before the
	// pattern is: a folder's name may hold spaces. Roots the client offers add theirs; knownMu
	// guards it.
	knownMu sync.RWMutex
	known   []string
	// listeners holds the ids of the sessions that have set a level.
	listeners sync.Map
}

// newClientLog returns a log whose lines go to base.
func newClientLog(base *log.Logger) *clientLog {
	return &clientLog{base: base}
}

// at returns a logger whose lines go to stderr and, at level, to the clients that asked for them.
func (l *clientLog) at(level mcp.LoggingLevel) *log.Logger {
	return log.New(&levelWriter{l: l, level: level}, "", 0)
}

// to returns a logger whose lines go to stderr and, at level, to the client of the session id
// alone, if it asked for them: the lines about one client's roots, which are none of another's.
func (l *clientLog) to(id string, level mcp.LoggingLevel) *log.Logger {
	return log.New(&levelWriter{l: l, level: level, only: id, private: true}, "", 0)
}

// stderr returns a logger whose lines go to stderr only. mcp-go's transports log through it: their
// complaint that a notification could not be written would otherwise be sent as a notification,
// and fail, and be logged again.
func (l *clientLog) stderr() *log.Logger {
	return l.base
}

// attach sends the lines to m's clients from now on, and follows through hooks (m's) which of them
// have set a level. known are the host paths the server uses (the root, its state folders).
func (l *clientLog) attach(m *server.MCPServer, hooks *server.Hooks, known ...string) {
	l.remember(known...)
	hooks.AddAfterSetLevel(func(ctx context.Context, _ any, _ *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			l.listeners.Store(s.SessionID(), true)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		l.listeners.Delete(s.SessionID())
	})
	l.srv.Store(m)
}

// remember adds paths to the host paths cut out of what clients receive.
func (l *clientLog) remember(paths ...string) {
	l.knownMu.Lock()
	defer l.knownMu.Unlock()
	for _, p := range paths {
		if len(p) > 1 && filepath.IsAbs(p) && !slices.Contains(l.known, p) {
			l.known = append(l.known, p)
		}
	}
	slices.SortFunc(l.known, func(a, b string) int { return len(b) - len(a) })
}

// send sends the log line p to every client that has set a level at or below level, or with
// private to the client of the session only alone; mcp-go holds each session's level and drops a
// notification its session's channel has no room for.
func (l *clientLog) send(level mcp.LoggingLevel, p []byte, only string, private bool) {
	m := l.srv.Load()
	if m == nil {
		return
	}
	msg := ""
	l.listeners.Range(func(id, _ any) bool {
		if private && id != only {
			return true
		}
		if msg == "" {
			msg = l.clientLine(p)
		}
		m.SendLogMessageToSpecificClient(id.(string), mcp.NewLoggingMessageNotification(level, clientLogger, msg))
		return true
	})
}

// levelWriter is the output of one level's logger.
type levelWriter struct {
	l     *clientLog
	level mcp.LoggingLevel
	// private says the lines go to the client of the session only alone (see clientLog.to).
	only    string
	private bool
}

// Write logs the line p (a whole line: a logger writes one per call) through the base logger,
// which adds the prefix and flags, then sends it.
func (w *levelWriter) Write(p []byte) (int, error) {
	err := w.l.base.Output(2, string(p))
	w.l.send(w.level, p, w.only, w.private)
	return len(p), err
}

// hostPath matches an absolute path where a log line can hold one: at its start, or after a space,
// a quote, a parenthesis, a bracket, an equals sign or "file://" (a client's root). It is a Unix
// path ("/srv/x"), a Windows one with a drive (`C:\Users\x`, "C:/x", "/C:/x" in a file URI) or a UNC or device one
// (`\\server\share`). A root-relative name starts with none of these (the policy refuses drive
// and UNC forms), and another URL's "//" follows a colon.
var hostPath = regexp.MustCompile(`(^|[\s"'(\[=]|file://)(/[A-Za-z]:[\\/]|/|[A-Za-z]:[\\/]|\\\\)[^\s"',;:)\]]*`)

// clientLine is what a client receives of the log line p: its first line, every absolute path
// replaced by <host path>.
func (l *clientLog) clientLine(p []byte) string {
	line, _, _ := bytes.Cut(p, []byte("\n"))
	s := string(line)
	l.knownMu.RLock()
	for _, k := range l.known {
		s = strings.ReplaceAll(s, k, "<host path>")
	}
	l.knownMu.RUnlock()
	return hostPath.ReplaceAllString(s, "$1<host path>")
}
