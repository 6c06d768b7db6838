package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/packfs/packfs-mcp/internal/serving"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	must(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestParseServe(t *testing.T) {
	jsonFile := writeFile(t, "c.json", `{"rootPath": "/srv/notes", "permissions": ["read"],
		"security": {"maxFileSize": 1024, "allowedExtensions": [".md"], "blockedPaths": ["drafts"],
		"rateLimiting": {"maxRequests": 10, "windowMs": 1000}}, "semantic": {"chunkSize": 800}}`)
	yamlFile := writeFile(t, "c.yaml", "rootPath: /srv/notes\npermissions: [read, list]\nsecurity:\n  maxFileSize: 2048\n")
	tests := []struct {
		name    string
		args    []string
		want    serving.Config
		wantErr string
	}{
		{name: "flags", args: []string{"--root", "/r", "--allow-write", "--max-file-size", "5"},
			want: serving.Config{RootPath: "/r", Permissions: []string{"read", "search", "list", "write"}, Security: serving.SecurityConfig{MaxFileSize: 5}}},
		{name: "positional root", args: []string{"/r"}, want: serving.Config{RootPath: "/r"}},
		{name: "added extensions", args: []string{"--root", "/r", "--add-extensions", ".txtar, .tmpl"},
			want: serving.Config{RootPath: "/r", Security: serving.SecurityConfig{AddExtensions: []string{".txtar", ".tmpl"}}}},
		{name: "json file", args: []string{"--config", jsonFile}, want: serving.Config{RootPath: "/srv/notes", Permissions: []string{"read"},
			Security: serving.SecurityConfig{MaxFileSize: 1024, AllowedExtensions: []string{".md"}, BlockedPaths: []string{"drafts"},
				RateLimiting: serving.RateLimitConfig{MaxRequests: 10, WindowMs: 1000}}, Semantic: serving.SemanticConfig{ChunkSize: 800}}},
		{name: "yaml file", args: []string{"--config", yamlFile}, want: serving.Config{RootPath: "/srv/notes", Permissions: []string{"read", "list"},
			Security: serving.SecurityConfig{MaxFileSize: 2048}}},
		{name: "flags override the file", args: []string{"--config", yamlFile, "--root", "/other", "--permissions", "read", "--rate-limit", "7", "--rate-window", "2s"},
			want: serving.Config{RootPath: "/other", Permissions: []string{"read"}, Security: serving.SecurityConfig{MaxFileSize: 2048, RateLimiting: serving.RateLimitConfig{MaxRequests: 7, WindowMs: 2000}}}},
		{name: "no root: the client's roots are served", args: nil, want: serving.Config{}},
		{name: "bad permission", args: []string{"--root", "/r", "--permissions", "read,admin"}, wantErr: "setting permissions[1] must be one of: read, write, search, list"},
		{name: "negative limit", args: []string{"--root", "/r", "--rate-limit", "-1"}, wantErr: "setting security.rateLimiting.maxRequests must be at least 0"},
		{name: "huge file limit", args: []string{"--root", "/r", "--max-file-size", "99999999999"}, wantErr: "setting security.maxFileSize must be at most"},
		{name: "unknown setting", args: []string{"--config", writeFile(t, "u.json", `{"rootPath": "/r", "rootpath2": 1}`)}, wantErr: `line 1: unknown setting rootpath2: did you mean rootPath?`},
		{name: "the old message bound key", args: []string{"--config", writeFile(t, "m.json", `{"rootPath": "/r", "http": {"maxRequestBytes": 1024}}`)},
			wantErr: "the message bound is security.maxRequestBytes now"},
		{name: "unknown yaml setting", args: []string{"--config", writeFile(t, "u.yml", "rootPath: /r\nsecurity:\n  maxFileSise: 3\n")}, wantErr: "line 3: unknown setting security.maxFileSise: did you mean security.maxFileSize?"},
		{name: "two roots", args: []string{"/a", "/b"}, wantErr: "unexpected argument"},
		{name: "overlap past the chunk", args: []string{"--config", writeFile(t, "o.json", `{"rootPath": "/r", "semantic": {"chunkSize": 100}}`)},
			wantErr: "setting semantic.overlapSize (200) must be smaller than semantic.chunkSize (100)"},
		{name: "read-only wins over allow-write", args: []string{"--root", "/r", "--allow-write", "--read-only", "--disable-tool", "packfs-file-searcher"},
			want: serving.Config{RootPath: "/r", Permissions: []string{"read", "search", "list", "write"}, ReadOnly: true, DisabledTools: []string{"packfs-file-searcher"}}},
		{name: "unknown tool", args: []string{"--root", "/r", "--disable-tool", "packfs-file-reader,reader"},
			wantErr: "setting disabledTools[1] must be one of: packfs-file-reader, packfs-file-searcher, packfs-file-writer"},
		{name: "journal and http", args: []string{"--root", "/r", "--journal", "/j.jsonl", "--journal-max-content", "-1", "--http", "127.0.0.1:0",
			"--http-allowed-origins", "https://a.example, https://b.example", "--max-request-bytes", "1024", "--http-client-rate-limit", "5"},
			want: serving.Config{RootPath: "/r", Journal: serving.JournalConfig{File: "/j.jsonl", MaxContentBytes: -1}, Security: serving.SecurityConfig{MaxRequestBytes: 1024},
				HTTP: serving.HTTPConfig{Addr: "127.0.0.1:0", AllowedOrigins: []string{"https://a.example", "https://b.example"}, ClientRateLimit: 5}}},
		{name: "request bound from the file", args: []string{"--config", writeFile(t, "b.yaml", "rootPath: /r\nsecurity:\n  maxRequestBytes: 2048\n")},
			want: serving.Config{RootPath: "/r", Security: serving.SecurityConfig{MaxRequestBytes: 2048}}},
		{name: "huge request bound", args: []string{"--root", "/r", "--max-request-bytes", "99999999999"}, wantErr: "setting security.maxRequestBytes must be at most"},
		{name: "the old HTTP flag", args: []string{"--root", "/r", "--http-max-request-bytes", "1024"}, wantErr: "did you mean --max-request-bytes?"},
		{name: "bad journal cap", args: []string{"--root", "/r", "--journal-max-content", "-2"}, wantErr: "setting journal.maxContentBytes must be at least -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseServe(tt.args, &bytes.Buffer{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(serving.Config{})); d != "" {
				t.Errorf("config (-want +got):\n%s", d)
			}
		})
	}
}

