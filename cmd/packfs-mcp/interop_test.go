package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The TypeScript interop test: examples/ts-interop/interop.mjs drives every tool and purpose of
// the built binary with the official MCP TypeScript SDK, the client most hosts are built on. It
// needs node and the SDK installed from the lockfile; without them the test is skipped, unless
// PACKFS_REQUIRE_INTEROP=1 (as in CI), where it fails instead.

const (
	interopDir    = "../../examples/ts-interop"
	interopScript = "interop.mjs"
	interopSDK    = "@modelcontextprotocol/sdk"
	// interopTimeout bounds the whole script; it sets its own watchdog a little shorter, so a hang
	// is reported with the check that hung.
	interopTimeout = 4 * time.Minute
)

func TestInterop(t *testing.T) {
	const install = "install it with: npm ci --prefix examples/ts-interop"
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("PACKFS_REQUIRE_INTEROP") == "1" {
			t.Fatalf("PACKFS_REQUIRE_INTEROP=1 but "+format, args...)
		}
		t.Skipf(format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not installed (Node.js 20 or later runs the TypeScript interop test)")
	}
	if _, err := os.Stat(filepath.Join(interopDir, "node_modules", interopSDK, "package.json")); err != nil {
		skip("the MCP TypeScript SDK is not installed in examples/ts-interop/node_modules; %s", install)
	}

	ctx, cancel := context.WithTimeout(context.Background(), interopTimeout)
	defer cancel()
	root := filepath.Join(t.TempDir(), "root")
	cmd := exec.CommandContext(ctx, node, filepath.Join(interopDir, interopScript),
		"--server", binPath, "--root", root, "--timeout", "200")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the interop script failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	summary := lines[len(lines)-1]
	if !regexp.MustCompile(`^interop: \d+ checks passed: @modelcontextprotocol/sdk \d+\.\d+\.\d+, packfs-mcp `).MatchString(summary) {
		t.Fatalf("no summary line at the end of the output:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	t.Log(summary)
	// The script worked in the root it was given: what its writes left behind is there.
	for _, c := range []struct {
		path  string
		exist bool
	}{
		{"notes/glossary.md", true},
		{"archive/2026", true},
		{"drafts/plan.md", false},
		{"archive/2026/plan.md", false},
	} {
		if _, err := os.Stat(filepath.Join(root, c.path)); (err == nil) != c.exist {
			t.Errorf("after the script, %s exists = %v, want %v", c.path, err == nil, c.exist)
		}
	}
}

// TestInteropPinned checks, without node, that the interop test pins one exact SDK version and
// that the committed lockfile resolves that very version.
func TestInteropPinned(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(interopDir, "package.json"), &pkg)
	want := pkg.Dependencies[interopSDK]
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(want) {
		t.Fatalf("package.json asks for %s %q, want one exact version", interopSDK, want)
	}
	var lock struct {
		Packages map[string]struct {
			Version      string            `json:"version"`
			Dependencies map[string]string `json:"dependencies"`
		} `json:"packages"`
	}
	readJSON(t, filepath.Join(interopDir, "package-lock.json"), &lock)
	if got := lock.Packages["node_modules/"+interopSDK].Version; got != want {
		t.Errorf("package-lock.json resolves %s %q, package.json pins %q: run npm install in examples/ts-interop", interopSDK, got, want)
	}
	if got := lock.Packages[""].Dependencies[interopSDK]; got != want {
		t.Errorf("package-lock.json was made for %s %q, package.json pins %q: run npm install in examples/ts-interop", interopSDK, got, want)
	}
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(name)
	must(t, err)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
