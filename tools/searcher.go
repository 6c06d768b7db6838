package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/result"
)

// Search and listing limits: every answer is bounded, and says when it is.
const (
	// DefaultMaxResults is how many entries a listing or search returns when the caller does not say.
	DefaultMaxResults = 200
	// MaxMatchesPerFile caps the matching lines shown for one file; matchCount still counts them all.
	MaxMatchesPerFile = 20
	// MaxLineBytes caps one matching or context line, so a minified file cannot flood an answer.
	MaxLineBytes = 500
	// MaxIncludedBytes caps each file's content returned by options.includeContent.
	MaxIncludedBytes = 16 << 10
	// MaxRegexBytes bounds a compiled regular expression's source; RE2 runs in linear time, so the
	// pattern's size is what bounds its memory.
	MaxRegexBytes = 1000
)

func searcherTool() mcp.Tool {
	return mcp.NewTool(SearcherName,
		mcp.WithDescription("list: a folder's entries. "+
			"search_content: lines holding target.query (any case) below target.path. "+
			"search_semantic: documents ranked by BM25 (words, not meaning), with best section and snippet. "+
			"relationships: a document's outline, tags, links, broken links and backlinks (by name, alias, path, %20) with lines (no text search adds to them); for target.paths or a folder, links of each; it takes only target.path(s) and options.offset."),
		schemas[intents.Discover, result.Searcher](),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Find files",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}

func (s *Server) discover(ctx context.Context, c *call) (any, error) {
	in, err := admit[intents.Discover](s, c)
	if err != nil {
		return nil, err
	}
	if len(in.Target.Paths) > 0 {
		return s.pathsRelations(ctx, c, in)
	}
	name, e, err := s.lookup(in.Target.Path)
	c.path = name
	if err != nil {
		return nil, err
	}
	info, infoErr := e.Info() // what the lookup found there, so the name is walked once
	e.Close()
	if err := s.charge(c, in.Recursive()); err != nil {
		return nil, err
	}
	row, _ := PurposeOf(SearcherName, in.Purpose) // Decode admitted only the table's purposes
	return row.discover(s, ctx, c, in, name, info, infoErr)
}

// listFolder answers purpose list.
func (s *Server) listFolder(ctx context.Context, c *call, in intents.Discover, name string, info fsroot.Info, infoErr error) (any, error) {
	if infoErr != nil {
		return nil, infoErr
	}
	if info.Type != fsroot.TypeDir {
		return nil, fsroot.ErrNotDir
	}
	return s.walkFiles(ctx, c, in, name, func(ctx context.Context, f *filter, p *page, r *reporter) (tally, error) {
		return tally{}, s.list(ctx, name, in.Depth(), in.Options.IncludeModified, f, p, r)
	})
}

// searchFiles answers purpose search_content.
func (s *Server) searchFiles(ctx context.Context, c *call, in intents.Discover, name string, _ fsroot.Info, infoErr error) (any, error) {
	if infoErr != nil {
		return nil, infoErr
	}
	return s.walkFiles(ctx, c, in, name, func(ctx context.Context, f *filter, p *page, r *reporter) (tally, error) {
		m, err := newMatcher(in.Target.Query, in.Options)
		if err != nil {
			return tally{}, err
		}
		return s.searchContent(ctx, name, in.Depth(), in.Options, f, m, p, r)
	})
}

// tally is what a search_content covered: the text files it searched, and the files below its
// folder that the criteria left out, unread.
type tally struct {
	searched, excluded int
	some               []string // up to maxExcludedNamed of the files excluded, to name them
}

// maxExcludedNamed is how many of the files criteria left out a search names (excludedFiles), so
// that a model need not list the folder to learn what "filesExcluded: 1" was.
const maxExcludedNamed = 3

// exclude counts p, a file the criteria left out.
func (t *tally) exclude(p string) {
	t.excluded++
	if len(t.some) < maxExcludedNamed {
		t.some = append(t.some, p)
	}
}

// walkFiles answers a list or a search_content of name: walk fills one page of files through the
// call's filter and reporter, within the walk's share of the call's time, and returns what it
// searched. A walk that stops before its end (a full page, or out of time) is remembered, so that
// the call for its nextOffset goes on from there (see [resumes]).
func (s *Server) walkFiles(ctx context.Context, c *call, in intents.Discover, name string, walk func(ctx context.Context, f *filter, p *page, r *reporter) (tally, error)) (any, error) {
	f, err := newFilter(in)
	if err != nil {
		return nil, err
	}
	p := newPage(in.Options)
	key := resumeKey(name, in)
	from, resumed := s.resumes.at(key, p.offset, s.cfg.Now())
	if resumed {
		p.total, p.cur.after = p.offset, from.after
	}
	r := s.newReporter(ctx, c)
	r.noise = in.Options.IncludeIgnored
	defer r.finish() // runs as discover returns, before the response is sent
	var out result.Searcher
	budget := walkBudget
	if s.budget != nil {
		budget = s.budget
	}
	wctx, cancel := budget(ctx)
	defer cancel()
	t, err := walk(wctx, f, p, r)
	out.FilesSearched, out.FilesExcluded, out.ExcludedFiles = t.searched, t.excluded, t.some
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		out.TimedOut, err = true, nil
	}
	if err != nil {
		return nil, err
	}
	out.Status = result.Status{Success: true}
	out.Files, out.TotalFound = p.files, ptr(p.total)
	out.Hidden, out.HiddenHint = r.hidden, hiddenHint(r.hidden, r.rules, r.others, p.total == 0)
	if r.narrowed && !r.noise && s.cfg.Ignore.Seen() {
		out.HiddenHint = "the index holds no ignored or cache files: set options.includeIgnored to search them too"
	}
	if resumed && !r.narrowed {
		out.FilesSearched += from.searched // the walk's files searched, over every call it took
	}
	if p.more || out.TimedOut {
		out.Truncated, out.NextOffset = true, ptr(p.offset+len(p.files))
		if key != "" && p.cur.at != "" {
			s.resumes.put(resume{key: key, offset: *out.NextOffset, after: p.cur.at, searched: out.FilesSearched, when: s.cfg.Now()})
		}
	}
	if out.TimedOut {
		far := fmt.Sprintf(" after %d files searched", out.FilesSearched)
		if r.narrowed { // the index's count is of every file it covers, not of those read in time
			far, out.FilesSearched, out.FilesExcluded, out.ExcludedFiles = "", 0, 0, nil
		}
		out.Message = fmt.Sprintf("stopped at the call's time limit%s: pass options.offset %d to go on from where it stopped, or narrow target.path", far, *out.NextOffset)
	}
	if p.more {
		// The search stopped when the page filled: it did not cover every file, so it gives no
		// count of files searched (a walk's would be the few before the page filled, the
		// index's every file, neither what the next page covers).
		out.FilesSearched, out.FilesExcluded, out.ExcludedFiles = 0, 0, nil
	}
	out.Metadata = c.meta()
	return out, nil
}

// page collects one page of results: it skips offset entries, keeps max, and notes that more exist.
// cur is where the walk that fills it starts and got to.
type page struct {
	offset, max int
	files       []result.FileEntry
	total       int
	more        bool
	cur         *cursor
}

func newPage(o intents.DiscoverOptions) *page {
	max := o.MaxResults
	if max <= 0 {
		max = DefaultMaxResults
	}
	return &page{offset: o.Offset, max: max, cur: &cursor{}}
}

// add records one result; it reports false once the page is full and one more result proved that
// more exist, so the walk can stop.
func (p *page) add(e func() result.FileEntry) bool {
	p.total++
	if p.total <= p.offset {
		return true
	}
	if len(p.files) >= p.max {
		p.more = true
		return false
	}
	p.files = append(p.files, e())
	return true
}

// walk visits the entries below name that the policy lets the caller see, in path order, down to
// depth levels ([intents.Discover.Depth]: 1 for the entries directly in name, 0 for the whole tree),
// leaving out the noise ([security.Ignore]) unless r.noise, and those cur has been past. r counts
// every entry walked, and those left out by reason; cur (if not nil) records the last file visited.
func (s *Server) walk(ctx context.Context, name string, depth int, r *reporter, cur *cursor, visit func(fsroot.Info) bool) error {
	noise := s.walksNoise(name, r)
	err := s.cfg.Root.Walk(ctx, name, depth, func(info fsroot.Info, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			return nil // an unreadable directory is left out, as the user could not list it either
		}
		if dir := info.Type == fsroot.TypeDir; cur.before(info.Path, dir) {
			if dir {
				return fs.SkipDir
			}
			return nil
		}
		r.step()
		why := ""
		if err := security.Visible(s.cfg.Policy, s.cfg.Root, info); err != nil {
			if why = security.HiddenReason(err); why == security.HiddenOther && len(r.others) < maxHintRules {
				r.others = append(r.others, otherWhy(info.Path, err))
			}
		} else if !noise {
			why = s.cfg.Ignore.Hidden(info.Path, info.Type == fsroot.TypeDir)
		}
		if why != "" {
			r.hide(why)
			if (why == security.HiddenIgnored || why == security.HiddenCache) && r.wantsRule() {
				r.rule(s.cfg.Ignore.Why(info.Path, info.Type == fsroot.TypeDir))
			}
			if info.Type == fsroot.TypeDir {
				return fs.SkipDir
			}
			return nil
		}
		if !visit(info) {
			return fs.SkipAll
		}
		cur.done(ctx, info.Path)
		return nil
	})
	if err == nil {
		err = ctx.Err() // the last file may have been cut short
	}
	return err
}

