package errs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCodeTable checks the one table of codes: every Code constant of codes.go has one row, and
// the denials (what the journal records as refused by policy) are the policy's refusals.
func TestCodeTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Code") || len(vs.Values) != 1 {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
			v, _ := strconv.Unquote(lit.Value)
			consts = append(consts, v)
		}
		return true
	})
	table := Codes()
	slices.Sort(consts)
	sorted := slices.Sorted(slices.Values(table))
	if !slices.Equal(consts, sorted) {
		t.Errorf("Code constants %v, table %v: each constant needs one row", consts, sorted)
	}
	var denials []string
	for _, c := range table {
		if IsDenial(c) {
			denials = append(denials, c)
		}
	}
	want := []string{CodePermissionDenied, CodeOutsideRoot, CodeBlocked, CodeExtension, CodeRateLimited,
		CodeHardLink, CodeRoot, CodeAccess, CodeUnauthenticated, CodeOriginNotAllowed, CodeAutoRun}
	if !slices.Equal(denials, want) {
		t.Errorf("denials %v, want %v", denials, want)
	}
	if IsDenial("") || IsDenial("NO_SUCH_CODE") {
		t.Error("an unknown code is a denial")
	}
}
