package tools

import (
	"errors"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/intents"
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
		{"ambiguous", "x\nx\n", []intents.Edit{{OldText: "x", NewText: "y"}}, "", 0, CodeAmbiguousEdit},
		{"replace all", "x\nx\n", []intents.Edit{{OldText: "x", NewText: "y", ReplaceAll: true}}, "y\ny\n", 2, ""},
		{"missing", "a\n", []intents.Edit{{OldText: "z", NewText: "y"}}, "", 0, CodeEditNotFound},
		{"crlf kept", "a\r\nb\r\n", []intents.Edit{{OldText: "a\nb", NewText: "c\nd"}}, "c\r\nd\r\n", 1, ""},
		{"bom kept", utf8BOM + "a\n", []intents.Edit{{OldText: "a", NewText: "b"}}, utf8BOM + "b\n", 1, ""},
		{"bom never matched", utf8BOM + "a\n", []intents.Edit{{OldText: utf8BOM + "a", NewText: "b"}}, "", 0, CodeEditNotFound},
		{"delete text", "keep drop keep", []intents.Edit{{OldText: " drop", NewText: ""}}, "keep keep", 1, ""},
		{"second fails", "a b", []intents.Edit{{OldText: "a", NewText: "c"}, {OldText: "zz", NewText: "d"}}, "", 0, CodeEditNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := applyEdits("f.md", tt.text, tt.edits)
			var ce *callError
			if tt.code != "" {
				if !errors.As(err, &ce) || ce.code != tt.code {
					t.Fatalf("err = %v, want code %s", err, tt.code)
				}
				if !strings.HasPrefix(ce.field, "edits[") {
					t.Errorf("field = %q", ce.field)
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
	_, _, err := applyEdits("f.md", "x\ny\nx\n", []intents.Edit{{OldText: "x", NewText: "z"}})
	if err == nil || !strings.Contains(err.Error(), "lines 1, 3") || !strings.Contains(err.Error(), "2 places") {
		t.Fatalf("err = %v", err)
	}
}

func TestNotFoundShowsNearestLine(t *testing.T) {
	_, _, err := applyEdits("f.md", "alpha\nfunc main() {\nomega\n", []intents.Edit{{OldText: "func  main() {", NewText: "z"}})
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
			if got := unifiedDiff("f", tt.a, tt.b); got != tt.want {
				t.Errorf("diff =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// FuzzApplyEdits checks that an edit never changes text it was not asked to change: the result is
// the original with exactly the one occurrence replaced, or the call is refused and nothing changes.
func FuzzApplyEdits(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B")
	f.Add("x\r\ny\r\n", "x\ny", "z")
	f.Add("\ufeffhead\n", "head", "")
	f.Add("aaa", "aa", "b")
	f.Fuzz(func(t *testing.T, text, old, repl string) {
		if old == "" {
			return
		}
		got, n, err := applyEdits("f", text, []intents.Edit{{OldText: old, NewText: repl}})
		if err != nil {
			return
		}
		if n != 1 {
			t.Fatalf("n = %d", n)
		}
		body := strings.TrimPrefix(text, utf8BOM)
		o, r := old, repl
		if usesCRLF(body) && !strings.Contains(old, "\r") {
			o = strings.ReplaceAll(old, "\n", "\r\n")
			if !strings.Contains(repl, "\r") {
				r = strings.ReplaceAll(repl, "\n", "\r\n")
			}
		}
		i := strings.Index(body, o)
		want := body[:i] + r + body[i+len(o):]
		if strings.HasPrefix(text, utf8BOM) {
			want = utf8BOM + want
		}
		if got != want {
			t.Fatalf("applyEdits(%q, %q->%q) = %q, want %q", text, old, repl, got, want)
		}
	})
}
