package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// copyFixture is the tree every copy case starts from. A case adds its own entries, and its setup
// makes what testfs.Tree cannot (FIFOs, sockets, hard links, modes).
var copyFixture = []string{
	"a.md=# A\nsee [b](b.md)\n",
	"b.md=bee\n",
	"dir/one.md=one\n",
	"dir/sub/two.md=two two\n",
	"dir/sub/deep/three.txt=three\n",
	"other/",
	"other/keep.md=keep\n",
}

// copyArgs is a copy call of path to dest with options.
func copyArgs(path, dest string, options map[string]any) map[string]any {
	args := map[string]any{"purpose": "copy", "target": map[string]any{"path": path, "destination": dest}}
	if options != nil {
		args["options"] = options
	}
	return args
}

// copyEnv is a server over copyFixture plus extra, with setup run on the root's host path.
func copyEnv(t *testing.T, engine bool, extra []string, setup func(t *testing.T, root string)) *optionEnv {
	t.Helper()
	e := newOptionEnv(t, optionTable{tree: append(append([]string(nil), copyFixture...), extra...), engine: engine})
	if setup != nil {
		setup(t, e.root)
	}
	return e
}

// callCtx calls tool with args under ctx and returns the flat result and its JSON text. Unlike
// optionEnv.call it reads no file of the tree, which may hold a FIFO.
func (e *optionEnv) callCtx(t *testing.T, ctx context.Context, tool string, args map[string]any) (map[string]any, string) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := e.tools[tool].Handler(ctx, req)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	b := structured(t, res)
	var out map[string]any
	mustOK(t, json.Unmarshal(b, &out))
	delete(out, "metadata")
	return out, string(b)
}

// hostTree records everything under dir, by root-relative path: a folder as "/", a file as
// "mode content", a link as "-> target", anything else by its type alone (a FIFO is never opened).
func hostTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relSlash(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			out[rel] = "/"
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			special := ""
			if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
				special = "+special"
			}
			out[rel] = fmt.Sprintf("%s%s %s", hostPerm(fi.Mode()), special, b)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		default:
			out[rel] = fi.Mode().Type().String()
		}
		return nil
	})
	mustOK(t, err)
	return out
}

func hardLink(t *testing.T, oldname, newname string) {
	t.Helper()
	mustOK(t, os.Link(oldname, newname))
}
func listen(t *testing.T, p string) {
	t.Helper()
	if testfs.UnderWine {
		t.Skip("Wine makes no Unix socket files")
	}
	l, err := net.Listen("unix", p)
	mustOK(t, err)
	t.Cleanup(func() { l.Close() })
}

