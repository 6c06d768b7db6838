package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/packfs/packfs-mcp/internal/tier"
)

// buildTreeFiles is the size of the tree TestSearchWhileIndexing serves: big enough that the
// build takes seconds on two cores, so the first searches arrive while it runs.
const buildTreeFiles = 20_000

// TestSearchWhileIndexing serves a tree of 20,000 files through the built binary and searches right
// after initialize, while the index is being built. Every answer must be honest: hits from what is
// indexed and from files read directly, with what it covers and when to search again; never a
// success with no hits while files remain unread; no unknown words until the index is complete.
// relationships of a document the build has not reached answers from the file itself.
func TestSearchWhileIndexing(t *testing.T) {
	tier.Full(t, "searches while the binary indexes a tree")
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	for i := range buildTreeFiles {
		p := filepath.Join(root, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("page%05d.md", i))
		if i%100 == 0 {
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		}
		must(t, os.WriteFile(p, []byte(fmt.Sprintf("# Page %d\nfiller text about topic %d\n", i, i%97)), 0o644))
	}
	// The document sought lies last in walk order, named by the query.
	must(t, os.MkdirAll(filepath.Join(root, "zz"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "zz", "wombat.md"), []byte("# Wombats\nWombats dig burrows. See [[page00001]] and [[den]].\n"), 0o644))
	// Two notes named den: the one beside wombat.md, walked last, is the one its link means.
	must(t, os.WriteFile(filepath.Join(root, "d000", "den.md"), []byte("# A far den\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "zz", "den.md"), []byte("# The near den\n"), 0o644))
	s := startOn(t, &fixture{dir: dir, root: root, outside: filepath.Join(dir, "none"), pwned: filepath.Join(dir, "none")},
		[]string{"HOME=" + dir}, "--index-dir", filepath.Join(dir, "index"))

	incomplete := 0
	deadline := time.Now().Add(2 * time.Minute)
	for {
		for _, q := range []string{"wombat burrows xylograph", "qqzzyx"} {
			res, isErr := s.call(searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": q}})
			complete, _ := res["indexComplete"].(bool)
			files, _ := res["files"].([]any)
			switch {
			case isErr:
				if res["code"] != "NOT_AVAILABLE" || res["retryAfterMs"] == nil || !strings.Contains(res["error"].(string), "not every file") {
					t.Fatalf("%q: an error other than a build in progress: %v", q, res)
				}
				incomplete++
				continue
			case complete:
				// A search that finds nothing says how many files the index holds; none speaks
				// of the build any more.
				if msg, _ := res["message"].(string); strings.Contains(msg, "being built") || strings.Contains(msg, "Search again") {
					t.Errorf("%q: a complete index still says %q", q, msg)
				}
				continue
			}
			incomplete++
			if res["unknownWords"] != nil {
				t.Errorf("%q: unknown words %v told while the index is incomplete", q, res["unknownWords"])
			}
			msg, _ := res["message"].(string)
			if res["retryAfterMs"] == nil || res["scannedFiles"] == nil || msg == "" {
				t.Errorf("%q: a partial answer without retryAfterMs, scannedFiles and a message: %v", q, res)
			}
			if len(files) == 0 && !strings.Contains(msg, "no file was left out") {
				t.Errorf("%q: success with no hits while files remain unread: %v", q, res)
			}
			if q != "qqzzyx" && (len(files) == 0 || files[0].(map[string]any)["path"] != "zz/wombat.md") {
				t.Errorf("%q during the build: want zz/wombat.md first (its name is in the query), got %v", q, res)
			}
		}
		rel, isErr := s.call(searcher, map[string]any{"purpose": "relationships", "target": map[string]any{"path": "zz/wombat.md"}})
		if isErr || rel["title"] != "Wombats" {
			t.Errorf("relationships of a document during the build: %v", rel)
		}
		// [[den]] may reach d000/den.md before zz/den.md is indexed: never as a sure link.
		for _, l := range rel["links"].([]any) {
			m := l.(map[string]any)
			if m["target"] != "den" {
				continue
			}
			switch {
			case rel["indexComplete"] == true && (m["status"] != "internal" || m["to"] != "zz/den.md"):
				t.Errorf("complete index: [[den]] = %v, want internal to zz/den.md", m)
			case rel["indexComplete"] != true && m["status"] == "internal":
				t.Errorf("during the build, [[den]] reached %v by name and is called internal: %v", m["to"], m)
			}
		}
		// A folder's documents come from the index: during the build, never a plain success with none.
		zz, isErr := s.call(searcher, map[string]any{"purpose": "relationships", "target": map[string]any{"path": "zz"}})
		zzMsg, _ := zz["message"].(string)
		switch {
		case isErr && (zz["code"] != "NOT_AVAILABLE" || zz["retryAfterMs"] == nil):
			t.Errorf("relationships of a folder during the build: an error other than NOT_AVAILABLE with retryAfterMs: %v", zz)
		case !isErr && zz["indexComplete"] != true && !strings.Contains(zzMsg, "others in it may be missing"):
			t.Errorf("relationships of a folder during the build does not say documents may be missing: %v", zz)
		case !isErr && zz["indexComplete"] == true && zz["totalFound"] != 2.0:
			t.Errorf("relationships of zz once complete: totalFound %v, want 2 (wombat.md, den.md)", zz["totalFound"])
		}
		back, isErr := s.call(searcher, map[string]any{"purpose": "relationships", "target": map[string]any{"path": "d000/page00001.md"}})
		if isErr {
			t.Fatalf("relationships of a document during the build: %v", back)
		}
		linked := strings.Contains(fmt.Sprint(back["backlinks"]), "zz/wombat.md")
		msg, _ := back["message"].(string)
		switch {
		case back["indexComplete"] == true && !linked:
			t.Errorf("complete index: the backlink from zz/wombat.md is missing: %v", back)
		case back["indexComplete"] != true && !linked && !strings.Contains(msg, "backlinks may be missing"):
			t.Errorf("during the build, a backlink is missing and the answer does not say so: %v", back)
		}
		if rel["indexComplete"] == true && back["indexComplete"] == true {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the index did not complete in 2 minutes")
		}
	}
	if incomplete == 0 {
		t.Fatal("no search ran while the index was being built: the tree is too small to test this")
	}
	res, _ := s.call(searcher, map[string]any{"purpose": "search_semantic", "target": map[string]any{"path": ".", "query": "wombat burrows xylograph"}})
	if words, _ := res["unknownWords"].([]any); !slices.Equal(words, []any{"xylograph"}) {
		t.Errorf("unknown words once complete = %v, want [xylograph]", res["unknownWords"])
	}
	t.Logf("%d searches answered while the index was being built", incomplete)
	s.checkNoLeak()
}
