// Package search is what the searcher answers of one root. Its walk gives a listing and
// search_content: what they leave out (the policy's, the noise of ignore files and caches) and
// say they left out, their criteria and name globs, the matcher of lines (literal, or RE2 with the
// literals its matches must hold, which the index's candidates narrow by), and where a long walk
// stopped, for the next page to go on from. Its index gives search_semantic's ranked hits and
// relationships' links and backlinks, and says what such an answer lacks while it is being built.
package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/docs"
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

// Walker is the searcher's view of one root: it walks the root for list and search_content, and
// answers search_semantic and relationships from its index. tools fills it for each call.
type Walker struct {
	Root   *fsroot.Root
	Policy *security.Policy
	Ignore *security.Ignore // what is noise (ignored files, caches)
	Engine *semantic.Engine // the index, whose candidates narrow a search; nil for none
	// MaxFileSize is the largest file read.
	MaxFileSize int64
	// ReadJudged reads a file a walk or the index named through one lookup judged by what it
	// reached (tools' Server.readJudged).
	ReadJudged func(ctx context.Context, name string, max int64) ([]byte, fsroot.Info, error)
	Docs       docs.Reader
	// BeforeSearch, if set, runs before search_content reads a file (tests).
	BeforeSearch func(name string)
	// Resumes remembers where walks stopped; Budget, if set, replaces walkBudget (tests); Now is
	// the clock.
	Resumes *Resumes
	Budget  func(context.Context) (context.Context, context.CancelFunc)
	Now     func() time.Time
	// Show is a root-relative path as the caller names it; Log takes what the answer leaves to
	// the server's log.
	Show func(name string) string
	Log  *log.Logger
}

// Progress is how a walk tells how far it has got (tools/progress's Reporter).
type Progress interface {
	Step()
	SetTotal(total int, unit string)
}

// Report is what a walk tells of itself: its progress as it goes, and what it left out, by
// reason, for the answer.
type Report struct {
	Progress Progress // nil: nobody listens

	// noise says to walk what is ignored and cached too (options.includeIgnored); hidden counts
	// what a walk left out, by reason (security.HiddenBlocked, ...), for the answer.
	noise  bool
	hidden map[string]int
	// rules says, for up to maxHintRules of the entries left out as noise, what left them out
	// ([security.Ignore.Why]), each once, for the answer's hint.
	rules []string
	// others names, for up to maxHintRules of the entries left out as security.HiddenOther, the
	// entry and why ([otherWhy]).
	others []string
	// narrowed says the index's candidates, not a walk, chose the files searched.
	narrowed bool
}

// step counts one more entry walked.
func (r *Report) step() {
	if r.Progress != nil {
		r.Progress.Step()
	}
}

// setTotal declares how many entries the walk has in all, and what they are.
func (r *Report) setTotal(total int, unit string) {
	if r.Progress != nil {
		r.Progress.SetTotal(total, unit)
	}
}

// hide counts one entry a walk left out for why.
func (r *Report) hide(why string) {
	if r.hidden == nil {
		r.hidden = map[string]int{}
	}
	r.hidden[why]++
}

// unread counts the document p, whose text could not be read (code says why), among the entries
// left out as security.HiddenOther, naming it while the hint has room.
func (r *Report) unread(p, code string) {
	r.hide(security.HiddenOther)
	if len(r.others) < maxHintRules {
		r.others = append(r.others, fmt.Sprintf("%s (its text cannot be read: %s)", p, code))
	}
}

// maxHintRules is how many of the rules that left entries out a hint names.
const maxHintRules = 3

// wantsRule reports whether the hint has room for another rule.
func (r *Report) wantsRule() bool { return len(r.rules) < maxHintRules }

// rule records what left an entry out as noise, once.
func (r *Report) rule(what string) {
	if what != "" && r.wantsRule() && !slices.Contains(r.rules, what) {
		r.rules = append(r.rules, what)
	}
}

// Tally is what a search_content covered: the text files it searched, and the files below its
// folder that the criteria left out, unread.
type Tally struct {
	Searched, Excluded int
	Some               []string // up to MaxExcludedNamed of the files excluded, to name them
}

// MaxExcludedNamed is how many of the files criteria left out a search names (excludedFiles), so
// that a model need not list the folder to learn what "filesExcluded: 1" was.
const MaxExcludedNamed = 3

// exclude counts p, a file the criteria left out.
func (t *Tally) exclude(p string) {
	t.Excluded++
	if len(t.Some) < MaxExcludedNamed {
		t.Some = append(t.Some, p)
	}
}

