package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A session is one server kept running on one prepared root for one task, in a folder of its own:
//
//	session.json   what it runs (task, server, root, command)
//	root/          the files the server serves, copied fresh from the corpus (a task of several
//	               folders: root/NAME for each, every one served as a folder of its own)
//	state/         the server's own files outside the root (our index and history)
//	log.jsonl      every event: the tools listing, each call with its arguments and result text
//	ANSWER.txt     the agent's answer
//	verdict.json   the verifier's verdict, written at stop
//	sock           the unix socket the daemon listens on while the server runs
//	daemon.log     the daemon's messages and the server's standard error
//
// The daemon (agent daemon DIR, started by start) holds the server's stdio through mcp-go's
// client and is the one writer of log.jsonl; every other command talks to it over the socket.

const (
	// protocolVersion is the MCP revision every server is asked for, as bench asks.
	protocolVersion = mcp.ProtocolVersion20251125
	// callTimeout bounds one tool call: a peer's naive content search of the tldr pages takes
	// seconds, never minutes.
	callTimeout = 5 * time.Minute
	// readyTimeout bounds a start: our cold index of the 7,425 tldr pages takes about 20 s on two
	// busy cores.
	readyTimeout = 15 * time.Minute
	// idleTimeout ends a session nobody has used for this long, so that a forgotten one does not
	// keep a server running.
	idleTimeout = 4 * time.Hour
)

type sessionInfo struct {
	Name     string `json:"name"`
	Task     int    `json:"task"`
	TaskName string `json:"taskName"`
	Server   string `json:"server"`
	Root     string `json:"root"`
	State    string `json:"state"`
	Corpus   string `json:"corpus"` // the unpacked original the root was copied from
	// Corpora is, for a task of several folders, the unpacked original of each (copied to the
	// folder of its name in the root), by name; Corpus is then empty.
	Corpora map[string]string `json:"corpora,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Indexed bool              `json:"indexed"`
	Wrapper string            `json:"wrapper"`
	Started string            `json:"started"` // wall clock, for people: the machine's clock is not to be trusted
}

func loadSession(dir string) (*sessionInfo, error) {
	data, err := os.ReadFile(filepath.Join(dir, "session.json"))
	if err != nil {
		return nil, fmt.Errorf("no session in %s: %w", dir, err)
	}
	var s sessionInfo
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s/session.json: %w", dir, err)
	}
	return &s, nil
}

// originals returns the unpacked original of each of the session's folders, by name, as
// verifyDir takes them.
func (s *sessionInfo) originals() map[string]string {
	if len(s.Corpora) > 0 {
		return s.Corpora
	}
	return map[string]string{"": s.Corpus}
}

// loadSessionTask reads the session in dir and finds its task.
func loadSessionTask(dir string) (*sessionInfo, *task, error) {
	s, err := loadSession(dir)
	if err != nil {
		return nil, nil, err
	}
	t, err := findTask(fmt.Sprint(s.Task))
	return s, t, err
}

// event is one line of log.jsonl.
type event struct {
	Event   string          `json:"event"` // listing, ready, call, rejected, tools, answer, collaborator, stop
	Seq     int             `json:"seq,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Bytes   int             `json:"bytes"`             // text shown to the model
	IsError bool            `json:"isError,omitempty"` // the result's error flag
	NonText int             `json:"nonText,omitempty"` // content blocks that are not text (shown as a placeholder)
	Tools   int             `json:"tools,omitempty"`
	Ms      float64         `json:"ms,omitempty"`
	Text    string          `json:"text,omitempty"`
	Note    string          `json:"note,omitempty"`
	Time    string          `json:"time"`
}

// request and response are the daemon's protocol: one JSON line each way per connection.
type request struct {
	Op   string          `json:"op"` // call, tools, answer, stop
	Tool string          `json:"tool,omitempty"`
	Args json.RawMessage `json:"args,omitempty"`
	Text string          `json:"text,omitempty"`
}

type response struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError,omitempty"`
	Err     string `json:"err,omitempty"` // the harness failed, not the tool
}

