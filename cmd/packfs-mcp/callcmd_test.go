package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/tools/progress"
)

// callRoot makes a small root and returns the flags that serve it with the index and history in
// temporary folders.
func callRoot(t *testing.T) (root string, flags []string) {
	t.Helper()
	root = t.TempDir()
	for name, content := range map[string]string{
		"notes/a.md": "# Alpha\nhello world, see [b](b.md)\n",
		"notes/b.md": "# Beta\nthe second note about gardens\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return root, []string{"--root", root, "--index-dir", t.TempDir(), "--history-dir", t.TempDir()}
}

// callOut runs the call subcommand in process and returns its exit code, stdout and stderr.
func callOut(t *testing.T, stdin string, args ...string) (int, []byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"call"}, args...), strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.Bytes(), stderr.String()
}

// callShapeNames are the input shapes the tests send, each with the id it carries.
var callShapeNames = []string{"mcp", "mcp string arguments", "jsonrpc", "jsonrpc number id", "openai", "openai object arguments",
	"responses", "anthropic", "anthropic string input"}

// inShape writes one call of tool with args (a JSON object) in the named shape, with id.
func inShape(t *testing.T, shape, id, tool, args string) string {
	t.Helper()
	obj := json.RawMessage(args)
	var v any
	switch shape {
	case "mcp":
		v = map[string]any{"name": tool, "arguments": obj}
	case "mcp string arguments":
		v = map[string]any{"name": tool, "arguments": args}
	case "jsonrpc":
		v = map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": obj}}
	case "jsonrpc number id":
		v = map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "tools/call", "params": map[string]any{"name": tool, "arguments": obj}}
	case "openai":
		v = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": tool, "arguments": args}}
	case "openai object arguments":
		v = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": tool, "arguments": obj}}
	case "responses":
		v = map[string]any{"type": "function_call", "id": "fc_item", "call_id": id, "name": tool, "arguments": args, "status": "completed"}
	case "anthropic":
		v = map[string]any{"type": "tool_use", "id": id, "name": tool, "input": obj}
	case "anthropic string input":
		v = map[string]any{"type": "tool_use", "id": id, "name": tool, "input": args}
	default:
		t.Fatalf("no shape %q", shape)
	}
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}

// idFor is the id each shape's call carries in the tests: a string, or a number for one JSON-RPC case.
func idFor(shape string) string {
	switch shape {
	case "mcp", "mcp string arguments":
		return ""
	case "jsonrpc number id":
		return "42"
	}
	return "call_" + strings.ReplaceAll(shape, " ", "_")
}

// decoded is what a test reads back from one answer, whatever its shape.
type decoded struct {
	id      string // the id echoed, as raw JSON ("" when the shape has none)
	text    string // the result's JSON text
	isError bool
}