func TestRun(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string
		stdoutHas  string
		stderrHas  string
		stdoutNone bool
	}{
		{name: "version", args: []string{"version"}, code: 0, stdout: versionLine() + "\n", stdoutHas: runtime.GOOS + "/" + runtime.GOARCH},
		{name: "--version", args: []string{"--version"}, code: 0, stdout: versionLine() + "\n"},
		{name: "-version", args: []string{"-version"}, code: 0, stdout: versionLine() + "\n"},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderrHas: `unknown command "frobnicate"`, stdoutNone: true},
		{name: "missing root", args: []string{"serve", "--root", filepath.Join(root, "absent")}, code: 2, stderrHas: "absent does not exist: pass an existing folder", stdoutNone: true},
		{name: "serve help", args: []string{"serve", "--help"}, code: 0, stdoutHas: "-allow-write"},
		{name: "help lists the commands", args: []string{"--help"}, code: 0, stdoutHas: "packfs-mcp doctor --root DIR"},
		{name: "help command", args: []string{"help"}, code: 0, stdoutHas: "packfs-mcp journal [--json] FILE"},
		{name: "serve until stdin closes", args: []string{"--root", root}, code: 0, stderrHas: "serving " + root, stdoutNone: true},
		{name: "index inside the root", args: []string{"--root", root, "--index-dir", filepath.Join(root, "idx")}, code: 2, stderrHas: "inside the root", stdoutNone: true},
		{name: "history inside the root", args: []string{"--root", root, "--allow-write", "--no-index", "--history-dir", filepath.Join(root, "hist")}, code: 2, stderrHas: "inside the root", stdoutNone: true},
		{name: "backup-dir, the old name of history-dir", args: []string{"--root", root, "--allow-write", "--no-index", "--backup-dir", filepath.Join(root, "bak")}, code: 2, stderrHas: "is now --history-dir", stdoutNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr %s", code, tt.code, stderr.String())
			}
			if tt.stdout != "" && stdout.String() != tt.stdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.stdout)
			}
			if !strings.Contains(stdout.String(), tt.stdoutHas) {
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tt.stdoutHas)
			}
			if tt.stdoutNone && stdout.Len() != 0 {
				t.Errorf("stdout must carry only the protocol, got %q", stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.stderrHas) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.stderrHas)
			}
		})
	}
}

