package audit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// line encodes rec as the journal does and checks it is one line in the AI SDK's shape.
func line(t *testing.T, rec Record) []byte {
	t.Helper()
	b, err := rec.marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), "\n") != 1 || !strings.HasSuffix(string(b), "\n") {
		t.Fatalf("not one line: %q", b)
	}
	if err := Check(b); err != nil {
		t.Fatalf("Check: %v\n%s", err, b)
	}
	return b
}

// generic decodes a journal line for comparison, dropping the random message id.
func generic(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	id, _ := m["id"].(string)
	if !strings.HasPrefix(id, "msg-") || len(id) < 20 {
		t.Errorf("message id %q is not msg- and random text", id)
	}
	delete(m, "id")
	return m
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return m
}

func TestNewRecordShape(t *testing.T) {
	readIn := `{"purpose":"read","target":{"path":"notes/a.md"}}`
	const meta = `"metadata":{"executionMs":1.5}`
	tests := []struct {
		name string
		call Call
		want string // the line as JSON, without the message id
	}{
		{
			name: "answered",
			call: Call{ID: "2", Session: "stdio", Tool: "packfs-file-reader", Input: json.RawMessage(readIn),
				Output: json.RawMessage(`{"success":true,"content":"hello\n",` + meta + `}`),
				Start:  t0, Duration: 1500 * time.Microsecond},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"packfs-file-reader","toolCallId":"2",
				"state":"output-available","input":{"purpose":"read","target":{"path":"notes/a.md"}},
				"output":{"success":true,"content":"hello\n",` + meta + `}}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":1.5,"purpose":"read","path":"notes/a.md","session":"stdio"}}`,
		},
		{
			name: "error",
			call: Call{ID: "3", Session: "stdio", Tool: "packfs-file-reader", Input: json.RawMessage(`{"purpose":"read","target":{"path":"gone.md"}}`),
				Output:  json.RawMessage(`{"success":false,"error":"\"gone.md\" does not exist","code":"NOT_FOUND",` + meta + `}`),
				IsError: true, Start: t0, Duration: time.Millisecond},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"packfs-file-reader","toolCallId":"3",
				"state":"output-error","input":{"purpose":"read","target":{"path":"gone.md"}},"errorText":"\"gone.md\" does not exist"}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":1,"purpose":"read","path":"gone.md","code":"NOT_FOUND","session":"stdio"}}`,
		},
		{
			name: "denied by the path policy",
			call: Call{ID: "4", Tool: "packfs-file-reader", Input: json.RawMessage(`{"purpose":"read","target":{"path":"../x"}}`),
				Output:  json.RawMessage(`{"success":false,"error":"outside the root","code":"PATH_OUTSIDE_ROOT",` + meta + `}`),
				IsError: true, Start: t0},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"packfs-file-reader","toolCallId":"4",
				"state":"output-denied","input":{"purpose":"read","target":{"path":"../x"}},
				"approval":{"id":"policy-4","approved":false,"reason":"outside the root"}}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":0,"purpose":"read","path":"../x","code":"PATH_OUTSIDE_ROOT"}}`,
		},
		{
			name: "rate limited",
			call: Call{ID: "5", Tool: "packfs-file-reader", Input: json.RawMessage(readIn),
				Output:  json.RawMessage(`{"success":false,"error":"slow down","code":"RATE_LIMITED","retryAfterMs":20,` + meta + `}`),
				IsError: true, Start: t0},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"packfs-file-reader","toolCallId":"5",
				"state":"output-denied","input":{"purpose":"read","target":{"path":"notes/a.md"}},
				"approval":{"id":"policy-5","approved":false,"reason":"slow down"}}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":0,"purpose":"read","path":"notes/a.md","code":"RATE_LIMITED"}}`,
		},
		{
			name: "protocol error",
			call: Call{ID: "6", Tool: "no-such-tool", Input: json.RawMessage(`{"x":1}`), Code: "UNKNOWN_TOOL", Error: "tool 'no-such-tool' not found", Start: t0},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"no-such-tool","toolCallId":"6",
				"state":"output-error","input":{"x":1},"errorText":"tool 'no-such-tool' not found"}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":0,"code":"UNKNOWN_TOOL"}}`,
		},
		{
			name: "denied tool",
			call: Call{ID: "7", Tool: "packfs-file-writer", Code: "PERMISSION_DENIED", Error: "writing is off", Start: t0},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"packfs-file-writer","toolCallId":"7",
				"state":"output-denied","input":{},"approval":{"id":"policy-7","approved":false,"reason":"writing is off"}}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":0,"code":"PERMISSION_DENIED"}}`,
		},
		{
			name: "failure without words",
			call: Call{ID: "8", Tool: "t", IsError: true, Output: json.RawMessage(`{"success":false,"code":"INTERNAL"}`), Start: t0},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"t","toolCallId":"8",
				"state":"output-error","input":{},"errorText":"the call failed with code INTERNAL"}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":0,"code":"INTERNAL"}}`,
		},
		{
			name: "success false without isError",
			call: Call{ID: "9", Tool: "t", Output: json.RawMessage(`{"success":false,"error":"no","code":"NOT_FOUND"}`), Start: t0},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"t","toolCallId":"9",
				"state":"output-error","input":{},"errorText":"no"}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":0,"code":"NOT_FOUND"}}`,
		},
		{
			name: "input that is not JSON, output that is not an object",
			call: Call{ID: "10", Tool: "t", Input: json.RawMessage(`{"purpose":`), Output: json.RawMessage(`"plain text"`), Start: t0.In(time.FixedZone("x", 3600))},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"t","toolCallId":"10",
				"state":"output-available","input":"{\"purpose\":","output":"plain text"}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":0}}`,
		},
		{
			name: "html and unicode kept as written",
			call: Call{ID: "11", Tool: "t", Input: json.RawMessage(`{"purpose":"read","target":{"path":"<a&b>é.md"}}`), Output: json.RawMessage(`{"success":true}`), Start: t0},
			want: `{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"t","toolCallId":"11",
				"state":"output-available","input":{"purpose":"read","target":{"path":"<a&b>é.md"}},"output":{"success":true}}],
				"metadata":{"time":"2026-05-01T10:00:00Z","durationMs":0,"purpose":"read","path":"<a&b>é.md"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := line(t, NewRecord(tt.call, Options{Denied: policyDenial}))
			if diff := cmp.Diff(decode(t, tt.want), generic(t, b)); diff != "" {
				t.Errorf("record (-want +got):\n%s\n%s", diff, b)
			}
			if strings.Contains(tt.name, "html") && !strings.Contains(string(b), "<a&b>é.md") {
				t.Errorf("characters escaped: %s", b)
			}
		})
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("x", 10000)
	var manyFiles []string
	for i := range 20 {
		manyFiles = append(manyFiles, fmt.Sprintf(`{"path":"f%d","content":"0123456789"}`, i))
	}
	tests := []struct {
		name     string
		max      int
		input    string
		output   string
		wantIn   string
		wantOut  string
		wantCuts []string
	}{
		{
			name: "content within the limit", max: 20,
			output: `{"success":true,"content":"hello"}`, wantOut: `{"success":true,"content":"hello"}`,
		},
		{
			name: "content cut", max: 5,
			output:   `{"success":true,"content":"hello world"}`,
			wantOut:  `{"success":true,"content":"hello[…6 more bytes not recorded]"}`,
			wantCuts: []string{"output.content"},
		},
		{
			name: "none recorded", max: -1,
			input:    `{"purpose":"create","target":{"path":"a.md"},"content":"hello world"}`,
			wantIn:   `{"purpose":"create","target":{"path":"a.md"},"content":"[…11 more bytes not recorded]"}`,
			wantCuts: []string{"input.content"},
		},
		{
			name: "empty content is not cut", max: -1,
			input:  `{"purpose":"create","target":{"path":"a.md"},"content":""}`,
			wantIn: `{"purpose":"create","target":{"path":"a.md"},"content":""}`,
		},
		{
			name: "default is 4096", max: 0,
			output:   `{"content":"` + long + `"}`,
			wantOut:  `{"content":"` + long[:4096] + `[…5904 more bytes not recorded]"}`,
			wantCuts: []string{"output.content"},
		},
		{
			name: "never splits a character", max: 2,
			output:   `{"content":"héllo"}`,
			wantOut:  `{"content":"h[…5 more bytes not recorded]"}`,
			wantCuts: []string{"output.content"},
		},
		{
			name: "one file's matches share one budget", max: 6,
			output: `{"files":[{"path":"a.md","matches":[{"line":1,"text":"aaaa","before":["bb"]},{"line":2,"text":"cccc"}]},
				{"path":"b.md","matches":[{"line":7,"text":"dd"}]}]}`,
			wantOut: `{"files":[{"path":"a.md","matches":[{"line":1,"text":"aaaa","before":["bb"]}]},
				{"path":"b.md","matches":[{"line":7,"text":"dd"}]}]}`,
			wantCuts: []string{"output.files[0].matches[1:]"},
		},
		{
			name: "edits share one budget", max: 4,
			input: `{"purpose":"edit","edits":[{"oldText":"abc","newText":"defg"}]}`,
			// Fields are visited in name order, so newText spends the budget first.
			wantIn:   `{"purpose":"edit","edits":[{"oldText":"[…3 more bytes not recorded]","newText":"defg"}]}`,
			wantCuts: []string{"input.edits[0].oldText"},
		},
		{
			name: "snippet and diff", max: 3,
			output:   `{"diff":"-a\n+b\n","files":[{"snippet":"**x** y"}]}`,
			wantOut:  `{"diff":"-a\n[…3 more bytes not recorded]","files":[{"snippet":"**x[…4 more bytes not recorded]"}]}`,
			wantCuts: []string{"output.diff", "output.files[0].snippet"},
		},
		{
			name: "other strings are bounded too", max: 100,
			input:    `{"purpose":"search_content","target":{"query":"` + long + `"}}`,
			wantIn:   `{"purpose":"search_content","target":{"query":"` + long[:maxOtherBytes] + `[…1808 more bytes not recorded]"}}`,
			wantCuts: []string{"input.target.query"},
		},
		{
			name: "numbers kept exactly", max: 10,
			output: `{"size":12345678901234567890,"score":0.1000000000000000055511151231257827}`,
			// encoding/json writes a json.Number as it was read.
			wantOut: `{"score":0.1000000000000000055511151231257827,"size":12345678901234567890}`,
		},
		{
			name: "the list of cut fields is bounded", max: 4,
			output:  `{"files":[` + strings.Join(manyFiles, ",") + `]}`,
			wantOut: "",
			wantCuts: append(func() []string {
				var p []string
				for i := range maxTruncatedPaths {
					p = append(p, fmt.Sprintf("output.files[%d].content", i))
				}
				return p
			}(), "and 4 more"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := Call{ID: "1", Tool: "t", Input: json.RawMessage(tt.input), Output: json.RawMessage(tt.output), Start: t0}
			if tt.output == "" {
				call.Output = json.RawMessage(`{"success":true}`)
			}
			rec := NewRecord(call, Options{MaxContentBytes: tt.max})
			line(t, rec)
			p := rec.Part()
			if tt.wantIn != "" {
				if diff := cmp.Diff(decode(t, tt.wantIn), decode(t, string(p.Input))); diff != "" {
					t.Errorf("input (-want +got):\n%s", diff)
				}
			}
			if tt.wantOut != "" {
				if diff := cmp.Diff(decode(t, tt.wantOut), decode(t, string(p.Output))); diff != "" {
					t.Errorf("output (-want +got):\n%s", diff)
				}
				if strings.Contains(tt.name, "numbers") && !strings.Contains(string(p.Output), "12345678901234567890") {
					t.Errorf("number changed: %s", p.Output)
				}
			}
			if diff := cmp.Diff(tt.wantCuts, rec.Metadata.Truncated); diff != "" {
				t.Errorf("metadata.truncated (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	ok := `{"id":"m","role":"assistant","parts":[{"type":"dynamic-tool","toolName":"t","toolCallId":"1","state":"%s","input":{}%s}],"metadata":{}}`
	tests := []struct {
		name, line string
		valid      bool
	}{
		{"output", fmt.Sprintf(ok, StateOutput, `,"output":{}`), true},
		{"output null", fmt.Sprintf(ok, StateOutput, `,"output":null`), true},
		{"error", fmt.Sprintf(ok, StateError, `,"errorText":"x"`), true},
		{"denied", fmt.Sprintf(ok, StateDenied, `,"approval":{"id":"a","approved":false,"reason":"r"}`), true},
		{"denied without reason", fmt.Sprintf(ok, StateDenied, `,"approval":{"id":"a","approved":false}`), true},
		{"output missing", fmt.Sprintf(ok, StateOutput, ``), false},
		{"output with error", fmt.Sprintf(ok, StateOutput, `,"output":{},"errorText":"x"`), false},
		{"error without text", fmt.Sprintf(ok, StateError, ``), false},
		{"error text not a string", fmt.Sprintf(ok, StateError, `,"errorText":null`), false},
		{"error with output", fmt.Sprintf(ok, StateError, `,"errorText":"x","output":1`), false},
		{"denied without approval", fmt.Sprintf(ok, StateDenied, ``), false},
		{"denied approved", fmt.Sprintf(ok, StateDenied, `,"approval":{"id":"a","approved":true}`), false},
		{"denied with error text", fmt.Sprintf(ok, StateDenied, `,"approval":{"id":"a","approved":false},"errorText":"x"`), false},
		{"denial reason not a string", fmt.Sprintf(ok, StateDenied, `,"approval":{"id":"a","approved":false,"reason":1}`), false},
		{"not final", fmt.Sprintf(ok, "input-available", ``), false},
		{"no input", `{"id":"m","role":"assistant","parts":[{"type":"dynamic-tool","toolName":"t","toolCallId":"1","state":"output-error","errorText":"x"}]}`, false},
		{"static tool part", `{"id":"m","role":"assistant","parts":[{"type":"tool-t","toolCallId":"1","state":"output-error","input":{},"errorText":"x"}]}`, false},
		{"user role", `{"id":"m","role":"user","parts":[]}`, false},
		{"null id", `{"id":null,"role":"assistant","parts":[]}`, false},
		{"not json", `{"id":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.line))
			if (err == nil) != tt.valid {
				t.Errorf("Check = %v, want valid %v", err, tt.valid)
			}
		})
	}
}

// policyDenial is a server's denial codes as the journal's caller passes them (errs.IsDenial, of tools/errs):
// the path policy's, a permission that is off, the rate limiter.
func policyDenial(code string) bool {
	switch code {
	case "PATH_OUTSIDE_ROOT", "PATH_BLOCKED", "PERMISSION_DENIED", "RATE_LIMITED":
		return true
	}
	return false
}
