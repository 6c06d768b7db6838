package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/relink"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

// moveTree is a small vault: notes linking to old.md in every form a move rewrites, and files
// other than markdown that name it, some of which the tools cannot see.
var moveTree = []string{
	"notes/old.md=# Old\nsee [one](one.md)\n",
	"notes/one.md=# One\n",
	"index.md=# Index\n- [[old]] is the old note\n- [Old](notes/old.md#Top)\n- ![[old]]\n- [[old|alias]]\n",
	"table.md=| a | b |\n| - | - |\n| [[old]] | x |\n",
	"site.json={\n  \"nav\": [\n    \"notes/old.md\",\n    \"notes/old.md.bak\",\n    \"xnotes/old.md\"\n  ]\n}\n",
	"notes/menu.yaml=- notes/old.md\n",
	"url.txt=https://example.org/notes/old.md and notes/old.md.\n",
	"prose.md=notes/old.md is named here too, but markdown is not a mention\n",
	"image.png=\x89PNG\x00 notes/old.md\n",
	".env=NOTE=notes/old.md\n",
	"node_modules/x.json=\"notes/old.md\"\n",
}

// move calls the writer with purpose move and preserveRelationships, plus the given options.
func move(t *testing.T, e *optionEnv, from, to string, opts map[string]any) optionResult {
	t.Helper()
	o := map[string]any{"preserveRelationships": true}
	for k, v := range opts {
		o[k] = v
	}
	return e.call(t, WriterName, map[string]any{"purpose": "move", "target": map[string]any{"path": from, "destination": to}, "options": o})
}

func TestMoveRewrites(t *testing.T) {
	keep := []result.LinkRewrite{
		{Path: "archive/new.md", Line: 2, Before: "[one](one.md)", After: "[one](../notes/one.md)"},
		{Path: "index.md", Line: 2, Before: "[[old]]", After: "[[new|old]]"},
		{Path: "index.md", Line: 3, Before: "[Old](notes/old.md#Top)", After: "[Old](archive/new.md#Top)"},
		{Path: "index.md", Line: 4, Before: "![[old]]", After: "![[new]]"},
		{Path: "index.md", Line: 5, Before: "[[old|alias]]", After: "[[new|alias]]"},
		{Path: "table.md", Line: 3, Before: "[[old]]", After: `[[new\|old]]`},
	}
	target := append([]result.LinkRewrite(nil), keep...)
	target[1].After, target[5].After = "[[new]]", "[[new]]"
	tests := []struct {
		name     string
		opts     map[string]any
		rewrites []result.LinkRewrite
	}{
		{"dry run keeps the text", map[string]any{"dryRun": true}, keep},
		{"move keeps the text", map[string]any{"createPath": true}, keep},
		{"dry run shows the target", map[string]any{"dryRun": true, "linkText": "target"}, target},
		{"move shows the target", map[string]any{"createPath": true, "linkText": "target"}, target},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: moveTree, engine: true})
			before := e.call(t, ReaderName, map[string]any{"purpose": "exists", "target": map[string]any{"path": "notes/old.md"}}).Tree
			out := move(t, e, "notes/old.md", "archive/new.md", tt.opts)
			if out.Result["success"] != true {
				t.Fatalf("move failed: %s", out.json())
			}
			var rw []result.LinkRewrite
			var files []string
			field(t, out, "rewrites", &rw)
			field(t, out, "updatedFiles", &files)
			if diff := cmp.Diff(tt.rewrites, rw); diff != "" {
				t.Errorf("rewrites (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"archive/new.md", "index.md", "table.md"}, files); diff != "" {
				t.Errorf("updatedFiles (-want +got):\n%s", diff)
			}
			if _, cut := out.Result["rewritesTotal"]; cut {
				t.Errorf("rewritesTotal on an uncut list: %s", out.json())
			}
			if tt.opts["dryRun"] == true {
				if diff := cmp.Diff(before, out.Tree); diff != "" {
					t.Errorf("the dry run changed files (-before +after):\n%s", diff)
				}
				return
			}
			// Every rewrite listed is in the files, each on its line.
			for _, r := range rw {
				lines := strings.Split(out.Tree[r.Path], "\n")
				if r.Line > len(lines) || !strings.Contains(lines[r.Line-1], r.After) || strings.Contains(lines[r.Line-1], r.Before) {
					t.Errorf("%s:%d does not read %q:\n%s", r.Path, r.Line, r.After, out.Tree[r.Path])
				}
			}
			// The rewritten links all resolve, the table's too.
			for _, p := range []string{"index.md", "table.md"} {
				rel := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": p}})
				if b, ok := rel.Result["broken"].([]any); !ok || len(b) > 0 {
					t.Errorf("%s: broken = %v after the move, want [] (checked, none)", p, rel.Result["broken"])
				}
			}
		})
	}
}

