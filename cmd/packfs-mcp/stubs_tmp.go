package main

import (
	"context"
	"io"

	"github.com/mark3labs/mcp-go/server"
)

// Temporary stubs, replaced by the features' own files.

type journal struct{}

func (a *app) openJournal() error   { return nil }
func (a *app) closeJournal()        {}
func (a *app) hooks() *server.Hooks { return &server.Hooks{} }

func (a *app) listenHTTP(ctx context.Context) error { return nil }

func toolsCmd(args []string, stdout, stderr io.Writer) int                 { return 2 }
func callCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int { return 2 }
func journalCmd(args []string, stdout, stderr io.Writer) int               { return 2 }
func doctorCmd(args []string, stdout, stderr io.Writer) int                { return 2 }
