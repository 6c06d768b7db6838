package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/packfs/packfs-mcp/internal/serving"
)

// TestParseRoots checks how --root (repeated, DIR or NAME=DIR) and the config file's rootPath and
// roots become the folders served, and the refusals of names that clash, each saying what to pass.
func TestParseRoots(t *testing.T) {
	dir := t.TempDir()
	withEq := filepath.Join(dir, "a=b") // a folder whose name holds "=": it stays usable as it is
	must(t, os.Mkdir(withEq, 0o755))
	jsonFile := writeFile(t, "r.json", `{"rootPath": "/srv/main", "roots": [{"name": "notes", "path": "/srv/n"}, {"path": "/srv/Work Stuff"}]}`)
	yamlFile := writeFile(t, "r.yaml", "roots:\n  - name: notes\n    path: /srv/n\n  - path: /srv/w\n")
	tests := []struct {
		name    string
		args    []string
		want    serving.Config
		wantErr string
	}{
		{name: "one root", args: []string{"--root", "/srv/notes"},
			want: serving.Config{RootPath: "/srv/notes"}},
		{name: "repeated", args: []string{"--root", "/srv/notes", "--root", "/srv/work"},
			want: serving.Config{Roots: []serving.RootConfig{{Path: "/srv/notes"}, {Path: "/srv/work"}}}},
		{name: "named", args: []string{"--root", "a=/srv/notes", "--root", "b=/srv/notes2"},
			want: serving.Config{Roots: []serving.RootConfig{{Name: "a", Path: "/srv/notes"}, {Name: "b", Path: "/srv/notes2"}}}},
		{name: "one named root", args: []string{"--root", "notes=/srv/x"},
			want: serving.Config{Roots: []serving.RootConfig{{Name: "notes", Path: "/srv/x"}}}},
		{name: "a folder holding = that exists", args: []string{"--root", withEq, "--root", "x=/srv/x"},
			want: serving.Config{Roots: []serving.RootConfig{{Path: withEq}, {Name: "x", Path: "/srv/x"}}}},
		{name: "not a name before =", args: []string{"--root", "/srv/a=b", "--root", "-x=/y"},
			want: serving.Config{Roots: []serving.RootConfig{{Path: "/srv/a=b"}, {Path: "-x=/y"}}}},
		{name: "duplicate base names", args: []string{"--root", "/a/notes", "--root", "/b/notes"},
			wantErr: `two roots are named "notes" (/a/notes and /b/notes), and a path starts with its root's name: name them apart with --root NAME=DIR, such as --root notes-2=/b/notes`},
		{name: "duplicate given names", args: []string{"--root", "x=/a", "--root", "x=/b"},
			wantErr: `two roots are named "x" (/a and /b)`},
		{name: "a given name against a folder's", args: []string{"--root", "notes=/a", "--root", "/b/notes"},
			wantErr: `two roots are named "notes" (/a and /b/notes)`},
		{name: "a name and no folder", args: []string{"--root", "notes="},
			wantErr: "--root notes= names a root but no folder: pass --root notes=DIR"},
		{name: "json list beside rootPath", args: []string{"--config", jsonFile},
			want: serving.Config{RootPath: "/srv/main", Roots: []serving.RootConfig{{Name: "notes", Path: "/srv/n"}, {Path: "/srv/Work Stuff"}}}},
		{name: "yaml list", args: []string{"--config", yamlFile},
			want: serving.Config{Roots: []serving.RootConfig{{Name: "notes", Path: "/srv/n"}, {Path: "/srv/w"}}}},
		{name: "--root replaces the file's roots", args: []string{"--config", jsonFile, "--root", "/srv/only"},
			want: serving.Config{RootPath: "/srv/only"}},
		{name: "a bad name in the file", args: []string{"--config", writeFile(t, "b.json", `{"roots": [{"name": "my notes", "path": "/x"}]}`)},
			wantErr: `setting roots[0].name: root name "my notes" is not valid`},
		{name: "no path in the file", args: []string{"--config", writeFile(t, "p.yaml", "roots:\n  - name: x\n")},
			wantErr: "setting roots[0].path"},
		{name: "duplicates in the file", args: []string{"--config", writeFile(t, "d.yaml", "rootPath: /a/x\nroots:\n  - path: /b/x\n")},
			wantErr: `two roots are named "x" (/a/x and /b/x)`},
		{name: "unknown key in a root", args: []string{"--config", writeFile(t, "u.json", `{"roots": [{"path": "/x", "dir": "/y"}]}`)},
			wantErr: `unknown setting roots[0].dir (known here: name, path)`},
		{name: "http without a root", args: []string{"--http", "127.0.0.1:0"},
			wantErr: "no root: serving over HTTP takes its folders from --root DIR"},
		{name: "http with the clients' roots", args: []string{"--http", "127.0.0.1:0", "--client-roots-within", "/srv/a", "--client-roots-within", "/srv/b"},
			want: serving.Config{ClientRootsWithin: []string{"/srv/a", "/srv/b"}, HTTP: serving.HTTPConfig{Addr: "127.0.0.1:0"}}},
		{name: "the clients' roots in the file", args: []string{"--config", writeFile(t, "w.yaml", "clientRootsWithin: [/srv/a]\n")},
			want: serving.Config{ClientRootsWithin: []string{"/srv/a"}}},
		{name: "the clients' roots bounded beside --root", args: []string{"--root", "/a", "--client-roots-within", "/srv"},
			wantErr: "--client-roots-within (clientRootsWithin) bounds the folders clients offer as MCP roots, which are not served when the server has folders of its own"},
		{name: "http with several", args: []string{"--http", "127.0.0.1:0", "--root", "/a", "--root", "/b"},
			want: serving.Config{Roots: []serving.RootConfig{{Path: "/a"}, {Path: "/b"}}, HTTP: serving.HTTPConfig{Addr: "127.0.0.1:0"}}},
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

// TestRootsRefused checks, through run, that roots that cannot be served together stop the start
// with exit status 2 and a line saying what to pass instead, and that a state folder the operator
// named is split between the roots.
func TestRootsRefused(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	for _, d := range []string{"a/notes", "b/notes", "a/inner", "c"} {
		must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	p := func(rel string) string { return filepath.Join(dir, rel) }
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"overlap", []string{"--root", "a=" + p("a"), "--root", "b=" + p("a/inner")},
			"roots " + p("a") + " and " + p("a/inner") + " overlap, and each file must belong to one root: serve the outer folder alone"},
		{"the same folder twice", []string{"--root", "a=" + p("c"), "--root", "b=" + p("c")}, "overlap"},
		{"same names", []string{"--root", p("a/notes"), "--root", p("b/notes")}, "--root notes-2=" + p("b/notes")},
		{"a missing root", []string{"--root", "a=" + p("c"), "--root", "b=" + p("absent")}, p("absent") + " does not exist"},
		{"an index inside another root", []string{"--root", "a=" + p("a/notes"), "--root", "c=" + p("c"), "--index-dir", p("c/idx")},
			"inside another root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(append([]string{"serve"}, tt.args...), strings.NewReader(""), &stdout, &stderr); code != 2 {
				t.Fatalf("exit %d, want 2; stderr %s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.want)
			}
		})
	}
}