// List answers purpose list of the folder name, telling r how it goes (see [Walker.files]).
func (w Walker) List(ctx context.Context, in intents.Discover, name string, r *Report) (result.Searcher, error) {
	return w.files(ctx, in, name, r, func(ctx context.Context, f *Filter, p *Page, r *Report) (Tally, error) {
		return Tally{}, w.list(ctx, name, in.Depth(), in.Options.IncludeModified, f, p, r)
	})
}

// Content answers purpose search_content below name, telling r how it goes (see [Walker.files]).
func (w Walker) Content(ctx context.Context, in intents.Discover, name string, r *Report) (result.Searcher, error) {
	return w.files(ctx, in, name, r, func(ctx context.Context, f *Filter, p *Page, r *Report) (Tally, error) {
		m, err := newMatcher(in.Target.Query, in.Options)
		if err != nil {
			return Tally{}, err
		}
		return w.searchContent(ctx, name, in.Depth(), in.Options, f, m, p, r)
	})
}

// Walk visits what the tools can see of the whole root, in path order, until visit returns false.
func (w Walker) Walk(ctx context.Context, visit func(fsroot.Info) bool) error {
	return w.walk(ctx, ".", 0, &Report{}, nil, visit)
}

// Visit visits the files of paths the tools can see, in path order, until visit returns false.
func (w Walker) Visit(ctx context.Context, paths []string, visit func(fsroot.Info) bool) error {
	return w.visitCandidates(ctx, ".", 0, paths, &Report{}, nil, visit)
}

// files answers a list or a search_content of name: walk fills one page of files through the
// call's filter and r, within the walk's share of the call's time, and returns what it searched.
// A walk that stops before its end (a full page, or out of time) is remembered, so that the call
// for its nextOffset goes on from there (see [Resumes]). The answer's metadata is the caller's.
func (w Walker) files(ctx context.Context, in intents.Discover, name string, r *Report, walk func(ctx context.Context, f *Filter, p *Page, r *Report) (Tally, error)) (result.Searcher, error) {

	var out result.Searcher
	f, err := NewFilter(in)
	if err != nil {
		return out, err
	}
	p := NewPage(in.Options)
	key := resumeKey(name, in)
	from, resumed := w.Resumes.at(key, p.Offset, w.Now())
	if resumed {
		p.Total, p.cur.after = p.Offset, from.after
	}
	r.noise = in.Options.IncludeIgnored
	budget := walkBudget
	if w.Budget != nil {
		budget = w.Budget
	}
	wctx, cancel := budget(ctx)
	defer cancel()
	t, err := walk(wctx, f, p, r)
	out.FilesSearched, out.FilesExcluded, out.ExcludedFiles = t.Searched, t.Excluded, t.Some
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		out.TimedOut, err = true, nil
	}
	if err != nil {
		return result.Searcher{}, err
	}
	out.Status = result.Status{Success: true}
	out.Files, out.TotalFound = p.Files, ptr(p.Total)
	out.Hidden, out.HiddenHint = r.hidden, hiddenHint(r.hidden, r.rules, r.others, p.Total == 0)
	if r.narrowed && !r.noise && w.Ignore.Seen() {
		out.HiddenHint = "the index holds no ignored or cache files: set options.includeIgnored to search them too"
	}
	if resumed && !r.narrowed {
		out.FilesSearched += from.searched // the walk's files searched, over every call it took
	}
	if p.More || out.TimedOut {
		out.Truncated, out.NextOffset = true, ptr(p.Offset+len(p.Files))
		if key != "" && p.cur.at != "" {
			w.Resumes.put(resume{key: key, offset: *out.NextOffset, after: p.cur.at, searched: out.FilesSearched, when: w.Now()})
		}
	}
	if out.TimedOut {
		far := fmt.Sprintf(" after %d files searched", out.FilesSearched)
		if r.narrowed { // the index's count is of every file it covers, not of those read in time
			far, out.FilesSearched, out.FilesExcluded, out.ExcludedFiles = "", 0, 0, nil
		}
		out.Message = fmt.Sprintf("stopped at the call's time limit%s: pass options.offset %d to go on from where it stopped, or narrow target.path", far, *out.NextOffset)
	}
	if p.More {
		// The search stopped when the page filled: it did not cover every file, so it gives no
		// count of files searched (a walk's would be the few before the page filled, the
		// index's every file, neither what the next page covers).
		out.FilesSearched, out.FilesExcluded, out.ExcludedFiles = 0, 0, nil
	}
	return out, nil
}

// Page collects one page of results: it skips offset entries, keeps max, and notes that more exist.
// cur is where the walk that fills it starts and got to.
type Page struct {
	Offset, Max int
	Files       []result.FileEntry
	Total       int
	More        bool
	cur         *cursor
}

