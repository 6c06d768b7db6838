// Package relink is what a move that keeps relationships does to what refers to what it moves:
// the links it rewrites, in the documents linking in and in the moved documents themselves; the
// lines of other text files that name the old path, found by a bounded search; and the check,
// after the move, that every link that reached a document still reaches it.
package relink

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log"
	"sort"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/result"
)

// MaxRewrites caps the links a move's answer lists, and rewritesTotal says when it is cut: a
// much-linked folder can have thousands, and fifty are about 2,000 tokens, enough to check a move.
const MaxRewrites = 50

// Host is what relinking needs of the tools, for one call: judged lookups, the history, and walks
// of what the tools can see.
type Host interface {
	// Open looks name up once, judged as a write's target when write is set, else as a read's.
	Open(name string, write bool) (*fsroot.Entry, error)
	// Keep keeps data, what name holds with permission bits mode, in the history before a
	// rewrite; Changed records the rewrite in the call.
	Keep(ctx context.Context, name string, data []byte, mode fs.FileMode) (*history.State, error)
	Changed(name string, before *history.State, data []byte, mode fs.FileMode)
	// Walk visits what the tools can see of the root, and Visit the files of paths, until visit
	// returns false.
	Walk(ctx context.Context, visit func(fsroot.Info) bool) error
	Visit(ctx context.Context, paths []string, visit func(fsroot.Info) bool) error
	// LinkedFrom is the documents outside what moves that link into it, sorted.
	LinkedFrom(moves []markdown.Moved) []string
}

// Tree is the root a move relinks in.
type Tree struct {
	Host        Host
	Engine      *semantic.Engine // the index, which knows the links; not nil
	MaxFileSize int64
	Log         *log.Logger
	Budget      time.Duration // how long the search for mentions may take (MentionBudget)
}

// Rewritten is what [Tree.Rewrite] did, or would do.
type Rewritten struct {
	files    []string             // the documents changed, sorted
	rewrites []result.LinkRewrite // every link rewritten, by path and line
	// After holds, in a dry run, what each document rewritten would hold, by its path after the
	// moves: what the dry run's link check reads ([Check.Predict]).
	After map[string][]byte
}

// Rewrite keeps links working after moves: it rewrites the links in other documents that pointed
// into what moved, and the moved documents' own links, and returns what it changed (with dry,
// what it would change, writing nothing). Each file is rewritten atomically. keepText says what a
// wiki link whose name changes shows (see [markdown.Move]).
func (t Tree) Rewrite(ctx context.Context, moves []markdown.Moved, dry, keepText bool) (Rewritten, error) {
	e := t.Engine
	out := Rewritten{After: map[string][]byte{}}
	format := t.linkFormat(ctx)
	seen := map[string]bool{}
	note := func(p string, rw []markdown.Rewrite, text []byte) {
		if dry {
			out.After[p] = text
		}
		if !seen[p] {
			seen[p] = true
			out.files = append(out.files, p)
		}
		for _, r := range rw {
			out.rewrites = append(out.rewrites, result.LinkRewrite{Path: p, Line: r.Line, Before: r.Before, After: r.After})
		}
	}
	defer func() {
		sort.Strings(out.files)
		sort.SliceStable(out.rewrites, func(i, j int) bool { return out.rewrites[i].Path < out.rewrites[j].Path })
	}()
	for _, from := range t.Host.LinkedFrom(moves) {
		rw, text, err := t.rewriteLinks(ctx, from, dry, func(data []byte, mod time.Time) ([]byte, []markdown.Rewrite) {
			return e.RewriteLinks(from, data, mod, moves, keepText, format)
		})
		if err != nil {
			return out, err
		}
		if len(rw) > 0 {
			note(from, rw, text)
		}
	}
	for _, m := range moves {
		for _, p := range e.Documents(m.From) {
			now, _ := m.Dest(p) // where p is after the move
			at := now
			if dry {
				at = p
			}
			rw, text, err := t.rewriteLinks(ctx, at, dry, func(data []byte, mod time.Time) ([]byte, []markdown.Rewrite) {
				return e.RelinkMoved(data, mod, p, now, moves, keepText, format)
			})
			if err != nil {
				return out, err
			}
			if len(rw) > 0 {
				note(now, rw, text)
			}
		}
	}
	return out, nil
}

