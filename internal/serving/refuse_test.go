package serving

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
)

// naiveValues is valueCount's count the slow, plain way: one byte at a time, an escape flag
// toggled by each backslash in a string.
func naiveValues(p []byte) int {
	n, inString, escaped := 0, false, false
	for _, b := range p {
		switch {
		case escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '[' || b == '{' || b == ',':
			n++
		}
	}
	return n
}

// TestValueCount checks the count of hostile and ordinary messages, whole and cut at every byte
// (a line reaches the stdio reader in pieces), and the limit.
func TestValueCount(t *testing.T) {
	tests := []struct {
		name, msg string
		want      int
	}{
		{"scalar", `1`, 0},
		{"empty array", `[]`, 1},
		{"array", `[1,2,3]`, 3},
		{"nested empty", `[[],[[]],{}]`, 7},
		{"object", `{"a":1,"b":[true,null]}`, 4},
		{"brackets in a string", `{"a":"[{,]}"}`, 1},
		{"escaped quote", `{"a":"x\"[,","b":1}`, 2},
		{"escaped backslash ends the string", `["\\",[1,2]]`, 4},
		{"three backslashes then a quote", `["\\\"[,",1]`, 2},
		{"a run of backslashes", `["` + strings.Repeat(`\\`, 50) + `",1]`, 2},
		{"an escaped quote far in", `["` + strings.Repeat("x", 100) + `\"[,` + strings.Repeat("y", 100) + `",1]`, 2},
		{"an escaped backslash far in", `["` + strings.Repeat("x", 100) + `\\",[1]]`, 3},
		{"odd backslashes across the byte loop's end", `["` + strings.Repeat("x", 60) + strings.Repeat(`\`, 9) + `"[,` + strings.Repeat("y", 100) + `",1]`, 2},
		{"even backslashes across the byte loop's end", `["` + strings.Repeat("x", 60) + strings.Repeat(`\`, 10) + `",[` + strings.Repeat("y", 100) + `]]`, 3},
		{"unicode escape", `["\u0022,",1]`, 2},
		{"not JSON", `,,,`, 3},
		{"a string never closed", `["abc,[`, 1},
		{"a tool call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"packfs-file-writer","arguments":{"purpose":"create","target":{"path":"a.md"},"content":"[1,2]\n\"x\",\\"}}}`, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := naiveValues([]byte(tt.msg)); n != tt.want {
				t.Fatalf("the naive count is %d, want %d: the case is wrong", n, tt.want)
			}
			for cut := range len(tt.msg) + 1 {
				var c valueCount
				c.scan([]byte(tt.msg[:cut]))
				c.scan([]byte(tt.msg[cut:]))
				if c.n != tt.want {
					t.Fatalf("cut at %d: counted %d, want %d", cut, c.n, tt.want)
				}
			}
			for _, max := range []int{tt.want - 1, tt.want} {
				c := valueCount{max: max}
				if over := c.scan([]byte(tt.msg)); over != (max > 0 && tt.want > max) {
					t.Errorf("over a limit of %d: %t, with %d values", max, over, tt.want)
				}
			}
		})
	}
}

// FuzzValueCount holds valueCount to the naive count on any bytes, cut anywhere.
func FuzzValueCount(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c\"d"}]}`, `["\\\\\"",[]]`, `"\`, `\\"[`,
		`["` + strings.Repeat("x", 62) + strings.Repeat(`\`, 5) + `"[,",[1]]`} {
		f.Add([]byte(s), uint(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, p []byte, cut uint) {
		k := int(cut % uint(len(p)+1))
		var c valueCount
		c.scan(p[:k])
		c.scan(p[k:])
		if want := naiveValues(p); c.n != want {
			t.Errorf("%q cut at %d: counted %d, want %d", p, k, c.n, want)
		}
	})
}

// BenchmarkValueCount measures the count of the values of a write of the largest file, as the
// transports run it on every message: plain text, and text that is all quotes and backslashes
// (escaped to twice its size, and a stop of the quote search at every other byte).
func BenchmarkValueCount(b *testing.B) {
	for _, tt := range []struct{ name, unit string }{
		{"text", "the quick brown fox, [jumps] over {the} lazy dog\n"},
		{"quotes", `"\`},
	} {
		content := strings.Repeat(tt.unit, fsroot.DefaultMaxFileSize/len(tt.unit))
		args, err := json.Marshal(map[string]any{"purpose": "create", "target": map[string]any{"path": "big.md"}, "content": content})
		if err != nil {
			b.Fatal(err)
		}
		msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"packfs-file-writer","arguments":` + string(args) + "}}")
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				c := valueCount{max: MaxMessageValues}
				if c.scan(msg) {
					b.Fatalf("a write of %d bytes counted over the limit", len(content))
				}
			}
		})
	}
}
