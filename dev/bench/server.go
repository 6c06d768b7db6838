package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// protocolVersion is the MCP revision every server is asked for, so that all speak the same era
// (the initialize handshake, not the stateless core of 2026-07-28 that only some implement).
const protocolVersion = mcp.ProtocolVersion20251125

// benchRateLimit lifts our per-minute rate limit above what one repetition sends (the default,
// 3,000 a minute with half per tool, would refuse reads); the peers have no limit at all.
const benchRateLimit = "1000000"

// op is one kind of request a server is measured on.
type op int

const (
	opRead     op = iota // read one whole file
	opList               // list one directory
	opTree               // list a directory tree recursively, all of it
	opContent            // search file contents for a case-sensitive literal
	opSemantic           // ranked search (ours only)
)

var errNotAvailable = errors.New("not available")

// server is how to start one MCP server and phrase each op for it.
type server struct {
	name    string
	command string
	args    []string
	root    string
	indexed bool // ours with the index: wait for it before measuring
	// call phrases op for this server given its tool names, or returns false when it has no
	// tool for it. path is relative to the root ("." for the root), query may be empty.
	call func(tools map[string]bool, o op, path, query string) (tool string, args map[string]any, ok bool)
	// pages, when set, says whether a result has a next page and returns the arguments for it.
	pages func(args map[string]any, res *mcp.CallToolResult) (map[string]any, bool)
}

func oursServer(name, bin, root, indexDir string) *server {
	args := []string{"serve", "--root", root, "--rate-limit", benchRateLimit}
	if indexDir == "" {
		args = append(args, "--no-index")
	} else {
		args = append(args, "--index-dir", indexDir)
	}
	s := &server{name: name, command: bin, args: args, root: root, indexed: indexDir != ""}
	s.call = func(_ map[string]bool, o op, path, query string) (string, map[string]any, bool) {
		const reader, searcher = "packfs-file-reader", "packfs-file-searcher"
		target := map[string]any{"path": path}
		if query != "" {
			target["query"] = query
		}
		switch o {
		case opRead:
			return reader, map[string]any{"purpose": "read", "target": target}, true
		case opList:
			return searcher, map[string]any{"purpose": "list", "target": target, "options": map[string]any{"maxResults": 10000}}, true
		case opTree:
			return searcher, map[string]any{"purpose": "list", "target": target, "options": map[string]any{"recursive": true, "maxResults": 10000}}, true
		case opContent:
			return searcher, map[string]any{"purpose": "search_content", "target": target, "options": map[string]any{"caseSensitive": true, "maxResults": 10000}}, true
		case opSemantic:
			if !s.indexed {
				return "", nil, false
			}
			return searcher, map[string]any{"purpose": "search_semantic", "target": target}, true
		}
		return "", nil, false
	}
	// A recursive listing is capped at 10,000 entries a call; follow nextOffset to the end, so that
	// ours lists the whole tree as the peers do.
	s.pages = func(args map[string]any, res *mcp.CallToolResult) (map[string]any, bool) {
		var out struct {
			NextOffset *int `json:"nextOffset"`
		}
		if json.Unmarshal(structured(res), &out) != nil || out.NextOffset == nil {
			return nil, false
		}
		next := map[string]any{}
		for k, v := range args {
			next[k] = v
		}
		opts := map[string]any{}
		for k, v := range args["options"].(map[string]any) {
			opts[k] = v
		}
		opts["offset"] = *out.NextOffset
		next["options"] = opts
		return next, true
	}
	return s
}

func findMark3labs(cfg config) (string, error) {
	p := cfg.mark3labs
	if p == "" {
		p = filepath.Join(cfg.peersDir, "bin", "mcp-filesystem-server")
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("not found at %s (run bash dev/bench/install-peers.sh, or pass --mark3labs)", p)
	}
	return p, nil
}

func mark3labsServer(bin, root string) *server {
	s := &server{name: "mark3labs", command: bin, args: []string{root}, root: root}
	s.call = func(tools map[string]bool, o op, path, query string) (string, map[string]any, bool) {
		abs := filepath.Join(root, path)
		switch o {
		case opRead:
			return pick(tools, map[string]any{"path": abs}, "read_file")
		case opList:
			return pick(tools, map[string]any{"path": abs}, "list_directory")
		case opTree:
			// Its tree handler ignores depth when given (server.go reads the error backwards), so the
			// depth asked for is moot; the tldr tree is three levels deep.
			return pick(tools, map[string]any{"path": abs, "depth": 10}, "tree")
		case opContent:
			return pick(tools, map[string]any{"path": abs, "substring": query, "max_results": 10000}, "search_within_files")
		}
		return "", nil, false
	}
	return s
}

