package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/packfs/packfs-mcp/audit"
	"github.com/packfs/packfs-mcp/fsroot"
)

// journalCmd prints a summary of a journal: calls per tool and purpose, denials and errors by code
// with an example, and the slowest calls; --json prints it for programs. It exits 2 when the
// command is wrong (no file, a file that cannot be opened), 1 when reading the file fails midway.
func journalCmd(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("journal", flag.ContinueOnError)
	flags.SetOutput(stdout) // where --help prints the usage; a mistake is one line on stderr
	asJSON := flags.Bool("json", false, "print the summary as one JSON object, for programs")
	top := flags.Int("top", audit.DefaultTop, "how many of the slowest calls to list")
	flags.Usage = func() {
		fmt.Fprint(flags.Output(), `Usage: packfs-mcp journal [--json] [--top N] FILE

Summarize an audit journal: the file that "packfs-mcp serve --journal FILE" (and "call --journal
FILE") appends one line to per tool call. It shows how many calls each tool and purpose got, the
denials (calls refused by the path policy, a permission that is off or the rate limit) and the
errors, each by code with an example path and reason, and the slowest calls.

Each line of the journal is one JSON object, an AI SDK UIMessage: an assistant message whose
"dynamic-tool" part holds the tool, its input, and its output, error text or denial, with the time,
duration, purpose, path and code in its metadata. An AI SDK UI can render or replay it, and jq
reads it.

Flags:
`)
		flags.PrintDefaults()
	}
	// Flags may come after the file too: packfs-mcp journal audit.jsonl --json.
	var files []string
	for {
		if err := parseArgs(flags, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			fmt.Fprintf(stderr, "packfs-mcp journal: %v\n", err)
			return 2
		}
		if flags.NArg() == 0 {
			break
		}
		files = append(files, flags.Arg(0))
		args = flags.Args()[1:]
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "packfs-mcp journal: name one journal file, as in: packfs-mcp journal audit.jsonl (got %d); packfs-mcp journal --help lists the flags\n", len(files))
		return 2
	}
	if *top < 1 {
		fmt.Fprintf(stderr, "packfs-mcp journal: --top must be at least 1, not %d\n", *top)
		return 2
	}
	f, closeFile, err := openJournalFile(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "packfs-mcp journal: %v\n", err)
		return 2
	}
	defer closeFile()
	s, err := audit.Summarize(f, *top)
	if err == nil {
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			err = enc.Encode(s)
		} else {
			err = s.WriteText(stdout, files[0])
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "packfs-mcp journal: %s: %v\n", files[0], err)
		return 1
	}
	return 0
}

// openJournalFile opens a journal for reading through an fsroot.Root on its folder, to be read as
// a stream, so a large journal is never held in memory. close closes both.
func openJournalFile(file string) (r io.Reader, close func(), err error) {
	clean := filepath.Clean(file)
	// The journal is the operator's own file: a hard link to it is no escape worth refusing.
	dir, err := fsroot.Open(filepath.Dir(clean), fsroot.Options{AllowHardLinks: true})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read %s: %w", file, err)
	}
	f, err := dir.FS().Open(filepath.Base(clean))
	if err != nil {
		dir.Close()
		return nil, nil, fmt.Errorf("cannot read %s: %w", file, err)
	}
	return f, func() { f.Close(); dir.Close() }, nil
}
