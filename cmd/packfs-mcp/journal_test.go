package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/packfs/packfs-mcp/audit"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/tools"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// TestJournal runs the built server with --journal, makes calls that succeed, fail and are refused,
// checks each journal line, then summarizes the journal with the journal subcommand.
func TestJournal(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.dir, "audit")
	must(t, os.Mkdir(dir, 0o700))
	file := filepath.Join(dir, "journal.jsonl")
	s := start(t, f, nil, "--no-index", "--journal", file)
	began := time.Now()

	type want struct {
		tool        string
		args        map[string]any
		state, code string
		path        string // metadata.path: the path as the call named it
	}
	read := func(p string) map[string]any {
		return map[string]any{"purpose": "read", "target": map[string]any{"path": p}}
	}
	answered := []want{
		{tools.ReaderName, read("notes/a.md"), audit.StateOutput, "", "notes/a.md"},
		{tools.SearcherName, map[string]any{"purpose": "list", "target": map[string]any{"path": "notes"}}, audit.StateOutput, "", "notes"},
		{tools.ReaderName, read("notes/missing.md"), audit.StateError, errs.CodeNotFound, "notes/missing.md"},
		{tools.ReaderName, read("../outside/secret.txt"), audit.StateDenied, errs.CodeOutsideRoot, "../outside/secret.txt"},
		{tools.ReaderName, read(".env"), audit.StateDenied, errs.CodeBlocked, ".env"},
	}
	for _, w := range answered {
		s.call(w.tool, w.args)
	}
	// The writer, not offered while writing is off, answers a PERMISSION_DENIED error result; a tool
	// that does not exist gets a protocol error. The journal records both.
	refused := []want{
		{tools.WriterName, map[string]any{"purpose": "create", "target": map[string]any{"path": "new.md"}, "content": "x"}, audit.StateDenied, errs.CodePermissionDenied, "new.md"},
		{"packfs-no-such-tool", map[string]any{"purpose": "read"}, audit.StateError, "UNKNOWN_TOOL", ""},
	}
	for _, w := range refused {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = w.tool, w.args
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := s.c.CallTool(ctx, req)
		cancel()
		if err == nil && !res.IsError {
			t.Fatalf("calling %s succeeded", w.tool)
		}
	}
	wants := append(answered, refused...)

	recs := testfs.ReadJSONLines[audit.Record](t, file, audit.Check)
	if len(recs) != len(wants) {
		t.Fatalf("%d journal lines, want %d", len(recs), len(wants))
	}
	ids := map[string]bool{}
	for i, rec := range recs {
		w, p, md := wants[i], rec.Part(), rec.Metadata
		t.Run(fmt.Sprintf("%d %s %s", i, w.tool, w.code), func(t *testing.T) {
			got := []string{p.ToolName, p.State, md.Code, md.Path, md.Session}
			if diff := cmp.Diff([]string{w.tool, w.state, w.code, w.path, "stdio"}, got); diff != "" {
				t.Errorf("tool, state, code, path, session (-want +got):\n%s", diff)
			}
			var input map[string]any
			must(t, json.Unmarshal(p.Input, &input))
			if diff := cmp.Diff(w.args, input); diff != "" {
				t.Errorf("input (-sent +journalled):\n%s", diff)
			}
			// The JSON-RPC id, as a string, once each.
			if !regexp.MustCompile(`^[0-9]+$`).MatchString(p.ToolCallID) || ids[p.ToolCallID] {
				t.Errorf("toolCallId %q is not a fresh JSON-RPC id", p.ToolCallID)
			}
			ids[p.ToolCallID] = true
			if md.Time.Before(began.Add(-time.Second)) || md.Time.After(time.Now()) || md.DurationMs < 0 {
				t.Errorf("time %v, duration %vms out of range", md.Time, md.DurationMs)
			}
			if purpose, _ := w.args["purpose"].(string); md.Purpose != purpose {
				t.Errorf("purpose %q, want %q", md.Purpose, purpose)
			}
			switch p.State {
			case audit.StateOutput:
				var out map[string]any
				must(t, json.Unmarshal(p.Output, &out))
				if out["success"] != true {
					t.Errorf("output is not the flat result: %s", p.Output)
				}
			case audit.StateDenied:
				if p.Approval == nil || p.Approval.Approved || p.Approval.Reason == "" || p.Approval.ID == "" {
					t.Errorf("denial without a reason: %+v", p.Approval)
				}
			case audit.StateError:
				if p.ErrorText == "" {
					t.Error("error without its text")
				}
			}
		})
	}
	var out struct{ Content string }
	must(t, json.Unmarshal(recs[0].Part().Output, &out))
	if out.Content != "# A\nhello world\nsecond line\n" {
		t.Errorf("the read's content is journalled as %q", out.Content)
	}
	if r := recs[2].Part().ErrorText; !strings.Contains(r, "does not exist") {
		t.Errorf("NOT_FOUND error text %q", r)
	}
	if r := recs[5].Part().Reason(); !strings.Contains(r, "writing is off") || !strings.Contains(r, "--allow-write") {
		t.Errorf("the writer's denial reason %q", r)
	}
	raw, err := os.ReadFile(file)
	must(t, err)
	if bytes.Contains(raw, []byte(marker)) {
		t.Error("the journal holds the outside marker")
	}
	fi, err := os.Stat(file)
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v, want 0600", fi.Mode().Perm())
	}

	// The summary, through the binary, flags after the file.
	text := runJournalBin(t, "journal", file)
	for _, line := range []string{
		file + ": 7 calls from ",
		": 2 answered, 2 errors, 3 denied",
		"packfs-file-reader    read     4      1   1       2",
		"packfs-file-searcher  list     1      1   0       0",
		"packfs-file-writer    create   1      0   0       1",
		"packfs-no-such-tool   read     1      0   1       0",
		"PATH_OUTSIDE_ROOT  1      ../outside/secret.txt",
		"PATH_BLOCKED       1      .env",
		"PERMISSION_DENIED  1      new.md                 writing is off",
		"NOT_FOUND     1      notes/missing.md  \"notes/missing.md\" does not exist",
		"UNKNOWN_TOOL  1      -                 tool 'packfs-no-such-tool' not found",
		"Slowest calls",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("summary lacks %q:\n%s", line, text)
		}
	}
	var sum audit.Summary
	must(t, json.Unmarshal([]byte(runJournalBin(t, "journal", file, "--json", "--top", "3")), &sum))
	got := []int{sum.Calls, sum.OK, sum.Failed, sum.Denied, sum.Malformed, len(sum.Denials), len(sum.Failures), len(sum.Slowest)}
	if diff := cmp.Diff([]int{7, 2, 2, 3, 0, 3, 2, 3}, got); diff != "" {
		t.Errorf("calls, ok, failed, denied, malformed, denial codes, error codes, slowest (-want +got):\n%s", diff)
	}
	s.checkNoLeak()
}