func cmdStart(o options, args []string) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	server := fs.String("server", "", "ours, official or mark3labs")
	taskArg := fs.String("task", "", "the task's number or name (mcp tasks lists them)")
	name := fs.String("session", "", "the session's name (default: t<N>-<4 random hex digits>, the same length for every server)")
	fs.StringVar(&o.archives, "archives", o.archives, "the folder of the corpora archives")
	fs.StringVar(&o.peers, "peers-dir", o.peers, "where dev/bench/install-peers.sh installed the peers")
	fs.StringVar(&o.ours, "ours", o.ours, "a built packfs-mcp binary (default: build ./cmd/packfs-mcp)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *server == "" || *taskArg == "" {
		return usagef("start needs --server and --task")
	}
	t, err := findTask(*taskArg)
	if err != nil {
		return err
	}
	if *name == "" {
		var b [2]byte
		rand.Read(b[:])
		*name = fmt.Sprintf("t%d-%s", t.N, hex.EncodeToString(b[:]))
	}
	if strings.ContainsAny(*name, "/ ") || *name == "." || *name == ".." {
		return usagef("a session name is one word without slashes")
	}
	dir := filepath.Join(o.base, *name)
	if err := os.MkdirAll(o.base, 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("session %s: %w", *name, err)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if n := len(filepath.Join(dir, "sock")); n > 100 {
		return fmt.Errorf("the socket path %s is %d bytes, over the 100 a unix socket allows: set PACKFS_AGENT_DIR to a shorter folder", filepath.Join(dir, "sock"), n)
	}
	origs, err := originals(o.base, o.archives, t)
	if err != nil {
		return err
	}
	s := &sessionInfo{Name: *name, Task: t.N, TaskName: t.Name, Server: *server,
		Root: filepath.Join(dir, "root"), State: filepath.Join(dir, "state"), Wrapper: o.wrapper,
		Started: time.Now().UTC().Format(time.RFC3339)}
	if orig, ok := origs[""]; ok {
		s.Corpus = orig
	} else {
		s.Corpora = origs
	}
	// Every folder is at the same depth for every server (root/, or root/NAME/), so that the
	// peers' absolute paths are as long whichever server runs.
	var roots []servedRoot
	for _, f := range t.folders() {
		r := servedRoot{Name: f.Name, Dir: filepath.Join(s.Root, f.Name)}
		if err := copyTree(origs[f.Name], r.Dir); err != nil {
			return fmt.Errorf("copying the corpus: %w", err)
		}
		roots = append(roots, r)
	}
	if err := os.Mkdir(s.State, 0o700); err != nil {
		return err
	}
	s.Command, s.Args, s.Indexed, err = serverCommand(*server, roots, s.State, o)
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "session.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}

	// The daemon, in a session of its own so that it outlives this command and the shell.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(dir, "daemon.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(self, "daemon", dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	detach(cmd)
	cmd.Env = append(os.Environ(), "PACKFS_AGENT_REPO="+o.repo)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	fmt.Fprintf(os.Stderr, "mcp: starting %s for task %d in %s\n", *server, t.N, dir)
	deadline := time.After(readyTimeout)
	for {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "daemon.log"))
			return fmt.Errorf("the session's daemon ended (%v):\n%s", err, log)
		case <-deadline:
			return fmt.Errorf("the server was not ready within %v (see %s/daemon.log)", readyTimeout, dir)
		case <-time.After(100 * time.Millisecond):
		}
	}
	fmt.Fprintf(os.Stderr, "mcp: session %s is ready; give the agent this prompt (mcp %s prompt prints it again):\n\n", *name, *name)
	fmt.Print(agentPrompt(s))
	return nil
}

// preamble is what every agent is told before the task, the same for every server and task.
const preamble = `You are an agent with a filesystem server. Use only this command to act:

  %[1]s tools
      prints the server's tools: one JSON line each, with its name, description and input schema
  %[1]s call TOOL 'JSON'
      calls TOOL with the JSON object of arguments (one shell word) and prints the result
  %[1]s answer 'TEXT'
      gives your answer, when the task asks for one (or pipe it on standard input); the last one counts

Read, search and change the files only through these calls: no other command, editor or file access.
When the task is done, say so.

The task:

`