// TestMoveRewritesCapped checks that a much-linked move lists relink.MaxRewrites links and says how many
// there were, while rewriting them all.
func TestMoveRewritesCapped(t *testing.T) {
	const notes = 3
	tree := []string{"old.md=# Old\n"}
	for i := range notes {
		tree = append(tree, fmt.Sprintf("n%d.md=%s", i, strings.Repeat("[[old]]\n", relink.MaxRewrites/2+1)))
	}
	e := newOptionEnv(t, optionTable{tree: tree, engine: true})
	out := move(t, e, "old.md", "new.md", nil)
	var rw []result.LinkRewrite
	field(t, out, "rewrites", &rw)
	total := notes * (relink.MaxRewrites/2 + 1)
	if len(rw) != relink.MaxRewrites || out.Result["rewritesTotal"] != float64(total) {
		t.Errorf("%d rewrites listed, rewritesTotal %v; want %d and %d", len(rw), out.Result["rewritesTotal"], relink.MaxRewrites, total)
	}
	for i := range notes {
		if got := strings.Count(out.Tree[fmt.Sprintf("n%d.md", i)], "[[new|old]]"); got != relink.MaxRewrites/2+1 {
			t.Errorf("n%d.md has %d rewritten links", i, got)
		}
	}
}

func TestMoveMentions(t *testing.T) {
	want := []result.Mention{
		{Path: "notes/menu.yaml", Line: 1, Text: "- notes/old.md"},
		{Path: "site.json", Line: 3, Text: `"notes/old.md",`},
		{Path: "url.txt", Line: 1, Text: "https://example.org/notes/old.md and notes/old.md."},
	}
	for _, dry := range []bool{true, false} {
		t.Run(fmt.Sprint("dryRun ", dry), func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: moveTree, engine: true})
			out := move(t, e, "notes/old.md", "archive/new.md", map[string]any{"dryRun": dry, "createPath": !dry})
			var got []result.Mention
			field(t, out, "mentions", &got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mentions (-want +got):\n%s", diff)
			}
			for _, f := range []string{"mentionsTotal", "mentionsIncomplete"} {
				if v, ok := out.Result[f]; ok {
					t.Errorf("%s = %v on a complete search", f, v)
				}
			}
			if out.Tree["site.json"] != strings.TrimPrefix(moveTree[4], "site.json=") {
				t.Errorf("a mention was changed:\n%s", out.Tree["site.json"])
			}
		})
	}
	t.Run("folder", func(t *testing.T) {
		e := newOptionEnv(t, optionTable{tree: moveTree, engine: true})
		out := move(t, e, "notes", "archive/notes", map[string]any{"dryRun": true})
		var got []result.Mention
		field(t, out, "mentions", &got)
		// The folder's own files are named where they go; a path below the folder is a mention.
		want := []result.Mention{
			{Path: "archive/notes/menu.yaml", Line: 1, Text: "- notes/old.md"},
			{Path: "site.json", Line: 3, Text: `"notes/old.md",`},
			{Path: "site.json", Line: 4, Text: `"notes/old.md.bak",`},
			{Path: "url.txt", Line: 1, Text: "https://example.org/notes/old.md and notes/old.md."},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("mentions (-want +got):\n%s", diff)
		}
	})
}