// TestCopy runs copies of files and folders, and every refusal, each on a fresh tree. A refused
// copy must leave the tree as it was; a copy must change the tree by exactly what added says.
func TestCopy(t *testing.T) {
	const big = 64 // the server's file size limit in these cases
	tests := []struct {
		name  string
		extra []string
		setup func(t *testing.T, root string)
		args  map[string]any
		code  string // "" for success
		field string
		// added are the entries the copy makes or changes, as hostTree records them.
		added map[string]string
		// want holds fields the result must have (JSON numbers are float64).
		want map[string]any
		// absent are strings the result's JSON must not contain.
		absent []string
		msg    string // a part of the error message
	}{
		{name: "file", args: copyArgs("a.md", "c.md", nil),
			added: map[string]string{"c.md": "644 # A\nsee [b](b.md)\n"},
			want:  map[string]any{"success": true, "path": "a.md", "destination": "c.md", "created": true, "sizeBytes": 18.0, "version": version("# A\nsee [b](b.md)\n")}},
		{name: "file keeps its permission bits, not setuid", args: copyArgs("a.md", "c.md", nil),
			setup: func(t *testing.T, root string) {
				if runtime.GOOS == "windows" {
					t.Skip("on Windows a file's permission bits are only its read-only attribute")
				}
				mustOK(t, os.Chmod(filepath.Join(root, "a.md"), 0o750|os.ModeSetuid))
			},
			added: map[string]string{"c.md": "750 # A\nsee [b](b.md)\n"}},
		{name: "file into a folder it makes", args: copyArgs("a.md", "new/deeper/c.md", map[string]any{"createPath": true}),
			added: map[string]string{"new": "/", "new/deeper": "/", "new/deeper/c.md": "644 # A\nsee [b](b.md)\n"}},
		{name: "file into a missing folder", args: copyArgs("a.md", "new/c.md", nil), code: errs.CodeNotFound, field: "target.destination", msg: "options.createPath"},
		{name: "file onto a file", args: copyArgs("a.md", "b.md", nil), code: errs.CodeExists, field: "target.destination", msg: "options.overwrite"},
		{name: "file onto a file with overwrite", args: copyArgs("a.md", "b.md", map[string]any{"overwrite": true}),
			added: map[string]string{"b.md": "644 # A\nsee [b](b.md)\n"},
			want:  map[string]any{"success": true, "created": nil}},
		{name: "file onto a link replaces the link", extra: []string{"lb.md => b.md"}, args: copyArgs("a.md", "lb.md", map[string]any{"overwrite": true}),
			added: map[string]string{"lb.md": "644 # A\nsee [b](b.md)\n"}},
		{name: "file onto a folder", extra: []string{"folder.md/"}, args: copyArgs("a.md", "folder.md", map[string]any{"overwrite": true}), code: errs.CodeIsDir, field: "target.destination"},
		{name: "file through a source link", extra: []string{"la.md => a.md"}, args: copyArgs("la.md", "c.md", nil),
			added: map[string]string{"c.md": "644 # A\nsee [b](b.md)\n"}},
		{name: "file onto itself", args: copyArgs("a.md", "a.md", map[string]any{"overwrite": true}), code: errs.CodeInvalidArgument, field: "target.destination"},
		{name: "file onto a link to itself", extra: []string{"la.md => a.md"}, args: copyArgs("a.md", "la.md", map[string]any{"overwrite": true}), code: errs.CodeInvalidArgument, field: "target.destination"},
		{name: "file too large", extra: []string{"huge.md=" + strings.Repeat("h", big+1)}, args: copyArgs("huge.md", "c.md", nil),
			code: errs.CodeTooLarge, field: "target.path", msg: `"huge.md" is larger than the server's file size limit (64 bytes)`},
		{name: "file dry run", args: copyArgs("a.md", "c.md", map[string]any{"dryRun": true}),
			want: map[string]any{"success": true, "dryRun": true, "created": true, "sizeBytes": 18.0}},
		{name: "file dry run onto a file", args: copyArgs("a.md", "b.md", map[string]any{"dryRun": true}), code: errs.CodeExists, field: "target.destination"},

		{name: "folder", args: copyArgs("dir", "copy", map[string]any{"recursive": true}),
			added: map[string]string{"copy": "/", "copy/one.md": "644 one\n", "copy/sub": "/", "copy/sub/two.md": "644 two two\n", "copy/sub/deep": "/", "copy/sub/deep/three.txt": "644 three\n"},
			want:  map[string]any{"success": true, "destination": "copy", "created": true, "filesCopied": 3.0, "foldersCopied": 3.0, "bytesCopied": 18.0, "skipped": nil, "hiddenEntries": nil}},
		{name: "folder without recursive", args: copyArgs("dir", "copy", nil), code: errs.CodeInvalidArgument, field: "options.recursive", msg: "set options.recursive to true"},
		{name: "folder into a folder it makes", args: copyArgs("dir/sub/deep", "x/y/deep", map[string]any{"recursive": true, "createPath": true}),
			added: map[string]string{"x": "/", "x/y": "/", "x/y/deep": "/", "x/y/deep/three.txt": "644 three\n"}},
		{name: "folder onto a folder", args: copyArgs("dir", "other", map[string]any{"recursive": true}), code: errs.CodeExists, field: "target.destination", msg: "merge"},
		{name: "folder merged with overwrite", extra: []string{"other/one.md=old one\n", "other/sub/"},
			args:  copyArgs("dir", "other", map[string]any{"recursive": true, "overwrite": true}),
			added: map[string]string{"other/one.md": "644 one\n", "other/sub/two.md": "644 two two\n", "other/sub/deep": "/", "other/sub/deep/three.txt": "644 three\n"},
			want:  map[string]any{"success": true, "created": nil, "filesCopied": 3.0, "filesReplaced": 1.0, "foldersCopied": 3.0}},
		{name: "folder merged where a file is in the way", extra: []string{"other/sub=a file\n", "other/one.md=old one\n"},
			args: copyArgs("dir", "other", map[string]any{"recursive": true, "overwrite": true}), code: errs.CodeNotDir, field: "target.destination", msg: `"other/sub"`},
		{name: "folder onto a file", args: copyArgs("dir", "b.md", map[string]any{"recursive": true, "overwrite": true}), code: errs.CodeNotDir, field: "target.destination"},
		{name: "folder merged through a link", extra: []string{"lother => other"}, args: copyArgs("dir", "lother", map[string]any{"recursive": true, "overwrite": true}),
			code: errs.CodeNotDir, field: "target.destination", msg: "never through a link"},
		{name: "folder into itself", args: copyArgs("dir", "dir/sub/again", map[string]any{"recursive": true}), code: errs.CodeInvalidArgument, field: "target.destination", msg: "into itself"},
		{name: "folder into itself through a link", extra: []string{"ldir => dir"}, args: copyArgs("dir", "ldir/again", map[string]any{"recursive": true}),
			code: errs.CodeInvalidArgument, field: "target.destination", msg: "into itself"},
		{name: "folder over its parent", args: copyArgs("dir/sub", "dir", map[string]any{"recursive": true, "overwrite": true}), code: errs.CodeInvalidArgument, field: "target.destination"},
		{name: "folder onto itself", args: copyArgs("dir", "dir", map[string]any{"recursive": true, "overwrite": true}), code: errs.CodeInvalidArgument, field: "target.destination"},
		{name: "folder through a source link", extra: []string{"ldir => dir/sub/deep"}, args: copyArgs("ldir", "copy", map[string]any{"recursive": true}),
			added: map[string]string{"copy": "/", "copy/three.txt": "644 three\n"}},
		{name: "folder dry run", args: copyArgs("dir", "copy", map[string]any{"recursive": true, "dryRun": true}),
			want: map[string]any{"success": true, "dryRun": true, "filesCopied": 3.0, "foldersCopied": 3.0, "bytesCopied": 18.0,
				"wouldCopy": []any{"copy", "copy/one.md", "copy/sub", "copy/sub/deep", "copy/sub/deep/three.txt", "copy/sub/two.md"}}},
		{name: "folder with a file too large", extra: []string{"dir/sub/huge.md=" + strings.Repeat("h", big+1)}, args: copyArgs("dir", "copy", map[string]any{"recursive": true}),
			code: errs.CodeTooLarge, field: "target.path", msg: `"dir/sub/huge.md" is larger than the server's file size limit (64 bytes)`},
		{name: "folder with links", extra: []string{"dir/in.md => ../a.md", "dir/sub/indir => ../../other", "dir/out.md => ../../outside.md", "dir/abs.md => /etc/passwd"},
			args:  copyArgs("dir", "copy", map[string]any{"recursive": true}),
			added: map[string]string{"copy": "/", "copy/one.md": "644 one\n", "copy/sub": "/", "copy/sub/two.md": "644 two two\n", "copy/sub/deep": "/", "copy/sub/deep/three.txt": "644 three\n"},
			want: map[string]any{"success": true, "filesCopied": 3.0, "hiddenEntries": 2.0, "skipped": []any{
				map[string]any{"path": "dir/in.md", "reason": "symbolic link, not followed"},
				map[string]any{"path": "dir/sub/indir", "reason": "symbolic link, not followed"}}},
			absent: []string{"out.md", "abs.md", "passwd"}},
		{name: "folder with what the policy hides", extra: []string{"dir/.env=TOKEN=secret\n", "dir/.git/config=x\n", "dir/tool.exe=MZ", "dir/hard.md=hard\n"},
			setup: func(t *testing.T, root string) {
				hardLink(t, filepath.Join(root, "dir/hard.md"), filepath.Join(root, "hard2.md"))
			},
			args:  copyArgs("dir", "copy", map[string]any{"recursive": true}),
			added: map[string]string{"copy": "/", "copy/one.md": "644 one\n", "copy/sub": "/", "copy/sub/two.md": "644 two two\n", "copy/sub/deep": "/", "copy/sub/deep/three.txt": "644 three\n"},
			want: map[string]any{"success": true, "filesCopied": 3.0, "hiddenEntries": 3.0, "skipped": []any{
				map[string]any{"path": "dir/tool.exe", "reason": "a type the tools cannot create"}}},
			absent: []string{".env", ".git", "hard.md", "secret"}},
		{name: "folder with special files", setup: func(t *testing.T, root string) {
			testfs.Mkfifo(t, filepath.Join(root, "dir/fifo.md"))
			listen(t, filepath.Join(root, "dir/sub/sock.md"))
		},
			args:  copyArgs("dir", "copy", map[string]any{"recursive": true}),
			added: map[string]string{"copy": "/", "copy/one.md": "644 one\n", "copy/sub": "/", "copy/sub/two.md": "644 two two\n", "copy/sub/deep": "/", "copy/sub/deep/three.txt": "644 three\n"},
			want:  map[string]any{"success": true, "filesCopied": 3.0}},

		{name: "the root", args: copyArgs(".", "copy", map[string]any{"recursive": true}), code: errs.CodeRoot},
		{name: "a link to the root", extra: []string{"top => ."}, args: copyArgs("top", "copy", map[string]any{"recursive": true}), code: errs.CodeRoot},
		{name: "onto the root", args: copyArgs("a.md", ".", map[string]any{"overwrite": true}), code: errs.CodeRoot, field: "target.destination"},
		{name: "missing source", args: copyArgs("none.md", "c.md", nil), code: errs.CodeNotFound},
		{name: "destination climbs out", args: copyArgs("a.md", "../c.md", nil), code: errs.CodeOutsideRoot, field: "target.destination"},
		{name: "destination absolute outside", args: copyArgs("a.md", "/tmp/packfs-copy-test.md", nil), code: errs.CodeOutsideRoot, field: "target.destination", absent: []string{"/tmp"}},
		{name: "destination through a folder link out", extra: []string{"out => ../"}, args: copyArgs("a.md", "out/c.md", nil), code: errs.CodeOutsideRoot, field: "target.destination"},
		{name: "destination a dangling link out", extra: []string{"d.md => ../pwned.md"}, args: copyArgs("a.md", "d.md", map[string]any{"overwrite": true}), code: errs.CodeOutsideRoot, field: "target.destination"},
		{name: "destination blocked", args: copyArgs("a.md", ".git/c.md", map[string]any{"createPath": true}), code: errs.CodeBlocked, field: "target.destination"},
		{name: "destination blocked name", args: copyArgs("b.md", ".env", nil), code: errs.CodeBlocked, field: "target.destination"},
		{name: "destination extension", args: copyArgs("a.md", "c.exe", nil), code: errs.CodeExtension, field: "target.destination"},
		{name: "source blocked", extra: []string{".env=TOKEN=secret\n"}, args: copyArgs(".env", "env.md", nil), code: errs.CodeBlocked},
		{name: "source link to a blocked file", extra: []string{".env=TOKEN=secret\n", "env.md => .env"}, args: copyArgs("env.md", "c.md", nil), code: errs.CodeBlocked},
		{name: "source link out", extra: []string{"out.md => ../outside.md"}, args: copyArgs("out.md", "c.md", nil), code: errs.CodeOutsideRoot},
		{name: "source extension", extra: []string{"tool.exe=MZ"}, args: copyArgs("tool.exe", "tool.md", nil), code: errs.CodeExtension},
		{name: "source hard link", setup: func(t *testing.T, root string) {
			hardLink(t, filepath.Join(root, "a.md"), filepath.Join(root, "a2.md"))
		},
			args: copyArgs("a.md", "c.md", nil), code: errs.CodeHardLink},
		{name: "source FIFO", setup: func(t *testing.T, root string) { testfs.Mkfifo(t, filepath.Join(root, "fifo.md")) },
			args: copyArgs("fifo.md", "c.md", nil), code: errs.CodeNotRegular},
		{name: "source socket", setup: func(t *testing.T, root string) { listen(t, filepath.Join(root, "sock.md")) },
			args: copyArgs("sock.md", "c.md", nil), code: errs.CodeNotRegular},
		{name: "target.version refused", args: map[string]any{"purpose": "copy", "target": map[string]any{"path": "a.md", "destination": "c.md", "version": "0123456789abcdef"}},
			code: errs.CodeInvalidArgument, field: "target.version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := copyEnv(t, false, tt.extra, tt.setup)
			e.srv.cfg.MaxFileSize = big
			outside := filepath.Dir(e.root)
			mustOK(t, os.WriteFile(filepath.Join(outside, "outside.md"), []byte("OUTSIDE\n"), 0o644))
			before := hostTree(t, e.root)
			beforeOut := hostTree(t, outside)
			out, text := e.callCtx(t, context.Background(), WriterName, tt.args)
			if tt.code != "" {
				if out["code"] != tt.code || (tt.field != "" && out["field"] != tt.field) || !strings.Contains(fmt.Sprint(out["error"]), tt.msg) {
					t.Fatalf("want %s on %q (%q), got %s", tt.code, tt.field, tt.msg, text)
				}
			} else if out["success"] != true {
				t.Fatalf("copy failed: %s", text)
			}
			for k, want := range tt.want {
				if diff := cmp.Diff(want, out[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s\nin %s", k, diff, text)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(text, s) {
					t.Errorf("the result names %q: %s", s, text)
				}
			}
			wantTree := maps.Clone(before)
			maps.Copy(wantTree, tt.added)
			if diff := cmp.Diff(wantTree, hostTree(t, e.root)); diff != "" {
				t.Errorf("the tree after the copy (-want +got):\n%s", diff)
			}
			beforeOut = withoutRoot(beforeOut)
			if diff := cmp.Diff(beforeOut, withoutRoot(hostTree(t, outside))); diff != "" {
				t.Errorf("outside the root changed (-before +after):\n%s", diff)
			}
		})
	}
}

