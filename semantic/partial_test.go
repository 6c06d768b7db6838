package semantic

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// gatedFS is an fs.FS whose files under gate/ open only once release is closed, so a test can hold
// a build half way.
type gatedFS struct {
	fstest.MapFS
	release chan struct{}
	reached chan struct{} // closed when the build first waits at the gate
}

func (g *gatedFS) Open(name string) (fs.File, error) {
	if len(name) > 5 && name[:5] == "gate/" {
		select {
		case <-g.reached:
		default:
			close(g.reached)
		}
		<-g.release
	}
	return g.MapFS.Open(name)
}

// TestSearchBeforeTheIndex checks a search before the index is open: it reads the files directly,
// finds the document, says it covers them all, and tells no unknown words.
func TestSearchBeforeTheIndex(t *testing.T) {
	e := New(Options{FS: vault(), Allow: allow})
	defer e.Close()
	res, err := e.Search(context.Background(), fulltext.Query{Text: "badgers and zebras"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"sub/beta.md"}) {
		t.Errorf("hits = %v, want sub/beta.md, read directly", got)
	}
	cv := res.Coverage
	if cv.Complete || !cv.Counting || cv.Unread || cv.Scanned != 5 {
		t.Errorf("coverage = %+v, want incomplete, counting, 5 files scanned (every allowed file), none unread", cv)
	}
	if res.Unknown != nil {
		t.Errorf("unknown words %v from an incomplete index: want none told", res.Unknown)
	}
	res, err = e.Search(context.Background(), fulltext.Query{Text: "aardvark secret"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"alpha.md"}) {
		t.Errorf("hits = %v, want alpha.md alone", got)
	}
	for _, h := range res.Hits {
		if h.Path != "alpha.md" {
			t.Errorf("a scan found %s, which the policy hides or is not text", h.Path)
		}
	}
}

