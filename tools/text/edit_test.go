package text

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/errs"
)

func TestApplyEdits(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		edits []intents.Edit
		want  string
		n     int
		code  string
	}{
		{"one", "a\nb\nc\n", []intents.Edit{{OldText: "b", NewText: "B"}}, "a\nB\nc\n", 1, ""},
		{"in order", "a\nb\n", []intents.Edit{{OldText: "a", NewText: "x"}, {OldText: "x\nb", NewText: "y"}}, "y\n", 2, ""},
		{"ambiguous", "x\nx\n", []intents.Edit{{OldText: "x", NewText: "y"}}, "", 0, errs.CodeAmbiguousEdit},
		{"replace all", "x\nx\n", []intents.Edit{{OldText: "x", NewText: "y", ReplaceAll: true}}, "y\ny\n", 2, ""},
		{"missing", "a\n", []intents.Edit{{OldText: "z", NewText: "y"}}, "", 0, errs.CodeEditNotFound},
		{"crlf kept", "a\r\nb\r\n", []intents.Edit{{OldText: "a\nb", NewText: "c\nd"}}, "c\r\nd\r\n", 1, ""},
		{"bom kept", utf8BOM + "a\n", []intents.Edit{{OldText: "a", NewText: "b"}}, utf8BOM + "b\n", 1, ""},
		{"bom never matched", utf8BOM + "a\n", []intents.Edit{{OldText: utf8BOM + "a", NewText: "b"}}, "", 0, errs.CodeEditNotFound},
		{"delete text", "keep drop keep", []intents.Edit{{OldText: " drop", NewText: ""}}, "keep keep", 1, ""},
		{"second fails", "a b", []intents.Edit{{OldText: "a", NewText: "c"}, {OldText: "zz", NewText: "d"}}, "", 0, errs.CodeEditNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := Apply("f.md", tt.text, slices.All(tt.edits))
			var ce *errs.Error
			if tt.code != "" {
				if !errors.As(err, &ce) || ce.Code != tt.code {
					t.Fatalf("err = %v, want code %s", err, tt.code)
				}
				if !strings.HasPrefix(ce.Field, "edits[") {
					t.Errorf("field = %q", ce.Field)
				}
				return
			}
			if err != nil || got != tt.want || n != tt.n {
				t.Fatalf("got %q, %d, %v; want %q, %d", got, n, err, tt.want, tt.n)
			}
		})
	}
}

func TestAmbiguousEditNamesLines(t *testing.T) {
	_, _, err := Apply("f.md", "x\ny\nx\n", slices.All([]intents.Edit{{OldText: "x", NewText: "z"}}))
	if err == nil || !strings.Contains(err.Error(), "lines 1, 3") || !strings.Contains(err.Error(), "2 places") {
		t.Fatalf("err = %v", err)
	}
}

func TestNotFoundShowsNearestLine(t *testing.T) {
	_, _, err := Apply("f.md", "alpha\nfunc main() {\nomega\n", slices.All([]intents.Edit{{OldText: "func  main() {", NewText: "z"}}))
	if err == nil || !strings.Contains(err.Error(), `line 2: "func main() {"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\n", "a\n", ""},
		{"change", "a\nb\nc\n", "a\nB\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"add to empty", "", "x\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n"},
		{"no newline", "a", "b", "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"},
		{"two hunks", strings.Repeat("l\n", 3) + "x\n" + strings.Repeat("m\n", 10) + "y\n",
			strings.Repeat("l\n", 3) + "X\n" + strings.Repeat("m\n", 10) + "Y\n",
			"--- a/f\n+++ b/f\n@@ -1,7 +1,7 @@\n l\n l\n l\n-x\n+X\n m\n m\n m\n@@ -12,4 +12,4 @@\n m\n m\n m\n-y\n+Y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff("f", tt.a, tt.b); got != tt.want {
				t.Errorf("diff =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// editOracle says what Apply must do with one edit of text, computed apart from it: the code
// it must refuse the edit with (none when oldText, adapted to the file's line endings, occurs once,
// or at least once with replaceAll), or else the text it must return and the replacements made.
func editOracle(text string, e intents.Edit) (code, want string, n int) {
	body := strings.TrimPrefix(text, utf8BOM)
	o, r := e.OldText, e.NewText
	if usesCRLF(body) && !strings.Contains(o, "\r") {
		o = strings.ReplaceAll(o, "\n", "\r\n")
		if !strings.Contains(r, "\r") {
			r = strings.ReplaceAll(r, "\n", "\r\n")
		}
	}
	switch n = strings.Count(body, o); {
	case n == 0:
		return errs.CodeEditNotFound, "", 0
	case n > 1 && !e.ReplaceAll:
		return errs.CodeAmbiguousEdit, "", 0
	case e.ReplaceAll:
		want = strings.ReplaceAll(body, o, r)
	default:
		want = strings.Replace(body, o, r, 1)
	}
	if strings.HasPrefix(text, utf8BOM) {
		want = utf8BOM + want
	}
	return "", want, n
}

// checkEdit runs one edit of text through Apply and fails unless it does what editOracle
// says: a refusal with the right code that returns nothing, or exactly the expected text. It
// returns the edited text, or "" when the edit was refused.
func checkEdit(t *testing.T, text string, e intents.Edit) string {
	t.Helper()
	got, n, err := Apply("f", text, slices.All([]intents.Edit{e}))
	code, want, wantN := editOracle(text, e)
	if code != "" {
		var ce *errs.Error
		if !errors.As(err, &ce) || ce.Code != code || got != "" || n != 0 {
			t.Fatalf("applyEdits(%q, %q->%q, all %v) = %q, %d, %v; want refused with %s", text, e.OldText, e.NewText, e.ReplaceAll, got, n, err, code)
		}
		return ""
	}
	if err != nil || got != want || n != wantN {
		t.Fatalf("applyEdits(%q, %q->%q, all %v) = %q, %d, %v; want %q, %d", text, e.OldText, e.NewText, e.ReplaceAll, got, n, err, want, wantN)
	}
	return got
}

// FuzzApplyEdits checks that an edit never changes text it was not asked to change: the result is
// the original with exactly the one occurrence replaced, or the call is refused, with the code that
// says why (no occurrence, or several), and nothing changes. An edit that matches once is never
// refused, so an editor that refused everything would fail on the seeds.
func FuzzApplyEdits(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B")
	f.Add("x\r\ny\r\n", "x\ny", "z")
	f.Add("\ufeffhead\n", "head", "")
	f.Add("aaa", "aa", "b")
	f.Add("x\nx\n", "x", "y")
	f.Fuzz(func(t *testing.T, text, old, repl string) {
		if old == "" {
			return
		}
		checkEdit(t, text, intents.Edit{OldText: old, NewText: repl})
	})
}
