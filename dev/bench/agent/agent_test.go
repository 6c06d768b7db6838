package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/packfs/packfs-mcp/internal/corpora"
	"github.com/packfs/packfs-mcp/internal/tier"
)

// The tests drive every task through the wrapper, as an agent would, with a scripted sequence of
// calls against our server: the verifier must pass the correct solution, and fail the untouched
// folder and a wrong solution for the reason that makes it wrong. They need the shared corpora
// (../shared/corpora beside the repository; skipped without, failed under
// PACKFS_REQUIRE_CORPORA=1); the peers' test needs dev/bench/install-peers.sh's peers, and skips
// without them (fails under PACKFS_REQUIRE_PEERS=1, as in CI).

func TestMain(m *testing.M) {
	// This package is three levels below the repository, not one as corpora assumes.
	corpora.ArchivesDir = filepath.Join("..", "..", "..", "..", "shared", "corpora")
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is what every test shares: the suite's and our server's binaries, and one sessions
// folder (its corpora unpacked once).
var built struct {
	once                   sync.Once
	dir, agent, ours, base string
	err                    error
}

// harness builds the suite and our server once, and returns the sessions folder and the
// environment that points the wrapper at them. Without the corpus archives it skips the test, or
// fails it under PACKFS_REQUIRE_CORPORA=1 (as in CI).
func harness(t *testing.T) (env []string, base string) {
	t.Helper()
	tier.Full(t, "each task builds the servers and runs a scripted agent session on a corpus")
	for _, c := range []corpora.Corpus{corpora.Obsidian, corpora.TLDR} {
		if _, err := os.Stat(filepath.Join(corpora.ArchivesDir, c.Archive)); err != nil {
			if os.Getenv("PACKFS_REQUIRE_CORPORA") == "1" {
				t.Fatalf("PACKFS_REQUIRE_CORPORA=1 but the %s corpus is missing: %v", c.Name, err)
			}
			t.Skipf("the %s corpus is absent (%v): put ../shared/corpora beside the repository to run this test", c.Name, err)
		}
	}
	built.once.Do(func() {
		// A short folder: a session's socket path must fit in 100 bytes.
		built.dir, built.err = os.MkdirTemp("", "pa-")
		if built.err != nil {
			return
		}
		built.agent = filepath.Join(built.dir, "bin", "agent")
		built.ours = filepath.Join(built.dir, "bin", "packfs-mcp")
		built.base = filepath.Join(built.dir, "s")
		for _, b := range [][2]string{{built.agent, "./dev/bench/agent"}, {built.ours, "./cmd/packfs-mcp"}} {
			cmd := exec.Command("go", "build", "-o", b[0], b[1])
			cmd.Dir = filepath.Join("..", "..", "..")
			if out, err := cmd.CombinedOutput(); err != nil {
				built.err = errors.New(string(out))
				return
			}
		}
	})
	if built.err != nil {
		t.Fatalf("building: %v", built.err)
	}
	archives, err := filepath.Abs(corpora.ArchivesDir)
	if err != nil {
		t.Fatal(err)
	}
	// The wrapper finds the archives beside the repository it belongs to, as the tests do.
	env = append(os.Environ(), "PACKFS_AGENT_DIR="+built.base, "PACKFS_AGENT_BIN="+built.agent, "PACKFS_AGENT_OURS="+built.ours,
		"PACKFS_AGENT_ARCHIVES="+archives)
	return env, built.base
}

// wrap runs the wrapper and returns its standard output and exit status.
func wrap(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"mcp"}, args...)...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		if ee.ExitCode() > 1 {
			t.Logf("mcp %s: %s", strings.Join(args, " "), errb.String())
		}
		return out.String() + errb.String(), ee.ExitCode()
	}
	t.Fatalf("mcp %s: %v", strings.Join(args, " "), err)
	return "", 0
}

// step is one call an agent makes: the tool and its arguments, and the error code the server
// must answer it with when the call is one it must refuse.
type step struct {
	tool string
	args map[string]any
	code string
}

func reader(purpose, p string) step {
	return step{tool: "packfs-file-reader", args: map[string]any{"purpose": purpose, "target": map[string]any{"path": p}}}
}

