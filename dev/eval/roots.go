// This file measures search_semantic as a client gets it, through the searcher tool's handler
// ([tools.Roots]), and what serving the corpus as two roots costs next to one (--roots):
//
//	tools-1root   the corpus copied into one folder, served as the one root of unnamed tools
//	              (tools.NewRoots(shared, false)), searched at "."
//	tools-2roots  the same files split into two folders, served as roots "a" and "b" of one
//	              Roots, each with its own fsroot.Root, policy and index, searched at ".", whose
//	              hits the tools merge (semantic.Merge); a hit "a/x/y.md" is the corpus's "x/y.md"
//
// The split alternates the corpus's top-level entries, in sorted order, between a and b, and
// keeps the paths below them. Each query is one call with target.query, the paraphrases as
// queries and options.maxResults k, as a calling model would make it.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools"
)

// withRoots is the --roots flag: also evaluate rootRankers.
var withRoots = flag.Bool("roots", false, "also rank through the searcher tool over the corpus as one root (tools-1root) and split into two roots searched at \".\" (tools-2roots)")

// rootRankers are the rankers --roots adds, after the others.
var rootRankers = []rankerFactory{
	{name: "tools-1root", build: func(root string, files []string) (Ranker, error) { return newToolsRanker(root, files, false) }},
	{name: "tools-2roots", build: func(root string, files []string) (Ranker, error) { return newToolsRanker(root, files, true) }},
}

// toolsRanker ranks with the searcher tool's handler over copies of the corpus. Close removes the
// copies.
type toolsRanker struct {
	search  server.ToolHandlerFunc
	named   bool // hits name their root: the first element goes
	tmp     string
	closers []func() error
}

// splitRoots assigns each file (a root-relative slash path) to root "a" or "b": the corpus's
// top-level entries, sorted, go to a and b in turn.
func splitRoots(files []string) map[string][]string {
	var tops []string
	for _, f := range files {
		first, _, _ := strings.Cut(f, "/")
		tops = append(tops, first)
	}
	slices.Sort(tops)
	tops = slices.Compact(tops)
	side := make(map[string]string, len(tops))
	for i, t := range tops {
		side[t] = []string{"a", "b"}[i%2]
	}
	parts := map[string][]string{}
	for _, f := range files {
		first, _, _ := strings.Cut(f, "/")
		parts[side[first]] = append(parts[side[first]], f)
	}
	return parts
}

// newToolsRanker copies files from root into a temporary folder, as one root or, if split, as two
// (see [splitRoots]), indexes each root with its own engine and serves them with [tools.Roots].
// It says on stderr how the files were split.
func newToolsRanker(root string, files []string, split bool) (_ Ranker, err error) {
	tmp, err := os.MkdirTemp("", "packfs-eval-roots-")
	if err != nil {
		return nil, err
	}
	t := &toolsRanker{named: split, tmp: tmp}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("tools ranker: %w", err), t.Close())
		}
	}()
	parts := map[string][]string{"corpus": files}
	if split {
		parts = splitRoots(files)
	}
	roots := tools.NewRoots(tools.Config{
		Limiter:     security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30}),
		Permissions: security.AllPermissions(),
	}, split)
	var counts []string
	for _, name := range slices.Sorted(maps.Keys(parts)) {
		dir := filepath.Join(tmp, name)
		for _, f := range parts[name] {
			if err := copyFile(filepath.Join(root, filepath.FromSlash(f)), filepath.Join(dir, filepath.FromSlash(f))); err != nil {
				return nil, err
			}
		}
		m, err := t.mount(name, dir)
		if err != nil {
			return nil, err
		}
		if n := m.Engine.Status().Total; n != len(parts[name]) {
			return nil, fmt.Errorf("root %s: %d files indexed, want the %d copied", name, n, len(parts[name]))
		}
		if err := roots.Add(m); err != nil {
			return nil, err
		}
		counts = append(counts, fmt.Sprintf("%s %d", name, len(parts[name])))
	}
	if split {
		fmt.Fprintf(os.Stderr, "eval: tools-2roots: files per root: %s\n", strings.Join(counts, ", "))
	}
	for _, st := range roots.Tools() {
		if st.Tool.Name == tools.SearcherName {
			t.search = st.Handler
		}
	}
	if t.search == nil {
		return nil, errors.New("no searcher tool")
	}
	return t, nil
}

// mount opens dir as a root with its own policy and engine, and builds the engine's index.
func (t *toolsRanker) mount(name, dir string) (tools.Mount, error) {
	root, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		return tools.Mount{}, err
	}
	t.closers = append(t.closers, root.Close)
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	if err != nil {
		return tools.Mount{}, err
	}
	e := semantic.New(semantic.Options{
		FS:    root.FS(),
		Allow: func(name string, isDir bool) bool { return policy.CheckName(name, isDir) == nil },
		Index: fulltext.IndexOptions{Ranking: ranking()},
	})
	t.closers = append(t.closers, e.Close)
	if err := e.Build(context.Background()); err != nil {
		return tools.Mount{}, err
	}
	return tools.Mount{Name: name, Root: root, Policy: policy, Engine: e}, nil
}

// Rank implements [Ranker] with one search_semantic call at ".". A failed call yields no
// results, so it counts as a miss; it is logged to stderr.
func (t *toolsRanker) Rank(query string, paraphrases []string, k int) []string {
	args := map[string]any{
		"purpose": "search_semantic",
		"target":  map[string]any{"path": ".", "query": query},
		"options": map[string]any{"maxResults": k},
	}
	if len(paraphrases) > 0 {
		args["queries"] = paraphrases
	}
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = tools.SearcherName
	req.Params.Arguments = json.RawMessage(raw)
	res, err := t.search(context.Background(), req)
	if err == nil && res.StructuredContent == nil {
		err = errors.New("no structured content")
	}
	var out struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Code    string `json:"code"`
		Files   []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err == nil {
		var b []byte
		if b, err = json.Marshal(res.StructuredContent); err == nil {
			err = json.Unmarshal(b, &out)
		}
	}
	if err == nil && !out.Success {
		err = fmt.Errorf("%s: %s", out.Code, out.Error)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "eval: tools search %q: %v\n", query, err)
		return nil
	}
	paths := make([]string, 0, len(out.Files))
	for _, f := range out.Files {
		p := f.Path
		if t.named {
			_, p, _ = strings.Cut(p, "/")
		}
		paths = append(paths, p)
	}
	return paths
}

// Close closes the roots and their indexes and removes the copies.
func (t *toolsRanker) Close() error {
	var errs []error
	for _, c := range slices.Backward(t.closers) {
		errs = append(errs, c())
	}
	t.closers = nil
	errs = append(errs, os.RemoveAll(t.tmp))
	return errors.Join(errs...)
}

// copyFile copies the file src to dst, making dst's folders.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
