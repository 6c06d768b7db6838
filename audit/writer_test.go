package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
)

// TestWriterConcurrent journals from many goroutines at once through two writers on the same
// file, as two servers sharing a journal would: every line must parse, in the AI SDK's shape, and
// none may be lost.
func TestWriterConcurrent(t *testing.T) {
	dir := t.TempDir()
	root, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var writers [2]*Writer
	for i := range writers {
		if writers[i], err = Open(root, "journal.jsonl", Options{}); err != nil {
			t.Fatal(err)
		}
	}
	const goroutines, calls = 32, 40
	// Each output holds more than a pipe buffer of content, cut to the default 4096 bytes, so
	// lines are long enough that a torn write would show.
	content := strings.Repeat("abcdefgh", 2048)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				out, _ := json.Marshal(map[string]any{"success": true, "content": content})
				err := writers[g%2].Append(Call{
					ID: fmt.Sprintf("%d-%d", g, i), Session: "stdio", Tool: "packfs-file-reader",
					Input:  json.RawMessage(`{"purpose":"read","target":{"path":"a.md"}}`),
					Output: out, Start: time.Now(), Duration: time.Millisecond,
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, w := range writers {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fi, _ := f.Stat(); fi.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v, want 0600", fi.Mode().Perm())
	}
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if err := Check(sc.Bytes()); err != nil {
			t.Fatalf("line %d: %v: %.120s", len(ids)+1, err, sc.Text())
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		ids[rec.Part().ToolCallID] = true
		var out struct{ Content string }
		json.Unmarshal(rec.Part().Output, &out)
		if !strings.HasPrefix(out.Content, content[:DefaultMaxContentBytes]+"[…") {
			t.Fatalf("content not cut to the default: %.80q", out.Content)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ids) != goroutines*calls {
		t.Errorf("%d distinct calls journalled, want %d", len(ids), goroutines*calls)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriterFailure: a failure is returned every time but reported once, so a full disk does not
// flood the log, and never panics.
func TestWriterFailure(t *testing.T) {
	var reported []error
	w := NewWriter(failingWriter{}, Options{OnError: func(err error) { reported = append(reported, err) }})
	for range 3 {
		if err := w.Append(Call{ID: "1", Tool: "t", Start: t0}); err == nil {
			t.Fatal("Append succeeded on a failing writer")
		}
	}
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "disk full") {
		t.Errorf("reported %v, want the failure once", reported)
	}
	if err := w.Close(); err != nil {
		t.Errorf("Close of a writer that cannot close: %v", err)
	}
}

// TestOpenRefusesLinks: the journal is opened as fsroot opens for appending, so a link planted at
// its name is refused and what it points at is left alone.
func TestOpenRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "journal.jsonl")); err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := Open(root, "journal.jsonl", Options{}); !errors.Is(err, fsroot.ErrNotRegular) {
		t.Errorf("Open through a link = %v, want ErrNotRegular", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target changed: %q", b)
	}
}
