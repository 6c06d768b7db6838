// Package audit keeps packfs-mcp's audit journal: one JSON line per tool call, appended to a file
// outside the served root, and a summary of such a journal.
//
// Each line is an AI SDK UIMessage (the `ai` package's UIMessage type): an assistant message whose
// one part is a DynamicToolUIPart, so any AI SDK UI can render or replay the journal as a
// conversation's tool calls, and the time, duration, purpose, path and code ride in the message's
// metadata. The shape follows vercel/ai packages/ai/src/ui/ui-messages.ts (DynamicToolUIPart) and
// the schema that validateUIMessages checks it with (packages/ai/src/ui/validate-ui-messages.ts):
//
//	{"id": "msg-…", "role": "assistant",
//	 "parts": [{"type": "dynamic-tool", "toolName": …, "toolCallId": …, "state": …, "input": …,
//	            "output": … | "errorText": … | "approval": {"id": …, "approved": false, "reason": …}}],
//	 "metadata": {"time": …, "durationMs": …, "purpose": …, "path": …, "code": …, "session": …}}
//
// state is "output-available" (output holds the tool's flat result), "output-error" (errorText
// holds its error message; output is absent, as the type requires) or "output-denied" (a policy,
// permission or rate-limit refusal, see [Options.Denied]: the type carries no errorText there, so the
// message goes in approval.reason, with approval.approved false, the only shape the type allows).
// approval holds only id, approved and reason, the fields every release of the type has; newer ones
// add optional fields the journal has no use for.
//
// File contents are recorded only up to a size (see [Options.MaxContentBytes]); a cut string ends
// with a marker saying how much was left out, and metadata.truncated lists the cut fields. The
// journal records the arguments as the client sent them, before validation, so it also shows what
// an agent tried and was refused.
//
// audit imports only fsroot and the standard library: the server (cmd) turns MCP requests and
// results into a [Call], and the journal turns a Call into a [Record].
package audit

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
)

// The states of a [Part], as the AI SDK names them.
const (
	StateOutput = "output-available"
	StateError  = "output-error"
	StateDenied = "output-denied"
)

// PartType is the type of every [Part]: a tool whose input and output types the UI does not know
// in advance.
const PartType = "dynamic-tool"

// Record is one journal line: an AI SDK UIMessage holding one tool call.
type Record struct {
	// ID is the message's own unique id ("msg-" and random text).
	ID       string   `json:"id"`
	Role     string   `json:"role"` // always "assistant"
	Parts    []Part   `json:"parts"`
	Metadata Metadata `json:"metadata"`
}

// Part is an AI SDK DynamicToolUIPart in one of its final states. Exactly one of Output (state
// [StateOutput]), ErrorText ([StateError]) and Approval ([StateDenied]) is set.
type Part struct {
	Type       string          `json:"type"` // always [PartType]
	ToolName   string          `json:"toolName"`
	ToolCallID string          `json:"toolCallId"`
	State      string          `json:"state"`
	Input      json.RawMessage `json:"input"`
	Output     json.RawMessage `json:"output,omitempty"`
	ErrorText  string          `json:"errorText,omitempty"`
	Approval   *Approval       `json:"approval,omitempty"`
}

// Approval is the AI SDK's record of a tool approval; the journal uses it only for denials, where
// the AI SDK puts the reason.
type Approval struct {
	ID       string `json:"id"`
	Approved bool   `json:"approved"`
	Reason   string `json:"reason,omitempty"`
}

// Metadata is the message metadata: facts about the call that the part has no place for.
type Metadata struct {
	// Time is when the call arrived.
	Time time.Time `json:"time"`
	// DurationMs is how long the server took to answer, in milliseconds.
	DurationMs float64 `json:"durationMs"`
	// Purpose is the intent's purpose as the client sent it (read, list, edit, ...).
	Purpose string `json:"purpose,omitempty"`
	// Path is the path the call named (target.path as sent), else the one the result reports.
	Path string `json:"path,omitempty"`
	// Code is the result's error code (NOT_FOUND, PATH_OUTSIDE_ROOT, ...); empty on success.
	Code string `json:"code,omitempty"`
	// Session names the client session: "stdio", or a label for an HTTP session.
	Session string `json:"session,omitempty"`
	// Truncated lists the fields whose content was cut to the size limit, such as output.content.
	Truncated []string `json:"truncated,omitempty"`
}

// Part returns the record's tool part, or a zero Part if it has none.
func (r Record) Part() Part {
	if len(r.Parts) == 0 {
		return Part{}
	}
	return r.Parts[0]
}

// Reason returns why a failed call failed: the error text or the denial's reason.
func (p Part) Reason() string {
	if p.Approval != nil {
		return p.Approval.Reason
	}
	return p.ErrorText
}

// Call is one answered tool call as the server saw it, the input of [NewRecord].
type Call struct {
	// ID is the tool call id: the JSON-RPC request id as a string, qualified by the session when
	// several clients share the server.
	ID string
	// Session names the client session; empty when there is none (a one-shot call).
	Session string
	// Tool is the tool's name.
	Tool string
	// Input is the arguments as sent (a JSON value). If empty, {}.
	Input json.RawMessage
	// Output is the tool's flat result, a JSON object with success, error, code and metadata. It
	// is empty when no tool answered (an unknown tool, unparsable parameters).
	Output json.RawMessage
	// IsError is the MCP result's isError.
	IsError bool
	// Code and Error describe a failure that Output does not: a protocol-level one. The result's
	// own code and error win when it has them.
	Code, Error string
	// Start is when the call arrived; Duration how long the answer took.
	Start    time.Time
	Duration time.Duration
}

