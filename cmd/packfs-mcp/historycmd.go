package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/internal/server"
	"github.com/packfs/packfs-mcp/tools"
)

// historyCmd prints what the history keeps of a path of the root (a file, or a folder's changes),
// newest first, for a person: the reader's history purpose without a client.
func historyCmd(args []string, stdout, stderr io.Writer) int {
	f := newServerFlags("history", stdout)
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), `Usage: packfs-mcp history --root DIR [flags] [PATH]

List the changes the tools made that the history keeps of PATH (a file, or everything below a
folder, deleted files included; default: the whole root), newest first: when, by which purpose,
and the version each replaced, which packfs-mcp restore brings back. Safe while a server runs on
the same folder.

Example:
  packfs-mcp history --root ~/notes journal/2026-12-06.md

Flags (the same as serve's):
`)
		f.fs.PrintDefaults()
	}
	return runHistoryCall(f, args, 1, stdout, stderr, func(rest []string) (string, map[string]any) {
		p := "."
		if len(rest) == 1 {
			p = rest[0]
		}
		return tools.ReaderName, map[string]any{"purpose": "history", "target": map[string]any{"path": p}}
	}, printHistory)
}

// restoreCmd puts back a version the history keeps: the writer's restore purpose without a client.
func restoreCmd(args []string, stdout, stderr io.Writer) int {
	f := newServerFlags("restore", stdout)
	overwrite := f.fs.Bool("overwrite", false, "restore even over a file changed since the change it undoes")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), `Usage: packfs-mcp restore --root DIR [flags] PATH [VERSION]

Put back in PATH the version the history keeps: VERSION (as packfs-mcp history lists it), or by
default the one the last change replaced. On a deleted folder's path, bring back its files. What
the restore replaces is kept too, so it can be undone the same way. A file changed since the change
it would undo is left alone unless --overwrite. Safe while a server runs on the same folder.

Example:
  packfs-mcp restore --root ~/notes journal/2026-12-06.md

Flags (the same as serve's, and --overwrite):
`)
		f.fs.PrintDefaults()
	}
	return runHistoryCall(f, args, 2, stdout, stderr, func(rest []string) (string, map[string]any) {
		target := map[string]any{"path": rest[0]}
		if len(rest) == 2 {
			target["version"] = rest[1]
		}
		call := map[string]any{"purpose": "restore", "target": target}
		if *overwrite {
			call["options"] = map[string]any{"overwrite": true}
		}
		return tools.WriterName, call
	}, printRestore)
}

// runHistoryCall parses a history command's flags and up to most arguments, builds the server with
// writing on (the history is kept by a server that writes), runs the call args make, and prints
// its answer with show. It exits 0 on success, 1 when the tool answered an error, 2 on bad flags.
func runHistoryCall(f *serverFlags, args []string, most int, stdout, stderr io.Writer,
	call func(rest []string) (string, map[string]any), show func(io.Writer, map[string]any)) int {
	flags, rest := positional(f.fs, args)
	cfg, err := f.parse(append([]string{"--allow-write"}, flags...))
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	logger := log.New(stderr, "packfs-mcp: ", 0)
	switch {
	case err != nil:
	case len(rest) > most || most == 2 && len(rest) == 0:
		err = fmt.Errorf("%s takes %s: packfs-mcp %s --help", f.fs.Name(), map[int]string{1: "at most one PATH", 2: "a PATH and maybe a VERSION"}[most], f.fs.Name())
	default:
		err = cfg.RequireRoot()
	}
	if err != nil {
		logger.Print(err)
		return 2
	}
	cfg.Semantic.Disabled = true // the history needs no index
	a, err := server.Build(cfg, logger)
	if err != nil {
		logger.Print(err)
		return 2
	}
	defer a.Close()
	name, arguments := call(rest)
	tool, _ := a.Tool(name)
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, arguments
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := tool.Handler(ctx, req)
	if err != nil || res == nil {
		logger.Printf("%s: %v", name, err)
		return 1
	}
	var out map[string]any
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &out)
	}
	if out["success"] != true {
		logger.Printf("%v (%v)", out["error"], out["code"])
		return 1
	}
	show(stdout, out)
	return 0
}

// printHistory prints a history answer as a table, newest first.
func printHistory(w io.Writer, out map[string]any) {
	entries, _ := out["history"].([]any)
	if len(entries) == 0 {
		fmt.Fprintln(w, "no change kept")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tPURPOSE\tPATH\tVERSION REPLACED\tSIZE")
	for _, e := range entries {
		m, _ := e.(map[string]any)
		version, size := "(none: made by it)", ""
		if v, _ := m["version"].(string); v != "" {
			version = v
		}
		if n, ok := m["sizeBytes"].(float64); ok {
			size = fmt.Sprintf("%.0f B", n)
		}
		if m["deleted"] == true {
			version += " (deleted)"
		}
		fmt.Fprintf(tw, "%v\t%v\t%v\t%s\t%s\n", m["time"], m["purpose"], m["path"], version, size)
	}
	tw.Flush()
	if out["truncated"] == true {
		fmt.Fprintln(w, "(older changes left out: name a file or a folder to see its own)")
	}
}

// printRestore says what a restore did.
func printRestore(w io.Writer, out map[string]any) {
	if files, _ := out["files"].([]any); len(files) > 0 {
		fmt.Fprintf(w, "restored %d files below %v\n", len(files), out["path"])
		return
	}
	switch {
	case out["deleted"] == true:
		fmt.Fprintf(w, "removed %v: the change undone made it\n", out["path"])
	default:
		fmt.Fprintf(w, "restored %v to version %v\n", out["path"], out["version"])
	}
}

// positional splits args into the flags of fs (with their values) and the other arguments, which
// may come before, between or after them.
func positional(fs *flag.FlagSet, args []string) (flags, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(rest, args[i+1:]...)
		}
		if len(a) < 2 || a[0] != '-' {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // parse names it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, rest
}
