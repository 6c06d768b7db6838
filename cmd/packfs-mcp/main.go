// Command packfs-mcp is a sandboxed filesystem server for AI agents, spoken to over MCP on stdio
// or streamable HTTP.
//
// Usage:
//
//	packfs-mcp [serve] --root DIR [flags]        serve DIR over MCP on stdin/stdout
//	packfs-mcp serve --root A=DIR --root B=DIR   serve several folders, named A and B
//	packfs-mcp serve                             serve the folders the client offers as MCP roots
//	packfs-mcp serve --root DIR --http ADDR      serve DIR over MCP at http://ADDR/mcp
//	packfs-mcp tools [--format FORMAT]           print the tool definitions for agent frameworks
//	packfs-mcp call --root DIR < call.json       run one tool call read from stdin
//	packfs-mcp doctor --root DIR [flags]         print the effective policy and check the root
//	packfs-mcp journal FILE                      summarize an audit journal
//	packfs-mcp version                           print the version
//
// Logs go to stderr; stdout carries only the protocol.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/internal/serving"
)

// version and commit are set at build time with -ldflags "-X main.version=... -X main.commit=..."
// (.ci/release does); a build from a clone takes the commit from its VCS stamp instead.
var (
	version = "0.1.0-dev"
	commit  = ""
)

// versionLine is what version and --version print: the version, the commit it was built from
// (when the build knew it), the Go version, the system and the architecture.
func versionLine() string {
	commit := commit
	if commit != "" {
		commit = " " + commit
	} else if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && len(s.Value) >= 12:
				commit = " " + s.Value[:12] + commit
			case s.Key == "vcs.modified" && s.Value == "true":
				commit += "+changes"
			}
		}
	}
	return fmt.Sprintf("packfs-mcp %s%s (%s, %s/%s)", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// init hands the server the version a release build stamps on this package.
func init() { serving.Version = version }

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		serving.GovernMemory(context.Background(), time.Second)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the process's exit code: 0 on success, 2 for bad usage or
// configuration, 1 when serving failed.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help"):
		cmd = "help" // the commands, not only serve's flags
	case len(args) == 1 && (args[0] == "-version" || args[0] == "--version"):
		cmd = "version"
	case len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-':
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdin, stdout, stderr)
	case "tools":
		return toolsCmd(args, stdout, stderr)
	case "call":
		return callCmd(args, stdin, stdout, stderr)
	case "journal":
		return journalCmd(args, stdout, stderr)
	case "doctor":
		return doctorCmd(args, stdout, stderr)
	case "history":
		return historyCmd(args, stdout, stderr)
	case "restore":
		return restoreCmd(args, stdout, stderr)
	case "undo":
		return undoCmd(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, versionLine())
		return 0
	case "help":
		usage(stdout)
		return 0
	}
	hint := ""
	if near := intents.Nearest(cmd, commands); near != "" {
		hint = ": did you mean " + near + "?"
	}
	fmt.Fprintf(stderr, "packfs-mcp: unknown command %q%s (packfs-mcp --help lists the commands)\n", cmd, hint)
	return 2
}

// commands are the subcommands run dispatches, for the suggestion made when one is mistyped.
var commands = []string{"serve", "tools", "call", "doctor", "history", "restore", "undo", "journal", "version", "help"}

func usage(w io.Writer) {
	fmt.Fprint(w, `packfs-mcp: a sandboxed filesystem server for AI agents, over MCP (stdio or HTTP).

Usage:
  packfs-mcp [serve] --root DIR [flags]    serve DIR's files to an MCP client on stdin/stdout;
                                           repeat --root (NAME=DIR) to serve several folders, or
                                           leave it out to serve those the client offers as roots
  packfs-mcp serve --root DIR --http ADDR  serve them over streamable HTTP at http://ADDR/mcp
  packfs-mcp tools [--format FORMAT]       print the tools' definitions for agent frameworks
                                           (mcp, openai, openai-responses, anthropic, jsonschema)
  packfs-mcp call --root DIR < call.json   run one tool call (MCP, OpenAI or Anthropic shape) from
                                           stdin and print its result in the same shape
  packfs-mcp doctor --root DIR [flags]     print the effective policy and check that DIR is usable
  packfs-mcp history --root DIR [PATH]     list the changes the tools made that the history keeps
  packfs-mcp restore --root DIR PATH [V]   put back a version the history keeps (undo a change)
  packfs-mcp undo --root DIR [CALL]        undo every change of a call (by default the last)
  packfs-mcp journal [--json] FILE         summarize an audit journal written by serve --journal FILE
  packfs-mcp version                       print the version

Each command explains itself with --help (packfs-mcp serve --help lists the server's flags).
Reading, listing and searching are on by default; writing is off until --allow-write.
`)
}

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	logger := log.New(stderr, "packfs-mcp: ", 0)
	opts, err := parseServe(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		logger.Print(err)
		return 2
	}
	srv, err := serving.Build(opts, logger)
	if err != nil {
		logger.Print(err)
		return 2
	}
	defer srv.Close()
	srv.RefuseUnoffered()
	logger.Print(srv.Banner())

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	bg, stopWork := context.WithCancel(ctx)
	srv.Background(bg)
	if opts.HTTP.Addr != "" {
		err = srv.ListenHTTP(ctx)
	} else {
		err = srv.Listen(ctx, stdin, stdout)
	}
	stopWork()
	srv.Wait()
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		logger.Print(err)
		return 1
	}
	return 0
}