// agentPrompt is the full prompt of a session: the preamble, then the user's words.
func agentPrompt(s *sessionInfo) string {
	t, err := findTask(fmt.Sprint(s.Task))
	if err != nil {
		return err.Error()
	}
	cmd := s.Wrapper + " " + s.Name
	return fmt.Sprintf(preamble, cmd) + t.Prompt + "\n"
}

// daemon holds one server and serves the session's socket.
type daemon struct {
	s      *sessionInfo
	dir    string
	task   *task
	c      *client.Client
	stderr func() string
	tools  string // the tools listing as printed
	seq    int
	collab bool // the collaborator's edit is done
	logMu  sync.Mutex
}

func runDaemon(dir string) error {
	s, t, err := loadSessionTask(dir)
	if err != nil {
		return err
	}
	d := &daemon{s: s, dir: dir, task: t, collab: t.collab == nil}
	if err := d.startServer(); err != nil {
		return err
	}
	defer d.c.Close()

	ln, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		return err
	}
	defer os.Remove(filepath.Join(dir, "sock"))
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644); err != nil {
		return err
	}
	ul := ln.(*net.UnixListener)
	for {
		ul.SetDeadline(time.Now().Add(idleTimeout))
		conn, err := ul.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				d.log(event{Event: "stop", Note: fmt.Sprintf("idle for %v", idleTimeout)})
				return nil
			}
			return err
		}
		if stop := d.serve(conn); stop {
			return nil
		}
	}
}

// startServer starts the server, initializes it, keeps its tools listing and, for ours, waits for
// its index to be complete, so that every server starts the task ready.
func (d *daemon) startServer() error {
	t0 := time.Now()
	c, err := client.NewStdioMCPClientWithOptions(d.s.Command, nil, d.s.Args,
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			cmd.Dir = d.s.Root
			return cmd, nil
		}))
	if err != nil {
		return err
	}
	d.c = c
	if st, ok := c.GetTransport().(*transport.Stdio); ok {
		d.stderr = func() string {
			b, _ := io.ReadAll(st.Stderr())
			return string(b)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: protocolVersion,
		ClientInfo:      mcp.Implementation{Name: "packfs-agent-suite", Version: "1"},
	}}); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	d.tools, err = renderTools(res.Tools)
	if err != nil {
		return err
	}
	d.log(event{Event: "listing", Bytes: len(d.tools), Tools: len(res.Tools), Text: d.tools})
	note := ""
	if d.s.Indexed {
		t1 := time.Now()
		if err := d.waitIndex(); err != nil {
			return err
		}
		note = fmt.Sprintf("index complete after %.1f s", time.Since(t1).Seconds())
	}
	d.log(event{Event: "ready", Ms: ms(time.Since(t0)), Note: note})
	return nil
}

