// Command go-client is a small MCP client for packfs-mcp written with the mcp-go client. It starts
// the server binary over stdio, initializes, lists the tools, reads one file and searches the
// folder for a word, and prints what came back.
//
//	go install ./cmd/packfs-mcp
//	go run ./examples/agent-config/go-client -root examples/workspace
//
// Without -server it runs packfs-mcp from $PATH or, failing that, from the folder go install puts it
// in ($GOBIN, or the bin folder of $GOPATH, ~/go/bin by default), which is often not on $PATH.
//
// Arguments after the flags are passed to `packfs-mcp serve` as they are, such as --no-index or
// --allow-write:
//
//	go run ./examples/agent-config/go-client -root ~/notes -- --no-index
//
// Every tool answers with flat JSON (success, error, code, then the data) in the result's
// structured content, and the same JSON as text; this program reads the structured content.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// callTimeout bounds each step, so a server that does not answer cannot hang the program.
const callTimeout = 30 * time.Second

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "go-client:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("go-client", flag.ContinueOnError)
	server := fs.String("server", "", "the packfs-mcp binary, a path (default: packfs-mcp on $PATH, or where go install puts it)")
	root := fs.String("root", "examples/workspace", "the folder the server serves")
	read := fs.String("read", "README.md", "the file to read, relative to the root")
	query := fs.String("query", "os.Root", "the text to search for")
	if err := fs.Parse(args); err != nil {
		return err
	}

	if *server == "" {
		var err error
		if *server, err = findServer(); err != nil {
			return err
		}
	}

	// NewStdioMCPClient starts the server at once; the server's log goes to its stderr, which the
	// client keeps, and its stdout carries only the protocol.
	serveArgs := append([]string{"serve", "--root", *root}, fs.Args()...)
	c, err := client.NewStdioMCPClient(*server, nil, serveArgs...)
	if err != nil {
		return fmt.Errorf("starting %s: %w", *server, err)
	}
	defer c.Close()

	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "packfs-go-client", Version: "1.0.0"}
	info, err := c.Initialize(ctx, req)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	fmt.Fprintf(stdout, "server: %s %s (protocol %s)\n", info.ServerInfo.Name, info.ServerInfo.Version, info.ProtocolVersion)

	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	for _, t := range tools.Tools {
		fmt.Fprintf(stdout, "tool: %s: %s\n", t.Name, firstSentence(t.Description))
	}

	// A read: the file's text comes back in content, with the number of lines.
	res, err := call(c, "packfs-file-reader", map[string]any{
		"purpose": "read",
		"target":  map[string]any{"path": *read},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "read %s (%v lines):\n%s", *read, res["totalLines"], res["content"])
	if s, _ := res["content"].(string); !strings.HasSuffix(s, "\n") {
		fmt.Fprintln(stdout)
	}

	// A search: every file with a line containing the query, and the matching lines.
	res, err = call(c, "packfs-file-searcher", map[string]any{
		"purpose": "search_content",
		"target":  map[string]any{"path": ".", "query": *query},
	})
	if err != nil {
		return err
	}
	var hits struct {
		Files []struct {
			Path    string `json:"path"`
			Matches []struct {
				Line int    `json:"line"`
				Text string `json:"text"`
			} `json:"matches"`
		} `json:"files"`
		TotalFound int `json:"totalFound"`
	}
	if err := remarshal(res, &hits); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "search %q: %d files\n", *query, len(hits.Files))
	for _, f := range hits.Files {
		for _, m := range f.Matches {
			fmt.Fprintf(stdout, "%s:%d: %s\n", f.Path, m.Line, m.Text)
		}
	}
	return nil
}

// findServer returns the packfs-mcp binary: the one on $PATH, or else the one go install left in
// $GOBIN or in $GOPATH's bin folder, as the go command reports them.
func findServer() (string, error) {
	if p, err := exec.LookPath("packfs-mcp"); err == nil {
		return p, nil
	}
	// go env prints one line per variable, empty when unset: GOBIN, then GOPATH.
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(string(out), "\n")
		var dir string
		switch {
		case strings.TrimSpace(lines[0]) != "":
			dir = strings.TrimSpace(lines[0])
		case len(lines) > 1 && strings.TrimSpace(lines[1]) != "":
			dir = filepath.Join(filepath.SplitList(strings.TrimSpace(lines[1]))[0], "bin")
		}
		if dir != "" {
			p := filepath.Join(dir, "packfs-mcp")
			if runtime.GOOS == "windows" {
				p += ".exe"
			}
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	return "", errors.New("packfs-mcp is neither on $PATH nor where go install puts it: run go install ./cmd/packfs-mcp " +
		"in this repository first, or pass the binary's path with -server")
}

// call runs one tool call and returns its flat result, or an error carrying the server's code
// and message when the call was refused.
func call(c *client.Client, tool string, args map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	var out map[string]any
	switch {
	case len(res.RawStructuredContent) > 0:
		err = json.Unmarshal(res.RawStructuredContent, &out)
	case res.StructuredContent != nil:
		err = remarshal(res.StructuredContent, &out)
	default:
		err = errors.New("the result has no structured content")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s %s: %v: %v", tool, args["purpose"], out["code"], out["error"])
	}
	return out, nil
}

// remarshal copies a decoded JSON value into v through its JSON form.
func remarshal(from, v any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// firstSentence shortens a tool description to its first sentence, for a one-line listing.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
