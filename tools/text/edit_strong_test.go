package text

import (
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/intents"
)

func pureCRLF(s string) bool {
	return strings.Count(s, "\n") == strings.Count(s, "\r\n") && !strings.Contains(strings.ReplaceAll(s, "\r\n", ""), "\r")
}

// FuzzApplyEditsAll: replaceAll, a refusal says why and leaves nothing (see checkEdit), and a
// pure-CRLF file stays pure CRLF.
func FuzzApplyEditsAll(f *testing.F) {
	f.Add("a\r\nb\r\na\r\n", "a", "x\ny", true)
	f.Add("aaa", "a", "b", true)
	f.Add("x\ny\nx\n", "x", "", false)
	f.Add("x\ny\n", "z", "", true)
	f.Fuzz(func(t *testing.T, text, old, repl string, all bool) {
		if old == "" {
			return
		}
		got := checkEdit(t, text, intents.Edit{OldText: old, NewText: repl, ReplaceAll: all})
		body := strings.TrimPrefix(text, utf8BOM)
		if got != "" && pureCRLF(body) && strings.Contains(body, "\n") && !strings.Contains(old+repl, "\r") && !pureCRLF(strings.TrimPrefix(got, utf8BOM)) {
			t.Fatalf("CRLF file %q edited %q->%q became mixed: %q", text, old, repl, got)
		}
	})
}