func edit(p string, edits ...[2]string) step {
	var es []map[string]any
	for _, e := range edits {
		es = append(es, map[string]any{"oldText": e[0], "newText": e[1]})
	}
	return step{tool: "packfs-file-writer", args: map[string]any{"purpose": "edit", "target": map[string]any{"path": p}, "edits": es}}
}

func move(from, to string, opts map[string]any) step {
	args := map[string]any{"purpose": "move", "target": map[string]any{"path": from, "destination": to}}
	if opts != nil {
		args["options"] = opts
	}
	return step{tool: "packfs-file-writer", args: args}
}

func relationships(p string) step {
	return step{tool: "packfs-file-searcher", args: map[string]any{"purpose": "relationships", "target": map[string]any{"path": p}}}
}

// session starts a session of task n on server, runs the steps, gives the answer (unless
// empty), stops it and returns its folder and its verdict.
func session(t *testing.T, env []string, base, server string, n int, steps []step, answer string) (string, verdict) {
	t.Helper()
	sessionCount++
	name := fmt.Sprintf("%d-%s", sessionCount, strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()))
	if len(name) > 40 {
		name = name[:40]
	}
	if out, code := wrap(t, env, "start", "--server", server, "--task", itoa(n), "--session", name); code != 0 {
		t.Fatalf("start: %s", out)
	}
	stopOnFailure(t, env, base, name)
	for i, s := range steps {
		args, err := json.Marshal(s.args)
		if err != nil {
			t.Fatal(err)
		}
		out, code := wrap(t, env, name, "call", s.tool, string(args))
		switch {
		case s.code == "" && code != 0:
			t.Fatalf("call %d (%s %s): exit %d: %s", i+1, s.tool, args, code, out)
		case s.code != "" && (code != 1 || !strings.Contains(out, `"code":"`+s.code+`"`)):
			t.Fatalf("call %d (%s %s): exit %d, want a refusal with %s: %s", i+1, s.tool, args, code, s.code, out)
		}
	}
	if answer != "" {
		if out, code := wrap(t, env, name, "answer", answer); code != 0 {
			t.Fatalf("answer: %s", out)
		}
	}
	if out, code := wrap(t, env, name, "stop"); code != 0 {
		t.Fatalf("stop: %s", out)
	}
	dir := filepath.Join(base, name)
	data, err := os.ReadFile(filepath.Join(dir, "verdict.json"))
	if err != nil {
		t.Fatalf("no verdict: %v", err)
	}
	var v verdict
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return dir, v
}

// stopOnFailure stops a session that a failed test left running, so that its daemon and server
// do not wait out the idle timeout.
func stopOnFailure(t *testing.T, env []string, base, name string) {
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join(base, name, "sock")); err == nil {
			wrap(t, env, name, "stop")
		}
	})
}

// sessionCount numbers the sessions, so that a test can start several (tests run one at a time).
var sessionCount int

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// wantFail fails the test unless v failed with a problem containing each of want.
func wantFail(t *testing.T, v verdict, want ...string) {
	t.Helper()
	if v.Pass {
		t.Fatalf("the verifier passed a wrong solution")
	}
	all := strings.Join(v.Problems, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("the verdict lacks %q; it says:\n%s", w, all)
		}
	}
}

func wantPass(t *testing.T, v verdict) {
	t.Helper()
	if !v.Pass {
		t.Fatalf("the verifier failed a correct solution:\n%s", strings.Join(v.Problems, "\n"))
	}
}