// TestMentionsIndexOrWalk checks that the index's candidates and a walk of the tree find the same
// mentions: the index only spares reading files that cannot hold the path.
func TestMentionsIndexOrWalk(t *testing.T) {
	tree := append([]string{
		"my notes/big plan.md=# Spaced\n",
		"links.html=<a href=\"my%20notes/big%20plan.md\">x</a>\n<a href=\"my notes/big plan.md\">y</a>\n",
		"ünï/cödé.md=# Accents\n",
		"accents.txt=see ünï/cödé.md\n",
	}, moveTree...)
	dir := testfs.TempDir(t)
	testfs.Tree(t, dir, dir, tree...)
	walked := configOver(t, dir)
	cfg := walked
	cfg.Engine = semantic.New(semantic.Options{FS: cfg.Root.FS(), Allow: func(name string, isDir bool) bool { return cfg.Policy.CheckName(name, isDir) == nil }})
	mustOK(t, cfg.Engine.Build(context.Background()))
	t.Cleanup(func() { cfg.Engine.Close() })
	indexed := New(cfg)
	for old, lines := range map[string]int{"notes/old.md": 3, "notes": 5, "my notes/big plan.md": 2, "ünï/cödé.md": 1} {
		t.Run(old, func(t *testing.T) {
			if _, ok, err := cfg.Engine.Candidates(context.Background(), old, ".", 0); (err != nil || !ok) && old != "ünï/cödé.md" {
				t.Fatalf("the index cannot narrow the search for %q: the test compares nothing", old)
			}
			a := indexed.relinking(nil).Mentions(context.Background(), []markdown.Moved{{From: old, To: "x"}})
			b := New(walked).relinking(nil).Mentions(context.Background(), []markdown.Moved{{From: old, To: "x"}})
			if a.Total != lines || a.Cut != "" {
				t.Fatalf("found %d lines, cut %q: want %d, and a complete search", a.Total, a.Cut, lines)
			}
			if diff := cmp.Diff(b, a); diff != "" {
				t.Errorf("index (+) and walk (-) differ:\n%s", diff)
			}
		})
	}
}

