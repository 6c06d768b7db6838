package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/internal/tier"
	"github.com/packfs/packfs-mcp/tools"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// parallelCall runs one tool call from any goroutine (session.call may stop the test, which only
// the test's own goroutine may do) and returns its flat result.
func parallelCall(c *client.Client, tool string, args map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res.RawStructuredContent, &out); err != nil {
		return nil, fmt.Errorf("structured content %s: %w", res.RawStructuredContent, err)
	}
	return out, nil
}

// inParallel runs fn(i) for i in [0, n) at once and returns their results, failing the test on a
// transport error.
func inParallel(t *testing.T, n int, fn func(i int) (map[string]any, error)) []map[string]any {
	t.Helper()
	out, errs := make([]map[string]any, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i], errs[i] = fn(i) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	return out
}

func appendArgs(path, line string, version any) map[string]any {
	target := map[string]any{"path": path}
	if version != nil {
		target["version"] = version
	}
	return map[string]any{"purpose": "append", "target": target, "content": line + "\n"}
}

// wantLines checks that file holds exactly the lines want, each once and whole, in any order.
func wantLines(t *testing.T, file string, want []string) {
	t.Helper()
	data, err := os.ReadFile(file)
	must(t, err)
	got := map[string]int{}
	for l := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
		got[l]++
	}
	missing := 0
	for _, l := range want {
		if got[l] != 1 {
			missing++
			if missing <= 5 {
				t.Errorf("%q is in the file %d times, want once", l, got[l])
			}
		}
		delete(got, l)
	}
	if missing > 0 || len(got) > 0 {
		t.Errorf("%d of %d answered lines missing; %d other lines", missing, len(want), len(got))
	}
}

// wantAnswered checks that every call of res succeeded and that file holds exactly the lines
// format makes of their indexes.
func wantAnswered(t *testing.T, res []map[string]any, file, format string) {
	t.Helper()
	var want []string
	for i, r := range res {
		if r["success"] != true {
			t.Errorf("call %d: %v", i, r)
		}
		want = append(want, fmt.Sprintf(format, i))
	}
	wantLines(t, file, want)
}

// TestParallelWrites checks, through the binary over stdio, that writes one session sends at
// once to one file all land: appends each whole, edits of distinct lines each applied (none
// refused), versioned appends retried on CONFLICT without a loss; and appends to distinct files.
func TestParallelWrites(t *testing.T) {
	f := newFixture(t)
	s := start(t, f, nil, "--allow-write", "--no-index", "--rate-limit", "100000")
	t.Run("appends", func(t *testing.T) {
		must(t, os.WriteFile(filepath.Join(f.root, "log.md"), nil, 0o644))
		const n = 100
		res := inParallel(t, n, func(i int) (map[string]any, error) {
			return parallelCall(s.c, tools.WriterName, appendArgs("log.md", fmt.Sprintf("line %d", i), nil))
		})
		wantAnswered(t, res, filepath.Join(f.root, "log.md"), "line %d")
	})
	t.Run("edits", func(t *testing.T) {
		const n = 40
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "item %d: todo\n", i)
		}
		must(t, os.WriteFile(filepath.Join(f.root, "list.md"), []byte(b.String()), 0o644))
		res := inParallel(t, n, func(i int) (map[string]any, error) {
			return parallelCall(s.c, tools.WriterName, map[string]any{"purpose": "edit", "target": map[string]any{"path": "list.md"},
				"edits": []map[string]any{{"oldText": fmt.Sprintf("item %d: todo", i), "newText": fmt.Sprintf("item %d: done", i)}}})
		})
		wantAnswered(t, res, filepath.Join(f.root, "list.md"), "item %d: done")
	})
	t.Run("versioned", func(t *testing.T) {
		cs := slices.Repeat([]*client.Client{s.c}, 8)
		if conflicts := appendLines(t, cs, filepath.Join(f.root, "v.md"), 10, true); conflicts == 0 {
			t.Log("no CONFLICT: the writers never overlapped, and the versions were not put to the test")
		}
	})
	t.Run("distinct files", func(t *testing.T) {
		const n = 50
		for i := range n {
			must(t, os.WriteFile(filepath.Join(f.root, fmt.Sprintf("f%d.md", i)), nil, 0o644))
		}
		res := inParallel(t, n, func(i int) (map[string]any, error) {
			return parallelCall(s.c, tools.WriterName, appendArgs(fmt.Sprintf("f%d.md", i), "only", nil))
		})
		for i, r := range res {
			if r["success"] != true {
				t.Errorf("append %d: %v", i, r)
			}
			wantLines(t, filepath.Join(f.root, fmt.Sprintf("f%d.md", i)), []string{"only"})
		}
	})
}

// TestParallelWritesHTTP checks that several HTTP clients of one server, each its own session,
// appending to one file at once, lose none of the appends answered as successful, with and
// without versions.
func TestParallelWritesHTTP(t *testing.T) {
	tier.Full(t, "parallel writes from several HTTP clients")
	f := newFixture(t)
	srv := startHTTP(t, f, httpEnv(f), "--allow-write", "--rate-limit", "100000", "--http-client-rate-limit", "100000")
	const clients, each = 8, 25
	for _, versioned := range []bool{false, true} {
		t.Run(fmt.Sprintf("versioned=%v", versioned), func(t *testing.T) {
			file := fmt.Sprintf("http-%v.md", versioned)
			cs := make([]*client.Client, clients)
			for i := range cs {
				s := httpSession(t, f, srv.url, nil)
				cs[i] = s.c
			}
			appendLines(t, cs, filepath.Join(f.root, file), each, versioned)
		})
	}
}

