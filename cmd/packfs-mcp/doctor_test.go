package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoctor(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	must(t, os.MkdirAll(filepath.Join(dir, "cache"), 0o700)) // else the state goes to the user's /var/tmp folder
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	root := filepath.Join(dir, "root")
	secrets := filepath.Join(dir, "secrets")
	for name, content := range map[string]string{
		"root/notes/a.md":    "# A\n",
		"root/.env":          "TOKEN=x\n",
		"root/tool.exe":      "MZ",
		"secrets/.env":       "TOKEN=x\n",
		"secrets/id_rsa.pem": "key\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	linked := filepath.Join(dir, "linked")
	must(t, os.MkdirAll(linked, 0o755))
	must(t, os.WriteFile(filepath.Join(linked, "a.md"), []byte("# A\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "outside.md"), []byte("# Outside\n"), 0o644))
	must(t, os.Link(filepath.Join(dir, "outside.md"), filepath.Join(linked, "b.md")))
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer busy.Close()
	tests := []struct {
		name    string
		args    []string
		code    int
		want    []string // lines or fragments the output must hold
		notWant []string
	}{
		{name: "defaults", args: []string{"--root", root}, code: 0, want: []string{
			"permissions  read,search,list (writing off: add --allow-write to allow it)",
			"tools        packfs-file-reader, packfs-file-searcher\n",
			"none yet: built in the background at start",
			"outside      changes by other programs reach the index ",
			"history      off (writing is off)",
			"ok    the root is a folder that can be listed (3 entries at its top)",
			"ok    3 files seen: 1 open to the tools; 1 named in listings but not opened (a type the tools do not open, such as tool.exe); some hidden as blocked (such as .env)",
		}, notWant: []string{"writing works"}},
		{name: "writer", args: []string{"--root", root, "--allow-write", "--journal", filepath.Join(dir, "j.jsonl")}, code: 0, want: []string{
			"tools        packfs-file-reader, packfs-file-searcher, packfs-file-writer\n",
			"ok    writing works",
			"journal      " + filepath.Join(dir, "j.jsonl"),
		}},
		{name: "read-only wins", args: []string{"--root", root, "--allow-write", "--read-only"}, code: 0, want: []string{
			"(read-only: --read-only)",
			"tools        packfs-file-reader, packfs-file-searcher\n",
		}, notWant: []string{"packfs-file-writer", "writing works"}},
		{name: "disabled tool", args: []string{"--root", root, "--disable-tool", "packfs-file-searcher"}, code: 0, want: []string{
			"tools        packfs-file-reader, (disabled: packfs-file-searcher)",
		}},
		{name: "no index", args: []string{"--root", root, "--no-index"}, code: 0, want: []string{"index        off (--no-index)"}},
		{name: "missing root", args: []string{"--root", filepath.Join(dir, "absent"), "--allow-write"}, code: 1, want: []string{
			"root         " + filepath.Join(dir, "absent") + " (cannot be opened: see the checks)",
			"permissions  read,write,search,list\n",
			"tools        packfs-file-reader, packfs-file-searcher, packfs-file-writer\n",
			"index        not opened: there is no root",
			"history      not opened: there is no root",
			"ok    go",
			"FAIL  root " + filepath.Join(dir, "absent") + " does not exist: pass an existing folder with --root",
		}, notWant: []string{"writing works"}},
		{name: "root is a file", args: []string{"--root", filepath.Join(root, "notes", "a.md")}, code: 1, want: []string{
			"FAIL  root " + filepath.Join(root, "notes", "a.md") + " is not a folder",
		}},
		{name: "hard links", args: []string{"--root", linked}, code: 0, want: []string{
			"ok    2 files seen: 1 open to the tools; some hidden as having more than one hard link (such as b.md; --allow-hard-links lets them in)",
		}},
		{name: "hard links allowed", args: []string{"--root", linked, "--allow-hard-links"}, code: 0, want: []string{
			"ok    2 files seen: 2 open to the tools\n",
		}},
		{name: "index folder unusable", args: []string{"--root", root, "--index-dir", filepath.Join(dir, "outside.md", "index")}, code: 1, want: []string{
			"FAIL  the index folder " + filepath.Join(dir, "outside.md", "index") + " cannot be made or written in " + filepath.Join(dir, "outside.md"),
			"the server would not start; choose another with --index-dir",
		}},
		{name: "index and history folders", args: []string{"--root", root, "--allow-write"}, code: 0, want: []string{
			"ok    the index folder " + filepath.Join(dir, "cache", "packfs-mcp", "index"),
			"ok    the history folder " + filepath.Join(dir, "data", "packfs-mcp", "history"),
		}},
		{name: "HTTP address free", args: []string{"--root", root, "--http", "127.0.0.1:0"}, code: 0, want: []string{
			"ok    HTTP address 127.0.0.1:0 can be listened on (no token: only this machine can connect)",
		}},
		{name: "HTTP address taken", args: []string{"--root", root, "--http", busy.Addr().String()}, code: 1, want: []string{
			"FAIL  HTTP address " + busy.Addr().String() + " cannot be listened on",
		}},
		{name: "nothing to serve", args: []string{"--root", secrets}, code: 1, want: []string{
			"FAIL  2 files seen: 0 open to the tools",
			"nothing to serve: check --root and --allowed-extensions",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"doctor"}, tt.args...), strings.NewReader(""), &out, &errb)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out.String(), errb.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("output has %q:\n%s", w, out.String())
				}
			}
		})
	}
	// The write check leaves nothing behind.
	entries, err := os.ReadDir(root)
	must(t, err)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".packfs") {
			t.Errorf("doctor left %s in the root", e.Name())
		}
	}
}

func TestDoctorUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string // in stderr, or in stdout when the exit status is 0
	}{
		{[]string{"doctor", "--help"}, 0, "Usage: packfs-mcp doctor --root DIR"},
		{[]string{"doctor"}, 2, "no root: pass --root DIR"},
		{[]string{"doctor", "--root", ".", "--disable-tool", "writer"}, 2, "setting disabledTools[0] must be one of"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := run(tt.args, strings.NewReader(""), &out, &errb); code != tt.code {
			t.Errorf("%v: exit %d, want %d (%s)", tt.args, code, tt.code, errb.String())
		}
		stream := errb.String()
		if tt.code == 0 {
			stream = out.String()
		}
		if !strings.Contains(stream, tt.want) {
			t.Errorf("%v: stdout %q, stderr %q: lacks %q", tt.args, out.String(), errb.String(), tt.want)
		}
	}
}

// TestDoctorChangesNothing checks that doctor, with writing and the index on, makes no folder of
// the server's own: it says where the index and the history would be.
func TestDoctorChangesNothing(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	must(t, os.MkdirAll(filepath.Join(root, "notes"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "notes", "a.md"), []byte("# A\n"), 0o644))
	cache := filepath.Join(dir, "cache")
	must(t, os.Mkdir(cache, 0o755))
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("XDG_DATA_HOME", cache)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"doctor", "--root", root, "--allow-write"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("doctor: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("doctor made %v in the cache folder", entries)
	}
	for _, want := range []string{filepath.Join(cache, "packfs-mcp", "index"), filepath.Join(cache, "packfs-mcp", "history")} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("doctor does not say the state goes in %s:\n%s", want, stdout.String())
		}
	}
}
