package tools

import "testing"

// TestWriteAnswersLines checks that create and update answer the lines of what they wrote, so a
// model that goes on to edit or read a range needs no read to learn them.
func TestWriteAnswersLines(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: []string{"a.md=old\n"}})
	for _, tt := range []struct {
		purpose, path, content string
		lines                  float64
	}{
		{"create", "b.md", "# B\none\ntwo\n", 3},
		{"create", "empty.md", "", 0},
		{"update", "a.md", "no final newline", 1},
	} {
		out := e.call(t, WriterName, map[string]any{"purpose": tt.purpose, "target": map[string]any{"path": tt.path}, "content": tt.content})
		if out.Result["lines"] != tt.lines && !(tt.lines == 0 && out.Result["lines"] == nil) {
			t.Errorf("%s %s: lines %v, want %v: %s", tt.purpose, tt.path, out.Result["lines"], tt.lines, out.json())
		}
	}
}
