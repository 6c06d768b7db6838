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
		if r.JSONRPC != "2.0" || string(r.ID) != id || r.Error.Code != refusedCode || r.Error.Data.Code != "TOO_LARGE" {
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
	if _, err := io.Copy(s.in, &endless{n: huge, rest: "\n"}); err != nil {
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
