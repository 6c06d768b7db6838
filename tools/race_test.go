package tools

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// The races of security cases C19–C24. Each test serves base/root through a Server, keeps secrets
// in its sibling base/outside, and lets goroutines change the tree under the tools' feet while other
// goroutines call the tools as fast as they can. The oracle trusts nothing the server says: after
// the race, no answer may hold the marker, the snapshot of everything outside the root must be
// unchanged, no temporary file may be left anywhere, and only the expected error codes may appear.
// And the race must have happened: every kind of call must have run, a few times at least, while
// the racers changed the tree (see [raceEnv.changed]).

// defaultRaceDuration is how long each race runs when PACKFS_RACE_SECONDS is unset: short enough
// that CI stays fast, long enough for thousands of calls.
const defaultRaceDuration = 2 * time.Second

// raceCodes are the error codes a race may legitimately produce: the entry was missing, of the wrong
// kind, or led outside at the moment the call looked. Anything else (INTERNAL above all) fails.
var raceCodes = []string{
	errs.CodeNotFound, errs.CodeOutsideRoot, errs.CodeNotRegular, errs.CodeInvalidPath, errs.CodeExists,
	errs.CodeNotDir, errs.CodeIsDir, errs.CodeTimeout, errs.CodeAccess, errs.CodeHardLink,
}

// raceMinRaced is how many calls of each purpose a race must catch mid-change: a call during which
// the racers changed the tree. A race that never overlaps a call tests nothing. With the default
// duration, the fewest seen on 2026-11-24 were 19 (delete in TestRaceDirFlip, without -race) of
// 588; with -race, 29.
const raceMinRaced = 5

// okCode stands for a successful call in the code histogram.
const okCode = "ok"

// raceDuration returns how long each race runs: PACKFS_RACE_SECONDS (a positive number of
// seconds), or defaultRaceDuration.
func raceDuration(t *testing.T) time.Duration {
	t.Helper()
	s := os.Getenv("PACKFS_RACE_SECONDS")
	if s == "" {
		return defaultRaceDuration
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		t.Fatalf("PACKFS_RACE_SECONDS=%q: want a positive number of seconds", s)
	}
	return time.Duration(n * float64(time.Second))
}

// raceEnv is one race's world: base/root served by a Server with every permission, and
// base/outside, which holds the marker and must never be read or changed through the tools.
type raceEnv struct {
	t       *testing.T
	base    string
	root    string
	outside string
	// marker is in every file outside the root, and names one of them, so a leaked content,
	// match line or listing entry all show it.
	marker   string
	handlers map[string]server.ToolHandlerFunc
	before   map[string]string

	// changes counts the racers' changes to the tree (see changed), so call can tell whether one
	// happened while it ran.
	changes atomic.Int64

	mu    sync.Mutex
	logs  strings.Builder // the server's diagnostics, which explain INTERNAL answers
	codes map[string]int
	leaks []string // the first few answers that held the marker
	nleak int
	// calls and raced count the calls by purpose, and those during which the tree changed.
	calls, raced map[string]int
}

// newRaceEnv builds base/outside (secret.md and dir/ with x.md and <marker>.md, all holding the
// marker) and base/root from rootEntries (see testfs.Tree), and serves the root with a Server whose
// rate limit is effectively off.
func newRaceEnv(t *testing.T, rootEntries ...string) *raceEnv {
	if testfs.UnderWine {
		t.Skip("the races swap links and folders, and rename over files held open: Wine has no links, no exchange and no POSIX rename")
	}
	t.Helper()
	e := &raceEnv{
		t:      t,
		base:   testfs.TempDir(t),
		marker: "OUTSIDE-MARKER-" + strings.ToUpper(rand.Text()[:12]),
		codes:  map[string]int{},
		calls:  map[string]int{},
		raced:  map[string]int{},
	}
	e.root = filepath.Join(e.base, "root")
	e.outside = filepath.Join(e.base, "outside")
	secret := e.marker + " needle\n"
	testfs.Tree(t, e.outside, e.base,
		"secret.md="+secret,
		"dir/",
		"dir/x.md="+secret,
		"dir/"+e.marker+".md="+secret,
	)
	mustOK(t, os.Mkdir(e.root, 0o755))
	testfs.Tree(t, e.root, e.base, rootEntries...)
	e.before = snapshotOutside(t, e.base)

	root, policy := e.open()
	e.serve(Config{Mount: Mount{Root: root, Policy: policy}})
	return e
}