// decodeAnswer checks that out has exactly the keys of the shape's answer and reads it.
func decodeAnswer(t *testing.T, shape string, out []byte) decoded {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("answer is not one JSON object: %v\n%s", err, out)
	}
	keys := func(want ...string) {
		t.Helper()
		var got []string
		for k := range m {
			got = append(got, k)
		}
		slices.Sort(got)
		slices.Sort(want)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s answer keys (-want +got):\n%s\n%s", shape, d, out)
		}
	}
	str := func(raw json.RawMessage) string {
		var s string
		must(t, json.Unmarshal(raw, &s))
		return s
	}
	mcpResult := func(raw json.RawMessage) decoded {
		var r struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		}
		must(t, json.Unmarshal(raw, &r))
		if len(r.Content) != 1 || r.Content[0].Type != "text" {
			t.Fatalf("want one text block: %s", raw)
		}
		if !equalJSONText(t, r.Content[0].Text, string(r.StructuredContent)) {
			t.Errorf("text and structured content differ: %s", raw)
		}
		return decoded{text: r.Content[0].Text, isError: r.IsError}
	}
	switch shape {
	case "mcp", "mcp string arguments":
		return mcpResult(out)
	case "jsonrpc", "jsonrpc number id":
		keys("jsonrpc", "id", "result")
		if str(m["jsonrpc"]) != "2.0" {
			t.Errorf("jsonrpc = %s", m["jsonrpc"])
		}
		d := mcpResult(m["result"])
		d.id = string(m["id"])
		return d
	case "openai", "openai object arguments":
		keys("role", "tool_call_id", "content")
		if str(m["role"]) != "tool" {
			t.Errorf("role = %s", m["role"])
		}
		text := str(m["content"])
		return decoded{id: string(m["tool_call_id"]), text: text, isError: failed(t, text)}
	case "responses":
		keys("type", "call_id", "output")
		if str(m["type"]) != "function_call_output" {
			t.Errorf("type = %s", m["type"])
		}
		text := str(m["output"])
		return decoded{id: string(m["call_id"]), text: text, isError: failed(t, text)}
	case "anthropic", "anthropic string input":
		keys("type", "tool_use_id", "content", "is_error")
		if str(m["type"]) != "tool_result" {
			t.Errorf("type = %s", m["type"])
		}
		var blocks []map[string]string
		must(t, json.Unmarshal(m["content"], &blocks))
		if len(blocks) != 1 || blocks[0]["type"] != "text" {
			t.Fatalf("want one text block: %s", m["content"])
		}
		var isErr bool
		must(t, json.Unmarshal(m["is_error"], &isErr))
		return decoded{id: string(m["tool_use_id"]), text: blocks[0]["text"], isError: isErr}
	}
	t.Fatalf("no shape %q", shape)
	return decoded{}
}

func failed(t *testing.T, text string) bool {
	t.Helper()
	var r struct{ Success bool }
	must(t, json.Unmarshal([]byte(text), &r))
	return !r.Success
}

func equalJSONText(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	must(t, json.Unmarshal([]byte(a), &x))
	must(t, json.Unmarshal([]byte(b), &y))
	return equalJSON(x, y)
}

// timeless decodes a result's JSON without the field that differs between two runs of the same
// call: metadata.executionMs.
func timeless(t *testing.T, text string) map[string]any {
	t.Helper()
	var r map[string]any
	must(t, json.Unmarshal([]byte(text), &r))
	if m, ok := r["metadata"].(map[string]any); ok {
		delete(m, "executionMs")
	}
	return r
}