// TestMentionsBounds checks that the search for mentions stops at its bounds and says so, and that
// the answer lists no more than relink.MaxMentions lines while counting them all.
func TestMentionsBounds(t *testing.T) {
	t.Run("lines", func(t *testing.T) {
		dir := testfs.TempDir(t)
		testfs.Tree(t, dir, dir, "old.md=x", "list.txt="+strings.Repeat("old.md\n", relink.MaxMentions+5))
		got := unhurried(New(configOver(t, dir))).relinking(nil).Mentions(context.Background(), []markdown.Moved{{From: "old.md", To: "new.md"}})
		if len(got.Lines) != relink.MaxMentions || got.Total != relink.MaxMentions+5 || got.Cut != "" {
			t.Errorf("%d lines, total %d, cut %q", len(got.Lines), got.Total, got.Cut)
		}
		var out result.Writer
		got.Report(&out)
		if out.MentionsTotal != relink.MaxMentions+5 {
			t.Errorf("mentionsTotal = %d", out.MentionsTotal)
		}
	})
	t.Run("files", func(t *testing.T) {
		dir := testfs.TempDir(t)
		for i := range relink.MaxMentionFiles + 1 {
			mustOK(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.txt", i)), []byte("nothing\n"), 0o644))
		}
		mustOK(t, os.WriteFile(filepath.Join(dir, "z.txt"), []byte("old.md\n"), 0o644))
		got := unhurried(New(configOver(t, dir))).relinking(nil).Mentions(context.Background(), []markdown.Moved{{From: "old.md", To: "new.md"}})
		if got.Total != 0 || !strings.Contains(got.Cut, fmt.Sprintf("limit of %d files", relink.MaxMentionFiles)) || !strings.Contains(got.Cut, "search_content") {
			t.Errorf("total %d, cut %q: want the file limit named", got.Total, got.Cut)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		dir := testfs.TempDir(t)
		big := []byte(strings.Repeat("x", 1<<20-1) + "\n")
		per := fsroot.DefaultMaxFileSize / int64(len(big))
		for i := range int(relink.MaxMentionBytes/(per*int64(len(big)))) + 1 {
			mustOK(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("big%d.txt", i)), []byte(strings.Repeat(string(big), int(per))), 0o644))
		}
		mustOK(t, os.WriteFile(filepath.Join(dir, "z.txt"), []byte("old.md\n"), 0o644))
		got := unhurried(New(configOver(t, dir))).relinking(nil).Mentions(context.Background(), []markdown.Moved{{From: "old.md", To: "new.md"}})
		if got.Total != 0 || !strings.Contains(got.Cut, "limit of "+text.Size(relink.MaxMentionBytes)) {
			t.Errorf("total %d, cut %q: want the byte limit named", got.Total, got.Cut)
		}
		// Binary files as large cost only their first piece: the search reads on.
		for i := range int(relink.MaxMentionBytes/(per*int64(len(big)))) + 1 {
			name := filepath.Join(dir, fmt.Sprintf("big%d", i))
			mustOK(t, os.Rename(name+".txt", name+".png"))
			f, err := os.OpenFile(name+".png", os.O_WRONLY, 0)
			mustOK(t, err)
			_, err = f.WriteAt([]byte{0}, 10)
			mustOK(t, err)
			mustOK(t, f.Close())
		}
		got = unhurried(New(configOver(t, dir))).relinking(nil).Mentions(context.Background(), []markdown.Moved{{From: "old.md", To: "new.md"}})
		if got.Total != 1 || got.Cut != "" {
			t.Errorf("total %d, cut %q: want the mention found past the binary files", got.Total, got.Cut)
		}
	})
	t.Run("time", func(t *testing.T) {
		dir := testfs.TempDir(t)
		testfs.Tree(t, dir, dir, "old.md=x", "list.txt=old.md\n")
		s := New(configOver(t, dir))
		s.mentionBudget = time.Nanosecond
		got := s.relinking(nil).Mentions(context.Background(), []markdown.Moved{{From: "old.md", To: "new.md"}})
		if !strings.Contains(got.Cut, "time limit (1ns)") || !strings.Contains(got.Cut, "search_content") {
			t.Errorf("total %d, cut %q: want the time limit named", got.Total, got.Cut)
		}
	})
}

// unhurried lifts s's time limit on the search for mentions, so that a test of its other bounds
// meets them however slow the machine (-race, a loaded CI runner).
func unhurried(s *Server) *Server {
	s.mentionBudget = time.Hour
	return s
}

// configOver returns a server configuration over dir, without an index.
func configOver(t *testing.T, dir string) Config {
	t.Helper()
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(t, err)
	return Config{Mount: Mount{Root: root, Policy: policy}, Limiter: security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30}),
		Permissions: security.AllPermissions()}
}

// TestLinkTextNeedsPreserve checks that linkText without preserveRelationships, which would do
// nothing, is refused naming it.
func TestLinkTextNeedsPreserve(t *testing.T) {
	e := newOptionEnv(t, optionTable{tree: moveTree, engine: true})
	out := e.call(t, WriterName, map[string]any{"purpose": "move", "target": map[string]any{"path": "notes/old.md", "destination": "x.md"},
		"options": map[string]any{"linkText": "keep"}})
	wantRefused(t, out, "options.linkText")
	out = move(t, e, "notes/old.md", "x.md", map[string]any{"linkText": "alias"})
	wantRefused(t, out, "options.linkText")
	if out.Tree["notes/old.md"] == "" {
		t.Error("a refused move moved the file")
	}
}