// severalRoots makes two small roots, notes and work, and returns the flags that serve them with
// the index and history in one temporary folder each, which the roots then share out.
func severalRoots(t *testing.T) (dir string, flags []string) {
	t.Helper()
	dir = t.TempDir()
	for name, content := range map[string]string{
		"notes/a.md": "# Alpha\nthe garden in spring\n",
		"work/b.md":  "# Beta\nthe garden at work\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	must(t, os.Mkdir(filepath.Join(dir, "idx"), 0o755))
	return dir, []string{"--root", filepath.Join(dir, "notes"), "--root", "w=" + filepath.Join(dir, "work"),
		"--index-dir", filepath.Join(dir, "idx"), "--history-dir", filepath.Join(dir, "hist")}
}

// TestDoctorSeveralRoots checks that doctor describes and checks every root, each line naming its
// root, with an index folder of each root's own inside --index-dir, and that a root that cannot be
// opened among several fails its check by name.
func TestDoctorSeveralRoots(t *testing.T) {
	dir, flags := severalRoots(t)
	var out, errb bytes.Buffer
	if code := run(append(append([]string{"doctor"}, flags...), "--allow-write"), strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	idx := filepath.Join(dir, "idx")
	for _, want := range []string{
		"root         notes: " + filepath.Join(dir, "notes") + "\n",
		"root         w: " + filepath.Join(dir, "work") + "\n",
		"index        notes: " + idx + "/",
		"index        w: " + idx + "/",
		"history      notes: " + filepath.Join(dir, "hist") + "/",
		"ok    notes: the root is a folder that can be listed (1 entries at its top)",
		"ok    w: 1 files seen: 1 open to the tools",
		"ok    w: writing works",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out.String())
		}
	}
	var indexes []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "index ") {
			indexes = append(indexes, strings.Fields(line)[2])
		}
	}
	if len(indexes) != 2 || indexes[0] == indexes[1] {
		t.Errorf("index folders %q: want one of each root's own", indexes)
	}

	out.Reset()
	missing := filepath.Join(dir, "absent")
	if code := run([]string{"doctor", "--root", filepath.Join(dir, "notes"), "--root", "x=" + missing}, strings.NewReader(""), &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out.String())
	}
	for _, want := range []string{
		"root         x: " + missing + " (cannot be opened: see the checks)",
		"FAIL  root " + missing + " does not exist",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCallSeveralRoots runs one-shot calls over two roots: paths name their root, a search of "."
// covers both once their indexes are built, and a root that does not exist stops the call first.
func TestCallSeveralRoots(t *testing.T) {
	dir, flags := severalRoots(t)
	code, out, stderr := callOut(t, inShape(t, "mcp", "", searcher, `{"purpose": "search_semantic", "target": {"path": ".", "query": "garden"}}`), flags...)
	if code != 0 || !strings.Contains(string(out), `notes/a.md`) || !strings.Contains(string(out), `w/b.md`) {
		t.Errorf("search_semantic of .: exit %d, %s\n%s", code, out, stderr)
	}
	for _, want := range []string{"root notes: search index ready", "root w: search index ready"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	code, out, _ = callOut(t, inShape(t, "mcp", "", reader, `{"purpose": "read", "target": {"path": "w/b.md"}}`), flags...)
	if code != 0 || !strings.Contains(string(out), "the garden at work") {
		t.Errorf("read w/b.md: exit %d, %s", code, out)
	}
	code, _, stderr = callOut(t, inShape(t, "mcp", "", reader, `{"purpose": "read", "target": {"path": "w/b.md"}}`),
		"--root", filepath.Join(dir, "notes"), "--root", "x="+filepath.Join(dir, "absent"))
	if code != 2 || !strings.Contains(stderr, filepath.Join(dir, "absent")+" does not exist") {
		t.Errorf("a missing root: exit %d, %s", code, stderr)
	}
}

// TestServeBanner checks the line serve starts with: every root by name and folder, or that the
// client's roots are served.
func TestServeBanner(t *testing.T) {
	dir, flags := severalRoots(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"two roots", flags, []string{"serving 2 roots: notes=" + filepath.Join(dir, "notes") + " (index " + filepath.Join(dir, "idx") + "/",
			"w=" + filepath.Join(dir, "work") + " (index "}},
		{"the client's roots", []string{"--no-index"}, []string{"serving the folders the client offers as MCP roots (none yet)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(append([]string{"serve"}, tt.args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}
