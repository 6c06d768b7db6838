package serving

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/packfs/packfs-mcp/fsroot"
)

// What both transports refuse before MCP reads a message, and how they say so.

const (
	// DefaultMaxRequestBytes caps a message a client sends, over stdio or HTTP, when
	// [SecurityConfig.MaxRequestBytes] is zero: room for a write of the largest file the writer
	// takes by default, even with its text escaped to twice its size in JSON, and far more than
	// any other call needs. Unbounded, one long line on stdio took the server to several times
	// its size before it answered (dev/bench/README.md, Hostile input).
	DefaultMaxRequestBytes = 2*fsroot.DefaultMaxFileSize + 1<<20
	// MaxMessageValues caps the JSON values a message may hold, over stdio or HTTP, as
	// [valueCount] counts them: mcp-go decodes a tool call's arguments into Go values before any
	// tool sees them, at many times the bytes each value takes in JSON, so under the byte bound
	// alone one line of an array of millions of numbers took the server to a peak several times a
	// string as long (dev/bench/README.md, Hostile input). A legitimate message holds tens or
	// hundreds (target.paths and edits take at most 20 each, and a file's text is one string),
	// so this is generous, and a message at it costs little (same section).
	MaxMessageValues = 100_000
	// RefusedCode is the JSON-RPC error code of a message a transport refuses (in the range
	// JSON-RPC leaves to servers); the reason is in the message and in data.code.
	RefusedCode = -32000
)

// maxRequest is the most bytes a message may hold under c.
func maxRequest(c Config) int64 {
	if c.Security.MaxRequestBytes > 0 {
		return c.Security.MaxRequestBytes
	}
	return DefaultMaxRequestBytes
}

// tooLarge says that a message was over limit bytes, which flag raises the limit, and what to do
// instead.
func tooLarge(limit int64) string {
	return fmt.Sprintf("the request is larger than this server's limit of %d bytes (--max-request-bytes, or security.maxRequestBytes "+
		"in its config file): send less per call, such as a large file in parts with create, then append", limit)
}

// tooManyValues says that a message held more than [MaxMessageValues] JSON values, and what to do
// instead.
func tooManyValues() string {
	return fmt.Sprintf("the request holds more than %d JSON values (arrays, objects and their elements), this server's limit: "+
		"send fewer per call; a tool call needs a few dozen, and a file's text goes as one string", MaxMessageValues)
}

// overLimit says which of the bounds both transports enforce a message passed.
type overLimit int

const (
	withinLimits overLimit = iota
	overBytes              // longer than --max-request-bytes
	overValues             // more than MaxMessageValues JSON values
)

// valueCount counts the JSON values of one message as its bytes arrive, in one pass and in O(1)
// memory, so a transport can refuse a message that would cost more in decoded values than its
// bytes before mcp-go decodes it. Each '[', '{' and ',' outside strings counts one: an array's or
// object's first element or member starts at its bracket and each other one at its comma, so the
// count is at least half the values a decoder makes (an empty array or object counts as the value
// it is) and never more than them, however they nest. Inside a string, which a decoder holds as
// its bytes, it only looks for the closing quote. It does not check that the message is JSON;
// the decoder does that after it. The zero value counts with no limit; max sets one.
type valueCount struct {
	max      int // scan reports the count over it; if zero, no limit
	n        int
	inString bool
	escaped  bool // in a string, the next byte is escaped
}

// scan counts the values in p, the next bytes of the message, and reports whether the count has
// passed c.max; once it has, it stops counting.
func (c *valueCount) scan(p []byte) (over bool) {
	for i := 0; i < len(p); {
		if c.max > 0 && c.n > c.max {
			return true
		}
		if c.inString {
			i = c.skipString(p, i)
			continue
		}
		switch p[i] {
		case '[', '{', ',':
			c.n++
		case '"':
			c.inString = true
		}
		i++
	}
	return c.max > 0 && c.n > c.max
}

// skipString moves through p from i, inside a string, to just past the string's closing quote,
// or to the end of p, remembering whether the next byte is escaped. It goes byte by byte for
// shortRun bytes, then finds the next quote with bytes.IndexByte and looks back only over the
// backslashes right before it, so a long string costs about as much as a copy of it, and one of
// many escaped quotes (code, say) makes no call for each.
func (c *valueCount) skipString(p []byte, i int) int {
	for {
		for end := min(i+shortRun, len(p)); i < end; i++ {
			switch {
			case c.escaped:
				c.escaped = false
			case p[i] == '\\':
				c.escaped = true
			case p[i] == '"':
				c.inString = false
				return i + 1
			}
		}
		if i == len(p) {
			return i
		}
		if c.escaped {
			continue // the byte loop takes the escaped byte
		}
		j := bytes.IndexByte(p[i:], '"')
		if j < 0 {
			c.escaped = backslashes(p[i:])%2 == 1
			return len(p)
		}
		q := i + j
		if backslashes(p[i:q])%2 == 0 {
			c.inString = false
			return q + 1
		}
		i = q + 1 // an escaped quote
	}
}

// shortRun is how many bytes of a string skipString reads one at a time before it searches for
// the closing quote: a search costs a call, which a quote close by does not repay.
const shortRun = 64

// backslashes is how many backslashes p ends with.
func backslashes(p []byte) int {
	n := 0
	for n < len(p) && p[len(p)-1-n] == '\\' {
		n++
	}
	return n
}

// refusal is the JSON-RPC error line, with a newline, that answers a message a transport refuses
// before reading it, so an MCP client shows what went wrong and what to do: the reason in the
// message and, as a code, in data.code. Its id is id, or null when the message's id is not known
// (it was not read).
func refusal(id json.RawMessage, code, msg string, retryAfterMs int64) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type refusalData struct {
		Code         string `json:"code"`
		RetryAfterMs int64  `json:"retryAfterMs,omitempty"`
	}
	type refusalError struct {
		Code    int         `json:"code"`
		Message string      `json:"message"`
		Data    refusalData `json:"data"`
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   refusalError    `json:"error"`
	}{"2.0", id, refusalError{RefusedCode, msg, refusalData{code, retryAfterMs}}})
	return append(body, '\n')
}
