package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysUnderInnocentNames serves, through the binary with writing on, private keys saved under
// names the policy allows (notes.txt, a note in a folder): no purpose reads, shows, finds, indexes
// or edits them, each refused or left out as a blocked name is, while a note that only quotes a
// key's header is served.
func TestKeysUnderInnocentNames(t *testing.T) {
	f := newFixture(t)
	const body = "MIIEowIBAAKCAQEAsecretKEYmaterial\n"
	files := map[string]string{
		"notes.txt":          "-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\n",
		"misc/deploy.md":     "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "-----END OPENSSH PRIVATE KEY-----\n",
		"misc/putty.txt":     "PuTTY-User-Key-File-3: ssh-ed25519\n" + body,
		"docs/tls-how-to.md": "# TLS\n\nA key file starts with `-----BEGIN RSA PRIVATE KEY-----`.\n",
	}
	for name, content := range files {
		p := filepath.Join(f.root, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	s := start(t, f, nil, "--allow-write")
	waitIndexed(t, s)
	for _, name := range []string{"notes.txt", "misc/deploy.md", "misc/putty.txt"} {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{reader, access("read", name)},
			{writer, intent("edit", name, map[string]any{"edits": []any{map[string]any{"oldText": "secret", "newText": "x"}}})},
			{writer, intent("append", name, map[string]any{"content": "more\n"})},
			{writer, intent("update", name, map[string]any{"content": "replaced\n"})},
		} {
			got, _ := s.call(c.tool, c.args)
			if msg, _ := got["error"].(string); got["code"] != "PATH_BLOCKED" || !strings.Contains(msg, "private key") {
				t.Errorf("%s %s: %v, want PATH_BLOCKED naming the private key", c.args["purpose"], name, got)
			}
		}
	}
	for _, args := range []map[string]any{
		{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "secretKEYmaterial"}, "options": map[string]any{"includeContent": true}},
		{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "secretKEYmaterial"}, "options": map[string]any{"includeContent": true}},
		{"purpose": "list", "target": map[string]any{"path": ".", "criteria": map[string]any{"content": "secretKEYmaterial"}}, "options": map[string]any{"recursive": true}},
	} {
		res, _ := s.call(searcher, args)
		if files, _ := res["files"].([]any); res["success"] != true || len(files) > 0 {
			t.Errorf("%s by the key's text: %v, want success and no file", args["purpose"], res)
		}
	}
	if res, _ := s.call(reader, access("read", "docs/tls-how-to.md")); res["success"] != true {
		t.Errorf("a note quoting a key's header: %v", res)
	}
	raw, _ := json.Marshal(s.seen)
	if strings.Contains(string(raw), "secretKEYmaterial") {
		t.Error("an answer carries the key's material")
	}
	for name, content := range files {
		if b, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(name))); err != nil || string(b) != content {
			t.Errorf("%s changed: %q (%v)", name, b, err)
		}
	}
}