// open opens the race's root, and its default policy.
func (e *raceEnv) open() (*fsroot.Root, *security.Policy) {
	root, err := fsroot.Open(e.root, fsroot.Options{})
	mustOK(e.t, err)
	e.t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(e.t, err)
	return root, policy
}

// serve makes the race's handlers: a Server of cfg with every permission, a rate limit that is
// effectively off, and its log kept for verify.
func (e *raceEnv) serve(cfg Config) {
	cfg.Limiter = security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30})
	cfg.Permissions = security.AllPermissions()
	cfg.Log = log.New(lockedWriter{&e.mu, &e.logs}, "", 0)
	e.handlers = map[string]server.ToolHandlerFunc{}
	for _, st := range New(cfg).Tools() {
		e.handlers[st.Tool.Name] = st.Handler
	}
}

// lockedWriter appends to b under mu, so the server's logger can be shared by concurrent calls.
type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// mustOK fails the test at once on a setup error.
func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshotOutside records everything under base except root/ (which the race changes): each path
// with its mode and its content or link text. Comparing two snapshots shows anything created,
// removed or changed outside the root, wherever it is.
func snapshotOutside(t *testing.T, base string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	rootDir := filepath.Join(base, "root")
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == rootDir {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel := relSlash(base, p)
		val := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			val += " -> " + target
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			val += " " + string(data)
		}
		snap[rel] = val
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return snap
}

// call runs one tool call and returns its flat result. It records the code (okCode on success)
// and whether the answer, structured or text, holds the marker. It is safe for concurrent use.
func (e *raceEnv) call(tool string, args map[string]any) map[string]any {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	purpose, _ := args["purpose"].(string)
	e.mu.Lock()
	if _, ok := e.calls[purpose]; !ok {
		// Known from its first call's start, so that a race does not end (see enough) while a
		// purpose's first call, slow on a loaded machine, has not come back.
		e.calls[purpose] = 0
	}
	e.mu.Unlock()
	before := e.changes.Load()
	res, err := e.handlers[tool](context.Background(), req)
	raced := e.changes.Load() != before
	e.mu.Lock()
	e.calls[purpose]++
	if raced {
		e.raced[purpose]++
	}
	e.mu.Unlock()
	if err != nil || res == nil {
		e.t.Errorf("%s %v: protocol error %v", tool, args, err)
		return nil
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		e.t.Errorf("%s %v: structured content %v", tool, args, err)
		return nil
	}
	text := string(raw)
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			text += tc.Text
		}
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		e.t.Errorf("%s %v: result is not JSON: %v", tool, args, err)
		return nil
	}
	code, _ := out["code"].(string)
	if ok, _ := out["success"].(bool); ok != (code == "") || ok == res.IsError {
		e.t.Errorf("%s %v: success, code and isError disagree: %s", tool, args, raw)
	}
	if code == "" {
		code = okCode
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.codes[code]++
	if strings.Contains(text, e.marker) {
		e.nleak++
		if len(e.leaks) < 5 {
			e.leaks = append(e.leaks, fmt.Sprintf("%s %v: %s", tool, args, raw))
		}
	}
	return out
}

// changed records one change a racer made to the tree.
func (e *raceEnv) changed() { e.changes.Add(1) }

