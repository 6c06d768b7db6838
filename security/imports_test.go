package security_test

import (
	"go/build"
	"strings"
	"testing"
)

// TestImports enforces the package boundary: security decides on strings
// and never reaches the filesystem or other project packages.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatalf("ImportDir: %v", err)
	}
	forbidden := map[string]bool{"os": true, "path/filepath": true, "syscall": true, "io/ioutil": true, "unsafe": true}
	for _, imp := range pkg.Imports {
		if forbidden[imp] || strings.HasPrefix(imp, "golang.org/x/sys") || strings.HasPrefix(imp, "github.com/packfs/packfs-mcp") {
			t.Errorf("package security imports %q", imp)
		}
	}
	if len(pkg.Imports) == 0 {
		t.Error("found no imports; is the test reading the right directory?")
	}
}
