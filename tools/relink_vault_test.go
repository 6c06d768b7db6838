package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/internal/corpora"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/relink"
	"github.com/packfs/packfs-mcp/tools/result"
)

// TestMoveVault renames a much-linked note of the Obsidian help vault as an agent did: the dry run
// shows every link it would rewrite, each keeping what the reader sees (in prose, in a table, with
// an alias of its own), and the publish menu that names the note; the move then leaves no link
// broken and the note with all its backlinks.
func TestMoveVault(t *testing.T) {
	dir := testfs.TempDir(t)
	copyTree(t, corpora.Dir(t, corpora.Obsidian), dir)
	cfg := configOver(t, dir)
	cfg.Engine = semantic.New(semantic.Options{FS: cfg.Root.FS(), Allow: func(name string, isDir bool) bool { return cfg.Policy.CheckName(name, isDir) == nil }})
	mustOK(t, cfg.Engine.Build(context.Background()))
	t.Cleanup(func() { cfg.Engine.Close() })
	e := &optionEnv{root: dir, tools: map[string]server.ServerTool{}}
	for _, st := range New(cfg).Tools() {
		e.tools[st.Tool.Name] = st
	}
	const old, dest = "Linking notes and files/Aliases.md", "Linking notes and files/Note aliases.md"
	relations := func(p string) (backlinks int, broken []any) {
		r := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": p}})
		b, _ := r.Result["backlinks"].([]any)
		broken, _ = r.Result["broken"].([]any)
		return len(b), broken
	}
	backlinks, _ := relations(old)
	_, brokenInProperties := relations("Editing and formatting/Properties.md")

	dry := move(t, e, old, dest, map[string]any{"dryRun": true})
	var rw []result.LinkRewrite
	var mentions []result.Mention
	field(t, dry, "rewrites", &rw)
	field(t, dry, "mentions", &mentions)
	for _, want := range []result.LinkRewrite{
		{Path: "Editing and formatting/Advanced formatting syntax.md", Line: 56, Before: "[[aliases]]", After: "[[Note aliases|aliases]]"},
		{Path: "Editing and formatting/Properties.md", Line: 281, Before: "[[Aliases]]", After: `[[Note aliases\|Aliases]]`},
		{Path: "Linking notes and files/Internal links.md", Line: 178, Before: "[[Aliases|aliases]]", After: "[[Note aliases|aliases]]"},
	} {
		if !slices.Contains(rw, want) {
			t.Errorf("the dry run does not show %+v; it shows %+v", want, rw)
		}
	}
	if len(rw) < backlinks || len(rw) > relink.MaxRewrites {
		t.Errorf("%d rewrites for %d backlinks", len(rw), backlinks)
	}
	wantMention := result.Mention{Path: "site-options.json", Line: 56, Text: `"Linking notes and files/Aliases.md",`}
	if !slices.Contains(mentions, wantMention) || dry.Result["mentionsIncomplete"] != nil {
		t.Errorf("mentions = %+v, incomplete %v; want %+v among them, complete", mentions, dry.Result["mentionsIncomplete"], wantMention)
	}

	done := move(t, e, old, dest, nil)
	var files []string
	field(t, done, "updatedFiles", &files)
	for _, r := range rw {
		text := done.Tree[r.Path]
		if !slices.Contains(files, r.Path) || !strings.Contains(strings.Split(text, "\n")[r.Line-1], r.After) {
			t.Errorf("%s:%d does not read %q after the move", r.Path, r.Line, r.After)
		}
	}
	if got, _ := relations(dest); got != backlinks {
		t.Errorf("%d backlinks after the move, %d before", got, backlinks)
	}
	if _, broken := relations("Editing and formatting/Properties.md"); len(broken) != len(brokenInProperties) {
		t.Errorf("the table's links broke: %v, before %v", broken, brokenInProperties)
	}
	if !strings.Contains(done.Tree["site-options.json"], old) {
		t.Error("the mention was changed; it is the agent's to decide")
	}
}

// copyTree copies the regular files below src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := relSlash(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	mustOK(t, err)
}