// TestPipedCallsAreAnswered writes requests and closes the input at once, as a shell pipe does:
// every request must still get its answer before the server exits.
func TestPipedCallsAreAnswered(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.md"), []byte("hello\n"), 0o644))
	var in strings.Builder
	in.WriteString(initializeLine)
	for i := 2; i < 12; i++ {
		in.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"packfs-file-reader","arguments":{"purpose":"read","target":{"path":"a.md"}}}}` + "\n")
	}
	in.WriteString("not json\n")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--root", root}, strings.NewReader(in.String()), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for i := 1; i < 12; i++ {
		if !strings.Contains(stdout.String(), `"id":`+strconv.Itoa(i)+`,`) {
			t.Errorf("no answer to request %d:\n%s", i, stdout.String())
		}
	}
	if got := strings.Count(stdout.String(), `\"content\":\"hello\\n\"`); got != 10 {
		t.Errorf("%d reads answered with the content, want 10", got)
	}
}

// TestConfigMovedKey checks that the hint on where http.maxRequestBytes went is given for the old
// key, in JSON and YAML, and not for a bad value of the key where it belongs now.
func TestConfigMovedKey(t *testing.T) {
	const hint = "the message bound is security.maxRequestBytes now"
	tests := []struct {
		name, file, content string
		hint                bool
	}{
		{"old key, json", "o.json", `{"rootPath": "/r", "http": {"maxRequestBytes": 1024}}`, true},
		{"old key, yaml", "o.yaml", "rootPath: /r\nhttp:\n  maxRequestBytes: 1024\n", true},
		{"bad value of the new key", "n.json", `{"rootPath": "/r", "security": {"maxRequestBytes": "1MB"}}`, false},
	}
	for _, tt := range tests {
		_, err := parseServe([]string{"--config", writeFile(t, tt.file, tt.content)}, &bytes.Buffer{})
		if err == nil {
			t.Fatalf("%s: no error", tt.name)
		}
		if got := strings.Contains(err.Error(), hint); got != tt.hint {
			t.Errorf("%s: %v; hint given = %t, want %t", tt.name, err, got, tt.hint)
		}
	}
}

// TestConfigErrors checks that a config file's mistakes are answered as the flags answer theirs:
// the line, the setting in the file's names, what it takes, the nearest known setting.
func TestConfigErrors(t *testing.T) {
	tests := []struct{ file, text, want string }{
		{"a.yaml", "permission: read\n", "line 1: unknown setting permission: did you mean permissions?"},
		{"b.yaml", "security:\n  maxFileSize: 10MB\n", `line 2: security.maxFileSize takes a whole number of bytes, such as 10485760 for 10 MiB, not "10MB"`},
		{"c.json", "{\"security\": {\"maxFileSize\": 1,\n \"x\": [}\n", "line 2, column 9: not valid JSON"},
		{"d.yaml", "readOnly: yes please\n", `line 1: readOnly takes true or false, not "yes please"`},
		{"e.json", `{"security": {"rateLimiting": {"maxRequests": [1]}}}`, "line 1: security.rateLimiting.maxRequests takes a whole number, not a list"},
		{"f.yaml", "semantic: on\n", `line 1: semantic takes settings by name`},
		{"g.yaml", "http:\n  maxRequestBytes: 10\n", "line 2: unknown setting http.maxRequestBytes (the message bound is security.maxRequestBytes now"},
		{"h.yaml", "roots:\n  - {name: n, dir: /x}\n", "line 2: unknown setting roots[0].dir (known here: name, path)"},
	}
	for _, tt := range tests {
		_, err := loadConfig(writeFile(t, tt.file, tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.file, err, tt.want)
		}
	}
	// A list may be written as the flag takes it.
	c, err := loadConfig(writeFile(t, "p.yaml", "permissions: read,write,search,list\nrootPath: 2026\n"))
	if err != nil || strings.Join(c.Permissions, " ") != "read write search list" || c.RootPath != "2026" {
		t.Errorf("permissions as the flag writes them: %+v, %v", c.Permissions, err)
	}
}

// TestSampleConfig loads examples/config.yaml, the commented sample, and checks that it reads as
// the values it sets, and that it validates.
func TestSampleConfig(t *testing.T) {
	c, err := loadConfig(filepath.Join("..", "..", "examples", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("the sample does not validate: %v", err)
	}
	if c.RootPath != "/home/you/Notes" || c.Security.MaxFileSize != 10485760 || c.Semantic.ChunkSize != 2000 || c.HTTP.ClientRateLimit != 600 {
		t.Errorf("the sample reads as %+v", c)
	}
}
