package main

import (
	"context"
	"io"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Temporary stubs of the audit journal, replaced by journal.go.

type journal struct{}

func (a *app) openJournal() error   { return nil }
func (a *app) closeJournal()        {}
func (a *app) hooks() *server.Hooks { return &server.Hooks{} }

// record journals one tool call answered outside the MCP server (the call subcommand).
func (a *app) record(ctx context.Context, id any, req *mcp.CallToolRequest, res *mcp.CallToolResult, start time.Time) {
}

func journalCmd(args []string, stdout, stderr io.Writer) int { return 2 }