// TestParallelAppendsKilled sends a burst of parallel appends to one file, kills the server with
// SIGKILL while they run, and checks that every append answered as successful is in the file, and
// that the file holds only whole lines, each once.
func TestParallelAppendsKilled(t *testing.T) {
	f := newFixture(t)
	args := []string{"serve", "--root", f.root, "--allow-write", "--no-index", "--rate-limit", "100000",
		"--history-dir", filepath.Join(f.dir, "history")}
	file := filepath.Join(f.root, "burst.md")
	must(t, os.WriteFile(file, nil, 0o644))
	line := regexp.MustCompile(`^burst \d+ call \d+ [x]{200}$`)
	var answered []string
	for burst := range 3 {
		s := startCrashServer(t, args)
		const n = 300
		sentAll := make(chan struct{})
		go func() {
			defer close(sentAll)
			for i := range n {
				call := crashCall(100+i, tools.WriterName, appendArgs("burst.md", fmt.Sprintf("burst %d call %d %s", burst, i, strings.Repeat("x", 200)), nil))
				if _, err := io.WriteString(s.in, call); err != nil {
					return
				}
			}
		}()
		// Kill once a third of the calls are answered: the rest are in flight.
		for len(answered) < (burst+1)*n/3 {
			reply, err := s.out.ReadString('\n')
			if err != nil {
				t.Fatalf("the server stopped before the kill: %v\n%s", err, s.stderr.String())
			}
			var env struct{ ID int }
			must(t, json.Unmarshal([]byte(reply), &env))
			if res := crashResult(t, reply); res.Success {
				answered = append(answered, fmt.Sprintf("burst %d call %d %s", burst, env.ID-100, strings.Repeat("x", 200)))
			} else {
				t.Errorf("append %d refused: %s %s", env.ID-100, res.Code, res.Error)
			}
		}
		must(t, s.cmd.Process.Kill())
		s.cmd.Wait()
		<-sentAll
	}
	data, err := os.ReadFile(file)
	must(t, err)
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !line.MatchString(l) {
			t.Errorf("a torn line: %.80q", l)
		}
		if seen[l] {
			t.Errorf("a line twice: %.60q", l)
		}
		seen[l] = true
	}
	lost := 0
	for _, l := range answered {
		if !seen[l] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d appends answered as successful are not in the file", lost, len(answered))
	}
	t.Logf("%d appends answered before the kills, %d lines in the file", len(answered), len(seen))
}

// TestParallelWritesTwoServers checks that two server processes on one folder, as two hosts of one
// user start them, lose none of the appends each answered as successful: they share the lock files
// in the user's state folder.
func TestParallelWritesTwoServers(t *testing.T) {
	f := newFixture(t)
	must(t, os.WriteFile(filepath.Join(f.root, "shared.md"), nil, 0o644))
	servers := []*session{
		start(t, f, nil, "--allow-write", "--no-index", "--rate-limit", "100000"),
		start(t, f, nil, "--allow-write", "--no-index", "--rate-limit", "100000"),
	}
	const each = 60
	res := inParallel(t, 2*each, func(i int) (map[string]any, error) {
		return parallelCall(servers[i%2].c, tools.WriterName, appendArgs("shared.md", fmt.Sprintf("call %d", i), nil))
	})
	wantAnswered(t, res, filepath.Join(f.root, "shared.md"), "call %d")
}

// appendLines has a writer on each of cs (clients, or one client many times) append each lines
// "writer W line I" to file (a host path in the served root, made empty first), all writers at
// once; with versioned, each append sends the version a metadata call just returned and is sent
// again on CONFLICT. It checks that the file holds every line once, and returns the CONFLICTs.
func appendLines(t *testing.T, cs []*client.Client, file string, each int, versioned bool) (conflicts int) {
	t.Helper()
	must(t, os.WriteFile(file, nil, 0o644))
	name := filepath.Base(file)
	var mu sync.Mutex
	res := inParallel(t, len(cs), func(w int) (map[string]any, error) {
		for i := 0; i < each; {
			var version any
			if versioned {
				meta, err := parallelCall(cs[w], tools.ReaderName, map[string]any{"purpose": "metadata", "target": map[string]any{"path": name}})
				if err != nil {
					return nil, err
				}
				version = meta["version"]
			}
			r, err := parallelCall(cs[w], tools.WriterName, appendArgs(name, fmt.Sprintf("writer %d line %d", w, i), version))
			switch {
			case err != nil:
				return nil, err
			case versioned && r["code"] == errs.CodeConflict:
				mu.Lock()
				conflicts++
				mu.Unlock()
			case r["success"] != true:
				return r, nil
			default:
				i++
			}
		}
		return map[string]any{"success": true}, nil
	})
	var want []string
	for w, r := range res {
		if r["success"] != true {
			t.Errorf("writer %d: %v", w, r)
		}
		for i := range each {
			want = append(want, fmt.Sprintf("writer %d line %d", w, i))
		}
	}
	wantLines(t, file, want)
	return conflicts
}
