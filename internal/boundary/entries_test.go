package boundary

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// byName are fsroot's readers and writers that take a name and resolve it themselves. The tools
// judge a name by what its lookup reached, so they read and write through that lookup's Entry
// (Server.open): a by-name call would resolve the name again, and act on whatever it leads to by
// then.
var byName = []string{
	"ReadFile", "WriteFile", "WriteFileIf", "AppendFile", "AppendFileIf", "CreateFile",
	"Remove", "RemoveIf", "Rename", "RenameIf", "Mkdir", "MkdirAll", "CopyFile", "Resolve",
}

// rootCalls returns the calls in file of byName's methods on a value named root or Root (the
// tools' s.cfg.Root, security's ig.root and root): "Root.ReadFile" and the like, with their lines.
func rootCalls(fset *token.FileSet, file *ast.File) []string {
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !slices.Contains(byName, sel.Sel.Name) {
			return true
		}
		var last string
		switch x := sel.X.(type) {
		case *ast.Ident:
			last = x.Name
		case *ast.SelectorExpr:
			last = x.Sel.Name
		}
		if strings.EqualFold(last, "root") {
			out = append(out, fset.Position(call.Pos()).String()+": "+last+"."+sel.Sel.Name)
		}
		return true
	})
	return out
}

// TestToolsActOnEntries fails when a file of tools, or of security (what may be seen: Visible and
// the ignore files Ignore reads), calls one of fsroot's by-name readers or writers on its root:
// every purpose acts on what the policy judged.
func TestToolsActOnEntries(t *testing.T) {
	for _, room := range []string{"tools", "security"} {
		dir := filepath.Join("..", "..", room)
		checked := 0
		// The rooms of tools (tools/NAME) are tools too: what they read or write, they act on
		// through an Entry tools judged.
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), ".go") || strings.HasSuffix(d.Name(), "_test.go") {
				return nil
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			checked++
			for _, c := range rootCalls(fset, file) {
				t.Errorf("%s resolves a name again: look it up once and act through the Entry (tools' Server.open)", c)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if checked < 10 {
			t.Fatalf("checked %d files of %s: the rule is not looking", checked, room)
		}
	}
}

// TestRootCallsCatches checks that rootCalls finds a by-name call however the root is reached,
// and passes the calls through an Entry.
func TestRootCallsCatches(t *testing.T) {
	src := `package tools
func f() {
	s.cfg.Root.ReadFile(ctx, name, 0)
	ig.root.WriteFileIf(ctx, name, nil, "", 0)
	root.Remove(name, false)
	e.ReadFile(ctx, 0)
	s.cfg.Root.Lookup(name)
	e.WriteFileIf(ctx, nil, "", 0)
}`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := rootCalls(fset, file)
	want := []string{"x.go:3:2: Root.ReadFile", "x.go:4:2: root.WriteFileIf", "x.go:5:2: root.Remove"}
	if !slices.Equal(got, want) {
		t.Errorf("rootCalls = %q, want %q", got, want)
	}
}
