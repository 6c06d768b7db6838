//go:build windows

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// shortAlias returns the 8.3 alias the volume gives the last component of the host path p, or ""
// when it gives none.
func shortAlias(t *testing.T, p string) string {
	t.Helper()
	long, err := windows.UTF16PtrFromString(p)
	mustOK(t, err)
	buf := make([]uint16, 1024)
	n, err := windows.GetShortPathName(long, &buf[0], uint32(len(buf)))
	if err != nil || n == 0 {
		return ""
	}
	short := windows.UTF16ToString(buf[:n])
	if base := short[strings.LastIndexAny(short, `\/`)+1:]; !strings.EqualFold(base, filepath.Base(p)) {
		return base
	}
	return ""
}

// TestShortNamesReachNoBlockedFolder checks that no purpose reaches a blocked folder through the
// 8.3 alias the volume gives it (_DOC~2XZ for .docker under Wine, DOCKER~1 on NTFS): each is
// refused as the folder's own name is, and nothing in it changes.
func TestShortNamesReachNoBlockedFolder(t *testing.T) {
	env := newPolicyEnv(t, security.PolicyConfig{WindowsNames: true},
		".docker/config.json={\"auths\":\"SECRET\"}\n", "node_modules/pkg/README.md=# pkg\n", "notes/a.md=a\n")
	docker := shortAlias(t, filepath.Join(env.root, ".docker"))
	nm := shortAlias(t, filepath.Join(env.root, "node_modules"))
	if docker == "" || nm == "" {
		t.Skipf("this volume gives no 8.3 names (%q %q)", docker, nm)
	}
	t.Logf("aliases: %s %s", docker, nm)
	call := func(tool, purpose, p string, extra map[string]any) map[string]any {
		a := map[string]any{"purpose": purpose, "target": map[string]any{"path": p}}
		for k, v := range extra {
			a[k] = v
		}
		return env.call(t, tool, a).Result
	}
	content := map[string]any{"content": "x\n"}
	tests := []struct {
		name string
		got  func() map[string]any
	}{
		{"read", func() map[string]any { return call(ReaderName, "read", docker+"/config.json", nil) }},
		{"metadata", func() map[string]any { return call(ReaderName, "metadata", nm+"/pkg/README.md", nil) }},
		{"list", func() map[string]any { return call(SearcherName, "list", docker, nil) }},
		{"search_content", func() map[string]any {
			return call(SearcherName, "search_content", nm, map[string]any{"target": map[string]any{"path": nm, "query": "pkg"}})
		}},
		{"create", func() map[string]any { return call(WriterName, "create", docker+"/new.json", content) }},
		{"update", func() map[string]any { return call(WriterName, "update", docker+"/config.json", content) }},
		{"append", func() map[string]any { return call(WriterName, "append", nm+"/pkg/README.md", content) }},
		{"edit", func() map[string]any {
			return call(WriterName, "edit", docker+"/config.json", map[string]any{"edits": []any{map[string]any{"oldText": "SECRET", "newText": "x"}}})
		}},
		{"delete", func() map[string]any { return call(WriterName, "delete", nm+"/pkg/README.md", nil) }},
		{"delete folder", func() map[string]any {
			return call(WriterName, "delete", docker, map[string]any{"options": map[string]any{"recursive": true}})
		}},
		{"mkdir", func() map[string]any { return call(WriterName, "mkdir", docker+"/sub", nil) }},
		{"move into", func() map[string]any {
			return call(WriterName, "move", "notes/a.md", map[string]any{"target": map[string]any{"path": "notes/a.md", "destination": docker + "/a.md"}})
		}},
		{"copy out", func() map[string]any {
			return call(WriterName, "copy", docker+"/config.json", map[string]any{"target": map[string]any{"path": docker + "/config.json", "destination": "notes/leak.json"}})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.got(); got["code"] != errs.CodeBlocked {
				t.Errorf("%v, want %s", got, errs.CodeBlocked)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(env.root, ".docker", "config.json")); err != nil || !strings.Contains(string(b), "SECRET") {
		t.Errorf(".docker/config.json = %q, %v: want it untouched", b, err)
	}
	for _, p := range []string{".docker/new.json", ".docker/sub", ".docker/a.md", "notes/leak.json"} {
		if _, err := os.Stat(filepath.Join(env.root, filepath.FromSlash(p))); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	if _, err := os.Stat(filepath.Join(env.root, "node_modules", "pkg", "README.md")); err != nil {
		t.Errorf("node_modules/pkg/README.md: %v, want it kept", err)
	}
}
