package tools

import (
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/intents"
)

func pureCRLF(s string) bool {
	return strings.Count(s, "\n") == strings.Count(s, "\r\n") && !strings.Contains(strings.ReplaceAll(s, "\r\n", ""), "\r")
}

// FuzzApplyEditsAll: replaceAll, refusal leaves nothing, and a pure-CRLF file stays pure CRLF.
func FuzzApplyEditsAll(f *testing.F) {
	f.Add("a\r\nb\r\na\r\n", "a", "x\ny", true)
	f.Add("aaa", "a", "b", true)
	f.Add("x\ny\nx\n", "x", "", false)
	f.Fuzz(func(t *testing.T, text, old, repl string, all bool) {
		if old == "" {
			return
		}
		got, n, err := applyEdits("f", text, []intents.Edit{{OldText: old, NewText: repl, ReplaceAll: all}})
		if err != nil {
			if got != "" || n != 0 {
				t.Fatalf("refused but returned %q, %d", got, n)
			}
			return
		}
		body := strings.TrimPrefix(text, utf8BOM)
		o, r := old, repl
		if usesCRLF(body) && !strings.Contains(old, "\r") {
			o = strings.ReplaceAll(old, "\n", "\r\n")
			if !strings.Contains(repl, "\r") {
				r = strings.ReplaceAll(repl, "\n", "\r\n")
			}
		}
		c := strings.Count(body, o)
		if n != c || (!all && c != 1) {
			t.Fatalf("n = %d, occurrences %d, replaceAll %v", n, c, all)
		}
		want := strings.ReplaceAll(body, o, r)
		if strings.HasPrefix(text, utf8BOM) {
			want = utf8BOM + want
		}
		if got != want {
			t.Fatalf("got %q want %q", got, want)
		}
		if pureCRLF(body) && strings.Contains(body, "\n") && !strings.Contains(old+repl, "\r") && !pureCRLF(strings.TrimPrefix(got, utf8BOM)) {
			t.Fatalf("CRLF file %q edited %q->%q became mixed: %q", text, old, repl, got)
		}
	})
}