// withoutRoot drops root/ from a tree of the env's base folder.
func withoutRoot(tree map[string]string) map[string]string {
	maps.DeleteFunc(tree, func(p, _ string) bool {
		return p == "root" || strings.HasPrefix(p, "root/")
	})
	return tree
}

// TestCopyTooManyEntries checks that a folder of more than MaxCopyEntries entries is refused
// before anything is written.
func TestCopyTooManyEntries(t *testing.T) {
	e := copyEnv(t, false, nil, func(t *testing.T, root string) {
		for i := range MaxCopyEntries {
			mustOK(t, os.WriteFile(filepath.Join(root, "dir", fmt.Sprintf("f%05d.md", i)), nil, 0o644))
		}
	})
	// The bound is counted, not timed: the call's deadline is out of the way, since a slow
	// machine (Windows under Wine, with other work on both cores) took over 30 s to plan the copy.
	e.srv.cfg.Timeout = time.Hour
	out, text := e.callCtx(t, context.Background(), WriterName, copyArgs("dir", "copy", map[string]any{"recursive": true}))
	if out["code"] != errs.CodeTooLarge || out["field"] != "target.path" || !strings.Contains(text, "more than 10000 entries") {
		t.Fatalf("want TOO_LARGE naming the bound: %s", text)
	}
	if _, err := os.Lstat(filepath.Join(e.root, "copy")); err == nil {
		t.Error("a refused copy made its folder")
	}
}