// runJournalBin runs the built binary and returns its stdout, failing on a non-zero exit.
func runJournalBin(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(binPath, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("packfs-mcp %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// TestJournalConcurrentCalls makes many calls at once through one client: every one must be
// journalled on a whole line, with its own id.
func TestJournalConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	file := filepath.Join(f.dir, "journal.jsonl")
	s := start(t, f, nil, "--no-index", "--journal", file)
	const goroutines, calls = 8, 8
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				req := mcp.CallToolRequest{}
				req.Params.Name = tools.ReaderName
				path := "big.txt" // a large answer: 20000 lines, cut in the journal
				if (g+i)%4 != 0 {
					path = "notes/b.md"
				}
				req.Params.Arguments = map[string]any{"purpose": "read", "target": map[string]any{"path": path}}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				_, err := s.c.CallTool(ctx, req)
				cancel()
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	recs := testfs.ReadJSONLines[audit.Record](t, file, audit.Check)
	ids := map[string]bool{}
	for _, rec := range recs {
		ids[rec.Part().ToolCallID] = true
		if rec.Part().State != audit.StateOutput && rec.Metadata.Code != errs.CodeRateLimited {
			t.Errorf("call %s: %s %s", rec.Part().ToolCallID, rec.Part().State, rec.Metadata.Code)
		}
	}
	if len(recs) != goroutines*calls || len(ids) != goroutines*calls {
		t.Errorf("%d lines, %d distinct ids, want %d", len(recs), len(ids), goroutines*calls)
	}
}

// TestJournalContent: file contents are journalled up to --journal-max-content bytes each, cut
// with a marker and listed in metadata.truncated; -1 journals none.
func TestJournalContent(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("hello world\n"), 0o644))
	req := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"}}}}` + "\n"
	tests := []struct {
		max, want string
		cut       []string
	}{
		{"5", "hello[…7 more bytes not recorded]", []string{"output.content"}},
		{"-1", "[…12 more bytes not recorded]", []string{"output.content"}},
		{"0", "hello world\n", nil}, // the default, 4096
	}
	for _, tt := range tests {
		t.Run(tt.max, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "j.jsonl")
			var stdout, stderr bytes.Buffer
			code := run([]string{"--root", root, "--no-index", "--journal", file, "--journal-max-content", tt.max},
				strings.NewReader(initializeLine+req), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if !strings.Contains(stdout.String(), `hello world\\n`) {
				t.Errorf("the client's answer was cut too: %s", stdout.String())
			}
			recs := testfs.ReadJSONLines[audit.Record](t, file, audit.Check)
			if len(recs) != 1 {
				t.Fatalf("%d lines, want 1", len(recs))
			}
			var out struct{ Content string }
			must(t, json.Unmarshal(recs[0].Part().Output, &out))
			if out.Content != tt.want {
				t.Errorf("content %q, want %q", out.Content, tt.want)
			}
			if diff := cmp.Diff(tt.cut, recs[0].Metadata.Truncated); diff != "" {
				t.Errorf("metadata.truncated (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJournalPlace: the journal must lie outside the root, whatever links lead to it, and be a
// regular file; otherwise the server refuses to start, exit code 2, and creates nothing.
func TestJournalPlace(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	outside := filepath.Join(dir, "outside")
	must(t, os.MkdirAll(filepath.Join(root, "logs"), 0o755))
	must(t, os.MkdirAll(outside, 0o755))
	must(t, os.Symlink(filepath.Join(root, "logs"), filepath.Join(dir, "into-root")))
	must(t, os.Symlink(filepath.Join(outside, "target.jsonl"), filepath.Join(outside, "link.jsonl")))
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("a\n"), 0o644))
	must(t, os.Link(filepath.Join(root, "a.md"), filepath.Join(outside, "hard.jsonl")))
	tests := []struct {
		name, journal string
		code          int
		stderrHas     string
	}{
		{"inside the root", filepath.Join(root, "j.jsonl"), 2, "is inside the root"},
		{"in a folder of the root", filepath.Join(root, "logs", "j.jsonl"), 2, "is inside the root"},
		{"through a link into the root", filepath.Join(dir, "into-root", "j.jsonl"), 2, "is inside the root"},
		{"dot-dot, inside the root", filepath.Join(root, "logs", "..", "j.jsonl"), 2, "is inside the root"},
		{"folder missing", filepath.Join(dir, "nope", "j.jsonl"), 2, "its folder must exist"},
		{"a symbolic link", filepath.Join(outside, "link.jsonl"), 2, "not a regular file"},
		{"a hard link to a file of the root", filepath.Join(outside, "hard.jsonl"), 2, "more than one hard link"},
		{"a folder", outside, 2, "is a directory"},
		{"outside", filepath.Join(outside, "j.jsonl"), 0, "serving"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"--root", root, "--no-index", "--journal", tt.journal}, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderrHas) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.stderrHas)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
	for _, p := range []string{filepath.Join(root, "j.jsonl"), filepath.Join(root, "logs", "j.jsonl"), filepath.Join(outside, "target.jsonl")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.md")); string(b) != "a\n" {
		t.Errorf("a file of the root changed: %q", b)
	}
}

// TestJournalCall: the call subcommand journals its one call with the call's own id.
func TestJournalCall(t *testing.T) {
	_, flags := callRoot(t)
	file := filepath.Join(t.TempDir(), "j.jsonl")
	flags = append(flags, "--no-index", "--journal", file)
	args := `{"purpose":"read","target":{"path":"notes/a.md"}}`
	for _, shape := range []string{"openai", "mcp"} {
		if code, _, stderr := callOut(t, inShape(t, shape, "call_7", tools.ReaderName, args), flags...); code != 0 {
			t.Fatalf("%s: exit %d: %s", shape, code, stderr)
		}
	}
	recs := testfs.ReadJSONLines[audit.Record](t, file, audit.Check)
	if len(recs) != 2 {
		t.Fatalf("%d lines, want 2", len(recs))
	}
	if id := recs[0].Part().ToolCallID; id != "call_7" {
		t.Errorf("an OpenAI call's toolCallId is %q, want call_7", id)
	}
	if id := recs[1].Part().ToolCallID; !strings.HasPrefix(id, "call-") {
		t.Errorf("a call without an id got toolCallId %q, want a generated call-…", id)
	}
	for _, rec := range recs {
		if rec.Part().State != audit.StateOutput || rec.Metadata.Session != "" || rec.Metadata.Path != "notes/a.md" {
			t.Errorf("record %+v", rec)
		}
	}
}

// TestJournalCmd covers the journal subcommand's usage errors and help.
func TestJournalCmd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "j.jsonl")
	must(t, os.WriteFile(file, []byte("not a record\n"), 0o600))
	tests := []struct {
		name      string
		args      []string
		code      int
		stdoutHas string
		stderrHas string
	}{
		{"help", []string{"--help"}, 0, "Usage: packfs-mcp journal [--json] [--top N] FILE", ""},
		{"no file", nil, 2, "", "name one journal file"},
		{"two files", []string{file, file}, 2, "", "name one journal file"},
		{"missing file", []string{filepath.Join(dir, "absent.jsonl")}, 2, "", "cannot read"},
		{"missing folder", []string{filepath.Join(dir, "nope", "j.jsonl")}, 2, "", "cannot read"},
		{"bad top", []string{"--top", "0", file}, 2, "", "--top must be at least 1"},
		{"unknown flag", []string{"--frob", file}, 2, "", "flag provided but not defined"},
		{"mistyped flag", []string{"--jsn", file}, 2, "", "did you mean --json?"},
		{"not a journal", []string{file}, 0, "skipped 1 line that is not a journal record", ""},
		{"json after the file", []string{file, "--json"}, 0, `"malformed": 1`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"journal"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.stdoutHas) || !strings.Contains(stderr.String(), tt.stderrHas) {
				t.Errorf("stdout %q, stderr %q; want %q and %q", stdout.String(), stderr.String(), tt.stdoutHas, tt.stderrHas)
			}
		})
	}
}