// TestMoveChecksLinks checks that a move with preserveRelationships resolves again, after the
// move, every link to and from what moved, and names the ones it did not keep: here the links in
// frontmatter, which the move does not rewrite. Its dry run, which moves nothing, answers the
// same, from the links as they would resolve after the move.
func TestMoveChecksLinks(t *testing.T) {
	tests := []struct {
		name     string
		tree     []string
		from, to string
		checked  float64 // as JSON decodes it
		lost     []result.LostLink
	}{
		{name: "every kind of link kept", tree: moveTree, from: "notes/old.md", to: "archive/new.md", checked: 6},
		{name: "a folder with links inside and out",
			tree: []string{"f/a.md=[[b]] [c](../c.md) [b](b.md)\n", "f/b.md=[[f/a]]\n", "c.md=[A](f/a.md) [[a]]\n"},
			from: "f", to: "g/h", checked: 6},
		{name: "a frontmatter link by path is lost",
			tree: []string{"a/old.md=# Old\n", "child.md=---\nparent: \"[[a/old]]\"\n---\n# Child\nsee [[a/old]]\n"},
			from: "a/old.md", to: "b/old.md", checked: 2,
			lost: []result.LostLink{{Path: "child.md", Line: 2, Target: "a/old", Reached: "b/old.md"}}},
		{name: "a renamed note found by its new name",
			tree: []string{"x/n.md=# N\n", "x/a.md=[[n]] and [n](n.md)\n", "y/m.md=# M\n", "y/b.md=[[m]]\n"},
			from: "x/n.md", to: "y/renamed.md", checked: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: tt.tree, engine: true})
			var answers [2]map[string]any
			for i, dry := range []bool{true, false} {
				out := move(t, e, tt.from, tt.to, map[string]any{"createPath": true, "dryRun": dry})
				if out.Result["success"] != true {
					t.Fatalf("move (dry run %v) failed: %s", dry, out.json())
				}
				if _, moved := out.Tree[tt.to]; moved == dry {
					t.Fatalf("dry run %v: %s moved %v", dry, tt.to, moved)
				}
				if got := out.Result["linksChecked"]; got != tt.checked {
					t.Errorf("dry run %v: linksChecked = %v, want %v: %s", dry, got, tt.checked, out.json())
				}
				var lost []result.LostLink
				field(t, out, "linksLost", &lost)
				if diff := cmp.Diff(tt.lost, lost, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("dry run %v: linksLost (-want +got):\n%s", dry, diff)
				}
				if lost == nil {
					t.Errorf("dry run %v: linksLost absent: a check answers [] when none was lost: %s", dry, out.json())
				}
				answers[i] = out.Result
			}
			for _, f := range []string{"rewrites", "updatedFiles", "mentions", "linksChecked", "linksLost"} {
				if diff := cmp.Diff(answers[0][f], answers[1][f]); diff != "" {
					t.Errorf("%s: the dry run says other than the move (-dry +move):\n%s", f, diff)
				}
			}
		})
	}
}

// TestMoveWhileIndexing checks that a move keeping links is refused, with nothing moved and a time
// to come back, while the index is being built: the index knows only some of the links, and a move
// would rewrite those and report the rest as checked.
func TestMoveWhileIndexing(t *testing.T) {
	dir := testfs.TempDir(t)
	testfs.Tree(t, dir, dir, moveTree...)
	cfg := configOver(t, dir)
	cfg.Engine = semantic.New(semantic.Options{FS: cfg.Root.FS(), Allow: func(name string, isDir bool) bool { return cfg.Policy.CheckName(name, isDir) == nil }})
	t.Cleanup(func() { cfg.Engine.Close() }) // never built
	env := &optionEnv{root: dir, tools: map[string]server.ServerTool{}}
	for _, st := range New(cfg).Tools() {
		env.tools[st.Tool.Name] = st
	}
	for _, dry := range []bool{false, true} {
		res := move(t, env, "notes/old.md", "archive/new.md", map[string]any{"createPath": true, "dryRun": dry}).Result
		if res["code"] != errs.CodeNotAvailable || res["field"] != "options.preserveRelationships" || res["retryAfterMs"] == nil {
			t.Errorf("dryRun %v: %v; want NOT_AVAILABLE on options.preserveRelationships with retryAfterMs", dry, res)
		}
		if _, err := os.Stat(filepath.Join(dir, "notes/old.md")); err != nil {
			t.Fatalf("dryRun %v: the refused move moved the note: %v", dry, err)
		}
	}
}

