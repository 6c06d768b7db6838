package semantic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/internal/tier"
	"github.com/packfs/packfs-mcp/markdown"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func vault() fstest.MapFS {
	return fstest.MapFS{
		"index.md":          {Data: []byte("# Index\nSee [[alpha]] and [beta](sub/beta.md).\n"), ModTime: t0},
		"alpha.md":          {Data: []byte("---\naliases: [first]\n---\n# Alpha\nAardvarks live in burrows.\n"), ModTime: t0},
		"sub/beta.md":       {Data: []byte("# Beta\nBadgers dig setts. Back to [[index]].\n"), ModTime: t0},
		"notes.txt":         {Data: []byte("plain text about capybaras\n"), ModTime: t0},
		".git/config":       {Data: []byte("aardvark secret\n"), ModTime: t0},
		"image.png":         {Data: []byte("\x89PNG\x00\x00aardvark"), ModTime: t0},
		"blocked/secret.md": {Data: []byte("# Secret\naardvark\n"), ModTime: t0},
	}
}

// allow mimics the server's name policy: no .git, no blocked/ folder.
func allow(name string, isDir bool) bool {
	return name != ".git" && name != "blocked" && name != ".git/config"
}

func openEngine(t *testing.T, fsys fstest.MapFS, dir string) *Engine {
	t.Helper()
	e, err := Open(Options{FS: fsys, Allow: allow, Index: fulltext.IndexOptions{Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

func find(t *testing.T, e *Engine, q string) []string {
	t.Helper()
	res, err := e.Search(context.Background(), fulltext.Query{Text: q}, false)
	if err != nil {
		t.Fatal(err)
	}
	return paths(res.Hits)
}

func TestEngineBuildAndSearch(t *testing.T) {
	e := openEngine(t, vault(), "")
	defer e.Close()
	if st := e.Status(); !st.Complete || st.Total != 5 || st.Done != 5 { // the binary image is walked, not indexed
		t.Errorf("status = %+v, want 5 files walked", st)
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"aardvark", []string{"alpha.md"}}, // not .git/config, blocked/ or the binary image
		{"badgers", []string{"sub/beta.md"}},
		{"capybaras", []string{"notes.txt"}},
		{"first", []string{"alpha.md"}}, // by alias
	}
	for _, tt := range tests {
		got := find(t, e, tt.query)
		if len(got) == 0 || got[0] != tt.want[0] {
			t.Errorf("search %q = %v, want %v first", tt.query, got, tt.want)
		}
		for _, p := range got {
			if p == ".git/config" || p == "blocked/secret.md" || p == "image.png" {
				t.Errorf("search %q found %s, which the policy or the type excludes", tt.query, p)
			}
		}
	}
	rel, ok := e.Relations("alpha.md")
	if !ok || len(rel.Backlinks) != 1 || rel.Backlinks[0].From != "index.md" {
		t.Errorf("alpha backlinks = %+v", rel.Backlinks)
	}
}

// TestEngineHitsShowTheFile checks that what a hit shows (title, heading, line, snippet), which
// the index does not store, is read from the file as it is now, on a reopened index too.
func TestEngineHitsShowTheFile(t *testing.T) {
	dir := t.TempDir()
	fsys := vault()
	openEngine(t, fsys, dir).Close()
	e := openEngine(t, fsys, dir)
	defer e.Close()
	hit := func() fulltext.Hit {
		t.Helper()
		res, err := e.Search(context.Background(), fulltext.Query{Text: "badgers"}, false)
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("search = %+v, %v; want a hit", res, err)
		}
		return res.Hits[0]
	}
	want := fulltext.Hit{Path: "sub/beta.md", Title: "Beta", Score: 1, Heading: "Beta", Line: 1,
		Snippet: "# Beta **Badgers** dig setts. Back to [[index]]."}
	if diff := cmp.Diff(want, hit()); diff != "" {
		t.Errorf("hit (-want +got):\n%s", diff)
	}
	// Changed behind the index's back (no event, no reconcile): the hit shows the file's text.
	fsys["sub/beta.md"] = &fstest.MapFile{Data: []byte("# Beta\nBadgers sleep by day.\n"), ModTime: t0}
	if got := hit().Snippet; got != "# Beta **Badgers** sleep by day." {
		t.Errorf("snippet after a change = %q, want the file's new text", got)
	}
}

// TestEngineRelationsTellURLs checks that a document's relationships list its URLs, which the
// graph does not keep, read from the file as it is now.
func TestEngineRelationsTellURLs(t *testing.T) {
	fsys := vault()
	fsys["links.md"] = &fstest.MapFile{Data: []byte("# Links\n[alpha](alpha.md) <https://example.org/doc>\n"), ModTime: t0}
	e := openEngine(t, fsys, "")
	defer e.Close()
	rel, ok := e.Relations("links.md")
	if !ok || len(rel.Links) != 2 || rel.Links[0].To != "alpha.md" || rel.Links[1].Status != markdown.StatusExternal {
		t.Errorf("links.md links = %+v, want alpha.md then the URL", rel.Links)
	}
}

func TestEngineRefreshAndRemove(t *testing.T) {
	fsys := vault()
	e := openEngine(t, fsys, "")
	defer e.Close()
	ctx := context.Background()
	fsys["gamma.md"] = &fstest.MapFile{Data: []byte("# Gamma\nGnus graze.\n"), ModTime: t0}
	if err := e.Refresh(ctx, "gamma.md"); err != nil {
		t.Fatal(err)
	}
	if got := find(t, e, "gnus"); len(got) != 1 || got[0] != "gamma.md" {
		t.Errorf("after refresh: %v", got)
	}
	delete(fsys, "gamma.md")
	if err := e.Refresh(ctx, "gamma.md"); err != nil {
		t.Fatal(err)
	}
	if got := find(t, e, "gnus"); len(got) != 0 {
		t.Errorf("after removal: %v", got)
	}
	// A hit whose file vanished without a refresh is dropped at query time.
	delete(fsys, "notes.txt")
	if got := find(t, e, "capybaras"); len(got) != 0 {
		t.Errorf("a deleted file is still returned: %v", got)
	}
	if err := e.Remove("sub"); err != nil {
		t.Fatal(err)
	}
	if got := find(t, e, "badgers"); len(got) != 0 {
		t.Errorf("after removing a folder: %v", got)
	}
}

// TestEngineRestartReadsOnlyChanges checks that a persisted index is reused: after a restart only
// the files whose size or modification time changed are indexed again.
func TestEngineRestartReadsOnlyChanges(t *testing.T) {
	dir := t.TempDir()
	fsys := vault()
	e := openEngine(t, fsys, dir)
	if n := e.indexed.Load(); n != 4 {
		t.Fatalf("first build indexed %d, want 4", n)
	}
	e.Close()

	fsys["alpha.md"] = &fstest.MapFile{Data: []byte("# Alpha\nArmadillos now.\n"), ModTime: t0.Add(time.Hour)}
	delete(fsys, "notes.txt")
	e = openEngine(t, fsys, dir)
	defer e.Close()
	if n := e.indexed.Load(); n != 1 {
		t.Errorf("restart indexed %d files, want only the changed one", n)
	}
	if n := e.reads.Load(); n != 2 {
		t.Errorf("restart read %d files, want 2: the changed one and the binary image, which is never indexed", n)
	}
	if got := find(t, e, "armadillos"); len(got) != 1 {
		t.Errorf("changed file not reindexed: %v", got)
	}
	if got := find(t, e, "capybaras"); len(got) != 0 {
		t.Errorf("deleted file survived the restart: %v", got)
	}
	if got := find(t, e, "badgers"); len(got) != 1 {
		t.Errorf("unchanged file lost: %v", got)
	}
	// Relationships are rebuilt on restart too.
	if rel, ok := e.Relations("sub/beta.md"); !ok || len(rel.Backlinks) != 1 {
		t.Errorf("graph not rebuilt: %+v", rel)
	}
}

// TestEngineRestartForgets checks that a restart forgets what is no longer a file it may index:
// one deleted, one turned binary, one grown past the size read, one below a folder the policy now
// keeps out; and keeps every file that did not change.
func TestEngineRestartForgets(t *testing.T) {
	tests := []struct {
		name   string
		change func(fsys fstest.MapFS, o *Options)
		found  map[string]int // query word: hits wanted
		gone   string         // the file the index must no longer hold, if any
	}{
		{"deleted", func(fsys fstest.MapFS, _ *Options) { delete(fsys, "notes.txt") }, map[string]int{"capybaras": 0, "badgers": 1}, "notes.txt"},
		{"turned binary", func(fsys fstest.MapFS, _ *Options) {
			fsys["notes.txt"] = &fstest.MapFile{Data: []byte("capybaras\x00\x01"), ModTime: t0.Add(time.Hour)}
		}, map[string]int{"capybaras": 0, "badgers": 1}, "notes.txt"},
		{"too large", func(_ fstest.MapFS, o *Options) { o.MaxFileBytes = 50 }, map[string]int{"aardvarks": 0, "capybaras": 1}, "alpha.md"},
		{"folder refused", func(_ fstest.MapFS, o *Options) {
			o.Allow = func(name string, isDir bool) bool { return allow(name, isDir) && name != "sub" }
		}, map[string]int{"badgers": 0, "aardvarks": 1}, "sub/beta.md"},
		{"unchanged", func(fstest.MapFS, *Options) {}, map[string]int{"aardvarks": 1, "badgers": 1, "capybaras": 1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, fsys := t.TempDir(), vault()
			openEngine(t, fsys, dir).Close()
			o := Options{FS: fsys, Allow: allow, Index: fulltext.IndexOptions{Dir: dir}}
			tt.change(fsys, &o)
			e, err := Open(o)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.Build(context.Background()); err != nil {
				t.Fatal(err)
			}
			for q, want := range tt.found {
				if got := find(t, e, q); len(got) != want {
					t.Errorf("%s: %v, want %d hits", q, got, want)
				}
			}
			if tt.gone != "" && e.index().Holds(tt.gone) {
				t.Errorf("the index still holds %s", tt.gone)
			}
			if n, _ := e.index().Count(); n != 4-min(1, len(tt.gone)) {
				t.Errorf("the index holds %d files, want %d", n, 4-min(1, len(tt.gone)))
			}
		})
	}
}

// TestEngineReconcile checks that a walk of the whole tree brings the index in step: a file added
// is found, one deleted is no longer, both at once (as many files as before) alike, and once a
// first walk has found the binary file not text, a tree that did not change costs no read.
func TestEngineReconcile(t *testing.T) {
	delta := &fstest.MapFile{Data: []byte("# Delta\nDingoes howl.\n"), ModTime: t0}
	tests := []struct {
		name    string
		change  func(fsys fstest.MapFS)
		changed int
		found   map[string]int // query word: hits wanted
	}{
		{"added", func(fsys fstest.MapFS) { fsys["delta.md"] = delta }, 1, map[string]int{"dingoes": 1}},
		{"deleted", func(fsys fstest.MapFS) { delete(fsys, "notes.txt") }, 1, map[string]int{"capybaras": 0}},
		{"added and deleted", func(fsys fstest.MapFS) {
			fsys["delta.md"] = delta
			delete(fsys, "notes.txt")
		}, 2, map[string]int{"dingoes": 1, "capybaras": 0}},
		{"binary turned text", func(fsys fstest.MapFS) {
			fsys["image.png"] = &fstest.MapFile{Data: []byte("okapis\n"), ModTime: t0.Add(time.Hour)}
		}, 1, map[string]int{"okapis": 1}},
		{"unchanged", func(fstest.MapFS) {}, 0, map[string]int{"badgers": 1, "capybaras": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := vault()
			e := openEngine(t, fsys, "")
			defer e.Close()
			if n, err := e.Reconcile(context.Background()); err != nil || n != 0 {
				t.Fatalf("first walk = %d, %v; want no change", n, err)
			}
			tt.change(fsys)
			reads := e.reads.Load()
			n, err := e.Reconcile(context.Background())
			if err != nil || n != tt.changed {
				t.Fatalf("reconcile = %d, %v; want %d changes", n, err, tt.changed)
			}
			if tt.changed == 0 && e.reads.Load() != reads {
				t.Errorf("nothing changed, but %d files were read", e.reads.Load()-reads)
			}
			for q, want := range tt.found {
				if got := find(t, e, q); len(got) != want {
					t.Errorf("%s: %v, want %d hits", q, got, want)
				}
			}
		})
	}
}

// TestEngineChanged checks that the paths a watcher reports are brought in step, each alone: a
// file edited, one added, one deleted, a folder added with its files, a folder deleted, and a file
// in a refused folder left out; a path that did not change costs no read.
func TestEngineChanged(t *testing.T) {
	tests := []struct {
		name    string
		change  func(fsys fstest.MapFS)
		paths   []string
		changed int
		found   map[string]int // query word: hits wanted
	}{
		{"edited", func(fsys fstest.MapFS) {
			fsys["alpha.md"] = &fstest.MapFile{Data: []byte("# Alpha\nAntelopes now.\n"), ModTime: t0.Add(time.Hour)}
		}, []string{"alpha.md"}, 1, map[string]int{"antelopes": 1, "aardvarks": 0}},
		{"added", func(fsys fstest.MapFS) {
			fsys["delta.md"] = &fstest.MapFile{Data: []byte("# Delta\nDingoes howl.\n"), ModTime: t0}
		}, []string{"delta.md"}, 1, map[string]int{"dingoes": 1}},
		{"deleted", func(fsys fstest.MapFS) { delete(fsys, "notes.txt") }, []string{"notes.txt"}, 1, map[string]int{"capybaras": 0}},
		{"folder added", func(fsys fstest.MapFS) {
			fsys["zoo/a.md"] = &fstest.MapFile{Data: []byte("zebras\n"), ModTime: t0}
			fsys["zoo/deep/b.md"] = &fstest.MapFile{Data: []byte("zebras too\n"), ModTime: t0}
		}, []string{"zoo"}, 2, map[string]int{"zebras": 2}},
		{"folder deleted", func(fsys fstest.MapFS) { delete(fsys, "sub/beta.md") }, []string{"sub"}, 1, map[string]int{"badgers": 0}},
		{"refused folder", func(fsys fstest.MapFS) {
			fsys["blocked/new.md"] = &fstest.MapFile{Data: []byte("wolverines\n"), ModTime: t0}
		}, []string{"blocked/new.md", "blocked"}, 0, map[string]int{"wolverines": 0}},
		{"unchanged", func(fstest.MapFS) {}, []string{"index.md", "sub"}, 0, map[string]int{"badgers": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := vault()
			e := openEngine(t, fsys, "")
			defer e.Close()
			tt.change(fsys)
			reads := e.reads.Load()
			n, err := e.Changed(context.Background(), tt.paths)
			if err != nil || n != tt.changed {
				t.Fatalf("Changed(%v) = %d, %v; want %d", tt.paths, n, err, tt.changed)
			}
			if tt.changed == 0 && e.reads.Load() != reads {
				t.Errorf("nothing changed, but %d files were read", e.reads.Load()-reads)
			}
			for q, want := range tt.found {
				if got := find(t, e, q); len(got) != want {
					t.Errorf("%s: %v, want %d hits", q, got, want)
				}
			}
		})
	}
}

func TestEngineMoveRewritesLinks(t *testing.T) {
	fsys := vault()
	e := openEngine(t, fsys, "")
	defer e.Close()
	tests := []struct {
		name, from, old, dest string
		keepText              bool
		want                  string
		rewrites              []markdown.Rewrite
	}{
		{"markdown link", "index.md", "sub/beta.md", "archive/beta.md", true,
			"# Index\nSee [[alpha]] and [beta](archive/beta.md).\n",
			[]markdown.Rewrite{{Line: 2, Before: "[beta](sub/beta.md)", After: "[beta](archive/beta.md)"}}},
		{"folder", "index.md", "sub", "archive/2024", true,
			"# Index\nSee [[alpha]] and [beta](archive/2024/beta.md).\n",
			[]markdown.Rewrite{{Line: 2, Before: "[beta](sub/beta.md)", After: "[beta](archive/2024/beta.md)"}}},
		{"wiki keeps its text", "sub/beta.md", "index.md", "home/start.md", true,
			"# Beta\nBadgers dig setts. Back to [[start|index]].\n",
			[]markdown.Rewrite{{Line: 2, Before: "[[index]]", After: "[[start|index]]"}}},
		{"wiki shows the target", "sub/beta.md", "index.md", "home/start.md", false,
			"# Beta\nBadgers dig setts. Back to [[start]].\n",
			[]markdown.Rewrite{{Line: 2, Before: "[[index]]", After: "[[start]]"}}},
		{"wiki name unchanged", "sub/beta.md", "index.md", "home/index.md", true,
			"# Beta\nBadgers dig setts. Back to [[index]].\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, rw := e.RewriteLinks(tt.from, fsys[tt.from].Data, t0, []markdown.Moved{{From: tt.old, To: tt.dest}}, tt.keepText, markdown.LinkShortest)
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.rewrites, rw); diff != "" {
				t.Errorf("rewrites (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEngineBusyIndex checks that a second server on the same root neither waits forever nor
// destroys the first one's index: it keeps a private index in memory.
func TestEngineBusyIndex(t *testing.T) {
	dir := t.TempDir()
	fsys := vault()
	first := openEngine(t, fsys, dir)
	defer first.Close()
	if _, err := fulltext.OpenIndex(fulltext.IndexOptions{Dir: dir}); !errors.Is(err, fulltext.ErrIndexBusy) {
		t.Fatalf("second open = %v, want fulltext.ErrIndexBusy", err)
	}
	busy := false
	second, err := Open(Options{FS: fsys, Allow: allow, Index: fulltext.IndexOptions{Dir: dir}, Busy: func() { busy = true }})
	if err != nil || !busy {
		t.Fatalf("second engine: %v, busy called %v", err, busy)
	}
	defer second.Close()
	if err := second.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := find(t, second, "badgers"); len(got) != 1 {
		t.Errorf("private index search = %v", got)
	}
	if got := find(t, first, "badgers"); len(got) != 1 {
		t.Errorf("the first index was damaged: %v", got)
	}
}

// TestBuildBatchBytes checks that a build batch is bounded by its bytes, not only by its files: a
// tree of large files is indexed in several batches, none holding much more than maxBatchBytes.
func TestBuildBatchBytes(t *testing.T) {
	tier.Full(t, "indexes batches of megabytes")
	const fileBytes = 1 << 20
	tests := []struct {
		name       string
		files      int
		minBatches int
	}{
		{name: "one small batch", files: 2, minBatches: 1},
		{name: "large files split", files: 3 * maxBatchBytes / fileBytes, minBatches: 2}, // one batch without the bound
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			text := []byte(strings.Repeat("lorem ipsum dolor sit amet\n", fileBytes/27))
			for i := range tt.files {
				fsys[fmt.Sprintf("f%03d.txt", i)] = &fstest.MapFile{Data: text, ModTime: t0}
			}
			var steps []int
			last := 0
			e, err := Open(Options{FS: fsys, Progress: func(p Progress) {
				if p.Done > last {
					steps = append(steps, p.Done-last)
					last = p.Done
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.Build(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(steps) < tt.minBatches {
				t.Errorf("%d batches %v, want at least %d", len(steps), steps, tt.minBatches)
			}
			for _, n := range steps {
				if n*len(text) > maxBatchBytes+maxParseWorkers*len(text) {
					t.Errorf("a batch of %d files of %d bytes: over %d bytes", n, len(text), maxBatchBytes)
				}
			}
			if got := len(find(t, e, "lorem")); got == 0 || last != tt.files {
				t.Errorf("after the build: %d hits, %d of %d files done", got, last, tt.files)
			}
		})
	}
}

// paths returns the hits' paths, in order.
func paths(hits []fulltext.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

// countingReader counts the reads made of it.
type countingReader struct {
	r     *strings.Reader
	reads int
}

func (c *countingReader) Read(b []byte) (int, error) {
	c.reads++
	return c.r.Read(b)
}

// TestReadSized checks that a file is read to the size its stat gave, in one read when it has
// not changed: to that size when it grew since, to its end when it shrank.
func TestReadSized(t *testing.T) {
	tests := []struct {
		name, text string
		size       int64
		want       string
		reads      int
	}{
		{"as stated", "hello", 5, "hello", 1},
		{"empty", "", 0, "", 0},
		{"grew since the stat", "hello world", 5, "hello", 1},
		{"shrank since the stat", "hi", 5, "hi", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &countingReader{r: strings.NewReader(tt.text)}
			got, err := readSized(r, tt.size)
			if err != nil || string(got) != tt.want || r.reads != tt.reads {
				t.Errorf("readSized = %q, %v in %d reads; want %q in %d", got, err, r.reads, tt.want, tt.reads)
			}
		})
	}
}
