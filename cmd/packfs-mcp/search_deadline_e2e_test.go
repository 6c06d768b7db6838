package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSearchDeadlineEndToEnd searches a tree with a regular expression, without an index, under
// a deadline too short for one call to cover it, through the binary: no call answers TIMEOUT,
// each answers what it found, and following nextOffset finds every match once.
func TestSearchDeadlineEndToEnd(t *testing.T) {
	f := workspace(t)
	var want []string
	filler := strings.Repeat("nothing to see on this line of filler text\n", 200)
	for i := range 3000 {
		p := fmt.Sprintf("tree/d%02d/f%04d.txt", i/200, i)
		text := filler
		if i%97 == 0 {
			text += fmt.Sprintf("the marker zq%dx is here\n", i)
			want = append(want, p)
		}
		must(t, os.MkdirAll(filepath.Join(f.root, filepath.Dir(p)), 0o755))
		must(t, os.WriteFile(filepath.Join(f.root, p), []byte(text), 0o644))
	}
	s := start(t, f, nil, "--no-index", "--timeout", "500ms")
	var got []string
	offset, timedOut := 0.0, 0
	for call := 0; ; call++ {
		if call == 500 {
			t.Fatalf("500 calls and still truncated: found %d of %d", len(got), len(want))
		}
		res, isErr := s.call(searcher, map[string]any{"purpose": "search_content",
			"target":  map[string]any{"path": "tree", "query": `[a-z]q[0-9]+x`},
			"options": map[string]any{"regex": true, "filesOnly": true, "offset": offset}})
		if isErr {
			t.Fatalf("call %d at offset %v: %v", call, offset, res)
		}
		files, _ := res["files"].([]any)
		for _, e := range files {
			got = append(got, e.(map[string]any)["path"].(string))
		}
		if res["timedOut"] == true {
			timedOut++
		}
		next, ok := res["nextOffset"].(float64)
		if !ok {
			break
		}
		offset = next
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
	t.Logf("%d files found over calls that ran out of time %d times", len(got), timedOut)
}