// NewPage is the first page o asks for.
func NewPage(o intents.DiscoverOptions) *Page {
	max := o.MaxResults
	if max <= 0 {
		max = DefaultMaxResults
	}
	return &Page{Offset: o.Offset, Max: max, cur: &cursor{}}
}

// Add records one result; it reports false once the page is full and one more result proved that
// more exist, so the walk can stop.
func (p *Page) Add(e func() result.FileEntry) bool {
	p.Total++
	if p.Total <= p.Offset {
		return true
	}
	if len(p.Files) >= p.Max {
		p.More = true
		return false
	}
	p.Files = append(p.Files, e())
	return true
}

// walk visits the entries below name that the policy lets the caller see, in path order, down to
// depth levels ([intents.Discover.Depth]: 1 for the entries directly in name, 0 for the whole tree),
// leaving out the noise ([security.Ignore]) unless r.noise, and those cur has been past. r counts
// every entry walked, and those left out by reason; cur (if not nil) records the last file visited.
func (w Walker) walk(ctx context.Context, name string, depth int, r *Report, cur *cursor, visit func(fsroot.Info) bool) error {
	noise := w.walksNoise(name, r)
	err := w.Root.Walk(ctx, name, depth, func(info fsroot.Info, err error) error {
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
		if err := security.Visible(w.Policy, w.Root, info); err != nil {
			if why = security.HiddenReason(err); why == security.HiddenOther && len(r.others) < maxHintRules {
				r.others = append(r.others, otherWhy(info.Path, err))
			}
		} else if !noise {
			why = w.Ignore.Hidden(info.Path, info.Type == fsroot.TypeDir)
		}
		if why != "" {
			r.hide(why)
			if (why == security.HiddenIgnored || why == security.HiddenCache) && r.wantsRule() {
				r.rule(w.Ignore.Why(info.Path, info.Type == fsroot.TypeDir))
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
func (w Walker) walksNoise(name string, r *Report) bool {
	return r.noise || name != "." && w.Ignore.Hidden(name, true) != ""
}

func (w Walker) list(ctx context.Context, name string, depth int, modified bool, f *Filter, p *Page, r *Report) error {
	return w.walk(ctx, name, depth, r, p.cur, func(info fsroot.Info) bool {
		if !f.Keep(info) {
			return true
		}
		if f.Content() != "" && !w.fileContains(ctx, info, f.Content()) {
			return true
		}
		return p.Add(func() result.FileEntry {
			e := Entry(info, modified)
			e.Opens = Opens(w.Policy, info)
			return e
		})
	})
}

// Opens is what a listing says the tools do with info ([security.Policy.Opens]): "" for a folder
// or a file they open as text, as most are.
func Opens(policy *security.Policy, info fsroot.Info) string {
	if info.Type != fsroot.TypeFile {
		return ""
	}
	if o := policy.Opens(info.Path); o != security.OpensText {
		return o.String()
	}
	return ""
}

func (w Walker) fileContains(ctx context.Context, info fsroot.Info, needle string) bool {
	if info.Type != fsroot.TypeFile {
		return false
	}
	data, _, err := w.ReadJudged(ctx, info.Path, w.MaxFileSize)
	text, _, ok, _ := w.Docs.Searchable(ctx, info.Path, data, err)
	return ok && containsLower(text, needle)
}

// Entry is one entry of a listing: its path, type and, for a file, size; its modification time only
// when asked for, as most listings are read for names, and a timestamp on each costs a model about
// thirty bytes an entry.
func Entry(info fsroot.Info, modified bool) result.FileEntry {
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

// Below returns p relative to the folder name, and whether p lies below it.
func Below(p, name string) (string, bool) {
	switch {
	case name == ".":
		return p, true
	case p == name || !fsroot.Within(p, name):
		return "", false
	}
	return p[len(name)+1:], true
}

// WithinDepth reports whether rel, a path relative to the folder a walk starts from, lies within
// depth levels of it (0 for no limit): "a.md" is at level 1, "d/a.md" at level 2.
func WithinDepth(rel string, depth int) bool {
	return depth <= 0 || strings.Count(rel, "/")+1 <= depth
}

// visibleAlong judges a file and every folder above it, as a walk that skips refused folders does.
func (w Walker) visibleAlong(p string) bool {
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if w.Policy.CheckName(dir, true) != nil {
			return false
		}
	}
	return w.Policy.CheckName(p, false) == nil
}

// WalkOrder reports whether a comes before b in a depth-first walk that visits names in sorted
// order: paths compare component by component.
func WalkOrder(a, b string) bool {
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

func ptr[T any](v T) *T { return &v }
