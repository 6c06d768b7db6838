//go:build !windows

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/packfs/packfs-mcp/internal/tier"
)

// windowsNameCases are the names Windows and case-insensitive filesystems
// read another way. sameEverywhere holds the refusals every build makes;
// onWindows those only the Windows build makes (elsewhere they are
// ordinary names, and the create succeeds).
var (
	sameEverywhere = []struct{ path, code, windowsCode string }{
		{".ENV", "PATH_BLOCKED", ""},
		{"ID_RSA", "PATH_BLOCKED", ""},
		{".SSH/config", "PATH_BLOCKED", ""},
		{".env.", "PATH_BLOCKED", ""},
		{"secret.pem ", "INVALID_PATH", ""},
		{"notes/a.md.", "INVALID_PATH", ""},
		{`.SSH\config`, "INVALID_PATH", ""},
		{`\foo.md`, "INVALID_PATH", ""},
		{"C:foo.md", "INVALID_PATH", ""},
		{"x:y.md", "INVALID_PATH", ""},
		{`\\?\C:\x.md`, "INVALID_PATH", ""},
		{`\\.\pipe\x.md`, "INVALID_PATH", ""},
		{`\\server\share\x.md`, "INVALID_PATH", ""},
		// The rest of the shared cases F61 and F62.
		{"id_rsa ", "PATH_BLOCKED", ""},
		{"notes./x.md", "INVALID_PATH", ""},
		{"SECRET~1.PEM", "PATH_BLOCKED", ""},
		{`C:\x.md`, "INVALID_PATH", ""},
		{"c:/x.md", "INVALID_PATH", ""},
		{`\\?\C:\root\..\x.md`, "INVALID_PATH", ""},
		{`\\.\C:`, "INVALID_PATH", ""},
		{`\\?\UNC\srv\share\x.md`, "INVALID_PATH", ""},
		{`notes\..\..\x.md`, "INVALID_PATH", ""},
	}
	onWindows = []string{"NUL.md", "notes/COM1.txt", "CONIN$", "LPT9", "aux .md", "notes/x:y.md", "notes.md:stream.md",
		"a.md:hidden", "a.md::$DATA", "PROGRA~1/x.md", "NOTES~12.MD", "what?.md"}
	// notOnLinux are names the Linux build refuses for another reason.
	notOnLinux = map[string]string{"CONIN$": "EXTENSION_NOT_ALLOWED", "LPT9": "EXTENSION_NOT_ALLOWED", "a.md:hidden": "EXTENSION_NOT_ALLOWED", "a.md::$DATA": "EXTENSION_NOT_ALLOWED"}
	// caseVariants are the shared case F60: spellings of blocked names that a case-insensitive
	// filesystem opens as the name itself. Each meets the refusal of its lower-case form in every
	// operation.
	caseVariants = []string{".ENV", ".Env.local", "ID_RSA", ".SSH/config", "Secret.PEM", "NODE_MODULES/x.md"}
)

// TestWindowsNames runs the shared cases F60 to F62 through the Linux binary, and
// through the Windows build under Wine when Wine is set up
// (../shared/tools/windows-go-test does it; PACKFS_REQUIRE_WINE=1, as in
// CI, makes its absence a failure). Each case is a create with writing on,
// so a refusal is the policy's, not a missing file's; the Windows build
// also creates, reads and lists an ordinary note, so its writes are
// exercised, not only its refusals.
func TestWindowsNames(t *testing.T) {
	tier.Full(t, "drives the Linux binary and packfs-mcp.exe under Wine")
	t.Run("linux", func(t *testing.T) {
		f := newFixture(t)
		s := start(t, f, nil, "--allow-write", "--no-index")
		nameCases(t, s, false)
	})
	t.Run("windows", func(t *testing.T) {
		exe := windowsBinary(t)
		f := newFixture(t)
		env := []string{"WINEDEBUG=-all", "WINEPREFIX=" + winePrefix(), "HOME=" + os.Getenv("HOME")}
		tr := transport.NewStdio("wine", env, exe, "serve", "--root", wineDrive(f.root), "--allow-write", "--no-index",
			"--history-dir", wineDrive(filepath.Join(f.dir, "history")), "--index-dir", wineDrive(filepath.Join(f.dir, "index")))
		s := startTransport(t, f, tr, nil)
		nameCases(t, s, true)
		res, _ := s.call(writer, intent("create", "notes/from-windows.md", map[string]any{"content": "written under Wine\n"}))
		if res["success"] != true {
			t.Fatalf("create an ordinary note: %v", res)
		}
		res, _ = s.call(reader, access("read", "NOTES/FROM-WINDOWS.MD"))
		if res["content"] != "written under Wine\n" {
			t.Errorf("read it back by another case: %v", res)
		}
		if b, err := os.ReadFile(filepath.Join(f.root, "notes", "from-windows.md")); err != nil || string(b) != "written under Wine\n" {
			t.Errorf("on disk: %q, %v", b, err)
		}
	})
}

