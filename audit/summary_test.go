package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	reader   = "packfs-file-reader"
	searcher = "packfs-file-searcher"
)

// call builds a journal call: a tool, a purpose and path, a result code ("" for success) and a
// duration in milliseconds, at t0 plus at seconds.
func call(id int, tool, purpose, path, code string, ms int, at int) Call {
	in, _ := json.Marshal(map[string]any{"purpose": purpose, "target": map[string]any{"path": path}})
	out := map[string]any{"success": code == ""}
	if code != "" {
		out["code"] = code
		out["error"] = "reason " + code
	}
	outJSON, _ := json.Marshal(out)
	return Call{
		ID: fmt.Sprint(id), Session: "stdio", Tool: tool, Input: in, Output: outJSON, IsError: code != "",
		Start: t0.Add(time.Duration(at) * time.Second), Duration: time.Duration(ms) * time.Millisecond,
	}
}

func journal(t *testing.T, calls ...Call) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, Options{Denied: policyDenial})
	for _, c := range calls {
		if err := w.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	return &b
}

func TestSummarize(t *testing.T) {
	j := journal(t,
		call(1, reader, "read", "a.md", "", 3, 0),
		call(2, reader, "read", "", "NOT_FOUND", 1, 1),
		call(3, reader, "read", "gone.md", "NOT_FOUND", 2, 2),
		call(4, reader, "read", "../secret", "PATH_OUTSIDE_ROOT", 1, 3),
		call(5, searcher, "search_content", ".", "", 40, 4),
		call(6, searcher, "search_content", ".", "", 40, 5),
		call(7, searcher, "list", "notes", "", 7, 6),
		call(8, reader, "read", ".env", "PATH_BLOCKED", 0, 7),
		call(9, reader, "read", "b.md", "", 9, 8),
		call(10, reader, "read", "../x", "PATH_OUTSIDE_ROOT", 1, 9),
	)
	j.WriteString("not a record\n")
	j.WriteString(`{"id":"m","role":"assistant","parts":[{"type":"dynamic-tool","toolName":"x","toolCallId":"1","state":"output-available","input":{},"out`) // a crash mid-line

	got, err := Summarize(j, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{
		Calls: 10, Malformed: 2, OK: 5, Failed: 2, Denied: 3,
		First: t0, Last: t0.Add(9 * time.Second),
		ByTool: []ToolStats{
			{Tool: reader, Purpose: "read", Calls: 7, OK: 2, Errors: 2, Denied: 3, MaxMs: 9},
			{Tool: searcher, Purpose: "search_content", Calls: 2, OK: 2, MaxMs: 40},
			{Tool: searcher, Purpose: "list", Calls: 1, OK: 1, MaxMs: 7},
		},
		Denials: []CodeStats{
			{Code: "PATH_OUTSIDE_ROOT", Count: 2, Tool: reader, Purpose: "read", Path: "../secret", Reason: "reason PATH_OUTSIDE_ROOT"},
			{Code: "PATH_BLOCKED", Count: 1, Tool: reader, Purpose: "read", Path: ".env", Reason: "reason PATH_BLOCKED"},
		},
		Failures: []CodeStats{
			// The first NOT_FOUND named no path; the example path is the first one given.
			{Code: "NOT_FOUND", Count: 2, Tool: reader, Purpose: "read", Path: "gone.md", Reason: "reason NOT_FOUND"},
		},
		Slowest: []SlowCall{
			{Time: t0.Add(4 * time.Second), DurationMs: 40, Tool: searcher, Purpose: "search_content", Path: ".", State: StateOutput, ToolCallID: "5"},
			{Time: t0.Add(5 * time.Second), DurationMs: 40, Tool: searcher, Purpose: "search_content", Path: ".", State: StateOutput, ToolCallID: "6"},
			{Time: t0.Add(8 * time.Second), DurationMs: 9, Tool: reader, Purpose: "read", Path: "b.md", State: StateOutput, ToolCallID: "9"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}

	var text bytes.Buffer
	if err := got.WriteText(&text, "j.jsonl"); err != nil {
		t.Fatal(err)
	}
	for _, wantLine := range []string{
		"j.jsonl: 10 calls from 2026-05-01T10:00:00Z to 2026-05-01T10:00:09Z: 5 answered, 2 errors, 3 denied",
		"skipped 2 lines that are not a journal record (a crash can leave a partial last line)",
		"Calls by tool and purpose",
		"packfs-file-reader    read            7      2   2       3       9ms",
		"Denials (refused by policy, permission or rate limit)",
		"PATH_OUTSIDE_ROOT  2      ../secret     reason PATH_OUTSIDE_ROOT",
		"Errors",
		"NOT_FOUND  2      gone.md       reason NOT_FOUND",
		"Slowest calls",
		"40ms      packfs-file-searcher  search_content  .     ok      2026-05-01T10:00:04Z",
	} {
		if !strings.Contains(text.String(), wantLine) {
			t.Errorf("text summary lacks %q:\n%s", wantLine, text.String())
		}
	}

	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, back); diff != "" {
		t.Errorf("JSON round trip (-before +after):\n%s", diff)
	}
}

func TestSummarizeEmpty(t *testing.T) {
	got, err := Summarize(strings.NewReader(""), 0)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(got)
	if want := `{"calls":0,"malformed":0,"ok":0,"failed":0,"denied":0,"byTool":[],"denials":[],"errors":[],"slowest":[]}`; string(raw) != want {
		t.Errorf("empty summary JSON = %s, want %s", raw, want)
	}
	var text bytes.Buffer
	got.WriteText(&text, "j")
	if text.String() != "j: 0 calls: 0 answered, 0 errors, 0 denied\n" {
		t.Errorf("empty text summary = %q", text.String())
	}
}

func TestSummarizeDefaultTop(t *testing.T) {
	var calls []Call
	for i := range 8 {
		calls = append(calls, call(i, reader, "read", "a.md", "", i, i))
	}
	got, err := Summarize(journal(t, calls...), 0)
	if err != nil {
		t.Fatal(err)
	}
	var ms []float64
	for _, c := range got.Slowest {
		ms = append(ms, c.DurationMs)
	}
	if diff := cmp.Diff([]float64{7, 6, 5, 4, 3}, ms); diff != "" {
		t.Errorf("slowest (-want +got):\n%s", diff)
	}
}

func TestMs(t *testing.T) {
	for v, want := range map[float64]string{0: "0s", 0.19: "190µs", 1.5: "1.5ms", 40: "40ms", 2100.25: "2.10025s"} {
		if got := ms(v); got != want {
			t.Errorf("ms(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "-"},
		{"notes/a b.md", "notes/a b.md"},
		{"a\tb", `"a\tb"`},
		{"a\nb", `"a\nb"`},
		{"\x1b[31mred", `"\x1b[31mred"`},
		{strings.Repeat("é", 70), strings.Repeat("é", textCell-1) + "…"},
	}
	for _, tt := range tests {
		if got := cell(tt.in); got != tt.want {
			t.Errorf("cell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
