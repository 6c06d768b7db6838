package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/audit"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/internal/serving"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
)

// runBinary runs the built binary with args and an empty stdin, and returns its exit status,
// stdout and stderr.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runBinaryIn(t, "", args...)
}

// runBinaryIn is [runBinary] started in the folder dir, as an MCP client starts a server in a folder
// of its choosing ("" for the test's own).
func runBinaryIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// TestFlagsHelp checks, through the binary, that every command's help goes to stdout with exit
// status 0, so `packfs-mcp serve --help | less` shows it.
func TestFlagsHelp(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "packfs-mcp call --root DIR < call.json"},
		{[]string{"-h"}, "packfs-mcp call --root DIR < call.json"},
		{[]string{"help"}, "packfs-mcp doctor --root DIR"},
		{[]string{"serve", "--help"}, "Usage: packfs-mcp serve --root DIR"},
		{[]string{"serve", "-h"}, "-allow-write"},
		{[]string{"call", "--help"}, "Usage: packfs-mcp call --root DIR"},
		{[]string{"doctor", "--help"}, "Usage: packfs-mcp doctor --root DIR"},
		{[]string{"tools", "--help"}, "Usage: packfs-mcp tools"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runBinary(t, tt.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q: want 0 and nothing on stderr", code, stderr)
			}
			if !strings.Contains(stdout, tt.want) {
				t.Errorf("stdout lacks %q:\n%s", tt.want, stdout)
			}
		})
	}
}

