package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"

	"github.com/packfs/packfs-mcp/internal/serving"
)

// doctorCmd prints the effective configuration of a server on the given flags and checks that its
// root is usable. It exits 0 when every check passes, 1 when one fails, 2 on bad flags.
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	f := newTransportFlags("doctor", stdout)
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), `Usage: packfs-mcp doctor --root DIR [--root NAME=DIR ...] [server flags]

Print what a server started with the same flags would do: its permissions and tools, the file
types it opens and the paths it blocks, its limits, and where its index, history and journal live.
Then check that it can work: the Go runtime, the root, what the policy hides, the index and
history folders, writing (when allowed), and the HTTP address (with --http). Exit status 0 when every check passes, 1 when one fails (a root that cannot be
opened is a failed check, reported with the rest), 2 when the flags are wrong.

Example:
  packfs-mcp doctor --root ~/notes --allow-write

Flags (the same as serve's):
`)
		f.fs.PrintDefaults()
	}
	cfg, err := f.parseServe(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		err = cfg.RequireRoot()
	}
	logger := log.New(stderr, "packfs-mcp: ", 0)
	if err != nil {
		logger.Print(err)
		return 2
	}
	passed, err := serving.Doctor(cfg, logger, stdout)
	if err != nil {
		logger.Print(err)
		return 2
	}
	if !passed {
		return 1
	}
	return 0
}
