package serving

import (
	"bufio"
	"encoding/json"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

// note is a line of n bytes (at least 40) that expects no answer, so the ledger owes nothing at the
// end of input.
func note(n int) string {
	const head, tail = `{"method":"n","params":"`, `"}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// TestInputReaderBound checks which lines the reader passes on and which it refuses, at the bounds
// on bytes and on values and past them, across the bufio buffer's edges (it is 16 bytes here),
// with and without a newline at the end of input.
func TestInputReaderBound(t *testing.T) {
	const max = 64
	const maxValues = 5
	tests := []struct {
		name    string
		in      string
		out     string
		refused int
		ids     []string    // the ids the refusals recovered, when the test says
		overs   []overLimit // the bounds the refusals name, when the test says
	}{
		{name: "short lines pass", in: note(40) + "\n" + note(50) + "\n", out: note(40) + "\n" + note(50) + "\n"},
		{name: "at the bound passes", in: note(max) + "\n", out: note(max) + "\n"},
		{name: "at the bound with CR counts the CR", in: note(max) + "\r\n", refused: 1},
		{name: "one past the bound", in: note(max+1) + "\n", refused: 1},
		{name: "far past the bound", in: note(100*max) + "\n", refused: 1},
		{name: "the next line is served", in: note(max+1) + "\n" + note(40) + "\n", out: note(40) + "\n", refused: 1},
		{name: "each long line refused", in: note(3*max) + "\n" + note(41) + "\n" + note(2*max) + "\n" + note(42) + "\n",
			out: note(41) + "\n" + note(42) + "\n", refused: 2},
		{name: "long line at the end of input", in: note(40) + "\n" + note(5*max), out: note(40) + "\n", refused: 1},
		{name: "last line without a newline passes", in: note(40), out: note(40)},
		{name: "empty lines pass", in: "\n\n", out: "\n\n"},
		// The id straddles the 16-byte buffer in which the line passes the bound (bytes 64 to 79).
		{name: "the id is read from the buffer that passes the bound", in: `{"jsonrpc":"2.0","method":"` + strings.Repeat("m", 32) + `","id":77,"params":"` + strings.Repeat("x", 2*max) + "\"}\n",
			refused: 1, ids: []string{"77"}},
		{name: "at the bound on values passes", in: `{"id":1,"p":[1,2,3]}` + "\n", out: `{"id":1,"p":[1,2,3]}` + "\n"},
		{name: "one value past the bound", in: `{"id":1,"p":[1,2,3,4]}` + "\n", refused: 1, ids: []string{"1"}, overs: []overLimit{overValues}},
		{name: "values in strings are not counted", in: `{"id":1,"p":"[[[,,,{{{","q":"\\\"[,,,"}` + "\n",
			out: `{"id":1,"p":"[[[,,,{{{","q":"\\\"[,,,"}` + "\n"},
		{name: "values after an escaped backslash are counted", in: `{"id":1,"p":"\\",[1,[2,[3]]]}` + "\n", refused: 1, overs: []overLimit{overValues}},
		{name: "a wide line across buffers", in: `{"id":"w","p":[` + strings.Repeat("1,", 20) + "1]}\n" + note(40) + "\n",
			out: note(40) + "\n", refused: 1, ids: []string{`"w"`}, overs: []overLimit{overValues}},
		{name: "a wide line also too long is refused for what it passes first", in: `{"id":5,"p":[` + strings.Repeat("1,", 100) + "1]}\n",
			refused: 1, ids: []string{"5"}, overs: []overLimit{overValues}},
		{name: "a long line of few values is refused for its bytes", in: note(max+1) + "\n", refused: 1, overs: []overLimit{overBytes}},
		{name: "each line counted afresh", in: `[1,2,3]` + "\n" + `[1,2,3]` + "\n", out: `[1,2,3]` + "\n" + `[1,2,3]` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refused := 0
			var ids []string
			var overs []overLimit
			in := &inputReader{r: bufio.NewReaderSize(strings.NewReader(tt.in), 16), l: newLedger(), max: max, maxValues: maxValues,
				refuse: func(id json.RawMessage, over overLimit) {
					refused++
					ids = append(ids, string(id))
					overs = append(overs, over)
				}}
			out, err := io.ReadAll(in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.out, string(out)); d != "" {
				t.Errorf("passed on (-want +got):\n%s", d)
			}
			if refused != tt.refused {
				t.Errorf("%d lines refused, want %d", refused, tt.refused)
			}
			if tt.ids != nil && !slices.Equal(ids, tt.ids) {
				t.Errorf("refusals recovered ids %q, want %q", ids, tt.ids)
			}
			if tt.overs != nil && !slices.Equal(overs, tt.overs) {
				t.Errorf("refusals named bounds %v, want %v", overs, tt.overs)
			}
		})
	}
}

// TestInputReaderMemory checks that a line far over the bound is dropped as it is read: reading a
// 64 MiB line allocates a small fraction of it. Unbounded, the line was held whole, twice.
func TestInputReaderMemory(t *testing.T) {
	const line, max = 64 << 20, 64 << 10
	after := note(40) + "\n"
	refused := 0
	in := &inputReader{r: bufio.NewReaderSize(testfs.Endless(line, "\n"+after), 64<<10), l: newLedger(), max: max,
		refuse: func(json.RawMessage, overLimit) { refused++ }}
	var before, done runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := io.ReadAll(in)
	runtime.ReadMemStats(&done)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != after || refused != 1 {
		t.Fatalf("passed on %q with %d refused, want the line after it and 1", out, refused)
	}
	if alloc := done.TotalAlloc - before.TotalAlloc; alloc > line/8 {
		t.Errorf("reading a %d-byte line over a bound of %d allocated %d bytes, want under %d", line, max, alloc, line/8)
	}
}

// TestIdOf checks which ids a refusal recovers from the head of a line cut short.
func TestIdOf(t *testing.T) {
	tests := []struct{ head, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"content":"aaaa`, `7`},
		{`{"id":"abc","jsonrpc":"2.0","params":{"a":`, `"abc"`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"content":"aaaa`, ``}, // id after the cut
		{`{"jsonrpc":"2.0","id":null,"method":"x"`, ``},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"`, ``},
		{`[{"id":1}`, ``},
		{`not json at all`, ``},
		{`{"params":{"id":9,"x":"aaa`, ``}, // an id inside the params is not the message's
	}
	for _, tt := range tests {
		if got := string(idOf([]byte(tt.head))); got != tt.want {
			t.Errorf("idOf(%.40q) = %q, want %q", tt.head, got, tt.want)
		}
	}
}

// TestIsResponse checks that the ledger credits the server's responses, not the requests it sends
// the client (roots/list), whose lines start alike.
func TestIsResponse(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`, true},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"x"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, false},
		{`{"jsonrpc":"2.0","id":"s-1","method":"roots/list","params":{}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, false},
	}
	for _, tt := range tests {
		if got := isResponse([]byte(tt.line + "\n")); got != tt.want {
			t.Errorf("isResponse(%s) = %t, want %t", tt.line, got, tt.want)
		}
	}
}