// otherWhy says, for a hint, why the entry name is left out as [security.HiddenOther], from err,
// what [security.Visible] said of it: such names are no secret (a blocked one is never named).
func otherWhy(name string, err error) string {
	switch {
	case errors.Is(err, fsroot.ErrHardLink):
		return name + ": a hard link (the server's --allow-hard-links lets such files in)"
	case errors.Is(err, fsroot.ErrNotRegular):
		return name + ": a special file"
	}
	return name + ": a link out of the root or to nothing"
}

// walksNoise reports whether a walk of name takes in what is noise ([security.Ignore]): when the
// call asked for it (options.includeIgnored), or name is itself noise, a folder the caller named.
func (s *Server) walksNoise(name string, r *reporter) bool {
	return r.noise || name != "." && s.cfg.Ignore.Hidden(name, true) != ""
}

func (s *Server) list(ctx context.Context, name string, depth int, modified bool, f *filter, p *page, r *reporter) error {
	return s.walk(ctx, name, depth, r, p.cur, func(info fsroot.Info) bool {
		if !f.keep(info) {
			return true
		}
		if f.content != "" && !s.fileContains(ctx, info, f.content) {
			return true
		}
		return p.add(func() result.FileEntry {
			e := entry(info, modified)
			e.Opens = opens(s.cfg.Policy, info)
			return e
		})
	})
}

