// Command go-client is a small MCP client for packfs-mcp written with the mcp-go client. It starts
// the server binary over stdio, initializes, lists the tools, reads one file and searches the
// folder for a word, and prints what came back.
//
//	go run ./examples/agent-config/go-client -server /usr/local/bin/packfs-mcp -root examples/workspace
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
	server := fs.String("server", "packfs-mcp", "the packfs-mcp binary (a path, or a name on $PATH)")
	root := fs.String("root", "examples/workspace", "the folder the server serves")
	read := fs.String("read", "README.md", "the file to read, relative to the root")
	query := fs.String("query", "os.Root", "the text to search for")
	if err := fs.Parse(args); err != nil {
		return err
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