// TestCopySkippedCapped checks that skipped names at most MaxCopyListed entries and then says how
// many there were.
func TestCopySkippedCapped(t *testing.T) {
	var links []string
	for i := range MaxCopyListed + 5 {
		links = append(links, fmt.Sprintf("dir/l%03d.md => ../a.md", i))
	}
	e := copyEnv(t, false, links, nil)
	out, text := e.callCtx(t, context.Background(), WriterName, copyArgs("dir", "copy", map[string]any{"recursive": true}))
	skipped, _ := out["skipped"].([]any)
	if out["success"] != true || len(skipped) != MaxCopyListed || out["skippedTotal"] != float64(MaxCopyListed+5) {
		t.Errorf("want %d skipped and skippedTotal %d: %s", MaxCopyListed, MaxCopyListed+5, text)
	}
}

// TestCopyFailsMidway makes a folder copy fail after it has written (a file appears where it was
// about to copy one; the call is cancelled) and checks that it removes everything it made, the
// folders options.createPath made included, and says so. It calls the handler directly, so the
// answer to a cancelled call is the copy's own and not the adapter's deadline answer.
func TestCopyFailsMidway(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   map[string]any
		failAt string
		fail   func(e *optionEnv, cancel context.CancelFunc, dest string)
		code   string
		left   map[string]string // what the failure itself put there
	}{
		{name: "a file appears", args: copyArgs("dir", "other", map[string]any{"recursive": true, "overwrite": true}),
			failAt: "other/zz.md", code: errs.CodeExists, left: map[string]string{"other/zz.md": "644 someone else's\n"},
			fail: func(e *optionEnv, _ context.CancelFunc, dest string) {
				os.WriteFile(filepath.Join(e.root, dest), []byte("someone else's\n"), 0o644)
			}},
		{name: "cancelled", args: copyArgs("dir", "x/y/copy", map[string]any{"recursive": true, "createPath": true}),
			failAt: "x/y/copy/sub/two.md", code: errs.CodeTimeout,
			fail: func(_ *optionEnv, cancel context.CancelFunc, _ string) { cancel() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := copyEnv(t, false, []string{"dir/zz.md=last\n"}, nil)
			before := hostTree(t, e.root)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var writes []string
			e.srv.beforeWrite = func(dest string) {
				writes = append(writes, dest)
				if dest == tt.failAt {
					tt.fail(e, cancel, dest)
				}
			}
			raw, _ := json.Marshal(tt.args)
			c := &call{tool: WriterName, purpose: "copy", raw: raw, start: time.Now()}
			_, err := e.srv.update(ctx, c)
			st := errs.Status(err, c.path, e.srv.show)
			if err == nil || st.Code != tt.code || !strings.Contains(st.Error, "had made were removed again") {
				t.Fatalf("want %s and what the copy made removed, got %+v", tt.code, st)
			}
			if len(writes) < 3 {
				t.Fatalf("the copy failed before it wrote (writes %v): the test proves nothing", writes)
			}
			want := maps.Clone(before)
			maps.Copy(want, tt.left)
			if diff := cmp.Diff(want, hostTree(t, e.root)); diff != "" {
				t.Errorf("the tree after the failed copy (-want +got):\n%s", diff)
			}
			if tmp := testfs.TempFiles(t, e.root, fsroot.TempPrefix); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
		})
	}
}