// opens is what a listing says the tools do with info ([security.Policy.Opens]): "" for a folder
// or a file they open as text, as most are.
func opens(policy *security.Policy, info fsroot.Info) string {
	if info.Type != fsroot.TypeFile {
		return ""
	}
	if o := policy.Opens(info.Path); o != security.OpensText {
		return o.String()
	}
	return ""
}

func (s *Server) fileContains(ctx context.Context, info fsroot.Info, needle string) bool {
	if info.Type != fsroot.TypeFile {
		return false
	}
	data, _, err := s.readJudged(ctx, info.Path, s.cfg.MaxFileSize)
	text, _, ok, _ := s.docs().Searchable(ctx, info.Path, data, err)
	return ok && containsLower(text, needle)
}

// entry is one entry of a listing: its path, type and, for a file, size; its modification time only
// when asked for, as most listings are read for names, and a timestamp on each costs a model about
// thirty bytes an entry.
func entry(info fsroot.Info, modified bool) result.FileEntry {
	e := result.FileEntry{Path: info.Path, FileAttrs: result.FileAttrs{Type: string(info.Type)}}
	if info.Type == fsroot.TypeFile {
		e.SizeBytes = ptr(info.Size)
	}
	if modified {
		e.Modified = modTime(info)
	}
	return e
}

// modTime is an entry's modification time as results give it: RFC 3339, in UTC.
func modTime(info fsroot.Info) string { return info.ModTime.UTC().Format(time.RFC3339) }

// below returns p relative to the folder name, and whether p lies below it.
func below(p, name string) (string, bool) {
	if name == "." {
		return p, true
	}
	if !strings.HasPrefix(p, name+"/") {
		return "", false
	}
	return p[len(name)+1:], true
}

// withinDepth reports whether rel, a path relative to the folder a walk starts from, lies within
// depth levels of it (0 for no limit): "a.md" is at level 1, "d/a.md" at level 2.
func withinDepth(rel string, depth int) bool {
	return depth <= 0 || strings.Count(rel, "/")+1 <= depth
}

// visibleAlong judges a file and every folder above it, as a walk that skips refused folders does.
func (s *Server) visibleAlong(p string) bool {
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if s.cfg.Policy.CheckName(dir, true) != nil {
			return false
		}
	}
	return s.cfg.Policy.CheckName(p, false) == nil
}

// walkOrder reports whether a comes before b in a depth-first walk that visits names in sorted
// order: paths compare component by component.
func walkOrder(a, b string) bool {
	for {
		ca, ra, moreA := strings.Cut(a, "/")
		cb, rb, moreB := strings.Cut(b, "/")
		if ca != cb {
			return ca < cb
		}
		if !moreA || !moreB {
			return !moreA && moreB
		}
		a, b = ra, rb
	}
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fsroot.ErrNotDir)
}

// hiddenHint says in one line what hidden counts left out, what left the noise out (rules, from
// Ignore.Why), and how to see what can be seen; "" when nothing was left out. empty says the
// answer holds nothing: the hint then says so first, so that a model does not read "0 found" as
// the tree's answer.
func hiddenHint(hidden map[string]int, rules, others []string, empty bool) string {
	if len(hidden) == 0 {
		return ""
	}
	var parts []string
	for _, why := range []string{security.HiddenIgnored, security.HiddenCache, security.HiddenBlocked, security.HiddenOther} {
		if n := hidden[why]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, why))
		}
	}
	hint := "left out: " + strings.Join(parts, ", ")
	if len(rules) > 0 {
		hint += " (by " + strings.Join(rules, "; ") + ")"
	}
	if len(others) > 0 {
		hint += " (other: " + strings.Join(others, "; ") + ")"
	}
	if hidden[security.HiddenIgnored]+hidden[security.HiddenCache] > 0 {
		hint += "; set options.includeIgnored to true to see the ignored and cache entries"
		if empty {
			hint = "nothing found in what was looked at, and some of the tree was " + hint
		}
	}
	return hint
}
