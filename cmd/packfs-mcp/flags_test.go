package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// runBinary runs the built binary with args and an empty stdin, and returns its exit status,
// stdout and stderr.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
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
		{"bad value", []string{"serve", "--root", root, "--timeout", "soon"}, `invalid value "soon" for flag -timeout`},
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
		if got := nearest(tt.word, flags); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
