package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/tools/errs"
)

// tooLargeBytes bounds what a call on a file over the size limit may allocate: the call's decoding,
// checks and answer, 9 to 22 KB on 2026-11-24; nothing that grows with the file or the limit
// ([fsroot.DefaultMaxFileSize]).
const tooLargeBytes = 128 << 10

// TestTooLargeAllocatesLittle is case D28 through the tools: a sparse 10 GB file is refused from its
// size by every purpose that reads content, or skipped by searches, without a buffer of its size or
// of the limit's.
func TestTooLargeAllocatesLittle(t *testing.T) {
	e := newRaceEnv(t, "small.md=needle\n")
	f, err := os.Create(filepath.Join(e.root, "sparse.md"))
	mustOK(t, err)
	mustOK(t, f.Truncate(10<<30))
	mustOK(t, f.Close())
	tests := []struct {
		name string
		tool string
		args map[string]any
		code string // "" for success
	}{
		{"read", ReaderName, toolArgs("read", "sparse.md", nil), errs.CodeTooLarge},
		{"read base64", ReaderName, map[string]any{"purpose": "read", "target": map[string]any{"path": "sparse.md", "encoding": "base64"}}, errs.CodeTooLarge},
		{"edit", WriterName, toolArgs("edit", "sparse.md", map[string]any{"edits": []map[string]any{{"oldText": "a", "newText": "b"}}}), errs.CodeTooLarge},
		{"append", WriterName, writeArgs("append", "sparse.md", "more\n", false), errs.CodeTooLarge},
		{"search_content", SearcherName, searchArgs(".", "needle"), ""},
		{"list by content", SearcherName, map[string]any{"purpose": "list", "target": map[string]any{
			"path": ".", "criteria": map[string]any{"content": "needle"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.call(tt.tool, tt.args) // warm up: first-call caches are not the file's cost
			var out map[string]any
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out = e.call(tt.tool, tt.args)
			runtime.ReadMemStats(&after)
			if code, _ := out["code"].(string); code != tt.code {
				t.Fatalf("code %q, want %q: %v", code, tt.code, out)
			}
			if bytes := after.TotalAlloc - before.TotalAlloc; bytes > tooLargeBytes {
				t.Errorf("the call allocated %d bytes, want at most %d", bytes, tooLargeBytes)
			}
		})
	}
}

// metadataBytes bounds what metadata may allocate on a file near the size limit: its buffer of at
// most 64 KiB, the sniffed head, the decoding and the answer; nothing that grows with the file.
const metadataBytes = 256 << 10

// TestMetadataStreams checks that metadata counts a large file's lines while it streams by, in a
// bounded buffer, rather than holding the file: an 8 MiB text file costs what a small one does, and
// the answer still says how many lines it has and that it is text.
func TestMetadataStreams(t *testing.T) {
	const lines = 8 << 20 / 64
	e := newRaceEnv(t, "big.md="+strings.Repeat(strings.Repeat("x", 63)+"\n", lines))
	args := toolArgs("metadata", "big.md", nil)
	e.call(ReaderName, args) // warm up: first-call caches are not the file's cost
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := e.call(ReaderName, args)
	runtime.ReadMemStats(&after)
	if out["success"] != true || out["lines"] != float64(lines) || out["binary"] == true || out["mediaType"] != "text/markdown" {
		t.Fatalf("metadata = %v, want %d lines of text/markdown", out, lines)
	}
	if bytes := after.TotalAlloc - before.TotalAlloc; bytes > metadataBytes {
		t.Errorf("metadata of an 8 MiB file allocated %d bytes, want at most %d", bytes, metadataBytes)
	}
}
