package errs

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
)

// same names a path as one root's server does: as it is.
func same(name string) string { return name }

// TestFailureCodes checks a few rows of the table from error to code, and what a path from ~ that
// does not exist is told.
func TestFailureCodes(t *testing.T) {
	tests := []struct {
		err  error
		code string
	}{
		{context.DeadlineExceeded, CodeTimeout},
		{errors.New("something odd"), CodeInternal},
		{New(CodeNotAvailable, "x"), CodeNotAvailable},
		{&fs.PathError{Op: "write", Path: "a.md", Err: fsroot.ErrInUse}, CodeInUse},
	}
	for _, tt := range tests {
		if got := Status(tt.err, "a.md", same).Code; got != tt.code {
			t.Errorf("Status(%v) = %s, want %s", tt.err, got, tt.code)
		}
	}
	home := Status(&fs.PathError{Op: "open", Path: "~/notes.md", Err: fs.ErrNotExist}, "~/notes.md", same)
	if home.Code != CodeNotFound || !strings.Contains(home.Error, "paths are relative to the root") {
		t.Errorf("a path from ~ that does not exist: %+v, want NOT_FOUND saying paths are relative to the root", home)
	}
}