// TestMoveFollowsVaultLinkFormat checks that a move writes the paths Obsidian's newLinkFormat
// asks for in .obsidian/app.json, where a link by name no longer finds its note by name, that a
// relative wiki link stays relative, and that a missing or unreadable setting is the default.
func TestMoveFollowsVaultLinkFormat(t *testing.T) {
	tree := []string{
		"inbox/plan-draft.md=# Draft\n",
		"archive/sub/plan.md=# Older plan\n",
		"inbox/today.md=see [[plan-draft]]\n",
		"journal/day.md=see [[../inbox/plan-draft#Draft|the draft]]\n",
	}
	tests := []struct {
		name, settings string
		today          string
	}{
		{"relative", `{"newLinkFormat": "relative", "useMarkdownLinks": false}`, "see [[../archive/plan|plan-draft]]\n"},
		{"absolute", `{"newLinkFormat": "absolute"}`, "see [[archive/plan|plan-draft]]\n"},
		{"no setting", `{"promptDelete": false}`, "see [[archive/plan|plan-draft]]\n"},
		{"unreadable setting", `{newLinkFormat: relative`, "see [[archive/plan|plan-draft]]\n"},
		{"unknown format", `{"newLinkFormat": "nearest"}`, "see [[archive/plan|plan-draft]]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newOptionEnv(t, optionTable{tree: append(tree, ".obsidian/app.json="+tt.settings), engine: true})
			out := move(t, e, "inbox/plan-draft.md", "archive/plan.md", nil)
			if out.Result["success"] != true {
				t.Fatalf("move failed: %s", out.json())
			}
			if got := out.Tree["inbox/today.md"]; got != tt.today {
				t.Errorf("inbox/today.md = %q, want %q", got, tt.today)
			}
			if got, want := out.Tree["journal/day.md"], "see [[../archive/plan#Draft|the draft]]\n"; got != want {
				t.Errorf("journal/day.md = %q, want %q", got, want)
			}
			for _, p := range []string{"inbox/today.md", "journal/day.md"} {
				rel := e.call(t, SearcherName, map[string]any{"purpose": "relationships", "target": map[string]any{"path": p}})
				if b, ok := rel.Result["broken"].([]any); !ok || len(b) > 0 {
					t.Errorf("%s: broken = %v after the move, want []", p, rel.Result["broken"])
				}
			}
		})
	}
}

// TestMentionsNone checks that a move that looked for mentions of the old path and found none says
// so with [], in its dry run and for real, where a move that did not look says nothing.
func TestMentionsNone(t *testing.T) {
	e := newOptionEnv(t, optionTable{engine: true, tree: []string{"a.md=# A\n", "b.md=see [a](a.md)\n"}})
	for _, dry := range []bool{true, false} {
		out := e.call(t, WriterName, map[string]any{"purpose": "move", "target": map[string]any{"path": "a.md", "destination": "c.md"},
			"options": map[string]any{"preserveRelationships": true, "dryRun": dry}})
		if m, ok := out.Result["mentions"].([]any); !ok || len(m) != 0 {
			t.Errorf("dry run %v: mentions %v, want []: %s", dry, out.Result["mentions"], out.json())
		}
	}
	out := e.call(t, WriterName, map[string]any{"purpose": "move", "target": map[string]any{"path": "c.md", "destination": "d.md"}})
	if _, ok := out.Result["mentions"]; ok {
		t.Errorf("a move that did not look answers mentions: %s", out.json())
	}
}
