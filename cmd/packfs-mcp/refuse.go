package main

import (
	"encoding/json"
	"fmt"

	"github.com/packfs/packfs-mcp/fsroot"
)

// What both transports refuse before MCP reads a message, and how they say so.

const (
	// DefaultMaxRequestBytes caps a message a client sends, over stdio or HTTP, when
	// [SecurityConfig.MaxRequestBytes] is zero: room for a write of the largest file the writer
	// takes by default, even with its text escaped to twice its size in JSON, and far more than
	// any other call needs. Unbounded, one 60 MB line on stdio took the server to 439 MB before
	// it answered.
	DefaultMaxRequestBytes = 2*fsroot.DefaultMaxFileSize + 1<<20
	// refusedCode is the JSON-RPC error code of a message a transport refuses (in the range
	// JSON-RPC leaves to servers); the reason is in the message and in data.code.
	refusedCode = -32000
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
	}{"2.0", id, refusalError{refusedCode, msg, refusalData{code, retryAfterMs}}})
	return append(body, '\n')
}
