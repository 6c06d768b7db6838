// Command agent holds the agent task suite: tasks a user gives an AI agent on a real corpus, and
// the verifiers that check what the agent left behind.
//
//	go run ./bench/agent tasks                       # lists the tasks
//	go run ./bench/agent verify TASK DIR ANSWER_FILE # verifies a folder and an answer file
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// options are the settings every command shares.
type options struct {
	base     string // where the corpora are unpacked ($PACKFS_AGENT_DIR, default $TMPDIR/packfs-agent)
	archives string // the corpora archives ($PACKFS_AGENT_ARCHIVES, default ../shared/corpora)
}

func defaultOptions() options {
	o := options{base: os.Getenv("PACKFS_AGENT_DIR"), archives: os.Getenv("PACKFS_AGENT_ARCHIVES")}
	if o.base == "" {
		o.base = filepath.Join(os.TempDir(), "packfs-agent")
	}
	if o.archives == "" {
		o.archives = filepath.Join("..", "shared", "corpora")
	}
	return o
}

// exitCode ends the program with a status and no message (the output said it all).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	o := defaultOptions()
	var err error
	switch {
	case len(os.Args) == 2 && os.Args[1] == "tasks":
		for _, t := range tasks {
			fmt.Printf("%d  %-20s %-8s %s\n", t.N, t.Name, t.Corpus.Name, t.What)
		}
	case len(os.Args) == 5 && os.Args[1] == "verify":
		err = cmdVerifyDir(o, os.Args[2], os.Args[3], os.Args[4])
	default:
		fmt.Fprintln(os.Stderr, "usage: agent tasks | agent verify TASK DIR ANSWER_FILE")
		os.Exit(2)
	}
	var exit exitCode
	switch {
	case errors.As(err, &exit):
		os.Exit(int(exit))
	case err != nil:
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}