// verify is the oracle run after a race: no answer held the marker, nothing outside the root
// changed or appeared, no temporary file is left under the root, every code is okCode or in
// allowed, and the tree changed during at least raceMinRaced calls of each purpose. It logs the
// histogram of codes and how many calls of each purpose the race caught.
func (e *raceEnv) verify(allowed ...string) {
	t := e.t
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.nleak > 0 {
		t.Errorf("ESCAPE: %d answers held the outside marker; first ones:\n%s", e.nleak, strings.Join(e.leaks, "\n"))
	}
	after := snapshotOutside(t, e.base)
	for p, v := range after {
		if w, ok := e.before[p]; !ok {
			t.Errorf("ESCAPE: %s appeared outside the root (%.80s)", p, v)
		} else if w != v {
			t.Errorf("ESCAPE: %s changed outside the root: %.80q -> %.80q", p, w, v)
		}
	}
	for p := range e.before {
		if _, ok := after[p]; !ok {
			t.Errorf("ESCAPE: %s vanished from outside the root", p)
		}
	}
	if temps := testfs.TempFiles(t, e.root, fsroot.TempPrefix); len(temps) > 0 {
		msg := fmt.Sprintf("%d temporary files left behind, e.g. root/%s", len(temps), temps[0])
		t.Errorf("%s", msg)
	}
	var hist []string
	for code, n := range e.codes {
		hist = append(hist, fmt.Sprintf("%s=%d", code, n))
		if code == okCode || slices.Contains(allowed, code) {
			continue
		}
		t.Errorf("unexpected code %s (%d times)", code, n)
	}
	slices.Sort(hist)
	t.Logf("codes: %s", strings.Join(hist, " "))
	var raced []string
	for purpose, n := range e.calls {
		raced = append(raced, fmt.Sprintf("%s=%d/%d", purpose, e.raced[purpose], n))
		if e.raced[purpose] < raceMinRaced {
			t.Errorf("the tree changed during %d of %d %s calls, want at least %d: the race did not reach them", e.raced[purpose], n, purpose, raceMinRaced)
		}
	}
	slices.Sort(raced)
	t.Logf("calls during which the tree changed: %s", strings.Join(raced, " "))
	if e.logs.Len() > 0 {
		t.Logf("server log (first 2000 bytes):\n%.2000s", e.logs.String())
	}
}

// enough reports whether the race caught every purpose called so far mid-change raceMinRaced
// times, as verify asks.
func (e *raceEnv) enough() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for purpose := range e.calls {
		if e.raced[purpose] < raceMinRaced {
			return false
		}
	}
	return true
}

// raceStretch bounds how long a race runs on past its duration while some purpose has not yet
// been caught mid-change raceMinRaced times: on a loaded machine (two cores, other packages' tests
// beside it) a call of a slow purpose comes round less often.
const raceStretch = 5

// runRace runs each body on its own goroutine, over and over with an increasing iteration number,
// until d has passed and the race caught every purpose called mid-change raceMinRaced times (or
// raceStretch times d has passed), then logs and returns how many times each body ran.
func (e *raceEnv) runRace(d time.Duration, bodies map[string]func(i int)) map[string]int {
	t := e.t
	t.Helper()
	start := time.Now()
	deadline, limit := start.Add(d), start.Add(raceStretch*d)
	var stop atomic.Bool
	more := func() bool {
		now := time.Now()
		if stop.Load() || now.After(limit) {
			return false
		}
		if now.Before(deadline) || !e.enough() {
			return true
		}
		stop.Store(true)
		return false
	}
	counts := make(map[string]int, len(bodies))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, body := range bodies {
		wg.Go(func() {
			i := 0
			for ; more(); i++ {
				body(i)
			}
			mu.Lock()
			counts[name] = i
			mu.Unlock()
		})
	}
	wg.Wait()
	names := make([]string, 0, len(counts))
	total := 0
	for name, n := range counts {
		names = append(names, fmt.Sprintf("%s=%d", name, n))
		total += n
	}
	slices.Sort(names)
	t.Logf("%v race, %d iterations: %s", time.Since(start).Round(time.Millisecond), total, strings.Join(names, " "))
	return counts
}

// replaceWith atomically puts a new entry at name: a symbolic link to target if isLink, else a
// regular file holding content. It is built at a scratch name beside name and renamed over it.
func replaceWith(name, scratch string, isLink bool, target, content string) error {
	os.Remove(scratch)
	var err error
	if isLink {
		err = os.Symlink(target, scratch)
	} else {
		err = os.WriteFile(scratch, []byte(content), 0o644)
	}
	if err != nil {
		return err
	}
	return os.Rename(scratch, name)
}

