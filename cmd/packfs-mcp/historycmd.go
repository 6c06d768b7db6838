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
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/internal/serving"
	"github.com/packfs/packfs-mcp/tools"
)

// historyCmd prints what the history keeps of a path of the root (a file, or a folder's changes),
// newest first, for a person: the reader's history purpose without a client.
func historyCmd(args []string, stdout, stderr io.Writer) int {
	f := newServerFlags("history", stdout)
	f.fs.Bool("purge", false, "forget what the history keeps of PATH (all of it without PATH), now: it cannot be restored after")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), `Usage: packfs-mcp history --root DIR [flags] [PATH]

List the changes the tools made that the history keeps of PATH (a file, or everything below a
folder, deleted files included; default: the whole root), newest first: when, by which purpose,
the call (packfs-mcp undo undoes it whole), and the version each replaced, which packfs-mcp restore
brings back. With --purge, forget them instead. Safe while a server runs on the same folder.

Example:
  packfs-mcp history --root ~/notes journal/2026-12-06.md
  packfs-mcp history --root ~/notes --purge drafts/passwords.md

Flags (the same as serve's, and --purge):
`)
		f.fs.PrintDefaults()
	}
	purge := slices.ContainsFunc(args, func(a string) bool {
		return slices.Contains([]string{"-purge", "--purge", "-purge=true", "--purge=true"}, a)
	})
	a, rest, logger, code := historyApp(f, args, 1, false, stderr)
	if a == nil {
		return code
	}
	defer a.Close()
	name := "."
	if len(rest) == 1 {
		name = rest[0]
	}
	if purge {
		n, err := a.ForgetHistory(context.Background(), name)
		if err != nil {
			logger.Print(err)
			return 1
		}
		fmt.Fprintf(stdout, "forgot %d changes of %s\n", n, name)
		return 0
	}
	out, err := callTool(a, tools.ReaderName, map[string]any{"purpose": "history", "target": map[string]any{"path": name}})
	if err != nil {
		logger.Print(err)
		return 1
	}
	printHistory(stdout, out)
	return 0
}

// undoCmd undoes a whole call the history keeps (by default the last): the writer's restore with
// target.call, without a client.
func undoCmd(args []string, stdout, stderr io.Writer) int {
	f := newServerFlags("undo", stdout)
	overwrite := f.fs.Bool("overwrite", false, "undo even where a file changed since the call")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), `Usage: packfs-mcp undo --root DIR [flags] [CALL]

Undo every change of one call the tools made: CALL as packfs-mcp history lists it, or by default
the last call the history keeps. A multi-file edit, a move with its link rewrites, a folder's
delete undo together; the undo is kept too, so it can be undone the same way. Where a file changed
since the call, nothing is done unless --overwrite. Safe while a server runs on the same folder.

Example:
  packfs-mcp undo --root ~/notes

Flags (the same as serve's, and --overwrite):
`)
		f.fs.PrintDefaults()
	}
	a, rest, logger, code := historyApp(f, args, 1, false, stderr)
	if a == nil {
		return code
	}
	defer a.Close()
	var id string
	if len(rest) == 1 {
		id = rest[0]
	} else { // the last call the history keeps
		out, err := callTool(a, tools.ReaderName, map[string]any{"purpose": "history", "target": map[string]any{"path": "."}})
		if err != nil {
			logger.Print(err)
			return 1
		}
		entries, _ := out["history"].([]any)
		if len(entries) == 0 {
			logger.Print("the history keeps no change to undo")
			return 1
		}
		id, _ = entries[0].(map[string]any)["call"].(string)
	}
	call := map[string]any{"purpose": "restore", "target": map[string]any{"call": id}}
	if *overwrite {
		call["options"] = map[string]any{"overwrite": true}
	}
	out, err := callTool(a, tools.WriterName, call)
	if err != nil {
		logger.Print(err)
		return 1
	}
	printRestore(stdout, out)
	return 0
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
	a, rest, logger, code := historyApp(f, args, 2, true, stderr)
	if a == nil {
		return code
	}
	defer a.Close()
	target := map[string]any{"path": rest[0]}
	if len(rest) == 2 {
		target["version"] = rest[1]
	}
	call := map[string]any{"purpose": "restore", "target": target}
	if *overwrite {
		call["options"] = map[string]any{"overwrite": true}
	}
	out, err := callTool(a, tools.WriterName, call)
	if err != nil {
		logger.Print(err)
		return 1
	}
	printRestore(stdout, out)
	return 0
}

// historyApp parses a history command's flags and its arguments (at most most, at least one when
// one is needed) and builds the server with writing on (the history is kept by a server that
// writes) and no index. When it returns no app, code is the exit status: 0 after --help, 2 for bad
// flags or arguments, the reason on stderr.
func historyApp(f *serverFlags, args []string, most int, one bool, stderr io.Writer) (a *serving.App, rest []string, logger *log.Logger, code int) {
	flags, rest := positional(f.fs, args)
	cfg, err := f.parse(append([]string{"--allow-write"}, flags...))
	if errors.Is(err, flag.ErrHelp) {
		return nil, nil, nil, 0
	}
	logger = log.New(stderr, "packfs-mcp: ", 0)
	switch {
	case err != nil:
	case len(rest) > most || one && len(rest) == 0:
		err = fmt.Errorf("%s takes %s: packfs-mcp %s --help", f.fs.Name(), map[bool]string{false: "at most one PATH or CALL", true: "a PATH and maybe a VERSION"}[one], f.fs.Name())
	default:
		err = cfg.RequireRoot()
	}
	if err == nil {
		cfg.Semantic.Disabled = true // the history needs no index
		a, err = serving.Build(cfg, logger)
	}
	if err != nil {
		logger.Print(err)
		return nil, nil, nil, 2
	}
	return a, rest, logger, 0
}

// callTool runs one call of the tool name through a, as the server would, and returns its flat
// answer; an answer that did not succeed is an error giving its reason and code.
func callTool(a *serving.App, name string, arguments map[string]any) (map[string]any, error) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	tool, _ := a.Tool(name)
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, arguments
	res, err := tool.Handler(ctx, req)
	if err != nil || res == nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var out map[string]any
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &out)
	}
	if out["success"] != true {
		return nil, fmt.Errorf("%v (%v)", out["error"], out["code"])
	}
	return out, nil
}

// printHistory prints a history answer as a table, newest first.
func printHistory(w io.Writer, out map[string]any) {
	entries, _ := out["history"].([]any)
	if len(entries) == 0 {
		fmt.Fprintln(w, "no change kept")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tCALL\tPURPOSE\tPATH\tVERSION REPLACED\tSIZE")
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
		p := fmt.Sprint(m["path"])
		if to, _ := m["movedTo"].(string); to != "" {
			p += " -> " + to
		}
		fmt.Fprintf(tw, "%v\t%v\t%v\t%s\t%s\t%s\n", m["time"], m["call"], m["purpose"], p, version, size)
	}
	tw.Flush()
	if out["truncated"] == true {
		fmt.Fprintln(w, "(older changes left out: name a file or a folder to see its own)")
	}
}

// printRestore says what a restore did.
func printRestore(w io.Writer, out map[string]any) {
	if files, _ := out["files"].([]any); len(files) > 0 {
		fmt.Fprintf(w, "undid %d changes:", len(files))
		for _, f := range files {
			if m, ok := f.(map[string]any); ok {
				fmt.Fprintf(w, " %v", m["path"])
			}
		}
		fmt.Fprintln(w)
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