// TestSearchDuringTheBuild holds a build half way and checks that a search ranks what is indexed
// and reads what is not, that it says so, and that a file the agent names comes first.
func TestSearchDuringTheBuild(t *testing.T) {
	m := fstest.MapFS{}
	for i := range buildBatch {
		m[fmt.Sprintf("a/%04d.md", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("# Page %d\nsome filler words\n", i)), ModTime: t0}
	}
	m["a/0007.md"] = &fstest.MapFile{Data: []byte("# Seven\nwombats eat roots\n"), ModTime: t0}
	m["gate/x.md"] = &fstest.MapFile{Data: []byte("# X\nfiller\n"), ModTime: t0}
	m["z/notes.md"] = &fstest.MapFile{Data: []byte("# Notes\nwombats dig burrows\n"), ModTime: t0}
	m["z/wombat.md"] = &fstest.MapFile{Data: []byte("# Marsupials\nthey dig\n"), ModTime: t0}
	g := &gatedFS{MapFS: m, release: make(chan struct{}), reached: make(chan struct{})}
	e := New(Options{FS: g, Allow: allow})
	defer e.Close()
	var once sync.Once
	open := func() { once.Do(func() { close(g.release) }) }
	defer open() // before Close, so that a failing test does not wait for a held build
	done := make(chan error, 1)
	go func() { done <- e.Build(context.Background()) }()
	<-g.reached
	// The first batch (a/) is indexed once its put returns; the gate holds the second.
	deadline := time.Now().Add(10 * time.Second)
	for e.Status().Done < buildBatch && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	st := e.Status()
	if st.Phase != PhaseIndexing || st.Done != buildBatch || st.Total != len(m) {
		t.Fatalf("status while held = %+v, want indexing, %d of %d", st, buildBatch, len(m))
	}
	res, err := e.Search(context.Background(), fulltext.Query{Text: "wombats", Prefix: "a"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"a/0007.md"}) {
		t.Errorf("indexed hits = %v, want a/0007.md", got)
	}
	if res.Lists == nil { // every hit is the index's: a search of several roots can fuse them
		t.Errorf("a search whose hits are all the index's has no lists")
	}
	res, err = e.Search(context.Background(), fulltext.Query{Text: "wombat", Prefix: "z"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(res.Hits); !slices.Equal(got, []string{"z/wombat.md", "z/notes.md"}) {
		t.Errorf("hits from files not yet indexed = %v, want z/wombat.md (named) first, then z/notes.md", got)
	}
	if res.Lists != nil {
		t.Errorf("a search with hits read directly has lists, which hold none of them")
	}
	cv := res.Coverage
	if cv.Complete || cv.Counting || cv.Indexed != buildBatch || cv.Total != len(m) || cv.Scanned != 2 || cv.Unread {
		t.Errorf("coverage = %+v, want %d of %d indexed, 2 scanned under z/, none unread", cv, buildBatch, len(m))
	}
	if res.Unknown != nil {
		t.Errorf("unknown words %v during the build", res.Unknown)
	}
	open()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	res, err = e.Search(context.Background(), fulltext.Query{Text: "wombat zebra"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Coverage.Complete || res.Coverage.Scanned != 0 || !slices.Equal(res.Unknown, []string{"zebra"}) {
		t.Errorf("after the build: coverage %+v, unknown %v; want complete, nothing scanned, [zebra]", res.Coverage, res.Unknown)
	}
}

// TestScanOrderAndBudget checks that files whose name holds a query term are read first, and
// that a scan out of time says files were left unread.
func TestScanOrderAndBudget(t *testing.T) {
	m := fstest.MapFS{
		"a.md":            {Data: []byte("tar and gzip\n"), ModTime: t0},
		"b/archives.md":   {Data: []byte("nothing here\n"), ModTime: t0},
		"c.md":            {Data: []byte("extract\n"), ModTime: t0},
		"d/tar.md":        {Data: []byte("# tar\n"), ModTime: t0},
		"startup.md":      {Data: []byte("start\n"), ModTime: t0},
		"image-notes.txt": {Data: []byte("text\n"), ModTime: t0},
	}
	e := New(Options{FS: m})
	sq := fulltext.NewScanQuery(fulltext.Query{Text: "how do I extract a tar archive"})
	var order []string
	if !e.eachUnindexed(context.Background(), sq, e.done.Load(), time.Now().Add(time.Minute), nil, func(p string) bool { order = append(order, p); return true }) {
		t.Fatal("eachUnindexed stopped early")
	}
	want := []string{"b/archives.md", "d/tar.md", "a.md", "c.md", "image-notes.txt", "startup.md"}
	if !slices.Equal(order, want) {
		t.Errorf("order = %v, want named files first: %v", order, want)
	}
	hits, scanned, exhausted := e.scanUnindexed(context.Background(), fulltext.Query{Text: "tar"}, e.done.Load(), time.Now().Add(-time.Second))
	if len(hits) != 0 || scanned != 0 || exhausted {
		t.Errorf("a scan out of time: %v, %d scanned, exhausted %v; want nothing read and files left unread", hits, scanned, exhausted)
	}
	// Past its budget the walk stops even over files the index holds: on a restart it holds
	// nearly all of them, and the walk alone took seconds on a big tree.
	c := &countingFS{MapFS: m}
	e = New(Options{FS: c})
	defer e.Close()
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.dirs.Store(0)
	_, _, exhausted = e.scanUnindexed(context.Background(), fulltext.Query{Text: "tar"}, e.done.Load(), time.Now().Add(-time.Second))
	if exhausted || c.dirs.Load() != 0 {
		t.Errorf("a scan out of time over indexed files: exhausted %v, %d folders read; want files left unread and no folder read", exhausted, c.dirs.Load())
	}
}

// countingFS counts the folders read from it.
type countingFS struct {
	fstest.MapFS
	dirs atomic.Int32
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.dirs.Add(1)
	return c.MapFS.ReadDir(name)
}

// TestScanCriteria checks that a scan applies the query's folder, extension, size and tag criteria.
func TestScanCriteria(t *testing.T) {
	m := fstest.MapFS{
		"notes/a.md":  {Data: []byte("---\ntags: [farm]\n---\nllamas graze\n"), ModTime: t0},
		"notes/b.txt": {Data: []byte("llamas spit\n"), ModTime: t0},
		"other/c.md":  {Data: []byte("llamas hum\n"), ModTime: t0},
	}
	e := New(Options{FS: m})
	big := int64(13)
	tests := []struct {
		name string
		q    fulltext.Query
		want []string
	}{
		{"all", fulltext.Query{Text: "llamas"}, []string{"notes/a.md", "notes/b.txt", "other/c.md"}},
		{"folder", fulltext.Query{Text: "llamas", Prefix: "notes"}, []string{"notes/a.md", "notes/b.txt"}},
		{"extension", fulltext.Query{Text: "llamas", Extensions: []string{".txt"}}, []string{"notes/b.txt"}},
		{"size", fulltext.Query{Text: "llamas", MaxSize: &big}, []string{"notes/b.txt", "other/c.md"}},
		{"tags", fulltext.Query{Text: "llamas", Tags: []string{"FARM"}}, []string{"notes/a.md"}},
		{"keep", fulltext.Query{Text: "llamas", Keep: func(p string) bool { return p != "notes/a.md" }}, []string{"notes/b.txt", "other/c.md"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, _, exhausted := e.scanUnindexed(context.Background(), tc.q, e.done.Load(), time.Now().Add(time.Minute))
			got := paths(hits)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || !exhausted {
				t.Errorf("got %v (exhausted %v), want %v", got, exhausted, tc.want)
			}
		})
	}
}

// TestRelationsDuringTheBuild checks that a document the build has not reached is read on demand.
func TestRelationsDuringTheBuild(t *testing.T) {
	e := New(Options{FS: vault(), Allow: allow})
	defer e.Close()
	r, ok := e.Relations("index.md")
	if !ok || r.Title != "Index" || len(r.Links) != 2 {
		t.Errorf("relations before the build = %+v, %v; want the document read on demand with its 2 links", r, ok)
	}
	if _, ok := e.Relations(".git/config"); ok {
		t.Error("relations of a blocked document were told")
	}
}

// TestReadLinksToDuringTheBuild checks that, before the build has read the files, the files that
// mention a document are read for their links to it, so its backlinks are told.
func TestReadLinksToDuringTheBuild(t *testing.T) {
	e := New(Options{FS: vault(), Allow: allow})
	defer e.Close()
	if r, _ := e.Relations("alpha.md"); len(r.Backlinks) != 0 {
		t.Fatalf("backlinks before any file was read: %v", r.Backlinks)
	}
	cv := e.ReadLinksTo(context.Background(), "alpha.md")
	// The other four files (alpha.md itself is read first, into the graph).
	if cv.Complete || cv.Unread || cv.Scanned != 4 {
		t.Errorf("coverage = %+v, want every file not yet indexed looked at", cv)
	}
	r, ok := e.Relations("alpha.md")
	if !ok || len(r.Backlinks) != 1 || r.Backlinks[0].From != "index.md" {
		t.Errorf("backlinks of alpha.md = %+v, want index.md's link", r.Backlinks)
	}
}

func TestProgressString(t *testing.T) {
	tests := []struct {
		p    Progress
		want string
	}{
		{Progress{Phase: PhaseOpening}, "opening the search index on disk"},
		{Progress{Phase: PhaseCounting, Total: 1200}, "counting files to index: 1200 so far"},
		{Progress{Phase: PhaseChecking, Total: 38405}, "checking 38405 files against the search index on disk"},
		{Progress{Phase: PhaseIndexing, Done: 1200, Total: 38405}, "indexing: 1200 of 38405 files"},
		{Progress{Phase: PhaseIndexing, Done: 38000, Total: 38405, Reused: 37900}, "indexing: 100 of 505 new or changed files read (37900 unchanged, reused from disk)"},
		{Progress{Phase: PhaseComplete, Done: 38405, Total: 38405, Complete: true}, "search index complete: 38405 files"},
	}
	for _, tc := range tests {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.p, got, tc.want)
		}
	}
}

// persistedVault builds the index of vault() in a new folder, closes it and returns the folder, for
// tests of what a restart meets.
func persistedVault(t *testing.T) string {
	dir := t.TempDir()
	e, err := Open(Options{FS: vault(), Allow: allow, Index: fulltext.IndexOptions{Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSearchAwaitsTheOpen checks that a search arriving while the persisted index is being opened
// waits for it and ranks from it, instead of spending its budget reading files the index holds.
func TestSearchAwaitsTheOpen(t *testing.T) {
	dir := persistedVault(t)
	e := New(Options{FS: vault(), Allow: allow, Index: fulltext.IndexOptions{Dir: dir}})
	defer e.Close()
	opening := make(chan struct{})
	e.opening.Store(&opening) // an open under way, as Build begins one
	got := make(chan Results, 1)
	go func() {
		res, err := e.Search(context.Background(), fulltext.Query{Text: "badgers and zebras"}, false)
		if err != nil {
			t.Error(err)
		}
		got <- res
	}()
	select {
	case res := <-got:
		t.Fatalf("the search answered before the index opened: %+v", res.Coverage)
	case <-time.After(50 * time.Millisecond):
	}
	if err := e.open(); err != nil {
		t.Fatal(err)
	}
	close(opening)
	res := <-got
	// Open, the index holds every document: only the file it does not (a binary) is read.
	if p := paths(res.Hits); !slices.Equal(p, []string{"sub/beta.md"}) || res.Coverage.Scanned != 1 {
		t.Errorf("hits %v, %d files scanned; want sub/beta.md from the index, and only the file it does not hold read", p, res.Coverage.Scanned)
	}
}

// TestReadLinksToOnARestart checks that backlinks asked for while a restart loads the graph from
// the index are not told as complete without the links of the files the index holds, which the
// walk for unindexed files used to pass over.
func TestReadLinksToOnARestart(t *testing.T) {
	dir := persistedVault(t)
	e, err := Open(Options{FS: vault(), Allow: allow, Index: fulltext.IndexOptions{Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	type answer struct {
		cv        Coverage
		backlinks []markdown.Backlink
	}
	got := make(chan answer, 1)
	waiting := make(chan struct{})
	var once sync.Once
	awaiting = func() { once.Do(func() { close(waiting) }) }
	defer func() { awaiting = nil }()
	go func() {
		cv := e.ReadLinksTo(context.Background(), "alpha.md")
		r, _ := e.Relations("alpha.md")
		got <- answer{cv, r.Backlinks}
	}()
	select {
	case <-waiting: // the read waits for the graph: the build below is what it waits for
	case <-time.After(10 * time.Second):
		t.Fatal("ReadLinksTo never waited for the graph of the index it has")
	}
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := <-got
	if !a.cv.Unread && (len(a.backlinks) != 1 || a.backlinks[0].From != "index.md") {
		t.Errorf("coverage %+v says every file was looked at, and the backlinks of alpha.md are %+v; want index.md's link", a.cv, a.backlinks)
	}
}

// TestScanFollowsTheBuildsWalk checks that a search while the build walks the tree reads the files
// that walk found and the index does not hold, instead of walking the tree again; that it answers
// as partial once it has caught up with a walk that goes on; and as complete once the walk is over.
func TestScanFollowsTheBuildsWalk(t *testing.T) {
	e := New(Options{FS: vault(), Allow: allow})
	defer e.Close()
	w := &walkedFiles{}
	e.unheld.Store(w)
	w.add("notes.txt")
	w.add("index.md")
	sq := fulltext.NewScanQuery(fulltext.Query{Text: "notes about capybaras"})
	var got []string
	visit := func(p string) bool { got = append(got, p); return true }
	if e.eachUnindexed(context.Background(), sq, e.done.Load(), time.Now().Add(time.Minute), nil, visit) {
		t.Error("the files of a walk under way were said to be all")
	}
	// Files whose name holds no query term wait for the walk's end, as they wait for a search's own.
	if !slices.Equal(got, []string{"notes.txt"}) {
		t.Errorf("visited %v while the walk goes on, want notes.txt", got)
	}
	w.add("sub/beta.md")
	w.finish()
	got = nil
	if !e.eachUnindexed(context.Background(), sq, e.done.Load(), time.Now().Add(time.Minute), nil, visit) {
		t.Error("the files of a finished walk were not said to be all")
	}
	if want := []string{"notes.txt", "index.md", "sub/beta.md"}; !slices.Equal(got, want) {
		t.Errorf("visited %v, want %v: the walk's files, and no others", got, want)
	}
}