// TestCopyMergeFailsMidway checks that a merge reports the files it had replaced when it fails
// after them, since those cannot be put back, and that the files it made are removed.
func TestCopyMergeFailsMidway(t *testing.T) {
	e := copyEnv(t, false, []string{"other/one.md=old one\n", "other/sub/two.md=old two\n"}, nil)
	e.srv.beforeWrite = func(dest string) {
		if dest == "other/sub/two.md" {
			// The second replacement fails: its folder is now a file.
			mustOK(t, removeTree(filepath.Join(e.root, "other/sub")))
			os.WriteFile(filepath.Join(e.root, "other/sub"), []byte("in the way\n"), 0o644)
		}
	}
	out, text := e.callCtx(t, context.Background(), WriterName, copyArgs("dir", "other", map[string]any{"recursive": true, "overwrite": true}))
	if out["success"] != false || !strings.Contains(text, `already replaced keep the copied content: \"other/one.md\"`) {
		t.Fatalf("want the replaced file named: %s", text)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "other/one.md")); string(b) != "one\n" {
		t.Errorf("other/one.md = %q: the answer says it was replaced", b)
	}
}

// TestCopyRefreshesIndex checks that the index knows a copy as soon as the call returns: its text
// is found by search_semantic and its links by relationships.
func TestCopyRefreshesIndex(t *testing.T) {
	for _, tt := range []struct {
		name string
		args map[string]any
		doc  string
	}{
		{"file", copyArgs("notes/zebra.md", "archive/zebra.md", map[string]any{"createPath": true}), "archive/zebra.md"},
		{"folder", copyArgs("notes", "archive", map[string]any{"recursive": true}), "archive/zebra.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := copyEnv(t, true, []string{"notes/zebra.md=# Zebra\nstripes quagga\nsee [b](../b.md)\n"}, nil)
			if out, text := e.callCtx(t, context.Background(), WriterName, tt.args); out["success"] != true {
				t.Fatalf("copy: %s", text)
			}
			out, text := e.callCtx(t, context.Background(), SearcherName, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "quagga"}})
			found := false
			for _, f := range out["files"].([]any) {
				found = found || f.(map[string]any)["path"] == tt.doc
			}
			if !found {
				t.Errorf("search_semantic does not find the copy %s: %s", tt.doc, text)
			}
			out, text = e.callCtx(t, context.Background(), SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": tt.doc}})
			links, _ := out["links"].([]any)
			if len(links) != 1 || links[0].(map[string]any)["to"] != "b.md" {
				t.Errorf("relationships of the copy: want its link to b.md: %s", text)
			}
		})
	}
}