func nameCases(t *testing.T, s *session, windows bool) {
	t.Helper()
	var cases []toolCase
	for _, c := range sameEverywhere {
		code := c.code
		if windows && c.windowsCode != "" {
			code = c.windowsCode
		}
		cases = append(cases, toolCase{name: "create " + c.path, tool: writer, args: intent("create", c.path, map[string]any{"content": "x\n"}), code: code})
		cases = append(cases, toolCase{name: "read " + c.path, tool: reader, args: access("read", c.path), code: code})
	}
	for _, p := range onWindows {
		code := notOnLinux[p]
		if windows {
			code = "INVALID_PATH"
		}
		cases = append(cases, toolCase{name: "create " + p, tool: writer, args: intent("create", p, map[string]any{"content": "x\n", "options": map[string]any{"createPath": true}}), code: code,
			check: func(t *testing.T, res map[string]any) {
				if msg, _ := res["error"].(string); windows && !strings.Contains(msg, "Windows") {
					t.Errorf("the refusal does not say why: %q", msg)
				}
			}})
	}
	for _, p := range caseVariants {
		for op, args := range map[string]struct {
			tool string
			args map[string]any
		}{
			"read":      {reader, access("read", p)},
			"list":      {searcher, intent("list", p, nil)},
			"search":    {searcher, map[string]any{"purpose": "search_content", "target": map[string]any{"path": p, "query": "x"}}},
			"create":    {writer, intent("create", p, map[string]any{"content": "x\n", "options": map[string]any{"createPath": true}})},
			"move onto": {writer, map[string]any{"purpose": "move", "target": map[string]any{"path": "notes/a.md", "destination": p}}},
			"copy onto": {writer, map[string]any{"purpose": "copy", "target": map[string]any{"path": "notes/a.md", "destination": p}}},
		} {
			cases = append(cases, toolCase{name: op + " " + p, tool: args.tool, args: args.args, code: "PATH_BLOCKED"})
		}
	}
	runCases(t, s, cases)
}

// windowsBinary cross-builds packfs-mcp.exe once per test run, or skips
// when Wine is not set up.
func windowsBinary(t *testing.T) string {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("wine"); err != nil {
		missing = "wine is not installed"
	} else if shim := filepath.Join(winePrefix(), "drive_c", "windows", "system32", "bcryptprimitives.dll"); !exists(shim) {
		// Without it a Go program cannot start under Wine 8, and running wine with no prefix
		// would make one (some 700 MB) in the user's home: never do either.
		missing = "no Wine prefix with the ProcessPrng shim Go needs (" + shim + ")"
	}
	if missing != "" {
		if os.Getenv("PACKFS_REQUIRE_WINE") == "1" {
			t.Fatalf("PACKFS_REQUIRE_WINE=1 but %s: run ../shared/tools/windows-go-test first", missing)
		}
		t.Skipf("%s: ../shared/tools/windows-go-test sets it up", missing)
	}
	exe := filepath.Join(filepath.Dir(binPath), "packfs-mcp.exe")
	if _, err := os.Stat(exe); err != nil {
		build := exec.Command("go", "build", "-o", exe, ".")
		build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building the Windows binary: %v\n%s", err, out)
		}
	}
	return exe
}

// winePrefix is the Wine prefix windows-go-test prepared (its ProcessPrng
// shim is what lets a Go program start under Wine 8).
func winePrefix() string {
	if p := os.Getenv("WINEPREFIX"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".wine")
}

// wineDrive is the Windows path Wine gives a host path: drive Z: is /.
func wineDrive(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// exists reports whether something is at the host path p.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
