package main

import (
	"bufio"
	"bytes"
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

// inputReader passes the client's lines through, counting those that expect an answer.
type inputReader struct {
	r     *bufio.Reader
	l     *ledger
	grace time.Duration
	buf   []byte
	err   error
}

func (in *inputReader) Read(p []byte) (int, error) {
	if len(in.buf) == 0 && in.err == nil {
		line, err := in.r.ReadBytes('\n')
		if expectsAnswer(line) {
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
// in that place instead).
var responsePrefix = []byte(`{"jsonrpc":"2.0","id"`)

// outputWriter passes the server's lines through, crediting each response to the ledger.
type outputWriter struct {
	w io.Writer
	l *ledger
}

func (out *outputWriter) Write(p []byte) (int, error) {
	n, err := out.w.Write(p)
	if bytes.HasPrefix(p, responsePrefix) {
		out.l.add(-1)
	}
	return n, err
}