// renderTools prints the tools as a model is given them: one compact JSON object a line with the
// name, the description and the input schema (a client passes no output schema or annotations to
// the model).
func renderTools(tools []mcp.Tool) (string, error) {
	var b strings.Builder
	for _, t := range tools {
		raw, err := json.Marshal(t)
		if err != nil {
			return "", err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", err
		}
		line, err := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}{t.Name, t.Description, m["inputSchema"]})
		if err != nil {
			return "", err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// waitIndex polls a search, unlogged, until our index says it is complete.
func (d *daemon) waitIndex() error {
	deadline := time.Now().Add(readyTimeout)
	for time.Now().Before(deadline) {
		r, err := d.call("packfs-file-searcher", json.RawMessage(`{"purpose":"search_semantic","target":{"path":".","query":"x"}}`))
		if err != nil {
			return fmt.Errorf("waiting for the index: %w", err)
		}
		if strings.Contains(r.text, `"indexComplete":true`) {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("the index was not complete within %v", readyTimeout)
}

// result is what a model is shown of one tool result.
type result struct {
	text      string // the text blocks in order, a placeholder for any other block, joined by newlines
	textBytes int    // the bytes of the text blocks alone
	isError   bool
	nonText   int // blocks that are not text
}

// call runs one tool call.
func (d *daemon) call(tool string, args json.RawMessage) (result, error) {
	var a map[string]any
	if err := json.Unmarshal(args, &a); err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := d.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: a}})
	if err != nil {
		return result{}, err
	}
	r := result{isError: res.IsError}
	var parts []string
	other := func(s string) {
		r.nonText++
		parts = append(parts, s)
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			parts = append(parts, c.Text)
			r.textBytes += len(c.Text)
		case mcp.EmbeddedResource:
			if t, ok := c.Resource.(mcp.TextResourceContents); ok {
				parts = append(parts, t.Text)
				r.textBytes += len(t.Text)
			} else {
				other("[binary resource]")
			}
		case mcp.ImageContent:
			other(fmt.Sprintf("[image %s, %d bytes of base64]", c.MIMEType, len(c.Data)))
		case mcp.AudioContent:
			other(fmt.Sprintf("[audio %s, %d bytes of base64]", c.MIMEType, len(c.Data)))
		case mcp.ResourceLink:
			other("[resource link " + c.URI + "]")
		default:
			other("[content block]")
		}
	}
	r.text = strings.Join(parts, "\n")
	return r, nil
}

func (d *daemon) log(e event) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	e.Time = time.Now().UTC().Format(time.RFC3339Nano)
	line, err := json.Marshal(e)
	if err != nil {
		fmt.Fprintln(os.Stderr, "log:", err)
		return
	}
	f, err := os.OpenFile(filepath.Join(d.dir, "log.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "log:", err)
		return
	}
	defer f.Close()
	f.Write(append(line, '\n'))
}

// serve answers one connection; it reports whether the session is to stop.
func (d *daemon) serve(conn net.Conn) (stop bool) {
	defer conn.Close()
	var req request
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&req); err != nil {
		json.NewEncoder(conn).Encode(response{Err: "bad request: " + err.Error()})
		return false
	}
	var resp response
	switch req.Op {
	case "tools":
		d.log(event{Event: "tools", Bytes: len(d.tools)})
		resp.Text = d.tools
	case "call":
		var obj map[string]any
		if req.Args == nil || json.Unmarshal(req.Args, &obj) != nil || obj == nil {
			d.log(event{Event: "rejected", Tool: req.Tool, Note: req.Text + string(req.Args)})
			resp.Err = "the arguments must be one JSON object, quoted as one shell word; the call was not made"
			break
		}
		d.seq++
		t0 := time.Now()
		r, err := d.call(req.Tool, req.Args)
		note := ""
		if err != nil {
			// A JSON-RPC error (an unknown tool, say): a client shows the model its message.
			r = result{text: "error: " + err.Error(), isError: true}
			r.textBytes, note = len(r.text), "protocol error"
		}
		d.log(event{Event: "call", Seq: d.seq, Tool: req.Tool, Args: req.Args, Ms: ms(time.Since(t0)),
			Bytes: r.textBytes, IsError: r.isError, NonText: r.nonText, Text: r.text, Note: note})
		resp.Text, resp.IsError = r.text, r.isError
		if !d.collab && strings.Contains(r.text, d.task.collab.Anchor) {
			d.collaborate(fmt.Sprintf("after call %d, the first result that showed the note", d.seq))
		}
	case "answer":
		if err := os.WriteFile(filepath.Join(d.dir, "ANSWER.txt"), []byte(req.Text), 0o644); err != nil {
			resp.Err = err.Error()
			break
		}
		d.log(event{Event: "answer", Bytes: len(req.Text), Text: req.Text})
		resp.Text = "answer recorded"
	case "stop":
		if !d.collab {
			d.collaborate("at stop: no result ever showed the agent the note")
		}
		d.c.Close()
		if d.stderr != nil {
			fmt.Fprintf(os.Stderr, "--- the server's standard error (last part) ---\n%s", d.stderr())
		}
		d.log(event{Event: "stop"})
		resp.Text = "stopped"
		stop = true
	default:
		resp.Err = "unknown op " + req.Op
	}
	json.NewEncoder(conn).Encode(resp)
	return stop
}