// maxPurposeBytes bounds the purpose kept in metadata: real purposes are short words, and the
// summary groups by it, so an agent's garbage must not bloat either.
const maxPurposeBytes = 64

// NewRecord turns c into a journal record, keeping file contents to opts.MaxContentBytes each (see
// there for zero and negative values), a failed call whose code opts.Denied accepts as a denial.
func NewRecord(c Call, opts Options) Record {
	cl := newClipper(opts.MaxContentBytes)
	input := cl.clip(c.Input, "input", []byte("{}"))
	var flat struct {
		Success *bool  `json:"success"`
		Error   string `json:"error"`
		Code    string `json:"code"`
	}
	// Output need not be an object; then it has none of these fields.
	_ = json.Unmarshal(c.Output, &flat)
	var args struct {
		Purpose any `json:"purpose"`
		Target  struct {
			Path any `json:"path"`
		} `json:"target"`
	}
	_ = json.Unmarshal(c.Input, &args)

	md := Metadata{
		Time:       c.Start.UTC(),
		DurationMs: float64(c.Duration.Microseconds()) / 1000,
		Purpose:    stringArg(maxPurposeBytes, args.Purpose),
		Path:       stringArg(fsroot.MaxPathBytes, args.Target.Path), // the longest path a tool accepts
		Code:       flat.Code,
		Session:    c.Session,
	}
	if md.Code == "" {
		md.Code = c.Code
	}
	part := Part{Type: PartType, ToolName: c.Tool, ToolCallID: c.ID, Input: input}
	failed := c.IsError || len(c.Output) == 0 || (flat.Success != nil && !*flat.Success)
	reason := flat.Error
	if reason == "" {
		reason = c.Error
	}
	switch {
	case !failed:
		part.State = StateOutput
		part.Output = cl.clip(c.Output, "output", []byte("null"))
	case opts.Denied != nil && opts.Denied(md.Code):
		part.State = StateDenied
		part.Approval = &Approval{ID: "policy-" + c.ID, Approved: false, Reason: reason}
	default:
		part.State = StateError
		part.ErrorText = reason
		if part.ErrorText == "" {
			part.ErrorText = "the call failed"
			if md.Code != "" {
				part.ErrorText += " with code " + md.Code
			}
		}
	}
	md.Truncated = cl.paths()
	return Record{ID: "msg-" + rand.Text(), Role: "assistant", Parts: []Part{part}, Metadata: md}
}

// stringArg returns v cut to max bytes when it is a string, else "".
func stringArg(max int, v any) string {
	if s, ok := v.(string); ok {
		return cutUTF8(s, max)
	}
	return ""
}

// marshal encodes r as one line: compact JSON, HTML characters unescaped (the journal is read by
// people and tools, not embedded in pages), ending in a newline. JSON never holds a raw newline, so
// the line is whole.
func (r Record) marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Check reports why line is not a journal record in the shape the AI SDK's validateUIMessages
// accepts for a message with one DynamicToolUIPart in a final state, or nil if it is: id and role,
// a "dynamic-tool" part with toolName, toolCallId and input, and per state exactly its own field
// (output; errorText, a string; approval with a string id and approved false).
func Check(line []byte) error {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if _, ok := str(msg["id"]); !ok {
		return errors.New("id is not a string")
	}
	if role, _ := str(msg["role"]); role != "assistant" {
		return errors.New(`role is not "assistant"`)
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(msg["parts"], &parts); err != nil || len(parts) != 1 {
		return errors.New("parts is not a list of one part")
	}
	p := parts[0]
	for _, f := range []string{"type", "toolName", "toolCallId", "state"} {
		if _, ok := str(p[f]); !ok {
			return fmt.Errorf("part.%s is not a string", f)
		}
	}
	typ, _ := str(p["type"])
	state, _ := str(p["state"])
	if typ != PartType {
		return fmt.Errorf("part.type is %q, want %q", typ, PartType)
	}
	if _, ok := p["input"]; !ok {
		return errors.New("part.input is missing")
	}
	_, hasOutput := p["output"]
	_, hasError := p["errorText"]
	_, hasApproval := p["approval"]
	switch state {
	case StateOutput:
		if !hasOutput || hasError || hasApproval {
			return errors.New("an output-available part needs output and nothing else")
		}
	case StateError:
		if _, ok := str(p["errorText"]); !ok || hasOutput || hasApproval {
			return errors.New("an output-error part needs a string errorText and nothing else")
		}
	case StateDenied:
		var a map[string]json.RawMessage
		if hasOutput || hasError || json.Unmarshal(p["approval"], &a) != nil {
			return errors.New("an output-denied part needs approval and nothing else")
		}
		if _, ok := str(a["id"]); !ok || string(bytes.TrimSpace(a["approved"])) != "false" {
			return errors.New("an output-denied part's approval needs a string id and approved false")
		}
		if raw, ok := a["reason"]; ok {
			if _, ok := str(raw); !ok {
				return errors.New("approval.reason is not a string")
			}
		}
	default:
		return fmt.Errorf("part.state %q is not a final state", state)
	}
	if raw, ok := msg["metadata"]; ok {
		var md map[string]json.RawMessage
		if json.Unmarshal(raw, &md) != nil {
			return errors.New("metadata is not an object")
		}
	}
	return nil
}

// str decodes raw as a JSON string; ok is false for anything else, null and absence included.
func str(raw json.RawMessage) (s string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}