// orig reads a file of a corpus as the sessions unpacked it.
func orig(t *testing.T, base string, c corpora.Corpus, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(base, "corpora", c.Name, filepath.FromSlash(c.Root), filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestUntouched: the folder as the agent found it, with no answer, passes no task, each for the
// reason that the task was not done.
func TestUntouched(t *testing.T) {
	why := map[string]string{
		"archive-password":    "the answer leaves out zip",
		"preview-move":        "the note is not at Files and folders/Unique note creator.md alone",
		"move-folder":         "files remain in Obsidian Web Clipper",
		"related-section":     `does not end with a section headed "## Related"`,
		"find-by-description": "the answer has 0 lines",
		"two-notes":           "the answer lacks the city Singapore",
		"concurrent-edit":     "the other party's edit of Plugins/Word count.md was lost",
		"retire-note":         "Plugins/Web viewer.md is still there",
		"quick-reference":     quickRefNote + " is missing",
	}
	_, base := harness(t)
	o := defaultOptions()
	o.base = base
	o.archives, _ = filepath.Abs(corpora.ArchivesDir)
	for _, tk := range tasks {
		t.Run(tk.Name, func(t *testing.T) {
			dirs, err := originals(o.base, o.archives, tk)
			if err != nil {
				t.Fatal(err)
			}
			problems, err := verifyDir(tk, dirs, dirs, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) == 0 {
				t.Fatal("the verifier passed the untouched folder")
			}
			if all := strings.Join(problems, "\n"); why[tk.Name] == "" || !strings.Contains(all, why[tk.Name]) {
				t.Errorf("the verdict lacks %q; it says:\n%s", why[tk.Name], all)
			}
		})
	}
}

func TestArchivePassword(t *testing.T) {
	env, base := harness(t)
	var steps []step
	for _, c := range []string{"tar", "zip", "7z", "rar", "zstd"} {
		steps = append(steps, reader("read", "common/"+c+".md"))
	}
	right := "zip: `zip {{[-re|--recurse-paths --encrypt]}} {{path/to/compressed.zip}} {{path/to/file_or_directory1 path/to/file_or_directory2 ...}}`\n" +
		"7z: `7z a {{path/to/encrypted.7z}} -p{{password}} -mhe=on {{path/to/archive.7z}}`\n" +
		"rar: `rar a -hp{{password}} {{path/to/archive_name.rar}} {{path/to/file_or_directory}}`\n"
	dir, v := session(t, env, base, "ours", 1, steps, right)
	wantPass(t, v)
	// Wrong: tar named (its page has no password), rar left out.
	wrong := filepath.Join(dir, "wrong.txt")
	os.WriteFile(wrong, []byte("tar: tar czf {{target.tar.gz}} {{path}}\n"+strings.Join(strings.Split(right, "\n")[:2], "\n")), 0o644)
	out, code := wrap(t, env, "verify", "1", filepath.Join(dir, "root"), wrong)
	if code != 1 || !strings.Contains(out, "tar's page shows no password") || !strings.Contains(out, "leaves out rar") {
		t.Errorf("verify of a wrong answer: exit %d:\n%s", code, out)
	}
}

func TestPreviewMove(t *testing.T) {
	env, base := harness(t)
	const from, to = "Plugins/Unique note creator.md", "Files and folders/Unique note creator.md"
	steps := []step{
		relationships(from),
		move(from, to, map[string]any{"dryRun": true, "preserveRelationships": true}),
		move(from, to, map[string]any{"preserveRelationships": true}),
		edit(siteOptions, [2]string{`"` + from + `"`, `"` + to + `"`}),
	}
	dir, v := session(t, env, base, "ours", 2, steps, "Extending Obsidian/Obsidian URI.md\nsite-options.json\n")
	wantPass(t, v)
	// Wrong: the preview names every note that links to it, though only one needed a change.
	wrong := filepath.Join(dir, "wrong.txt")
	os.WriteFile(wrong, []byte("Extending Obsidian/Obsidian URI.md\nPlugins/Core plugins.md\nsite-options.json\n"), 0o644)
	out, code := wrap(t, env, "verify", "preview-move", filepath.Join(dir, "root"), wrong)
	if code != 1 || !strings.Contains(out, "the preview named Plugins/Core plugins.md, which the move did not change") {
		t.Errorf("verify of a wrong preview: exit %d:\n%s", code, out)
	}
	// Wrong: the move without the menu.
	_, v = session(t, env, base, "ours", 2, steps[:3], "Extending Obsidian/Obsidian URI.md\nsite-options.json\n")
	wantFail(t, v, `the navigation menu lacks "`+to+`"`, "site-options.json needed a change for the move and was not changed")
}

func TestMoveFolder(t *testing.T) {
	env, base := harness(t)
	const from, to = "Obsidian Web Clipper", "Extending Obsidian/Web Clipper"
	menu := step{tool: "packfs-file-writer", args: map[string]any{"purpose": "edit", "target": map[string]any{"path": siteOptions},
		"edits": []map[string]any{{"oldText": `"` + from, "newText": `"` + to, "replaceAll": true}}}}
	// The move rewrites the links between the moved pages, which name them by folder path.
	steps := []step{move(from, to, map[string]any{"preserveRelationships": true}), menu}
	wrongSteps := []step{move(from, to, nil), menu}
	_, v := session(t, env, base, "ours", 3, steps, "")
	wantPass(t, v)
	// Wrong: a bare move leaves the links between the moved pages pointing at the old folder.
	_, v = session(t, env, base, "ours", 3, wrongSteps, "")
	wantFail(t, v, "Extending Obsidian/Web Clipper/Variables.md: 3 of its 3 links to Extending Obsidian/Web Clipper/Templates.md no longer reach it")
}

func TestRelated(t *testing.T) {
	env, base := harness(t)
	const note = "Plugins/File recovery.md"
	appendLinks := func(names ...string) step {
		content := "\n## Related\n\n"
		for _, n := range names {
			content += "- [[" + n + "]]\n"
		}
		return step{tool: "packfs-file-writer", args: map[string]any{"purpose": "append", "target": map[string]any{"path": note}, "content": content}}
	}
	_, v := session(t, env, base, "ours", 4, []step{relationships(note),
		appendLinks("Obsidian CLI", "Note composer", "Status icon and messages", "Sync settings and selective syncing", "Troubleshoot Obsidian Sync", "Version history")}, "")
	wantPass(t, v)
	// Wrong: Core plugins is linked from the note already, and Note composer is left out.
	_, v = session(t, env, base, "ours", 4, []step{
		appendLinks("Core plugins", "Obsidian CLI", "Status icon and messages", "Sync settings and selective syncing", "Troubleshoot Obsidian Sync", "Version history")}, "")
	wantFail(t, v, "links to Plugins/Core plugins.md, which does not link to File recovery or is linked already", "lacks Plugins/Note composer.md")
}

func TestFindByDescription(t *testing.T) {
	env, base := harness(t)
	steps := []step{
		{tool: "packfs-file-searcher", args: map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "time passed between one line of output and the next"},
			"queries": []string{"add timestamps to each line", "elapsed time since previous line"}}},
		reader("read", "common/ts.md"),
	}
	dir, v := session(t, env, base, "ours", 5, steps, "common/ts.md\n`{{command}} | ts -i \"{{%H:%M:%.S}}\"`\n")
	wantPass(t, v)
	// Wrong: the right page, the example that stamps the time of day instead.
	wrong := filepath.Join(dir, "wrong.txt")
	os.WriteFile(wrong, []byte("common/ts.md\n{{command}} | ts\n"), 0o644)
	out, code := wrap(t, env, "verify", "5", filepath.Join(dir, "root"), wrong)
	if code != 1 || !strings.Contains(out, "not the page's") {
		t.Errorf("verify of a wrong answer: exit %d:\n%s", code, out)
	}
}

