package audit

import (
	"fmt"
	"io"
	"sync"

	"github.com/packfs/packfs-mcp/fsroot"
)

// Options configures a [Writer].
type Options struct {
	// MaxContentBytes caps each file content recorded (a file's text, an edit, a diff, one file's
	// matching lines, a snippet). If zero, [DefaultMaxContentBytes]; if negative, none is recorded.
	MaxContentBytes int
	// Denied reports the result codes of refusals by policy (a permission off, the path policy,
	// the rate limiter), which are journalled as denials ([StateDenied]) rather than errors; the
	// server passes its code table's (errs.IsDenial, of tools/errs). If nil, every failure is an error.
	Denied func(code string) bool
	// OnError receives the first failure to append a line, so it can be reported once; later
	// failures are only returned. If nil, failures are only returned.
	OnError func(error)
}

// Writer appends records to a journal, one line each. It is safe for concurrent use: every line
// goes to the underlying writer in one Write call, under a lock, so lines never interleave; with an
// [fsroot.Appender] that is one O_APPEND write per line, so a crash leaves at most a partial last
// line, which [Summarize] skips.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	opts   Options
	report sync.Once
}

// NewWriter returns a Writer that appends to w.
func NewWriter(w io.Writer, opts Options) *Writer {
	return &Writer{w: w, opts: opts}
}

// Open opens (creating it with permission 0o600) the journal file name in dir for appending, as
// [fsroot.Root.OpenAppend] does: a link, or anything but a regular file, is refused.
func Open(dir *fsroot.Root, name string, opts Options) (*Writer, error) {
	a, err := dir.OpenAppend(name)
	if err != nil {
		return nil, err
	}
	return NewWriter(a, opts), nil
}

// Append journals one call. A failure is returned, and the first one is also passed to
// [Options.OnError]: the journal never fails the call it records.
func (w *Writer) Append(c Call) error {
	line, err := NewRecord(c, w.opts).marshal()
	if err == nil {
		err = w.write(line)
	}
	if err != nil {
		err = fmt.Errorf("journal: %w", err)
		if w.opts.OnError != nil {
			w.report.Do(func() { w.opts.OnError(err) })
		}
	}
	return err
}

func (w *Writer) write(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.w.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	return err
}

// Close closes the underlying writer if it can be closed (an [fsroot.Appender] syncs first).
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c, ok := w.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