// TestFlagsMistyped checks, through the binary, that a mistyped flag or command gets one line on
// stderr naming the mistake and the nearest name, not the whole usage, and exit status 2.
func TestFlagsMistyped(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string // in the one line on stderr
	}{
		{"serve", []string{"serve", "--root", root, "--alow-write"}, "flag provided but not defined: -alow-write: did you mean --allow-write?"},
		{"serve without the command", []string{"--root", root, "--readonly"}, "did you mean --read-only?"},
		{"call", []string{"call", "--root", root, "--no-indx"}, "did you mean --no-index?"},
		{"doctor", []string{"doctor", "--rot", root}, "did you mean --root?"},
		{"tools", []string{"tools", "--fromat", "openai"}, "did you mean --format?"},
		{"tools has no root", []string{"tools", "--root", root}, "flag provided but not defined: -root (packfs-mcp tools --help lists the flags)"},
		{"bad duration", []string{"serve", "--root", root, "--timeout", "30"}, `invalid value "30" for --timeout (deadline of each tool call, a DURATION such as 1m30s): give a number with its unit: 30s, 1m30s, 2h`},
		{"bad size", []string{"serve", "--root", root, "--max-file-size", "10MB"}, `invalid value "10MB" for --max-file-size (largest file read or written, in BYTES): give a whole number, without a unit`},
		{"command", []string{"serv", "--root", root}, `unknown command "serv": did you mean serve?`},
		{"far command", []string{"frobnicate"}, `unknown command "frobnicate" (packfs-mcp --help lists the commands)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, tt.args...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, stdout %q: want 2 and nothing on stdout", code, stdout)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.want)
			}
			if n := strings.Count(stderr, "\n"); n != 1 {
				t.Errorf("stderr has %d lines, want one:\n%s", n, stderr)
			}
		})
	}
}

func TestFlagsNearest(t *testing.T) {
	flags := []string{"allow-hard-links", "allow-write", "index-dir", "no-index", "read-only", "root"}
	tests := []struct{ word, want string }{
		{"allow-write", "allow-write"},
		{"alow-write", "allow-write"},
		{"allowwrite", "allow-write"},
		{"readonly", "read-only"},
		{"rot", "root"},
		{"root-dir", "root"}, // contains exactly one name
		{"index", ""},        // two names contain it: no guess
		{"frobnicate", ""},   // nothing near
		{"x", ""},            // too short to guess
	}
	for _, tt := range tests {
		if got := intents.Nearest(tt.word, flags); got != tt.want {
			t.Errorf("intents.Nearest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

// TestFlagsRootErrors checks, through the binary, what serve, call and doctor say about a root that
// cannot be opened: a relative root started from / (as Claude Desktop starts servers), a ~ no shell
// expanded, a missing folder, a file. Each says what to pass instead and names the root only as it
// was given, never the folder the binary was started in nor a path resolved from it.
func TestFlagsRootErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.md")
	must(t, os.WriteFile(file, []byte("# A\n"), 0o644))
	tests := []struct {
		name, cwd, root string
		want            []string
	}{
		{name: "relative from /", cwd: "/", root: "examples/workspace", want: []string{`root "examples/workspace" does not exist: it is a relative path`, "absolute path", "cd examples/workspace && pwd"}},
		{name: "relative from elsewhere", cwd: dir, root: "notes", want: []string{`root "notes" does not exist: it is a relative path`, "absolute path"}},
		{name: "tilde", cwd: dir, root: "~/notes", want: []string{`root "~/notes" does not exist: ~ is expanded only by a shell`, "full path"}},
		{name: "missing", cwd: dir, root: filepath.Join(dir, "absent"), want: []string{"root " + filepath.Join(dir, "absent") + " does not exist: pass an existing folder"}},
		{name: "file", cwd: dir, root: file, want: []string{"root " + file + " is not a folder"}},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"serve", "call", "doctor"} {
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				code, stdout, stderr := runBinaryIn(t, tt.cwd, cmd, "--root", tt.root)
				said, wantCode := stderr, 2
				if cmd == "doctor" {
					// doctor prints its report, the root check failed, and exits 1.
					said, wantCode = stdout, 1
					if !strings.Contains(stdout, "FAIL  root ") || !strings.Contains(stdout, "permissions  read,search,list") {
						t.Errorf("doctor's report lacks the failed root check or the policy:\n%s", stdout)
					}
				} else if stdout != "" {
					t.Errorf("stdout = %q, want nothing", stdout)
				}
				if code != wantCode {
					t.Fatalf("exit %d, want %d; stdout %q; stderr %q", code, wantCode, stdout, stderr)
				}
				for _, w := range tt.want {
					if !strings.Contains(said, w) {
						t.Errorf("%q lacks %q", said, w)
					}
				}
				for _, leak := range []string{"lstat", "/" + tt.root, filepath.Join(tt.cwd, tt.root)} {
					if tt.cwd != "" && !filepath.IsAbs(tt.root) && strings.Contains(stdout+stderr, leak) {
						t.Errorf("output names %q, a path the user did not type:\n%s%s", leak, stdout, stderr)
					}
				}
			})
		}
	}
}

// valueInProse is a default stated in a flag's help as a value, "(default 30s)", rather than in
// words for one that is no value, "(default: none)".
var valueInProse = regexp.MustCompile(`\(default [^:]|default (is )?[0-9"]`)

// TestFlagsStateNoDefault checks that no flag's help states a default value itself: the value is
// the flag's own, defined once, and the flag package prints it, so the help cannot drift from it.
func TestFlagsStateNoDefault(t *testing.T) {
	sets := map[string]*flag.FlagSet{"serve": newServeFlags(io.Discard).fs}
	for name, fs := range sets {
		fs.VisitAll(func(fl *flag.Flag) {
			if valueInProse.MatchString(fl.Usage) {
				t.Errorf("%s --%s: help %q states a default: make it the flag's value (%q now)", name, fl.Name, fl.Usage, fl.DefValue)
			}
		})
	}
	// The defaults the help shows are the values the server falls back on when a setting is zero.
	fs := newServeFlags(io.Discard).fs
	for name, want := range map[string]any{
		"max-file-size":          fsroot.DefaultMaxFileSize,
		"max-request-bytes":      serving.DefaultMaxRequestBytes,
		"timeout":                tools.DefaultTimeout,
		"rate-limit":             security.DefaultMaxRequests,
		"rate-window":            security.DefaultWindow,
		"http-client-rate-limit": security.DefaultClientRequests,
		"journal-max-content":    audit.DefaultMaxContentBytes,
		"permissions":            security.DefaultPermissions(),
	} {
		if got := fs.Lookup(name).DefValue; got != fmt.Sprint(want) {
			t.Errorf("--%s defaults to %s in its help, but the server falls back on %v", name, got, want)
		}
	}
}