func findOfficial(cfg config) (script, node string, err error) {
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", fmt.Errorf("node not found: %w", err)
	}
	script = cfg.official
	if script == "" {
		pkg := filepath.Join(cfg.peersDir, "node_modules", "@modelcontextprotocol", "server-filesystem")
		data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
		if err != nil {
			return "", "", fmt.Errorf("not installed under %s (run bash dev/bench/install-peers.sh, or pass --official)", cfg.peersDir)
		}
		var meta struct {
			Bin map[string]string `json:"bin"`
		}
		if err := json.Unmarshal(data, &meta); err != nil || len(meta.Bin) == 0 {
			return "", "", fmt.Errorf("%s/package.json has no bin entry", pkg)
		}
		for _, rel := range meta.Bin {
			script = filepath.Join(pkg, rel)
		}
	}
	if _, err := os.Stat(script); err != nil {
		return "", "", err
	}
	return script, node, nil
}

func officialServer(node, script, root string) *server {
	s := &server{name: "official", command: node, args: []string{script, root}, root: root}
	s.call = func(tools map[string]bool, o op, path, query string) (string, map[string]any, bool) {
		abs := filepath.Join(root, path)
		switch o {
		case opRead:
			return pick(tools, map[string]any{"path": abs}, "read_text_file", "read_file")
		case opList:
			return pick(tools, map[string]any{"path": abs}, "list_directory")
		case opTree:
			return pick(tools, map[string]any{"path": abs}, "directory_tree")
		case opContent:
			// search_files matches names against a glob; it has no content search.
			return "", nil, false
		}
		return "", nil, false
	}
	return s
}

// pick returns the first of names the server lists.
func pick(tools map[string]bool, args map[string]any, names ...string) (string, map[string]any, bool) {
	for _, n := range names {
		if tools[n] {
			return n, args, true
		}
	}
	return "", nil, false
}

// session is one running server with an initialized client.
type session struct {
	srv      *server
	c        *client.Client
	cmd      *exec.Cmd
	tools    map[string]bool
	protocol string
	notes    map[measure]string
}

// start launches the server and returns once it has answered initialize, with the time from
// launch to that answer.
func (srv *server) start() (*session, time.Duration, error) {
	s := &session{srv: srv, notes: map[measure]string{}}
	t0 := time.Now()
	c, err := client.NewStdioMCPClientWithOptions(srv.command, nil, srv.args,
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			cmd.Dir = srv.root
			s.cmd = cmd
			return cmd, nil
		}))
	if err != nil {
		return nil, 0, err
	}
	s.c = c
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: protocolVersion,
		ClientInfo:      mcp.Implementation{Name: "packfs-bench", Version: "1"},
	}})
	d := time.Since(t0)
	if err != nil {
		c.Close()
		return nil, 0, fmt.Errorf("initialize: %w", err)
	}
	s.protocol = res.ProtocolVersion
	return s, d, nil
}

func (s *session) listTools() error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	s.tools = map[string]bool{}
	for _, t := range res.Tools {
		s.tools[t.Name] = true
	}
	return nil
}

func (s *session) pid() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

func (s *session) close() { s.c.Close() }

// do runs one op, following pages when the server has them, and returns its wall time.
func (s *session) do(o op, path, query string) (time.Duration, error) {
	tool, args, ok := s.srv.call(s.tools, o, path, query)
	if !ok {
		return 0, errNotAvailable
	}
	var total time.Duration
	calls, bytes := 0, 0
	for {
		t0 := time.Now()
		res, err := s.callTool(tool, args)
		total += time.Since(t0)
		if err != nil {
			return 0, err
		}
		calls++
		bytes += resultBytes(res)
		if o != opTree || s.srv.pages == nil {
			break
		}
		next, more := s.srv.pages(args, res)
		if !more {
			break
		}
		args = next
	}
	if o == opTree || o == opContent || o == opList {
		n := fmt.Sprintf("%s: %d KB", tool, (bytes+512)/1024)
		if calls > 1 {
			n += fmt.Sprintf(" in %d calls", calls)
		}
		s.notes[opMeasure(o, query)] = n
	}
	return total, nil
}

func (s *session) callTool(tool string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("%s returned an error: %.300s", tool, text(res))
	}
	return res, nil
}

// waitIndex polls a semantic search until our index reports it is complete.
func (s *session) waitIndex(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		res, err := s.callTool("packfs-file-searcher", map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "x"}})
		if err != nil {
			return fmt.Errorf("waiting for the index: %w", err)
		}
		if strings.Contains(string(structured(res)), `"indexComplete":true`) || strings.Contains(text(res), `"indexComplete":true`) {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the index did not complete within %v", limit)
}

func structured(res *mcp.CallToolResult) []byte {
	if len(res.RawStructuredContent) > 0 {
		return res.RawStructuredContent
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		return b
	}
	return []byte(text(res))
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// resultBytes is the size of a result's text content, a rough measure of how much each server
// sends for the same request.
func resultBytes(res *mcp.CallToolResult) int { return len(text(res)) }