// serverResult runs one tools/call through a server started with the same flags and returns the
// result's text.
func serverResult(t *testing.T, flags []string, tool, args string) string {
	t.Helper()
	in := initializeLine + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}` + "\n"
	var stdout, stderr bytes.Buffer
	errw := &gatedWriter{w: &stderr} // the server's background cleanup may log after it returns
	code := run(append([]string{"serve"}, flags...), strings.NewReader(in), &stdout, errw)
	errw.close()
	if code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.Contains(line, `"id":2`) {
			var msg struct {
				Result json.RawMessage `json:"result"`
			}
			must(t, json.Unmarshal([]byte(line), &msg))
			return decodeAnswer(t, "mcp", msg.Result).text
		}
	}
	t.Fatalf("no answer from the server:\n%s", stdout.String())
	return ""
}

// TestCallShapes runs the same calls in every shape: each gets the same result as the server gives,
// in its own shape, with its id, and the same exit code.
func TestCallShapes(t *testing.T) {
	_, flags := callRoot(t)
	calls := []struct {
		name, tool, args string
		code             int
		errCode          string
	}{
		{name: "read", tool: reader, args: `{"purpose": "read", "target": {"path": "notes/a.md"}}`},
		{name: "search content", tool: searcher, args: `{"purpose": "search_content", "target": {"path": ".", "query": "gardens"}}`},
		{name: "missing file", tool: reader, args: `{"purpose": "read", "target": {"path": "notes/nope.md"}}`, code: 1, errCode: "NOT_FOUND"},
		{name: "outside the root", tool: reader, args: `{"purpose": "read", "target": {"path": "../etc/passwd"}}`, code: 1, errCode: "PATH_OUTSIDE_ROOT"},
		{name: "bad purpose", tool: reader, args: `{"purpose": "shred", "target": {"path": "notes/a.md"}}`, code: 1, errCode: "INVALID_ARGUMENT"},
		{name: "no arguments", tool: reader, args: `{}`, code: 1, errCode: "INVALID_ARGUMENT"},
		{name: "blocked path", tool: searcher, args: `{"purpose": "list", "target": {"path": ".git"}}`, code: 1, errCode: "PATH_BLOCKED"},
	}
	for _, call := range calls {
		t.Run(call.name, func(t *testing.T) {
			want := timeless(t, serverResult(t, flags, call.tool, call.args))
			if got, _ := want["code"].(string); got != call.errCode {
				t.Fatalf("the server answered code %q, want %q: %v", got, call.errCode, want)
			}
			for _, shape := range callShapeNames {
				id := idFor(shape)
				code, out, stderr := callOut(t, inShape(t, shape, id, call.tool, call.args), flags...)
				if code != call.code {
					t.Fatalf("%s: exit %d, want %d; stderr %s", shape, code, call.code, stderr)
				}
				d := decodeAnswer(t, shape, out)
				if d.isError != (call.code == 1) {
					t.Errorf("%s: isError = %v", shape, d.isError)
				}
				wantID := ""
				switch {
				case shape == "jsonrpc number id":
					wantID = id
				case id != "":
					wantID = `"` + id + `"`
				}
				if d.id != wantID {
					t.Errorf("%s: id = %s, want %s", shape, d.id, wantID)
				}
				if diff := cmp.Diff(want, timeless(t, d.text)); diff != "" {
					t.Errorf("%s: result differs from the server's (-server +call):\n%s", shape, diff)
				}
			}
		})
	}
}

// TestCallMalformed checks what call does with input it cannot run: exit status 2, nothing on
// stdout, and on stderr the reason and the shapes it takes, with what call adds to
// [toolformat.ParseCall]'s reasons. The reasons themselves are toolformat's TestParseCallErrors.
func TestCallMalformed(t *testing.T) {
	_, flags := callRoot(t)
	readArgs := `{"purpose": "read", "target": {"path": "notes/a.md"}}`
	tests := []struct {
		name, stdin string
		flags       []string // added before the root's flags
		noRoot      bool     // run without the root's flags
		stderrHas   []string
	}{
		{name: "empty", stdin: " \n", stderrHas: []string{"stdin was empty", "OpenAI"}},
		{name: "not JSON", stdin: "read notes/a.md", stderrHas: []string{"stdin is not JSON", "in one of these shapes"}},
		{name: "two objects", stdin: `{"name": "packfs-file-reader"} {"name": "packfs-file-reader"}`,
			stderrHas: []string{"more than one JSON value", "pass exactly one tool call (run call once for each call)"}},
		{name: "array", stdin: `[{"name": "packfs-file-reader"}]`, stderrHas: []string{"JSON array", "one tool call object, not a list (run call once for each call)"}},
		{name: "string", stdin: `"packfs-file-reader"`, stderrHas: []string{"stdin is a JSON string, not an object"}},
		{name: "no name openai", stdin: `{"id": "c", "type": "function", "function": {"arguments": "{}"}}`, stderrHas: []string{"function.name is missing", "Anthropic"}},
		{name: "jsonrpc other method", stdin: `{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}`,
			stderrHas: []string{`JSON-RPC method "tools/list" is not a tool call: call runs only "tools/call" (packfs-mcp serve answers the rest)`}},
		{name: "no root", stdin: `{"name": "packfs-file-reader", "arguments": ` + readArgs + `}`, noRoot: true, stderrHas: []string{"no root: pass --root DIR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(slices.Clone(tt.flags), flags...)
			if tt.noRoot {
				args = nil
			}
			code, out, stderr := callOut(t, tt.stdin, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stdout %s; stderr %s", code, out, stderr)
			}
			if len(out) != 0 {
				t.Errorf("stdout on bad input: %s", out)
			}
			for _, want := range tt.stderrHas {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr = %q, want it to contain %q", stderr, want)
				}
			}
		})
	}
}

// TestCallRefused checks that a call to a tool the flags do not offer, or to no tool of ours, is
// answered like any failed call: in the caller's shape, with the PERMISSION_DENIED result and a
// reason that says how to turn the tool on (UNKNOWN_TOOL and the tools there are), exit status 1,
// and nothing done.
func TestCallRefused(t *testing.T) {
	root, flags := callRoot(t)
	mkdir := `{"purpose": "mkdir", "target": {"path": "made"}}`
	read := `{"purpose": "read", "target": {"path": "notes/a.md"}}`
	tests := []struct {
		name, tool, args string
		flags            []string
		code             string // PERMISSION_DENIED if empty
		errorHas         []string
	}{
		{name: "writing off", tool: writer, args: mkdir, errorHas: []string{"writing is off", "--allow-write"}},
		{name: "read-only", tool: writer, args: mkdir, flags: []string{"--allow-write", "--read-only"}, errorHas: []string{"writing is off", "--read-only"}},
		{name: "disabled", tool: reader, args: read, flags: []string{"--disable-tool", reader}, errorHas: []string{"packfs-file-reader is disabled", "--disable-tool"}},
		{name: "no read permission", tool: reader, args: read, flags: []string{"--permissions", "list"}, errorHas: []string{"without read", "--permissions"}},
		{name: "unknown tool", tool: "read_file", args: read, code: "UNKNOWN_TOOL", errorHas: []string{`no tool "read_file"`, reader, searcher, writer}},
	}
	for _, tt := range tests {
		for _, shape := range callShapeNames {
			t.Run(tt.name+"/"+shape, func(t *testing.T) {
				id := idFor(shape)
				code, out, stderr := callOut(t, inShape(t, shape, id, tt.tool, tt.args), append(slices.Clone(tt.flags), flags...)...)
				if code != 1 {
					t.Fatalf("exit %d, want 1; stdout %s; stderr %s", code, out, stderr)
				}
				d := decodeAnswer(t, shape, out)
				if !d.isError {
					t.Errorf("isError false: %s", out)
				}
				if shape != "mcp" && shape != "mcp string arguments" && d.id != id && d.id != `"`+id+`"` {
					t.Errorf("id = %s, want %s", d.id, id)
				}
				var res map[string]any
				must(t, json.Unmarshal([]byte(d.text), &res))
				wantCode := tt.code
				if wantCode == "" {
					wantCode = "PERMISSION_DENIED"
				}
				if res["success"] != false || res["code"] != wantCode {
					t.Errorf("result = %v, want %s", res, wantCode)
				}
				msg, _ := res["error"].(string)
				for _, want := range tt.errorHas {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q lacks %q", msg, want)
					}
				}
				if strings.Contains(msg, root) {
					t.Errorf("error names the root's host path: %q", msg)
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Errorf("a refused mkdir made the folder")
	}
}

// TestCallIndexSaysWhatItLeftOut checks that the line saying the index is ready counts the files
// it could not index, by cause: a tree of hard links otherwise looked indexed and found nothing.
func TestCallIndexSaysWhatItLeftOut(t *testing.T) {
	root, flags := callRoot(t)
	must(t, os.Link(filepath.Join(root, "notes", "a.md"), filepath.Join(root, "notes", "linked.md")))
	must(t, os.WriteFile(filepath.Join(root, "notes", "blob.md"), []byte("# Blob\x00\x01"), 0o644))
	code, out, stderr := callOut(t, inShape(t, "mcp", "", searcher, `{"purpose": "search_semantic", "target": {"path": ".", "query": "gardens"}}`), flags...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, stderr)
	}
	want := "search index ready: 4 files"
	left := "; not indexed: 2 with more than one hard link (refused unless --allow-hard-links), 1 not text"
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, left) {
		t.Errorf("stderr = %q, want %q ending with %q", stderr, want, left)
	}
	// A listing leaves out what the tools refuse to open, as the index does (security.Visible), and
	// its hint names them.
	code, out, stderr = callOut(t, inShape(t, "mcp", "", searcher, `{"purpose": "list", "target": {"path": "notes"}}`), flags...)
	if code != 0 {
		t.Fatalf("list: exit %d: %s\n%s", code, out, stderr)
	}
	if strings.Contains(string(out), `"path":"notes/linked.md"`) || strings.Contains(string(out), `"path":"notes/a.md"`) || !strings.Contains(string(out), `"path":"notes/blob.md"`) {
		t.Errorf("list = %s, want neither hard-linked file and blob.md", out)
	}
	if !strings.Contains(string(out), "notes/linked.md: a hard link") {
		t.Errorf("list = %s, want its hint to name a hard-linked file", out)
	}
}

// TestCallIndex checks that the calls that read the index find it up to date, with its progress
// on stderr, and that the next call reuses the persisted index.
func TestCallIndex(t *testing.T) {
	_, flags := callRoot(t)
	tests := []struct {
		name, tool, args string
		check            func(t *testing.T, res map[string]any)
	}{
		{name: "search_semantic", tool: searcher, args: `{"purpose": "search_semantic", "target": {"path": ".", "query": "gardens"}}`,
			check: func(t *testing.T, res map[string]any) {
				if got := paths(res); len(got) == 0 || got[0] != "notes/b.md" {
					t.Errorf("hits %v, want notes/b.md first", got)
				}
			}},
		{name: "relationships", tool: searcher, args: `{"purpose": "relationships", "target": {"path": "notes/a.md"}}`,
			check: func(t *testing.T, res map[string]any) {
				if res["title"] != "Alpha" {
					t.Errorf("title = %v", res["title"])
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the second run reuses the index the first one persisted
				code, out, stderr := callOut(t, inShape(t, "anthropic", "toolu_1", tt.tool, tt.args), flags...)
				if code != 0 {
					t.Fatalf("exit %d: %s\n%s", code, out, stderr)
				}
				if !strings.Contains(stderr, "search index ready: 2 files") {
					t.Errorf("stderr = %q, want the index's progress", stderr)
				}
				var res map[string]any
				must(t, json.Unmarshal([]byte(decodeAnswer(t, "anthropic", out).text), &res))
				if res["indexComplete"] != true {
					t.Errorf("indexComplete = %v, want true", res["indexComplete"])
				}
				tt.check(t, res)
			}
		})
	}
	t.Run("not for a read", func(t *testing.T) {
		code, _, stderr := callOut(t, inShape(t, "mcp", "", reader, `{"purpose": "read", "target": {"path": "notes/a.md"}}`), flags...)
		if code != 0 || strings.Contains(stderr, "index") {
			t.Errorf("exit %d, stderr %q: a read must not wait for the index", code, stderr)
		}
	})
	t.Run("index off", func(t *testing.T) {
		code, out, _ := callOut(t, inShape(t, "mcp", "", searcher, tests[0].args), append([]string{"--no-index"}, flags...)...)
		if code != 1 || !strings.Contains(string(out), "NOT_AVAILABLE") {
			t.Errorf("exit %d, %s: want NOT_AVAILABLE", code, out)
		}
	})
}

// TestCallWrite checks that a write goes through with --allow-write, and delete reports the
// documents that linked to what it removed, from the index call brought up to date.
func TestCallWrite(t *testing.T) {
	root, flags := callRoot(t)
	flags = append(flags, "--allow-write")
	code, out, stderr := callOut(t, inShape(t, "openai", "call_w", writer, `{"purpose": "create", "target": {"path": "notes/c.md"}, "content": "# Gamma\n"}`), flags...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(root, "notes/c.md")); err != nil || string(b) != "# Gamma\n" {
		t.Errorf("notes/c.md = %q, %v", b, err)
	}
	code, out, stderr = callOut(t, inShape(t, "responses", "call_d", writer, `{"purpose": "delete", "target": {"path": "notes/b.md"}}`), flags...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, stderr)
	}
	var res map[string]any
	must(t, json.Unmarshal([]byte(decodeAnswer(t, "responses", out).text), &res))
	if d := cmp.Diff([]any{"notes/a.md"}, res["linkedFrom"]); d != "" {
		t.Errorf("linkedFrom (-want +got):\n%s", d)
	}
}

func TestCallHelp(t *testing.T) {
	code, out, stderr := callOut(t, "", "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q: help goes to stdout", code, stderr)
	}
	for _, want := range []string{"Usage: packfs-mcp call --root DIR", "Example:", `"type": "tool_use"`, `"tool_call_id"`,
		`"function_call_output"`, "Exit status", "-allow-write"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

// TestCallBinary runs the built binary's call subcommand with the call on its stdin.
func TestCallBinary(t *testing.T) {
	_, flags := callRoot(t)
	tests := []struct {
		name, stdin string
		code        int
		stdoutHas   string
		stderrHas   string
	}{
		{name: "openai", stdin: inShape(t, "openai", "call_abc", reader, `{"purpose": "read", "target": {"path": "notes/a.md"}}`),
			code: 0, stdoutHas: `"tool_call_id":"call_abc"`},
		{name: "semantic", stdin: inShape(t, "jsonrpc", "r1", searcher, `{"purpose": "search_semantic", "target": {"path": ".", "query": "hello"}}`),
			code: 0, stdoutHas: `"id":"r1"`, stderrHas: "search index ready"},
		{name: "tool error", stdin: inShape(t, "anthropic", "toolu_x", reader, `{"purpose": "read", "target": {"path": "nope.md"}}`),
			code: 1, stdoutHas: `NOT_FOUND`},
		{name: "writing off", stdin: inShape(t, "openai", "call_w", writer, `{"purpose": "mkdir", "target": {"path": "made"}}`),
			code: 1, stdoutHas: `PERMISSION_DENIED`},
		{name: "bad input", stdin: "{", code: 2, stderrHas: "stdin is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binPath, append([]string{"call"}, flags...)...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %s; stderr %s", code, tt.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.stdoutHas) || !strings.Contains(stderr.String(), tt.stderrHas) {
				t.Errorf("stdout %q, stderr %q: want %q and %q", stdout.String(), stderr.String(), tt.stdoutHas, tt.stderrHas)
			}
			if tt.code != 2 && strings.Count(stdout.String(), "\n") != 1 {
				t.Errorf("want one line of JSON on stdout, got %q", stdout.String())
			}
		})
	}
}

// TestCallProgress checks that long work prints its progress on stderr, through the same hook the
// server turns into MCP progress notifications, and never on stdout.
func TestCallProgress(t *testing.T) {
	root, flags := callRoot(t)
	n := progress.FirstAfter + 500 // past the first report, whatever the machine's speed
	for i := range n {
		p := filepath.Join(root, "many", fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d.txt", i))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("plain text\n"), 0o644))
	}
	tests := []struct{ name, args, line string }{
		// Criteria no file meets, so the walk covers the whole tree.
		{name: "recursive list", args: `{"purpose": "list", "target": {"path": "many", "criteria": {"name": "*.none"}}, "options": {"recursive": true}}`, line: "listing: "},
		{name: "search content", args: `{"purpose": "search_content", "target": {"path": "many", "query": "absent words"}}`, line: "searching: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := callOut(t, inShape(t, "mcp", "", searcher, tt.args), flags...)
			if code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, out, stderr)
			}
			if !strings.Contains(stderr, "packfs-mcp: "+tt.line) {
				t.Errorf("stderr = %q, want a progress line %q", stderr, tt.line)
			}
			if strings.Contains(string(out), tt.line) || strings.Count(string(out), "\n") != 1 {
				t.Errorf("stdout must hold the result alone: %s", out)
			}
		})
	}
}
