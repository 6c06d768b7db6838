package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBoundary walks the module's source and fails when a package steps out of its room: only fsroot
// touches the operating system's filesystem, only tools and cmd speak MCP (toolformat uses MCP's
// types, not its server), and imports point one way (cmd -> tools -> intents, security, semantic ->
// fsroot; cmd -> toolformat, audit).
func TestBoundary(t *testing.T) {
	const module = "github.com/packfs/packfs-mcp/"
	osOnly := map[string]bool{"os": true, "path/filepath": true, "syscall": true, "io/ioutil": true, "golang.org/x/sys/unix": true}
	// allowedProject lists which project packages each package may import.
	allowedProject := map[string][]string{
		"fsroot":   {},
		"security": {},
		"intents":  {},
		"semantic": {"fsroot"},
		"tools":    {"fsroot", "security", "intents", "semantic"},
		"audit":    {"fsroot"},
		// toolformat is a library for other programs too: it stands alone.
		"toolformat": {},
	}
	// mcpTypes is the one package of mcp-go that toolformat may import: the protocol's types.
	const mcpTypes = "github.com/mark3labs/mcp-go/mcp"
	// cmd uses os only to run a process: its arguments, streams and exit code, the config file the
	// operator names, and the environment that names the folders it creates outside the root for
	// the index and the backups (the user, the cache and temporary folders).
	// Commands that are not the server (eval reads corpora outside any root) may use os freely.
	commands := map[string]bool{"eval": true, "bench": true}
	// semantic/index.go hands bleve its index folder, the operator's setting outside the root: the
	// one documented exception inside a library package.
	exceptions := map[string]bool{"semantic/index.go": true}
	cmdOS := map[string]bool{"Args": true, "Exit": true, "Stdin": true, "Stdout": true, "Stderr": true,
		"ReadFile": true, "MkdirAll": true, "UserCacheDir": true, "Getenv": true, "Geteuid": true, "TempDir": true, "Interrupt": true, "Signal": true}

	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "examples" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		pkg := strings.Split(filepath.ToSlash(rel), "/")[0]
		if commands[pkg] {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		full, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case strings.HasPrefix(path, "github.com/mark3labs/mcp-go") && pkg != "tools" && pkg != "cmd" && !(pkg == "toolformat" && path == mcpTypes):
				t.Errorf("%s imports %s: only tools and cmd speak MCP, and toolformat uses only %s", rel, path, mcpTypes)
			case strings.HasPrefix(path, module):
				dep := strings.TrimPrefix(path, module)
				if allowed, ok := allowedProject[pkg]; ok && !contains(allowed, dep) {
					t.Errorf("%s imports %s: %s may import only %v", rel, path, pkg, allowed)
				}
			case osOnly[path] && pkg == "cmd":
				if path == "os" {
					checkSelectors(t, rel, full, "os", cmdOS)
				}
			case osOnly[path] && pkg != "fsroot" && !exceptions[filepath.ToSlash(rel)]:
				t.Errorf("%s imports %s: only fsroot touches the filesystem", rel, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkSelectors fails on any use of pkg.Name not in allowed.
func checkSelectors(t *testing.T, rel string, f *ast.File, pkg string, allowed map[string]bool) {
	t.Helper()
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkg && !allowed[sel.Sel.Name] {
			t.Errorf("%s uses %s.%s: only fsroot touches the filesystem", rel, pkg, sel.Sel.Name)
		}
		return true
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
