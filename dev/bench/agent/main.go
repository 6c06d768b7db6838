// Command agent runs the agent task suite: tasks a user gives an AI agent on a real corpus, done
// by an agent (a person or a model) that acts only through this command, against packfs-mcp or a
// peer server, so that the calls and the text each server shows the model can be counted and the
// result checked. See dev/bench/agent/README.md. Run it through the wrapper dev/bench/agent/mcp, or with
// go run ./dev/bench/agent from the repository root:
//
//	dev/bench/agent/mcp start --server ours --task 3     # prepares the root, starts the server, prints the prompt
//	dev/bench/agent/mcp SESSION tools                    # the tool definitions, as the model sees them
//	dev/bench/agent/mcp SESSION call TOOL 'JSON'         # one call; prints the result's text
//	dev/bench/agent/mcp SESSION answer 'TEXT'            # the agent's answer, for tasks that ask one
//	dev/bench/agent/mcp SESSION stop                     # stops the server and verifies
//	dev/bench/agent/mcp report [SESSION...]              # calls, KB shown, verdict per session
//	dev/bench/agent/mcp table [SESSION...]               # markdown tables per task and per server
//	dev/bench/agent/mcp verify TASK DIR ANSWER           # verifies a folder and an answer file
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// options are the settings every command shares, from flags or the environment the wrapper sets.
type options struct {
	base     string // where sessions live ($PACKFS_AGENT_DIR, default $TMPDIR/packfs-agent)
	repo     string // the repository ($PACKFS_AGENT_REPO, default the working folder)
	archives string // the corpora archives ($PACKFS_AGENT_ARCHIVES, default REPO/../shared/corpora)
	peers    string // where dev/bench/install-peers.sh put the peers
	ours     string // a built packfs-mcp ($PACKFS_AGENT_OURS; default: build it)
	wrapper  string // the command the agent is told to use ($PACKFS_AGENT_WRAPPER)
}

func defaultOptions() options {
	o := options{
		base:    os.Getenv("PACKFS_AGENT_DIR"),
		repo:    os.Getenv("PACKFS_AGENT_REPO"),
		ours:    os.Getenv("PACKFS_AGENT_OURS"),
		wrapper: os.Getenv("PACKFS_AGENT_WRAPPER"),
	}
	if o.base == "" {
		o.base = filepath.Join(os.TempDir(), "packfs-agent")
	}
	if o.repo == "" {
		o.repo = "."
	}
	if abs, err := filepath.Abs(o.repo); err == nil {
		o.repo = abs
	}
	o.archives = os.Getenv("PACKFS_AGENT_ARCHIVES")
	if o.archives == "" {
		o.archives = filepath.Join(o.repo, "..", "shared", "corpora")
	}
	if home, err := os.UserHomeDir(); err == nil {
		o.peers = filepath.Join(home, ".cache", "packfs-bench")
	}
	if o.wrapper == "" {
		o.wrapper = filepath.Join(o.repo, "bench", "agent", "mcp")
	}
	return o
}

// errUsage is a command line that makes no sense; main prints the usage for it.
var errUsage = errors.New("usage")

const usage = `usage:
  mcp start --server ours|official|mark3labs --task N|NAME [--session NAME]
  mcp SESSION tools | call TOOL 'JSON' | answer ['TEXT'] | prompt | stop | verify | log
  mcp report [--json] [SESSION...]
  mcp table [SESSION...]
  mcp tasks
  mcp verify TASK DIR ANSWER_FILE
SESSION is a session's name (a folder under $PACKFS_AGENT_DIR, default $TMPDIR/packfs-agent) or
its path. report and table take every session there when given none.`

func main() {
	o := defaultOptions()
	err := run(o, os.Args[1:])
	var exit exitCode
	switch {
	case err == nil:
	case errors.As(err, &exit):
		os.Exit(int(exit))
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, strings.TrimPrefix(err.Error(), "usage: "))
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// exitCode ends the program with a status and no message (the output said it all).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

func run(o options, args []string) error {
	if len(args) == 0 {
		return usagef("no command")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Println(usage)
		return nil
	case "start":
		return cmdStart(o, args[1:])
	case "daemon":
		if len(args) != 2 {
			return usagef("daemon takes the session folder")
		}
		return runDaemon(args[1])
	case "report":
		return cmdReport(o, args[1:])
	case "table":
		return cmdTable(o, args[1:])
	case "tasks":
		for _, t := range tasks {
			fmt.Printf("%d  %-20s %-13s %s\n", t.N, t.Name, t.corpusNames(), t.What)
		}
		return nil
	case "verify":
		if len(args) != 4 {
			return usagef("verify takes TASK DIR ANSWER_FILE (a missing file is no answer)")
		}
		return cmdVerifyDir(o, args[1], args[2], args[3])
	}
	if len(args) < 2 {
		return usagef("%q: a session needs a command (tools, call, answer, prompt, stop, verify, log)", args[0])
	}
	dir := sessionDir(o, args[0])
	switch args[1] {
	case "tools":
		return clientTools(dir)
	case "call":
		if len(args) != 4 {
			return usagef("call takes TOOL and one JSON object of arguments, quoted as one word")
		}
		return clientCall(dir, args[2], args[3])
	case "answer":
		return clientAnswer(dir, args[2:])
	case "prompt":
		s, err := loadSession(dir)
		if err != nil {
			return err
		}
		fmt.Print(agentPrompt(s))
		return nil
	case "stop":
		return clientStop(o, dir)
	case "verify":
		return cmdVerifySession(o, dir)
	case "log":
		data, err := os.ReadFile(filepath.Join(dir, "log.jsonl"))
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(data)
		return err
	}
	return usagef("no session command %q", args[1])
}

// sessionDir reads a session argument: a path when it has a slash, else a name under the base.
func sessionDir(o options, s string) string {
	if strings.ContainsRune(s, '/') {
		return s
	}
	return filepath.Join(o.base, s)
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return exitCode(2)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected %q", fs.Arg(0))
	}
	return nil
}
