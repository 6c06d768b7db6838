package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/packfs/packfs-mcp/internal/tier"
)

// agentConfigDir holds the ready client configurations and examples.
const agentConfigDir = "../../examples/agent-config"

// goClientExample is the Go program in examples/agent-config that shows how to drive the server
// with the mcp-go client. It is built and run here so the example keeps working.
const goClientExample = "github.com/packfs/packfs-mcp/examples/agent-config/go-client"

// exampleTimeout bounds building and running the example, so a hang fails the test instead of
// stalling the suite.
const exampleTimeout = 3 * time.Minute

func TestGoClientExample(t *testing.T) {
	f := workspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	exe := filepath.Join(t.TempDir(), "go-client")
	build := exec.CommandContext(ctx, "go", "build", "-o", exe, goClientExample)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the example: %v\n%s", err, out)
	}

	const query = "os.Root"
	glossary, err := os.ReadFile(filepath.Join(f.root, "notes", "glossary.md"))
	must(t, err)
	hits := grepRoot(t, f.root, query)
	if len(hits) == 0 {
		t.Fatalf("the sample workspace no longer contains %q; pick another query", query)
	}

	// The README runs the example without -server, after go install: it must find the binary in
	// go install's folder when that is not on $PATH.
	goBin, err := exec.LookPath("go")
	must(t, err)
	onlyGo := "PATH=" + filepath.Dir(goBin)
	cases := []struct {
		name     string
		args     []string
		env      []string // added to the environment; with it the example gets no -server
		noStart  bool     // the example finds no server to start
		wantExit int
		wantOut  []string // lines stdout must contain
		notOut   []string // text stdout must not contain
		wantErr  string   // text stderr must contain
	}{
		{
			name: "read and search",
			args: []string{"-read", "notes/glossary.md", "-query", query},
			wantOut: append([]string{
				"tool: packfs-file-reader: ",
				"tool: packfs-file-searcher: ",
				fmt.Sprintf("search %q: %d files", query, countFiles(hits)),
			}, hits...),
			notOut: []string{"packfs-file-writer"}, // the server is read-only unless told otherwise
		},
		{
			name:    "found where go install puts it",
			args:    []string{"-read", "notes/glossary.md", "-query", query},
			env:     []string{onlyGo, "GOBIN=" + filepath.Dir(binPath)},
			wantOut: []string{"tool: packfs-file-reader: "},
		},
		{
			name:     "not installed",
			env:      []string{onlyGo, "GOBIN=", "GOPATH=" + t.TempDir()},
			noStart:  true,
			wantExit: 1,
			wantErr:  "run go install ./cmd/packfs-mcp",
		},
		{
			name:     "refused read",
			args:     []string{"-read", "../outside/secret.md"},
			wantExit: 1,
			notOut:   []string{marker},
			wantErr:  "PATH_OUTSIDE_ROOT",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-root", f.root}, tc.args...)
			if tc.env == nil {
				args = append([]string{"-server", binPath}, args...)
			}
			// Arguments after -- go to packfs-mcp serve as they are.
			args = append(args, "--", "--no-index")
			cmd := exec.CommandContext(ctx, exe, args...)
			cmd.Env = append(append(os.Environ(), "HOME="+f.dir), tc.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			exit := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("running the example: %v", err)
			}
			out := stdout.String()
			if exit != tc.wantExit {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", exit, tc.wantExit, out, stderr.String())
			}
			if !tc.noStart && !strings.HasPrefix(out, "server: packfs-mcp ") {
				t.Errorf("stdout does not start with the server's name:\n%s", out)
			}
			lines := strings.Split(out, "\n")
			for _, want := range tc.wantOut {
				if !hasLinePrefix(lines, want) {
					t.Errorf("stdout lacks the line %q:\n%s", want, out)
				}
			}
			if tc.wantExit == 0 && !strings.Contains(out, string(glossary)) {
				t.Errorf("stdout lacks the content of notes/glossary.md:\n%s", out)
			}
			for _, bad := range tc.notOut {
				if strings.Contains(out, bad) || strings.Contains(stderr.String(), bad) {
					t.Errorf("the output contains %q:\n%s\n%s", bad, out, stderr.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, stderr.String())
			}
		})
	}
}

// grepRoot returns, for every regular file under root with a line containing query, one
// "path:line: text" entry per such line: what the example prints for a search.
func grepRoot(t *testing.T, root, query string) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		sc := bufio.NewScanner(bytes.NewReader(b))
		for n := 1; sc.Scan(); n++ {
			if strings.Contains(sc.Text(), query) {
				hits = append(hits, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), n, sc.Text()))
			}
		}
		return sc.Err()
	})
	must(t, err)
	return hits
}

// countFiles counts the distinct paths in "path:line: text" entries.
func countFiles(hits []string) int {
	seen := map[string]bool{}
	for _, h := range hits {
		seen[h[:strings.Index(h, ":")]] = true
	}
	return len(seen)
}

func hasLinePrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// TestClientConfigs checks each JSON client configuration in examples/agent-config: the shape its
// client reads (Cursor, Claude Desktop and Claude Code an mcpServers object, VS Code a servers
// object with type stdio), and that the binary accepts its arguments, run with the root replaced
// by a real folder.
func TestClientConfigs(t *testing.T) {
	cases := []struct {
		file, key, typ string
		root           string // the --root value the file carries
	}{
		{file: "claude_desktop_config.json", key: "mcpServers", root: "/home/you/notes"},
		{file: "claude_desktop_config.macos.json", key: "mcpServers", root: "/Users/you/Notes"},
		{file: "claude_desktop_config.windows.json", key: "mcpServers", root: `C:\Users\you\Notes`},
		{file: ".mcp.json", key: "mcpServers", typ: "stdio", root: "/home/you/project"},
		{file: "cursor-mcp.json", key: "mcpServers", root: "/home/you/project"},
		{file: "vscode-mcp.json", key: "servers", typ: "stdio", root: "${workspaceFolder}"},
	}
	root := t.TempDir()
	t.Run("claude_desktop_two_folders.json", twoFolders)
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			var doc map[string]map[string]struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			readJSON(t, filepath.Join(agentConfigDir, tc.file), &doc)
			if len(doc) != 1 || doc[tc.key] == nil {
				t.Fatalf("want one top-level key %q, got %v", tc.key, doc)
			}
			srv, ok := doc[tc.key]["packfs"]
			if !ok {
				t.Fatalf("no server named packfs under %q", tc.key)
			}
			if srv.Type != tc.typ {
				t.Errorf("type = %q, want %q", srv.Type, tc.typ)
			}
			if base := path.Base(strings.ReplaceAll(srv.Command, `\`, "/")); base != "packfs-mcp" && base != "packfs-mcp.exe" {
				t.Errorf("command = %q, want the packfs-mcp binary", srv.Command)
			}
			if len(srv.Args) < 3 || srv.Args[0] != "serve" || srv.Args[1] != "--root" || srv.Args[2] != tc.root {
				t.Fatalf("args = %q, want serve --root %s first", srv.Args, tc.root)
			}
			args := append([]string{"serve", "--root", root}, srv.Args[3:]...)
			cmd := exec.Command(binPath, args...) // stdin is empty: the server starts, then ends at EOF
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil || !strings.Contains(stderr.String(), "serving") {
				t.Errorf("packfs-mcp %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
		})
	}
}

// twoFolders checks the Claude Desktop entry with two folders: each --root is NAME=DIR, and the
// binary, given real folders for the two, serves both under those names.
func twoFolders(t *testing.T) {
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(agentConfigDir, "claude_desktop_two_folders.json"), &doc)
	srv, ok := doc.MCPServers["packfs"]
	if !ok || filepath.Base(srv.Command) != "packfs-mcp" || len(srv.Args) != 5 || srv.Args[0] != "serve" {
		t.Fatalf("want a packfs entry running packfs-mcp serve with two roots, got %+v", doc)
	}
	base := t.TempDir()
	args := []string{"serve"}
	var names []string
	for i, a := range srv.Args[1:] {
		if i%2 == 0 {
			if a != "--root" {
				t.Fatalf("args = %q, want --root NAME=DIR twice", srv.Args)
			}
			continue
		}
		name, dir, ok := strings.Cut(a, "=")
		if !ok || !filepath.IsAbs(dir) {
			t.Fatalf("--root %q is not NAME=/absolute/dir", a)
		}
		real := filepath.Join(base, name)
		must(t, os.Mkdir(real, 0o755))
		must(t, os.WriteFile(filepath.Join(real, "hello.md"), []byte("hello from "+name+"\n"), 0o644))
		args, names = append(args, "--root", name+"="+real), append(names, name)
	}
	f := &fixture{dir: base, root: base}
	s := startTransport(t, f, transport.NewStdio(binPath, nil, args...), nil)
	for _, name := range names {
		res, _ := s.call(reader, access("read", name+"/hello.md"))
		if res["content"] != "hello from "+name+"\n" {
			t.Errorf("read %s/hello.md = %v", name, res)
		}
	}
}

// TestPythonExamplesCompile byte-compiles the Python examples, which catches syntax errors only:
// running them needs their packages (openai-agents, langchain-mcp-adapters) and, for the agent
// part, an API key.
func TestPythonExamplesCompile(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	files, err := filepath.Glob(filepath.Join(agentConfigDir, "*.py"))
	must(t, err)
	if len(files) < 2 {
		t.Fatalf("want the OpenAI Agents and LangChain examples, found %q", files)
	}
	for _, file := range files {
		cmd := exec.Command(python, "-m", "py_compile", file)
		// Keep the bytecode out of the repository.
		cmd.Env = append(os.Environ(), "PYTHONPYCACHEPREFIX="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", file, err, out)
		}
	}
}

// TestInstallSteps follows the README's setup for a client such as Claude Desktop, as a user
// without root rights would: go install into a folder of the user's (no sudo, no /usr/local/bin),
// find the binary on PATH as `which packfs-mcp` does, then run doctor and serve with an absolute root
// from /, the folder Claude Desktop starts servers in. It also checks that the READMEs say so.
func TestInstallSteps(t *testing.T) {
	tier.Full(t, "go install into a folder of its own, then runs the installed binary")
	for _, doc := range []string{"../../README.md", filepath.Join(agentConfigDir, "README.md")} {
		b, err := os.ReadFile(doc)
		must(t, err)
		for _, want := range []string{"go install ./cmd/packfs-mcp", "which packfs-mcp", "absolute path"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s lacks %q", doc, want)
			}
		}
		for _, bad := range []string{"sudo", "/usr/local/bin"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s says %q: the setup must work without root rights", doc, bad)
			}
		}
	}

	gobin := t.TempDir()
	install := exec.Command("go", "install", "./cmd/packfs-mcp")
	install.Dir = filepath.Join("..", "..")
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	t.Setenv("PATH", gobin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	bin, err := exec.LookPath("packfs-mcp") // which packfs-mcp
	if err != nil || filepath.Dir(bin) != gobin {
		t.Fatalf("which packfs-mcp = %q, %v: want the installed binary in %s", bin, err, gobin)
	}
	root := workspace(t).root
	for _, args := range [][]string{{"doctor", "--root", root}, {"serve", "--root", root}} {
		cmd := exec.Command(bin, args...) // stdin is empty: serve starts, then ends at EOF
		cmd.Dir = "/"
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("packfs-mcp %s, started in /: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
	}
}
