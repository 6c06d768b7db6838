package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
)

// TestRootsMergeRanksAsOneRoot checks that a search of "." over two roots ranks their files as one
// root holding both as folders does, scores included. The roots are unlike on purpose: "budget"
// is in three of notes' four files and two of work's three, so each index alone weighs it
// differently, and each root's best hit scores 1 in its own index; only the statistics summed
// over the roots and the merge of their lists by comparable scores give one root's order. The
// files share no word but the queries' (each other word is in one file), so pseudo-relevance
// feedback, which draws on a root's own files, adds nothing here.
func TestRootsMergeRanksAsOneRoot(t *testing.T) {
	trees := map[string][]string{
		"notes": {
			"n1.md=# Alpha\nbudget ledger\n",
			"n2.md=# Bravo\nbudget budget spreadsheet\n",
			"n3.md=# Charlie\nbudget invoice\n",
			"n4.md=# Delta\naardvark burrow\n",
		},
		"work": {
			"w1.md=# Echo\naardvark burrow budget\n",
			"w2.md=# Foxtrot\nbudget\n",
			"w3.md=# Golf\naardvark burrow tunnel\n",
		},
	}
	two, one := newRootsEnv(t, trees), newOneRootEnv(t, trees)
	tests := []struct{ name, args string }{
		{"words", `{"purpose":"search_semantic","target":{"path":".","query":"aardvark burrow budget"}}`},
		{"a common word", `{"purpose":"search_semantic","target":{"path":".","query":"budget"}}`},
		{"paraphrases", `{"purpose":"search_semantic","target":{"path":".","query":"budget"},"queries":["aardvark burrow","tunnel"]}`},
		{"a page", `{"purpose":"search_semantic","target":{"path":".","query":"aardvark burrow budget"},"options":{"maxResults":2,"offset":2}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got := rankedFiles(t, one.call(t, SearcherName, tt.args)), rankedFiles(t, two.call(t, SearcherName, tt.args))
			if len(want) < 2 {
				t.Fatalf("one root found %v: too few to compare an order", want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("two roots ranked otherwise than one (-one +two):\n%s", diff)
			}
		})
	}
}

// rankedFile is one file of a search's answer as the ranking test compares it.
type rankedFile struct {
	Path  string
	Score float64
}

func rankedFiles(t *testing.T, out map[string]any) []rankedFile {
	t.Helper()
	if out["success"] != true {
		t.Fatalf("search failed: %v", out)
	}
	var files []rankedFile
	list, _ := out["files"].([]any)
	for _, f := range list {
		m := f.(map[string]any)
		files = append(files, rankedFile{m["path"].(string), m["score"].(float64)})
	}
	return files
}

// newOneRootEnv serves trees as the folders of one root, whose paths are then those of
// newRootsEnv's roots.
func newOneRootEnv(t *testing.T, trees map[string][]string) *rootsEnv {
	t.Helper()
	base := testfs.TempDir(t)
	dir := filepath.Join(base, "one")
	for name, tree := range trees {
		mustOK(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		var entries []string
		for _, e := range tree {
			entries = append(entries, name+"/"+strings.TrimPrefix(e, "/"))
		}
		testfs.Tree(t, dir, base, entries...)
	}
	env := &rootsEnv{base: base, roots: NewRoots(Config{
		Limiter:     security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30}),
		Permissions: security.AllPermissions(),
	}, false), tools: map[string]server.ServerTool{}}
	mustOK(t, env.roots.Add(testMount(t, "one", dir, true)))
	for _, st := range env.roots.Tools() {
		env.tools[st.Tool.Name] = st
	}
	return env
}

// TestRootsMergeUnknownWords checks that a search of "." names as unknown only the words no root's
// index holds: a word one root knows is known.
func TestRootsMergeUnknownWords(t *testing.T) {
	e := newRootsEnv(t, map[string][]string{
		"notes": {"a.md=# Alpha\naardvark ledger\n"},
		"work":  {"w.md=# Work\naardvark burrow\n"},
	})
	out := e.call(t, SearcherName, `{"purpose":"search_semantic","target":{"path":".","query":"aardvark burrow zyzzyva"}}`)
	if got, want := out["unknownWords"], []any{"zyzzyva"}; !cmp.Equal(got, want) {
		t.Errorf("unknownWords = %v, want %v: %v", got, want, out)
	}
}
