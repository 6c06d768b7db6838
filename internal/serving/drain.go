package serving

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// The stdio server stops at the end of its input and drops tool calls still queued, so a client
// that writes its requests and closes stdin (a shell pipe, a test script) would lose answers.
// ledger counts the requests read and the responses written, and the input reader holds back
// the end of input until every request is answered or the grace period ends.
type ledger struct {
	mu   sync.Mutex
	cond *sync.Cond
	owed int
}

func newLedger() *ledger {
	l := &ledger{}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *ledger) add(n int) {
	l.mu.Lock()
	l.owed += n
	l.mu.Unlock()
	l.cond.Broadcast()
}

// wait blocks until nothing is owed or grace has passed.
func (l *ledger) wait(grace time.Duration) {
	t := time.AfterFunc(grace, func() {
		l.mu.Lock()
		l.owed = 0
		l.mu.Unlock()
		l.cond.Broadcast()
	})
	defer t.Stop()
	l.mu.Lock()
	for l.owed > 0 {
		l.cond.Wait()
	}
	l.mu.Unlock()
}

// inputReader passes the client's lines through, counting those that expect an answer. A line
// longer than max bytes (its newline aside), or holding more than maxValues JSON values (see
// [valueCount]), is not passed on: it is read to its end without being kept from the moment it
// passes the bound, so it costs no more memory than max, and refuse answers it, saying which
// bound, with the message's id when its head tells it (see idOf); the next line is read as usual.
type inputReader struct {
	r      *bufio.Reader
	l      *ledger
	grace  time.Duration
	max    int64
	refuse func(id json.RawMessage, over overLimit)
	// maxValues is the most JSON values a line may hold. If zero, [MaxMessageValues].
	maxValues int
	line      []byte // the line being read, reused while it stays small
	buf       []byte // what is left of the line to pass on
	err       error
}

// keptLine is the largest line buffer kept for the next line: a larger one, left by a large
// message, is dropped rather than held for the life of the server.
const keptLine = 64 << 10

func (in *inputReader) Read(p []byte) (int, error) {
	for len(in.buf) == 0 && in.err == nil {
		line, over, id, err := in.next()
		switch {
		case over != withinLimits:
			in.refuse(id, over)
		case expectsAnswer(line):
			in.l.add(1)
		}
		in.buf, in.err = line, err
		if err == io.EOF {
			in.l.wait(in.grace)
		}
	}
	if len(in.buf) == 0 {
		return 0, in.err
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	return n, nil
}

// next reads the next line, with its newline if it has one. A line of more than in.max bytes
// before its newline, or of more values than in.maxValues, is read to its end and dropped as it
// goes from the moment it passes the bound: next reports which bound and returns no bytes of it,
// and the line's id when its first idHead bytes tell it (see idOf).
func (in *inputReader) next() (line []byte, over overLimit, id json.RawMessage, err error) {
	if cap(in.line) > keptLine {
		in.line = nil
	}
	in.line = in.line[:0]
	values := valueCount{max: cmp.Or(in.maxValues, MaxMessageValues)}
	for {
		chunk, err := in.r.ReadSlice('\n')
		if over == withinLimits {
			size := int64(len(in.line) + len(chunk))
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
				size--
			}
			switch {
			case size > in.max:
				over = overBytes
			case values.scan(chunk):
				over = overValues
			}
			if over != withinLimits {
				// Only the head is read for the id: appending the whole chunk would copy up to
				// max bytes again at the moment the line is refused.
				head := in.line
				if n := idHead - len(head); n > 0 {
					head = append(head, chunk[:min(n, len(chunk))]...)
				}
				id = idOf(head[:min(len(head), idHead)])
				in.line = in.line[:0]
			} else {
				in.line = append(in.line, chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			return in.line, over, id, err
		}
	}
}

// idHead is how much of the start of a refused line idOf reads for its id: a request writes its
// id within its first few dozen bytes, and reading no more keeps a refusal cheap.
const idHead = 4 << 10

// idOf returns the id of a JSON-RPC request from the head of its line, or nil when the head does
// not tell it: clients write the id before the params, so a request cut short in its params still
// names the id its answer must carry, and a client waiting for that id gets its refusal at once
// rather than at its own timeout. Only a number or a string is an id.
func idOf(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil // cut short, or not JSON
		}
		if key == "id" {
			if c := value[0]; c == '"' || c == '-' || c >= '0' && c <= '9' {
				return value
			}
			return nil
		}
	}
	return nil
}

// expectsAnswer reports whether a JSON-RPC line is a request (a method and an id) or is
// malformed (it gets a parse error back).
func expectsAnswer(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil {
		return true
	}
	return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
}

// responsePrefix starts every JSON-RPC response the server writes (notifications carry a method
// in that place instead). A request the server sends the client (roots/list) starts the same way,
// its method after its id.
var responsePrefix = []byte(`{"jsonrpc":"2.0","id"`)

// isResponse reports whether p, a line the server writes, is a response: it starts with
// responsePrefix, and a result or an error follows the id, not a request's method.
func isResponse(p []byte) bool {
	if !bytes.HasPrefix(p, responsePrefix) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(p))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return true
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return true
		}
		switch key {
		case "method":
			return false
		case "result", "error":
			return true
		}
		var skip json.RawMessage // jsonrpc and id: a few bytes
		if dec.Decode(&skip) != nil {
			return true
		}
	}
	return true
}

// outputWriter passes the server's lines through, crediting each response to the ledger. Each
// write is one whole line (mcp-go writes a message at a time), and writes do not interleave.
type outputWriter struct {
	mu sync.Mutex
	w  io.Writer
	l  *ledger
}

func (out *outputWriter) Write(p []byte) (int, error) {
	out.mu.Lock()
	defer out.mu.Unlock()
	n, err := out.w.Write(p)
	if isResponse(p) {
		out.l.add(-1)
	}
	return n, err
}

// answer writes line, the transport's own answer to a message it did not pass on, between the
// server's lines; the ledger never counted that message, so nothing is credited.
func (out *outputWriter) answer(line []byte) error {
	out.mu.Lock()
	defer out.mu.Unlock()
	_, err := out.w.Write(line)
	return err
}