func TestTwoNotes(t *testing.T) {
	env, base := harness(t)
	steps := []step{reader("read", "Obsidian Sync/Sync regions.md"), reader("read", "Obsidian Sync/Security and privacy.md")}
	dir, v := session(t, env, base, "ours", 6, steps, "Singapore\nFrankfurt, Germany\nSan Francisco, USA\nSydney\nBefore: delete your remote vault\n")
	wantPass(t, v)
	wrong := filepath.Join(dir, "wrong.txt")
	os.WriteFile(wrong, []byte("Singapore\nFrankfurt\nSan Francisco\nLondon\nBefore: back up your vault\n"), 0o644)
	out, code := wrap(t, env, "verify", "6", filepath.Join(dir, "root"), wrong)
	for _, w := range []string{`answer line "London" names 0 of the cities`, "lacks the city Sydney", "does not say to delete your remote vault"} {
		if code != 1 || !strings.Contains(out, w) {
			t.Errorf("verify of a wrong answer: exit %d, want %q:\n%s", code, w, out)
		}
	}
}

func TestConcurrentEdit(t *testing.T) {
	env, base := harness(t)
	const para = "On mobile, word count appears at the top of the right sidebar."
	dir, v := session(t, env, base, "ours", 7, []step{
		reader("read", wordCountNote),
		edit(wordCountNote, [2]string{para, para + " " + wordCountSentence}),
	}, "")
	wantPass(t, v)
	log, _ := os.ReadFile(filepath.Join(dir, "log.jsonl"))
	if !strings.Contains(string(log), `"note":"after call 1, the first result that showed the note"`) {
		t.Errorf("the other party's edit was not made right after the read:\n%s", log)
	}
	// Wrong: the note written back whole from the copy read before the other party's edit.
	stale := orig(t, base, corpora.Obsidian, wordCountNote)
	_, v = session(t, env, base, "ours", 7, []step{
		reader("read", wordCountNote),
		{tool: "packfs-file-writer", args: map[string]any{"purpose": "update", "target": map[string]any{"path": wordCountNote},
			"content": strings.Replace(stale, para, para+" "+wordCountSentence, 1)}},
	}, "")
	wantFail(t, v, "the other party's edit of Plugins/Word count.md was lost")
}

