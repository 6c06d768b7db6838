package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// versionOf is the version the server must report for content: the first 16 hex digits of its
// SHA-256, computed here rather than by the server's code.
func versionOf(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:8])
}

// TestConflictEndToEnd is a stale write's story through the built binary: the agent reads a note, the
// person saves the note in an editor, and the agent's update with the version it read fails with
// CONFLICT, the version now on disk and its text, and the person's text kept. The agent merges
// into that text, with no read between, and its update with the new version lands, and returns the
// version the next write needs.
func TestConflictEndToEnd(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t)
			s := start(t, f, era.opts, "--allow-write")
			const name = "notes/a.md"
			p := filepath.Join(f.root, name)

			read, _ := s.call(reader, access("read", name))
			v0, _ := read["version"].(string)
			if v0 != versionOf("# A\nhello world\nsecond line\n") {
				t.Fatalf("read version = %q, want the version of the file's content", v0)
			}
			person := "# A\nhello world\nsecond line\nthe person's line, saved in an editor\n"
			must(t, os.WriteFile(p, []byte(person), 0o644))

			update := func(version, content string) (map[string]any, bool) {
				return s.call(writer, map[string]any{"purpose": "update", "content": content,
					"target": map[string]any{"path": name, "version": version}})
			}
			res, isErr := update(v0, "# A\nthe agent's rewrite\n")
			if !isErr || res["code"] != "CONFLICT" || res["field"] != "target.version" {
				t.Fatalf("update after the person's save = %v, want CONFLICT on target.version", res)
			}
			if res["currentVersion"] != versionOf(person) {
				t.Errorf("currentVersion = %v, want %s, the version of the person's text", res["currentVersion"], versionOf(person))
			}
			if msg, _ := res["error"].(string); !strings.Contains(msg, "merge your change into currentContent") || !strings.Contains(msg, "retry with target.version "+versionOf(person)) {
				t.Errorf("error %q gives no next step", msg)
			}
			if b, err := os.ReadFile(p); err != nil || string(b) != person {
				t.Fatalf("%s = %q (%v), want the person's text kept", name, b, err)
			}
			current, _ := res["currentContent"].(string)
			if current != person {
				t.Fatalf("currentContent = %q, want the person's text", current)
			}

			merged := current + "the agent's line\n"
			res, isErr = update(res["currentVersion"].(string), merged)
			if isErr || res["version"] != versionOf(merged) {
				t.Fatalf("update with the new version = %v, want success and the merged text's version", res)
			}
			if b, _ := os.ReadFile(p); string(b) != merged {
				t.Errorf("%s = %q, want the merged text", name, b)
			}
			meta, _ := s.call(reader, access("metadata", name))
			if meta["version"] != versionOf(merged) {
				t.Errorf("metadata version = %v, want the one the update returned", meta["version"])
			}
			s.checkNoLeak()
		})
	}
}
