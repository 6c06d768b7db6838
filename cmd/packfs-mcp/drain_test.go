package main

import (
	"bufio"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// note is a line of n bytes (at least 40) that expects no answer, so the ledger owes nothing at the
// end of input.
func note(n int) string {
	const head, tail = `{"method":"n","params":"`, `"}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// TestInputReaderBound checks which lines the reader passes on and which it refuses, at the bound
// and past it, across the bufio buffer's edges (it is 16 bytes here), with and without a newline
// at the end of input.
func TestInputReaderBound(t *testing.T) {
	const max = 64
	tests := []struct {
		name    string
		in      string
		out     string
		refused int
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refused := 0
			in := &inputReader{r: bufio.NewReaderSize(strings.NewReader(tt.in), 16), l: newLedger(), max: max,
				refuse: func() { refused++ }}
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
		})
	}
}

// endless yields n bytes of one long line, then a newline and rest, without holding the line.
type endless struct {
	n    int
	rest string
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n > 0 {
		k := min(len(p), e.n)
		for i := range k {
			p[i] = 'x'
		}
		e.n -= k
		return k, nil
	}
	if e.rest == "" {
		return 0, io.EOF
	}
	k := copy(p, e.rest)
	e.rest = e.rest[k:]
	return k, nil
}

// TestInputReaderMemory checks that a line far over the bound is dropped as it is read: reading a
// 64 MiB line allocates a small fraction of it. Unbounded, the line was held whole, twice.
func TestInputReaderMemory(t *testing.T) {
	const line, max = 64 << 20, 64 << 10
	after := note(40) + "\n"
	refused := 0
	in := &inputReader{r: bufio.NewReaderSize(&endless{n: line, rest: "\n" + after}, 64<<10), l: newLedger(), max: max,
		refuse: func() { refused++ }}
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