func TestRetire(t *testing.T) {
	env, base := harness(t)
	const note, archived = "Plugins/Web viewer.md", "Archive/Web viewer.md"
	unlink := []step{
		step{tool: "packfs-file-writer", args: map[string]any{"purpose": "edit", "target": map[string]any{"path": "Plugins/Bookmarks.md"},
			"edits": []map[string]any{{"oldText": "[[Web viewer]]", "newText": "Web viewer", "replaceAll": true}}}},
		edit("Plugins/Core plugins.md", [2]string{"- [[Web viewer]]", "- Web viewer"}),
		edit("Extending Obsidian/Obsidian CLI.md", [2]string{"Commands for [[Web viewer]].", "Commands for Web viewer."}),
		edit(siteOptions, [2]string{"    \"" + note + "\",\n", ""}),
	}
	steps := append([]step{relationships(note), move(note, archived, map[string]any{"createPath": true})}, unlink...)
	_, v := session(t, env, base, "ours", 8, steps, "")
	wantPass(t, v)
	// Wrong: the note deleted rather than archived.
	steps = append([]step{{tool: "packfs-file-writer", args: map[string]any{"purpose": "delete", "target": map[string]any{"path": note}}}}, unlink...)
	_, v = session(t, env, base, "ours", 8, steps, "")
	wantFail(t, v, archived+" is missing")
}

