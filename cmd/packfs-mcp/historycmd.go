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

	"github.com/packfs/packfs-mcp/internal/server"
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
	if slices.ContainsFunc(args, func(a string) bool {
		return slices.Contains([]string{"-purge", "--purge", "-purge=true", "--purge=true"}, a)
	}) {
		return purgeHistory(f, args, stdout, stderr)
	}
	return runHistoryCall(f, args, 1, stdout, stderr, func(rest []string) (string, map[string]any) {
		p := "."
		if len(rest) == 1 {
			p = rest[0]
		}
		return tools.ReaderName, map[string]any{"purpose": "history", "target": map[string]any{"path": p}}
	}, printHistory)
}

// purgeHistory forgets what the history keeps of a path, for history --purge.
func purgeHistory(f *serverFlags, args []string, stdout, stderr io.Writer) int {
	flags, rest := positional(f.fs, args)
	cfg, err := f.parse(append([]string{"--allow-write"}, flags...))
	logger := log.New(stderr, "packfs-mcp: ", 0)
	switch {
	case err != nil:
	case len(rest) > 1:
		err = errors.New("history --purge takes at most one PATH: packfs-mcp history --help")
	default:
		err = cfg.RequireRoot()
	}
	if err != nil {
		logger.Print(err)
		return 2
	}
	name := "."
	if len(rest) == 1 {
		name = rest[0]
	}
	cfg.Semantic.Disabled = true
	a, err := server.Build(cfg, logger)
	if err != nil {
		logger.Print(err)
		return 2
	}
	defer a.Close()
	n, err := a.ForgetHistory(context.Background(), name)
	if err != nil {
		logger.Print(err)
		return 1
	}
	fmt.Fprintf(stdout, "forgot %d changes of %s\n", n, name)
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
	var last string
	return runHistoryCall(f, args, 1, stdout, stderr, func(rest []string) (string, map[string]any) {
		call := map[string]any{"purpose": "restore", "target": map[string]any{"call": last}}
		if len(rest) == 1 {
			call["target"] = map[string]any{"call": rest[0]}
		}
		if *overwrite {
			call["options"] = map[string]any{"overwrite": true}
		}
		return tools.WriterName, call
	}, printRestore, func(a *server.App) error {
		var err error
		last, err = lastCall(a)
		return err
	})
}

// lastCall is the call the history of a's root kept last.
func lastCall(a *server.App) (string, error) {
	tool, _ := a.Tool(tools.ReaderName)
	var req mcp.CallToolRequest
	req.Params.Name = tools.ReaderName
	req.Params.Arguments = map[string]any{"purpose": "history", "target": map[string]any{"path": "."}}
	res, err := tool.Handler(context.Background(), req)
	if err != nil || res == nil {
		return "", fmt.Errorf("history: %v", err)
	}
	var out struct {
		Error   string `json:"error"`
		History []struct {
			Call string `json:"call"`
		} `json:"history"`
	}
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &out)
	}
	switch {
	case out.Error != "":
		return "", errors.New(out.Error)
	case len(out.History) == 0:
		return "", errors.New("the history keeps no change to undo")
	}
	return out.History[0].Call, nil
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
	call func(rest []string) (string, map[string]any), show func(io.Writer, map[string]any), before ...func(*server.App) error) int {
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
	if len(before) > 0 && len(rest) == 0 {
		if err := before[0](a); err != nil {
			logger.Print(err)
			return 1
		}
	}
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