// TestCopyNeedsWrite checks that copy is gated by the write permission, like move.
func TestCopyNeedsWrite(t *testing.T) {
	e := copyEnv(t, false, nil, nil)
	e.srv.cfg.Permissions = security.AllPermissions().Without(security.PermWrite)
	out, text := e.callCtx(t, context.Background(), WriterName, copyArgs("a.md", "c.md", nil))
	if out["code"] != errs.CodePermissionDenied {
		t.Fatalf("want PERMISSION_DENIED: %s", text)
	}
	if _, err := os.Lstat(filepath.Join(e.root, "c.md")); err == nil {
		t.Error("a copy without write permission wrote")
	}
}

// TestCopyCost checks that a folder copy is charged as the heavy, recursive work it is.
func TestCopyCost(t *testing.T) {
	p, ok := PurposeOf(WriterName, "copy")
	if !ok || p.Permission != security.PermWrite || p.cost(false) != security.CostMedium || p.cost(true) != security.CostHeavy {
		t.Errorf("copy = %+v: want write, medium for a file, heavy for a folder", p)
	}
	e := copyEnv(t, false, nil, nil)
	// A budget of one heavy call: the folder copy takes it, and the next one is refused.
	e.srv.cfg.Limiter = security.NewLimiter(security.LimitConfig{MaxRequests: security.CostHeavy, PerTool: security.CostHeavy, Window: time.Hour})
	if out, text := e.callCtx(t, context.Background(), WriterName, copyArgs("dir", "copy1", map[string]any{"recursive": true})); out["success"] != true {
		t.Fatalf("first folder copy: %s", text)
	}
	if out, text := e.callCtx(t, context.Background(), WriterName, copyArgs("a.md", "c.md", nil)); out["code"] != errs.CodeRateLimited {
		t.Errorf("a call after a heavy copy used the budget: want RATE_LIMITED, got %s", text)
	}
}
