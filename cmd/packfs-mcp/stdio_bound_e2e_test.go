package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/serving"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/internal/tier"
)

// roomForHugeWrites is a --max-request-bytes that lets a call carry more than the writer takes, for
// the tests of the writer's own TOO_LARGE.
const roomForHugeWrites = "33554432"

// TestStdioMessageBound drives the built binary over stdio with lines at and past the message
// bound: a line of the bound's size is served; a longer one gets the refusal HTTP sends (TOO_LARGE,
// naming the bound in bytes and the flag that raises it) with the call's id, read from the line's
// head, or null when the head does not tell it, and is dropped, and the next call is served; a line
// of 128 MiB leaves the server's peak memory far below its size.
func TestStdioMessageBound(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\nhello\n"), 0o644))
	const limit = 64 << 10
	s := startRaw(t, root, "--no-index", "--max-request-bytes", strconv.Itoa(limit))

	// read is a read call with id whose line, newline aside, is size bytes long (if size is
	// larger than the call), padding its path.
	read := func(id int, path string, size int) string {
		head := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"`
		tail := `"}}}}`
		if pad := size - len(head) - len(path) - len(tail); pad > 0 {
			path = strings.Repeat("d/", pad/2) + strings.Repeat("x", pad%2) + path
		}
		line := head + path + tail
		if size > 0 && len(line) != size {
			t.Fatalf("built a %d-byte line, want %d", len(line), size)
		}
		return line + "\n"
	}
	answered := func(reply string, id int) map[string]any {
		t.Helper()
		var r struct {
			ID     int `json:"id"`
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		must(t, json.Unmarshal([]byte(reply), &r))
		if r.ID != id || r.Result.StructuredContent == nil {
			t.Fatalf("reply %.300s, want the result of call %d", reply, id)
		}
		return r.Result.StructuredContent
	}
	refusedLine := func(reply, id string) {
		t.Helper()
		var r refused
		must(t, json.Unmarshal([]byte(reply), &r))
		if r.JSONRPC != "2.0" || string(r.ID) != id || r.Error.Code != serving.RefusedCode || r.Error.Data.Code != "TOO_LARGE" {
			t.Errorf("reply %s, want a JSON-RPC error with id %s and data.code TOO_LARGE", reply, id)
		}
		for _, want := range []string{fmt.Sprintf("limit of %d bytes", limit), "--max-request-bytes"} {
			if !strings.Contains(r.Error.Message, want) {
				t.Errorf("message %q lacks %q", r.Error.Message, want)
			}
		}
	}

	// At the bound the call is the server's: it answers it, here that the path is too long.
	if res := answered(s.roundTrip(t, read(2, "a.md", limit)), 2); res["code"] != "INVALID_ARGUMENT" {
		t.Errorf("a call at the bound: %v, want the tool's INVALID_ARGUMENT", res)
	}
	refusedLine(s.roundTrip(t, read(3, "a.md", limit+1)), "3")
	if res := answered(s.roundTrip(t, read(4, "a.md", 0)), 4); res["success"] != true {
		t.Errorf("the call after a refused one: %v, want success", res)
	}

	// A line of 128 MiB is read and dropped as it comes: the server never holds it.
	const huge = 128 << 20
	if _, err := io.Copy(s.in, testfs.Endless(huge, "\n")); err != nil {
		t.Fatal(err)
	}
	reply, err := s.out.ReadString('\n')
	must(t, err)
	refusedLine(reply, "null")
	if res := answered(s.roundTrip(t, read(5, "a.md", 0)), 5); res["success"] != true {
		t.Errorf("the call after a 128 MiB line: %v, want success", res)
	}
	peak, err := peakMB(s.cmd.Process.Pid)
	if err != nil {
		t.Fatalf("no peak memory to read: %v", err)
	}
	if peak > huge>>20/2 {
		t.Errorf("peak resident memory %.0f MB after a %d MB line, want under %d MB", peak, huge>>20, huge>>20/2)
	}
	t.Logf("peak resident memory %.1f MB", peak)
}

// TestStdioDeepJSON is case J58's deeply nested JSON, through the built binary over stdio with the
// default message bounds: nesting past the decoder's depth limit (10,000) is a JSON-RPC parse error,
// and past serving.MaxMessageValues brackets the value bound's TOO_LARGE, up to a 20 MB line of brackets;
// nesting just under the depth limit, in the tool arguments, in a resource request or as the whole
// params, is refused with the field or the request named; the server answers each with an error,
// serves the next call, and its peak memory is no more than a flat line of the same length costs.
func TestStdioDeepJSON(t *testing.T) {
	tier.Full(t, "sends deeply nested messages over stdio")
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\nhello\n"), 0o644))
	s := startRaw(t, root, "--no-index")
	call := func(id int, params string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":` + params + "}\n"
	}
	arrays := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	objects := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	// past both bounds; past the decoder's depth limit, not the value bound; under both
	const deep, past, under = 10_000_000, 50_000, 9_000
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	tests := []struct {
		name, line string
		rpcCode    int    // the JSON-RPC error's code, or 0 for a tool result
		field      string // the tool result's field, refused with INVALID_ARGUMENT
	}{
		{"arrays past the value bound in the arguments", call(2, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"},"x":`+arrays(deep)+`}}`), serving.RefusedCode, ""},
		{"objects past the value bound in the target", call(3, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":`+objects(deep/4)+`}}`), serving.RefusedCode, ""},
		{"brackets never closed past the value bound", strings.Repeat("[", deep) + "\n", serving.RefusedCode, ""},
		{"arrays past the depth limit in the arguments", call(9, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"},"x":`+arrays(past)+`}}`), -32700, ""},
		{"objects past the depth limit in the target", call(10, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":`+objects(past)+`}}`), -32700, ""},
		{"brackets never closed past the depth limit", strings.Repeat("[", past) + "\n", -32700, ""},
		{"arrays under the limit in the arguments", call(4, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"},"x":`+arrays(under)+`}}`), 0, "x"},
		{"arrays under the limit as the arguments", call(5, `{"name":"packfs-file-searcher","arguments":`+arrays(under)+`}`), 0, "arguments"},
		{"objects under the limit in the target", call(6, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md","x":`+objects(under)+`}}}`), 0, "target.x"},
		{"arrays under the limit as the params", call(7, arrays(under)), -32600, ""},
		{"arrays under the limit as a resource URI", `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":` + arrays(under) + "}}\n", -32600, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a answer
			reply := s.roundTrip(t, tt.line)
			must(t, json.Unmarshal([]byte(reply), &a))
			switch {
			case tt.rpcCode != 0:
				if a.Error == nil || a.Error.Code != tt.rpcCode {
					t.Errorf("reply %.300s, want a JSON-RPC error %d", reply, tt.rpcCode)
				}
			default:
				if r := a.Result.StructuredContent; r["code"] != "INVALID_ARGUMENT" || r["field"] != tt.field {
					t.Errorf("reply %.300s, want INVALID_ARGUMENT on %s", reply, tt.field)
				}
			}
			// The server goes on serving.
			next := call(100+i, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"}}}`)
			if err := json.Unmarshal([]byte(s.roundTrip(t, next)), &a); err != nil || a.Result.StructuredContent["success"] != true {
				t.Fatalf("the call after: %v %v, want success", a.Result.StructuredContent, err)
			}
		})
	}
	// Nesting costs no more than its bytes: the peak after these lines is at most that of a server
	// sent one flat line as long as the longest of them, a string the decoder holds as it is.
	peak, err := peakMB(s.cmd.Process.Pid)
	must(t, err)
	flat := startRaw(t, root, "--no-index")
	long := tests[0].line
	flat.roundTrip(t, call(2, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"},"x":"`+
		strings.Repeat("y", len(long)-len(call(2, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"},"x":""}}`)))+`"}}`))
	flatPeak, err := peakMB(flat.cmd.Process.Pid)
	must(t, err)
	if peak > flatPeak {
		t.Errorf("peak resident memory %.0f MB after lines of nesting up to %d bytes, more than the %.0f MB of a flat line as long", peak, len(long), flatPeak)
	}
	t.Logf("peak resident memory %.1f MB; after a flat line as long %.1f MB", peak, flatPeak)
}

// wideArray is a JSON array of n ones: 2n bytes that decode to n values.
func wideArray(n int) string { return "[" + strings.Repeat("1,", n-1) + "1]" }

// TestStdioWideJSON is case J58's wide JSON, through the built binary over stdio with the default
// message bounds: a line of more than serving.MaxMessageValues values, whatever holds them (an array of 10
// million numbers filling a 20 MB line, an object of many members, empty strings as the params),
// is refused with TOO_LARGE naming the limit, with its id when the line's head tells it; the
// server serves the next call, and its peak memory stays under half of what a flat line as long
// costs, which mcp-go decodes (the array alone took it to 988 MB). A write of the largest file,
// its text all brackets, commas, quotes and backslashes, is still served, whole.
func TestStdioWideJSON(t *testing.T) {
	tier.Full(t, "sends messages of megabytes over stdio")
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\nhello\n"), 0o644))
	s := startRaw(t, root, "--no-index", "--allow-write")
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + "}\n"
	}
	readArgs := func(extra string) string {
		return `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"}` + extra + `}}`
	}
	const lineBytes = 20_000_000
	// The array fills the line to 20 MB: 10 million values, under the byte bound.
	head := call("2", readArgs(`,"x":`))
	wide := call("2", readArgs(`,"x":`+wideArray((lineBytes-len(head))/2)))
	members := make([]string, serving.MaxMessageValues)
	for i := range members {
		members[i] = `"k` + strconv.Itoa(i) + `":1`
	}
	tests := []struct {
		name, line, id string
	}{
		{"an array of 10 million numbers in the arguments", wide, "2"},
		{"an object of many members in the target", call(`"s"`, `{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md",`+strings.Join(members, ",")+`}}}`), `"s"`},
		{"empty strings as the params", call("4", "["+strings.TrimSuffix(strings.Repeat(`"",`, serving.MaxMessageValues+1), ",")+"]"), "4"},
		{"a wide array before the id", `{"jsonrpc":"2.0","method":"tools/call","params":` + readArgs(`,"x":`+wideArray(serving.MaxMessageValues+1)) + `,"id":5}` + "\n", "null"},
	}
	if len(wide) < lineBytes-2 || int64(len(wide)) > serving.DefaultMaxRequestBytes {
		t.Fatalf("the wide line is %d bytes, want some %d, under the byte bound", len(wide), lineBytes)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := s.roundTrip(t, tt.line)
			var r refused
			must(t, json.Unmarshal([]byte(reply), &r))
			if string(r.ID) != tt.id || r.Error.Code != serving.RefusedCode || r.Error.Data.Code != "TOO_LARGE" ||
				!strings.Contains(r.Error.Message, fmt.Sprintf("more than %d JSON values", serving.MaxMessageValues)) {
				t.Errorf("reply %.300s, want a TOO_LARGE refusal with id %s naming the limit of %d values", reply, tt.id, serving.MaxMessageValues)
			}
			var a struct {
				Result struct {
					StructuredContent map[string]any `json:"structuredContent"`
				} `json:"result"`
			}
			next := call(strconv.Itoa(100+i), readArgs(""))
			if err := json.Unmarshal([]byte(s.roundTrip(t, next)), &a); err != nil || a.Result.StructuredContent["success"] != true {
				t.Fatalf("the call after: %v %v, want success", a.Result.StructuredContent, err)
			}
		})
	}
	peak, err := peakMB(s.cmd.Process.Pid)
	must(t, err)
	flat := startRaw(t, root, "--no-index")
	flat.roundTrip(t, call("2", readArgs(`,"x":"`+strings.Repeat("y", len(wide)-len(call("2", readArgs(`,"x":""`))))+`"`)))
	flatPeak, err := peakMB(flat.cmd.Process.Pid)
	must(t, err)
	if peak > flatPeak/2 {
		t.Errorf("peak resident memory %.0f MB after a %d-byte line of %d values, want under half the %.0f MB of a flat line as long",
			peak, len(wide), len(wide)/2, flatPeak)
	}
	t.Logf("peak resident memory %.1f MB; after a flat line as long %.1f MB", peak, flatPeak)

	// The largest file is still written (see valueDenseContent).
	content := valueDenseContent()
	args, err := json.Marshal(map[string]any{"purpose": "create", "target": map[string]any{"path": "big.md"}, "content": content})
	must(t, err)
	line := call("9", `{"name":"packfs-file-writer","arguments":`+string(args)+`}`)
	var w struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	reply := s.roundTrip(t, line)
	must(t, json.Unmarshal([]byte(reply), &w))
	if w.ID != 9 || w.Result.StructuredContent["success"] != true {
		t.Fatalf("a write of %d bytes in a %d-byte line: %.300s, want success", len(content), len(line), reply)
	}
	if got, err := os.ReadFile(filepath.Join(root, "big.md")); err != nil || string(got) != content {
		t.Errorf("big.md holds %d bytes (%v), want the %d written", len(got), err, len(content))
	}
}

// valueDenseContent is a file of the largest size whose text, were it not in a JSON string, would be
// over a million values, and whose quotes and backslashes double in JSON: a write of it must pass
// the value limit (serving.MaxMessageValues) and the message bound.
func valueDenseContent() string {
	unit := "[1,\"\\\"],\n"
	content := strings.Repeat(unit, fsroot.DefaultMaxFileSize/len(unit))
	return content + strings.Repeat("x", fsroot.DefaultMaxFileSize-len(content))
}