// collaborate makes the other party's edit to the root, and logs when.
func (d *daemon) collaborate(when string) {
	d.collab = true
	c := d.task.collab
	p := filepath.Join(d.s.Root, filepath.FromSlash(c.File))
	data, err := os.ReadFile(p)
	note := when
	if err == nil {
		err = os.WriteFile(p, []byte(c.Edit(string(data))), 0o644)
	}
	if err != nil {
		note += ": " + err.Error()
	}
	d.log(event{Event: "collaborator", Seq: d.seq, Note: note})
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// -- the client side ------------------------------------------------------------------------------

// ask sends one request to a session's daemon.
func ask(dir string, req request) (response, error) {
	conn, err := net.Dial("unix", filepath.Join(dir, "sock"))
	if err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "session.json")); serr != nil {
			return response{}, fmt.Errorf("no session at %s", dir)
		}
		return response{}, fmt.Errorf("the session %s is not running (stopped, or its daemon ended: see %s)", filepath.Base(dir), filepath.Join(dir, "daemon.log"))
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(callTimeout + time.Minute))
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return response{}, err
	}
	var resp response
	if err := json.NewDecoder(conn).Decode(&resp); err != nil {
		return response{}, fmt.Errorf("no answer from the session: %w", err)
	}
	if resp.Err != "" {
		return resp, errors.New(resp.Err)
	}
	return resp, nil
}

func clientTools(dir string) error {
	resp, err := ask(dir, request{Op: "tools"})
	if err != nil {
		return err
	}
	fmt.Print(resp.Text)
	return nil
}

func clientCall(dir, tool, args string) error {
	req := request{Op: "call", Tool: tool, Args: json.RawMessage(args)}
	if !json.Valid([]byte(args)) {
		// Not sent to the server; the daemon logs the refusal.
		req = request{Op: "call", Tool: tool, Text: args}
	}
	resp, err := ask(dir, req)
	if err != nil {
		return err
	}
	fmt.Print(resp.Text)
	if !strings.HasSuffix(resp.Text, "\n") {
		fmt.Println()
	}
	if resp.IsError {
		fmt.Fprintln(os.Stderr, "(the tool reported an error)")
		return exitCode(1)
	}
	return nil
}

func clientAnswer(dir string, args []string) error {
	var text string
	switch len(args) {
	case 0:
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return err
		}
		text = string(b)
	case 1:
		text = args[0]
	default:
		return usagef("answer takes its text as one word (quote it), or on standard input")
	}
	resp, err := ask(dir, request{Op: "answer", Text: text})
	if err != nil {
		return err
	}
	fmt.Println(resp.Text)
	return nil
}

func clientStop(o options, dir string) error {
	if _, err := ask(dir, request{Op: "stop"}); err != nil {
		return err
	}
	// The daemon removes its socket as it ends.
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(filepath.Join(dir, "sock")); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cmdVerifySession(o, dir)
}

// cmdVerifySession verifies a session's root and answer, records the verdict and prints it.
func cmdVerifySession(o options, dir string) error {
	s, t, err := loadSessionTask(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "sock")); err == nil {
		fmt.Fprintln(os.Stderr, "mcp: the session is still running; the files may still change")
	}
	answer, _ := os.ReadFile(filepath.Join(dir, "ANSWER.txt"))
	problems, err := verifyDir(t, s.originals(), foldersUnder(s.Root, t), string(answer), s.Root)
	if err != nil {
		return err
	}
	v := verdict{Task: t.N, Pass: len(problems) == 0, Problems: problems, Time: time.Now().UTC().Format(time.RFC3339)}
	data, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "verdict.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	printVerdict(v)
	return nil
}