// toolArgs builds tool arguments: purpose, target.path, and extra top-level fields.
func toolArgs(purpose, path string, extra map[string]any) map[string]any {
	a := map[string]any{"purpose": purpose, "target": map[string]any{"path": path}}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// checkSize fails if a successful metadata answer reports a size other than want: the files outside
// the root have other sizes, so a stat that followed a link outside would show here even though
// metadata carries no marker.
func (e *raceEnv) checkSize(out map[string]any, name string, want int) {
	if ok, _ := out["success"].(bool); !ok {
		return
	}
	if size, _ := out["sizeBytes"].(float64); int(size) != want {
		e.t.Errorf("ESCAPE?: metadata %s size = %v, want %d (%v)", name, out["sizeBytes"], want, out)
	}
}

// searchArgs builds search_content arguments for query below path.
func searchArgs(path, query string) map[string]any {
	return map[string]any{"purpose": "search_content", "target": map[string]any{"path": path, "query": query}}
}

// listArgs builds recursive list arguments for path.
func listArgs(path string) map[string]any {
	return map[string]any{"purpose": "list", "target": map[string]any{"path": path}, "options": map[string]any{"recursive": true}}
}

// writeArgs builds writer arguments with content; createPath makes missing folders.
func writeArgs(purpose, path, content string, createPath bool) map[string]any {
	a := toolArgs(purpose, path, map[string]any{"content": content})
	if createPath {
		a["options"] = map[string]any{"createPath": true}
	}
	return a
}

// TestRaceFileFlip (C19) flips root/f.md between a regular file and a symbolic link to
// outside/secret.md, by relative and absolute links, while reads, metadata and searches hit it.
func TestRaceFileFlip(t *testing.T) {
	const inside = "inside content needle\n"
	e := newRaceEnv(t, "f.md="+inside)
	f := filepath.Join(e.root, "f.md")
	targets := []string{"../outside/secret.md", filepath.Join(e.outside, "secret.md")}
	checkContent := func(out map[string]any) {
		if c, ok := out["content"].(string); ok && c != inside {
			e.t.Errorf("read f.md = %q, want %q", c, inside)
		}
	}
	// flip returns a flipper that replaces f.md alternately with a link and a file, built at
	// scratch names of its own so two flippers can run at once.
	flip := func(id string) func(int) {
		return func(i int) {
			var err error
			if i%2 == 0 {
				err = replaceWith(f, filepath.Join(e.root, ".swap-link-"+id), true, targets[(i/2)%2], "")
			} else {
				err = replaceWith(f, filepath.Join(e.root, ".swap-file-"+id), false, "", inside)
			}
			if err != nil {
				t.Errorf("flip: %v", err)
			}
			e.changed()
		}
	}
	bodies := map[string]func(int){
		"flip-a": flip("a"),
		"flip-b": flip("b"),
		"read":   func(int) { checkContent(e.call(ReaderName, toolArgs("read", "f.md", nil))) },
		"read-base64": func(int) {
			out := e.call(ReaderName, map[string]any{"purpose": "read", "target": map[string]any{"path": "f.md", "encoding": "base64"}})
			if c, ok := out["content"].(string); ok {
				data, err := base64.StdEncoding.DecodeString(c)
				if err != nil || string(data) != inside {
					e.t.Errorf("base64 read f.md = %q (%v)", data, err)
				}
			}
		},
		"metadata": func(int) { e.checkSize(e.call(ReaderName, toolArgs("metadata", "f.md", nil)), "f.md", len(inside)) },
		"exists":   func(int) { e.call(ReaderName, toolArgs("exists", "f.md", nil)) },
		"search":   func(i int) { e.call(SearcherName, searchArgs([]string{"f.md", "."}[i%2], "needle")) },
		"list":     func(int) { e.call(SearcherName, listArgs(".")) },
	}
	e.runRace(raceDuration(t), bodies)
	e.verify(raceCodes...)
}

// TestRaceDirFlip (C20) exchanges root/d, a real directory, with symbolic links to outside/dir
// (relative and absolute) while the tools read, create, update, append, delete and make
// directories below d, and list and search it. outside/dir holds files of the same names, so
// any write or read through the link would show.
func TestRaceDirFlip(t *testing.T) {
	const inside = "inside x needle\n"
	e := newRaceEnv(t,
		"d/x.md="+inside,
		"d/new.md=first\n",
		"d/app.md=start\n",
		".swap-rel => ../outside/dir",
		".swap-abs => {base}/outside/dir",
	)
	d := filepath.Join(e.root, "d")
	partners := []string{filepath.Join(e.root, ".swap-rel"), filepath.Join(e.root, ".swap-abs")}
	bodies := map[string]func(int){
		// Two exchanges with the same partner put d back; the next pair uses the other link.
		"flip": func(i int) {
			if err := exchange(d, partners[(i/2)%2]); err != nil {
				t.Errorf("flip: %v", err)
			}
			e.changed()
		},
		"read": func(int) {
			out := e.call(ReaderName, toolArgs("read", "d/x.md", nil))
			if c, ok := out["content"].(string); ok && c != inside {
				e.t.Errorf("read d/x.md = %q", c)
			}
		},
		"metadata": func(int) { e.checkSize(e.call(ReaderName, toolArgs("metadata", "d/x.md", nil)), "d/x.md", len(inside)) },
		"create": func(i int) {
			e.call(WriterName, writeArgs("create", fmt.Sprintf("d/new-%d.md", i%64), "created\n", false))
		},
		"create-path": func(i int) {
			e.call(WriterName, writeArgs("create", fmt.Sprintf("d/deep-%d/new.md", i%64), "created\n", true))
		},
		"update": func(i int) { e.call(WriterName, writeArgs("update", "d/new.md", fmt.Sprintf("update %d\n", i), false)) },
		"append": func(int) { e.call(WriterName, writeArgs("append", "d/app.md", "line\n", false)) },
		"delete": func(i int) {
			e.call(WriterName, toolArgs("delete", fmt.Sprintf("d/new-%d.md", i%64), nil))
			e.call(WriterName, toolArgs("delete", "d/x.md", nil))
			e.call(WriterName, writeArgs("create", "d/x.md", inside, false))
		},
		"mkdir":  func(i int) { e.call(WriterName, toolArgs("mkdir", fmt.Sprintf("d/sub-%d", i%64), nil)) },
		"list":   func(int) { e.call(SearcherName, listArgs("d")) },
		"search": func(int) { e.call(SearcherName, searchArgs("d", "needle")) },
	}
	e.runRace(raceDuration(t), bodies)
	e.verify(raceCodes...)
}

// TestRaceCreateOverLink (C21) puts a symbolic link at the name a write targets, root/t.md, to a
// missing file in outside/dir and to outside/secret.md, and takes it away again, while the tools
// create, update and append t.md and delete it so the next create can run.
func TestRaceCreateOverLink(t *testing.T) {
	e := newRaceEnv(t, "sub/")
	name := filepath.Join(e.root, "t.md")
	sub := filepath.Join(e.root, "sub", "t.md")
	targets := []string{
		"../outside/dir/t.md",
		"{base}/outside/dir/t.md",
		"../outside/secret.md",
		"{base}/outside/secret.md",
	}
	for i := range targets {
		targets[i] = strings.ReplaceAll(targets[i], "{base}", e.base)
	}
	const mine = "mine\n"
	checkContent := func(out map[string]any) {
		if c, ok := out["content"].(string); ok && c != mine && !strings.HasPrefix(c, mine) {
			e.t.Errorf("read t.md = %q", c)
		}
	}
	bodies := map[string]func(int){
		"link": func(i int) {
			target := targets[i%len(targets)]
			if err := replaceWith(name, filepath.Join(e.root, ".swap-link"), true, target, ""); err != nil {
				t.Errorf("link: %v", err)
			}
			e.changed()
			os.Remove(name)
			e.changed()
			// One level down a relative link needs one more "..".
			if !filepath.IsAbs(target) {
				target = "../" + target
			}
			if err := replaceWith(sub, filepath.Join(e.root, "sub", ".swap-link"), true, target, ""); err != nil {
				t.Errorf("link: %v", err)
			}
			e.changed()
			os.Remove(sub)
			e.changed()
		},
		"create":      func(int) { e.call(WriterName, writeArgs("create", "t.md", mine, false)) },
		"create-sub":  func(int) { e.call(WriterName, writeArgs("create", "sub/t.md", mine, true)) },
		"update":      func(int) { e.call(WriterName, writeArgs("update", "t.md", mine, false)) },
		"update-sub":  func(int) { e.call(WriterName, writeArgs("update", "sub/t.md", mine, false)) },
		"append":      func(int) { e.call(WriterName, writeArgs("append", "t.md", mine, false)) },
		"append-sub":  func(int) { e.call(WriterName, writeArgs("append", "sub/t.md", mine, false)) },
		"delete":      func(int) { e.call(WriterName, toolArgs("delete", "t.md", nil)) },
		"read":        func(int) { checkContent(e.call(ReaderName, toolArgs("read", "t.md", nil))) },
		"read-sub":    func(int) { checkContent(e.call(ReaderName, toolArgs("read", "sub/t.md", nil))) },
		"metadata":    func(int) { e.call(ReaderName, toolArgs("metadata", "t.md", nil)) },
		"delete-sub":  func(int) { e.call(WriterName, toolArgs("delete", "sub/t.md", nil)) },
		"search-root": func(int) { e.call(SearcherName, searchArgs(".", "needle")) },
	}
	e.runRace(raceDuration(t), bodies)
	e.verify(raceCodes...)
}

// TestRaceWalkSwap (C22) swaps entries while recursive listings and content searches walk the
// tree: root/a/b is exchanged with a link to outside/dir, root/p and root/q are renamed back and
// forth, and root/a/m and root/a/n (real directories) are exchanged.
func TestRaceWalkSwap(t *testing.T) {
	e := newRaceEnv(t,
		"a/b/c.md=needle in b\n",
		"a/b/deeper/e.md=needle deeper\n",
		"a/.swap-b => ../../outside/dir",
		"a/.swap-b-abs => {base}/outside/dir",
		"a/m/m.md=needle m\n",
		"a/n/n.md=needle n\n",
		"a/n/nn/n2.md=needle n2\n",
		"p/p.md=needle p\n",
		"p/sub/q.md=needle p sub\n",
		"top.md=needle top\n",
	)
	a := filepath.Join(e.root, "a")
	p, q := filepath.Join(e.root, "p"), filepath.Join(e.root, "q")
	bodies := map[string]func(int){
		"swap-b": func(i int) {
			partner := []string{".swap-b", ".swap-b-abs"}[(i/2)%2]
			if err := exchange(filepath.Join(a, "b"), filepath.Join(a, partner)); err != nil {
				t.Errorf("swap b: %v", err)
			}
			e.changed()
		},
		"swap-mn": func(int) {
			if err := exchange(filepath.Join(a, "m"), filepath.Join(a, "n")); err != nil {
				t.Errorf("swap m n: %v", err)
			}
			e.changed()
		},
		"rename-pq": func(i int) {
			from, to := p, q
			if i%2 == 1 {
				from, to = q, p
			}
			if err := os.Rename(from, to); err != nil {
				t.Errorf("rename: %v", err)
			}
			e.changed()
		},
		"list-root":   func(int) { e.call(SearcherName, listArgs(".")) },
		"list-a":      func(int) { e.call(SearcherName, listArgs("a")) },
		"list-b":      func(int) { e.call(SearcherName, listArgs("a/b")) },
		"search-root": func(int) { e.call(SearcherName, searchArgs(".", "needle")) },
		"search-a":    func(int) { e.call(SearcherName, searchArgs("a", "needle")) },
		"search-b":    func(int) { e.call(SearcherName, searchArgs("a/b", "needle")) },
		"list-filter": func(int) {
			e.call(SearcherName, map[string]any{"purpose": "list", "target": map[string]any{
				"path": ".", "criteria": map[string]any{"content": "needle"}}, "options": map[string]any{"recursive": true}})
		},
	}
	e.runRace(raceDuration(t), bodies)
	e.verify(raceCodes...)
}

// TestRaceGrowingFile (C23) appends to root/grow.txt, truncating it now and then so its size keeps
// crossing the limit, while reads ask for at most limit bytes: every answer is TOO_LARGE or
// carries at most limit bytes, however big the file was when it was stat'ed.
func TestRaceGrowingFile(t *testing.T) {
	const limit = 4096
	e := newRaceEnv(t, "grow.txt=")
	grow := filepath.Join(e.root, "grow.txt")
	chunk := []byte(strings.Repeat("growing line\n", 40)) // 520 bytes
	f, err := os.OpenFile(grow, os.O_WRONLY|os.O_APPEND, 0)
	mustOK(t, err)
	defer f.Close()
	size := 0
	checkRead := func(out map[string]any, b64 bool) {
		c, ok := out["content"].(string)
		if !ok {
			return
		}
		data := []byte(c)
		if b64 {
			var err error
			if data, err = base64.StdEncoding.DecodeString(c); err != nil {
				e.t.Errorf("base64: %v", err)
			}
		}
		if len(data) > limit {
			e.t.Errorf("read returned %d bytes, limit %d", len(data), limit)
		}
	}
	readArgs := func(encoding string) map[string]any {
		target := map[string]any{"path": "grow.txt"}
		if encoding != "" {
			target["encoding"] = encoding
		}
		return map[string]any{"purpose": "read", "target": target, "preferences": map[string]any{"maxSizeBytes": limit}}
	}
	bodies := map[string]func(int){
		"grow": func(int) {
			if size > limit+2048 {
				if err := f.Truncate(limit - 1024); err != nil {
					t.Errorf("truncate: %v", err)
				}
				size = limit - 1024
			}
			if _, err := f.Write(chunk); err != nil {
				t.Errorf("grow: %v", err)
			}
			e.changed()
			size += len(chunk)
		},
		"read":        func(int) { checkRead(e.call(ReaderName, readArgs("")), false) },
		"read-base64": func(int) { checkRead(e.call(ReaderName, readArgs("base64")), true) },
	}
	e.runRace(raceDuration(t), bodies)
	e.verify(errs.CodeTooLarge)
}

// TestRaceConcurrentWriters (C24) has 8 writers replace root/one.md with their own full content,
// each a different length, while readers read it: every read sees exactly one writer's content,
// never a mix, and no temporary file is left in the root (verify) or created outside.
func TestRaceConcurrentWriters(t *testing.T) {
	const writers = 8
	contents := make(map[string]int, writers)
	list := make([]string, writers)
	for k := range list {
		// 4 to 10 KiB: several pages, so a torn write would show.
		list[k] = strings.Repeat(fmt.Sprintf("writer %d says hello\n", k), 200+k*40)
		contents[list[k]] = k
	}
	e := newRaceEnv(t, "one.md="+list[0])
	checkRead := func(out map[string]any) {
		if c, ok := out["content"].(string); ok {
			if _, whole := contents[c]; !whole {
				e.t.Errorf("torn read: %d bytes, starting %.40q, ending %.40q", len(c), c, c[max(0, len(c)-40):])
			}
		}
	}
	bodies := map[string]func(int){}
	for k := range writers {
		bodies[fmt.Sprintf("writer%d", k)] = func(int) {
			e.call(WriterName, writeArgs("update", "one.md", list[k], false))
			e.changed()
		}
	}
	for k := range 3 {
		bodies[fmt.Sprintf("reader%d", k)] = func(int) { checkRead(e.call(ReaderName, toolArgs("read", "one.md", nil))) }
	}
	e.runRace(raceDuration(t), bodies)
	e.verify()
	data, err := os.ReadFile(filepath.Join(e.root, "one.md"))
	mustOK(t, err)
	if _, whole := contents[string(data)]; !whole {
		t.Errorf("final one.md is no writer's content (%d bytes)", len(data))
	}
}