// rewriteLinks reads the text file name through one lookup judged for a write and, unless
// dry, writes what relinking it gives back through that same entry, if the file is still as it
// was read. It returns the rewrites and what the file holds with them (none for a file it cannot
// read as text, and none for one another program changed since the read: its links are checked
// after the move).
func (t Tree) rewriteLinks(ctx context.Context, name string, dry bool, relink func([]byte, time.Time) ([]byte, []markdown.Rewrite)) ([]markdown.Rewrite, []byte, error) {
	f, err := t.Host.Open(name, true)
	if err != nil {
		return nil, nil, nil
	}
	defer f.Close()
	data, info, err := f.ReadFile(ctx, t.MaxFileSize)
	if err != nil || !markdown.IsText(data) || security.PrivateKey(data) != "" {
		return nil, nil, nil
	}
	text, rw := relink(data, info.ModTime)
	if len(rw) == 0 || dry {
		return rw, text, nil
	}
	before, err := t.Host.Keep(ctx, name, data, info.Mode)
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.WriteFileIf(ctx, text, fsroot.Version(data), t.MaxFileSize); err != nil {
		if errors.Is(err, fsroot.ErrConflict) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	t.Host.Changed(name, before, text, info.Mode)
	return rw, text, nil
}

// obsidianSettings is the file where Obsidian keeps a vault's settings, among them the format of
// the links it writes, and maxSettingsSize the most of it read: Obsidian's own is a few hundred
// bytes.
const (
	obsidianSettings = ".obsidian/app.json"
	maxSettingsSize  = 64 << 10
)

// linkFormat returns the root's format for the links a move writes: Obsidian's newLinkFormat
// from .obsidian/app.json when the root is a vault that sets one, else shortest, Obsidian's
// default. A file that cannot be read or parsed, or names another format, is logged and read as
// the default: a move does not fail for a setting.
func (t Tree) linkFormat(ctx context.Context) markdown.LinkFormat {
	data, err := t.readSettings(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return markdown.LinkShortest
	}
	var settings struct {
		NewLinkFormat *string `json:"newLinkFormat"`
	}
	if err == nil {
		err = json.Unmarshal(data, &settings)
	}
	if err != nil {
		t.Log.Printf("reading %s for the vault's link format: %v; links are written in the shortest form", obsidianSettings, err)
		return markdown.LinkShortest
	}
	if settings.NewLinkFormat == nil {
		return markdown.LinkShortest
	}
	f, ok := markdown.ParseLinkFormat(*settings.NewLinkFormat)
	if !ok {
		t.Log.Printf("%s: newLinkFormat %q is none of shortest, relative, absolute; links are written in the shortest form", obsidianSettings, *settings.NewLinkFormat)
	}
	return f
}

// readSettings reads the vault's settings through a lookup judged for a read.
func (t Tree) readSettings(ctx context.Context) ([]byte, error) {
	e, err := t.Host.Open(obsidianSettings, false)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	data, _, err := e.ReadFile(ctx, maxSettingsSize)
	if err == nil && security.PrivateKey(data) != "" {
		return nil, security.KeyRefusal(obsidianSettings, security.PrivateKey(data))
	}
	return data, err
}

// Report puts what Rewrite did on a move's result, the rewrites capped at MaxRewrites.
func (r Rewritten) Report(out *result.Writer) {
	out.UpdatedFiles, out.Rewrites = r.files, r.rewrites
	if len(r.rewrites) > MaxRewrites {
		out.Rewrites, out.RewritesTotal = r.rewrites[:MaxRewrites], len(r.rewrites)
	}
}