func TestQuickReference(t *testing.T) {
	env, base := harness(t)
	writer := func(purpose string, args map[string]any) step {
		args["purpose"] = purpose
		return step{tool: "packfs-file-writer", args: args}
	}
	target := func(p string) map[string]any { return map[string]any{"path": p} }
	const right = "flatpak remove md.obsidian.Obsidian\nvault/Getting started/Download and install Obsidian.md\ntldr/linux/flatpak.md\n"
	steps := []step{
		{tool: "packfs-file-searcher", args: map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": "flatpak install"}}},
		{tool: "packfs-file-reader", args: map[string]any{"purpose": "read", "target": map[string]any{"paths": []string{installNote, flatpakPage}}}},
		writer("copy", map[string]any{"target": map[string]any{"path": quickRefPage, "destination": quickRefNote}}),
		writer("append", map[string]any{"target": target(cliNote), "content": "See also: [[Obsidian CLI quick reference]]\n"}),
	}
	dir, v := session(t, env, base, "ours", 9, steps, right)
	wantPass(t, v)
	// The same end state and answer with the paths as the peers show them, absolute.
	root := filepath.Join(dir, "root")
	abs := filepath.Join(dir, "abs.txt")
	os.WriteFile(abs, []byte("`flatpak remove md.obsidian.Obsidian`\n"+filepath.Join(root, flatpakPage)+"\n"+filepath.Join(root, installNote)+"\n"), 0o644)
	if out, code := wrap(t, env, "verify", "9", root, abs); code != 0 || !strings.Contains(out, "PASS") {
		t.Errorf("verify of the answer with absolute paths: exit %d:\n%s", code, out)
	}

	// Wrong: the move the server refuses across roots, then copy and delete, as its refusal
	// suggests for a move (the user wanted the tldr page kept); a link by the page's own name,
	// which reaches nothing in the vault; the example's placeholder left in the command.
	_, v = session(t, env, base, "ours", 9, []step{
		{tool: "packfs-file-writer", args: map[string]any{"purpose": "move", "target": map[string]any{"path": quickRefPage, "destination": quickRefNote}}, code: "INVALID_ARGUMENT"},
		writer("copy", map[string]any{"target": map[string]any{"path": quickRefPage, "destination": quickRefNote}}),
		writer("delete", map[string]any{"target": target(quickRefPage)}),
		writer("append", map[string]any{"target": target(cliNote), "content": "See also: [[obsidian]]\n"}),
	}, "flatpak remove {{com.example.app}}\nvault/Getting started/Download and install Obsidian.md\ntldr/linux/flatpak.md\n")
	wantFail(t, v, quickRefPage+" is missing", "the link [[obsidian]] added to "+cliNote+" reaches nothing",
		`the answer gives the command "flatpak remove {{com.example.app}}"`)

	// Wrong: the page read and written anew without its last newline, and embedded rather than linked.
	page := orig(t, base, corpora.TLDR, strings.TrimPrefix(quickRefPage, "tldr/"))
	_, v = session(t, env, base, "ours", 9, []step{
		writer("create", map[string]any{"target": target(quickRefNote), "content": strings.TrimSuffix(page, "\n")}),
		writer("append", map[string]any{"target": target(cliNote), "content": "![[Obsidian CLI quick reference]]\n"}),
	}, right)
	wantFail(t, v, quickRefNote+" is not an exact copy of "+quickRefPage, "embeds the copy rather than linking to it")
}

// TestPeers starts each installed peer on a task of one folder and on the task of two, prints its
// tools and reads a file in each folder, through the same wrapper; the harness, not the peers, is
// under test: that a peer is given every folder, at the paths the verifier reads answers against.
func TestPeers(t *testing.T) {
	env, base := harness(t)
	o := defaultOptions()
	const embed = "![[Obsidian Sync/Security and privacy#^sync-geo-regions]]"
	type read struct{ path, want string }
	for _, tc := range []struct {
		server, tool string
	}{{"official", "read_text_file"}, {"mark3labs", "read_file"}} {
		for _, tk := range []struct {
			n     int
			reads []read
		}{
			{6, []read{{"Obsidian Sync/Sync regions.md", embed}}},
			{9, []read{{"vault/Obsidian Sync/Sync regions.md", embed}, {quickRefPage, "`obsidian daily`"}}},
		} {
			t.Run(fmt.Sprintf("%s/task%d", tc.server, tk.n), func(t *testing.T) {
				if _, _, _, err := serverCommand(tc.server, []servedRoot{{Dir: "/nonexistent"}}, "/nonexistent", o); err != nil {
					if os.Getenv("PACKFS_REQUIRE_PEERS") == "1" {
						t.Fatalf("PACKFS_REQUIRE_PEERS=1 but %s is not installed (dev/bench/install-peers.sh): %v", tc.server, err)
					}
					t.Skipf("%s is not installed (run dev/bench/install-peers.sh): %v", tc.server, err)
				}
				name := fmt.Sprintf("peer-%s-%d", tc.server, tk.n)
				if out, code := wrap(t, env, "start", "--server", tc.server, "--task", itoa(tk.n), "--session", name); code != 0 {
					t.Fatalf("start: %s", out)
				}
				stopOnFailure(t, env, base, name)
				tools, code := wrap(t, env, name, "tools")
				if code != 0 || !strings.Contains(tools, `"name":"`+tc.tool+`"`) {
					t.Fatalf("tools: exit %d, no %s:\n%s", code, tc.tool, tools)
				}
				root := filepath.Join(base, name, "root")
				shown := 0
				for _, r := range tk.reads {
					args, _ := json.Marshal(map[string]any{"path": filepath.Join(root, filepath.FromSlash(r.path))})
					out, code := wrap(t, env, name, "call", tc.tool, string(args))
					if code != 0 || !strings.Contains(out, r.want) {
						t.Fatalf("read %s: exit %d:\n%s", r.path, code, out)
					}
					shown += len(r.want)
				}
				if out, code := wrap(t, env, name, "stop"); code != 0 || !strings.Contains(out, "FAIL") {
					t.Fatalf("stop: exit %d (a session with no answer must fail):\n%s", code, out)
				}
				s, err := summarize(filepath.Join(base, name))
				if err != nil {
					t.Fatal(err)
				}
				if s.Calls != len(tk.reads) || s.Bytes < shown || s.Listing == 0 || s.Verdict != "fail" {
					t.Errorf("the summary does not count the session: %+v", s)
				}
			})
		}
	}
}
