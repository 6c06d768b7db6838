package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
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
		schemas[intents.Discover, SearcherResult](),
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
	var out SearcherResult
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
	out.Status = Status{Success: true}
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
	files       []FileEntry
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
func (p *page) add(e func() FileEntry) bool {
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
		return p.add(func() FileEntry {
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
	text, _, ok, _ := s.searchable(ctx, info.Path, data, err)
	return ok && containsLower(text, needle)
}

// entry is one entry of a listing: its path, type and, for a file, size; its modification time only
// when asked for, as most listings are read for names, and a timestamp on each costs a model about
// thirty bytes an entry.
func entry(info fsroot.Info, modified bool) FileEntry {
	e := FileEntry{Path: info.Path, FileAttrs: FileAttrs{Type: string(info.Type)}}
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

// filter holds a listing's or search's criteria, checked against each entry's attributes.
type filter struct {
	exts          map[string]bool
	names         []string // globs, lower-case; any one matching keeps a name
	after, before *time.Time
	min, max      *int64
	content       string
}

func newFilter(in intents.Discover) (*filter, error) {
	f := &filter{}
	cr := in.Target.Criteria
	if cr == nil {
		return f, nil
	}
	if len(cr.Extension) > 0 {
		f.exts = make(map[string]bool)
		for _, e := range cr.Extension {
			f.exts[normExt(e)] = true
		}
	}
	if cr.Name != "" {
		names, err := expandBraces(strings.ToLower(cr.Name))
		if err == nil {
			for _, n := range names {
				if _, err = path.Match(strings.TrimPrefix(n, "!"), ""); err != nil {
					break
				}
			}
		}
		if err != nil {
			return nil, &callError{code: CodeInvalidArgument, field: "target.criteria.name", msg: "target.criteria.name is not a valid glob pattern: use * and ? wildcards, {a,b} alternatives and ! to leave out, such as \"*.md\", \"{tar,zip}.md\" or \"{*.go,!*_test.go}\""}
		}
		f.names = names
	}
	if cr.Modified != nil {
		f.after, f.before = cr.Modified.After, cr.Modified.Before
	}
	if cr.SizeBytes != nil {
		f.min, f.max = cr.SizeBytes.Min, cr.SizeBytes.Max
	}
	f.content = strings.ToLower(cr.Content)
	return f, nil
}

// normExt writes an extension as the policy and the index do: lower-case, with its dot.
func normExt(e string) string { return "." + strings.TrimPrefix(strings.ToLower(e), ".") }

// keep judges an entry by its attributes. Criteria about files (extension, size, content) leave
// directories out.
func (f *filter) keep(info fsroot.Info) bool {
	fileOnly := f.exts != nil || f.min != nil || f.max != nil || f.content != ""
	if fileOnly && info.Type != fsroot.TypeFile {
		return false
	}
	if f.exts != nil && !f.exts[strings.ToLower(path.Ext(info.Name))] {
		return false
	}
	if !f.named(info.Name) {
		return false
	}
	if f.after != nil && !info.ModTime.After(*f.after) {
		return false
	}
	if f.before != nil && !info.ModTime.Before(*f.before) {
		return false
	}
	if f.min != nil && info.Size < *f.min {
		return false
	}
	if f.max != nil && info.Size > *f.max {
		return false
	}
	return true
}

// named reports whether a base name matches one of the criteria's name globs, ignoring case,
// or there is none.
// named reports whether base passes the name criteria: it matches one of the patterns that
// include (any, when all exclude) and none of those that exclude ("!*_test.go").
func (f *filter) named(base string) bool {
	if f.names == nil {
		return true
	}
	base = strings.ToLower(base)
	included, includes := false, false
	for _, n := range f.names {
		pattern, exclude := strings.CutPrefix(n, "!")
		ok, _ := path.Match(pattern, base)
		switch {
		case exclude && ok:
			return false
		case !exclude:
			includes = true
			included = included || ok
		}
	}
	return included || !includes
}

// maxAlternatives bounds the globs one name pattern expands to, so that "{a,b}{c,d}..." cannot
// multiply into millions of matches per file.
const maxAlternatives = 64

var errBraces = errors.New("unbalanced or nested braces, or too many alternatives")

// expandBraces expands each {a,b,c} group of pattern into the patterns it stands for, as a shell
// does: "{tar,zip}.md" is "tar.md" and "zip.md". Groups do not nest.
func expandBraces(pattern string) ([]string, error) {
	open := strings.IndexByte(pattern, '{')
	if open < 0 {
		if strings.IndexByte(pattern, '}') >= 0 {
			return nil, errBraces
		}
		return []string{pattern}, nil
	}
	end := strings.IndexByte(pattern[open:], '}')
	if end < 0 || strings.IndexByte(pattern[:open], '}') >= 0 {
		return nil, errBraces
	}
	end += open
	inner := pattern[open+1 : end]
	if strings.IndexByte(inner, '{') >= 0 {
		return nil, errBraces
	}
	rest, err := expandBraces(pattern[end+1:])
	if err != nil {
		return nil, err
	}
	var out []string
	for _, alt := range strings.Split(inner, ",") {
		for _, r := range rest {
			out = append(out, pattern[:open]+alt+r)
		}
		if len(out) > maxAlternatives {
			return nil, errBraces
		}
	}
	return out, nil
}

// A matcher says which lines a search_content matches: those holding needle (ignoring case if
// fold), or those re, an RE2 expression, matches, which hold all of lits.
type matcher struct {
	re     *regexp.Regexp
	lits   []literal
	needle string
	fold   bool
}

func newMatcher(query string, o intents.DiscoverOptions) (*matcher, error) {
	if !o.Regex {
		m := &matcher{needle: query, fold: !o.CaseSensitive}
		if m.fold {
			m.needle = strings.ToLower(query)
		}
		return m, nil
	}
	if len(query) > MaxRegexBytes {
		return nil, &callError{code: CodeInvalidArgument, field: "target.query", msg: "target.query is too long for a regular expression (at most 1000 bytes): simplify it"}
	}
	src := query
	if !o.CaseSensitive {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, &callError{code: CodeInvalidArgument, field: "target.query", msg: "target.query is not a valid RE2 regular expression (" + err.Error() + "): fix it, or leave options.regex off to search for the literal text"}
	}
	m := &matcher{re: re}
	if parsed, err := syntax.Parse(src, syntax.Perl); err == nil {
		m.lits = requiredLiterals(parsed.Simplify())
	}
	return m, nil
}

// match reports whether line matches.
func (m *matcher) match(line string) bool {
	if m.re != nil {
		return m.holds(line) && m.re.MatchString(line)
	}
	if m.fold {
		return containsLower(line, m.needle)
	}
	return strings.Contains(line, m.needle)
}

// holds reports whether text holds every literal a match of the expression must contain: a file
// or line without them has no match, and is passed over without running the expression.
func (m *matcher) holds(text string) bool {
	for _, l := range m.lits {
		if !l.in(text) {
			return false
		}
	}
	return true
}

// mayMatch reports whether a line of text may match: false rules the whole file out.
func (m *matcher) mayMatch(text string) bool {
	if m.re != nil {
		return m.holds(text)
	}
	return m.match(text)
}

// containsLower reports whether strings.ToLower(s) contains needle, already lower-cased, without
// lower-casing s when needle is ASCII: then only two letters beyond ASCII lower-case to ASCII
// (the Kelvin sign to k, the dotted capital I to i and a dot), and s is lower-cased only when it
// holds one.
func containsLower(s, needle string) bool {
	if !ascii(needle) {
		return strings.Contains(strings.ToLower(s), needle)
	}
	if indexFoldASCII(s, needle) >= 0 {
		return true
	}
	return (strings.Contains(s, "\u212a") || strings.Contains(s, "\u0130")) && strings.Contains(strings.ToLower(s), needle)
}

func (s *Server) searchContent(ctx context.Context, name string, depth int, o intents.DiscoverOptions, f *filter, m *matcher, p *page, r *reporter) (tally, error) {
	var t tally
	visit := func(info fsroot.Info) bool {
		if info.Type != fsroot.TypeFile {
			return true
		}
		if !f.keep(info) {
			t.exclude(info.Path)
			return true
		}
		if s.beforeSearch != nil {
			s.beforeSearch(info.Path)
		}
		data, _, err := s.readJudged(ctx, info.Path, s.cfg.MaxFileSize)
		if errors.Is(err, security.ErrBlocked) {
			r.hide(security.HiddenBlocked) // a private key under an innocent name, or a name leading to a blocked file
			return true
		}
		text, marks, ok, unread := s.searchable(ctx, info.Path, data, err)
		if unread != "" { // a document whose text could not be read is not "nothing found" in it
			r.unread(info.Path, unread)
		}
		if !ok {
			return true // unreadable, special, too large or binary: not searchable text
		}
		t.searched++
		if f.content != "" && !containsLower(text, f.content) || !m.mayMatch(text) {
			return true
		}
		matches, count := findMatches(splitLines(text), m, o.ContextLines)
		if count == 0 {
			return true
		}
		for i := range matches {
			matches[i].Place = extract.PlaceOf(marks, matches[i].Line)
		}
		if o.FilesOnly {
			matches = nil
		}
		return p.add(func() FileEntry {
			e := FileEntry{Path: info.Path, Matches: matches, MatchCount: count}
			if o.IncludeModified {
				e.Modified = modTime(info)
			}
			if o.IncludeContent {
				c := capString(text, MaxIncludedBytes)
				e.Content = &c
			}
			return e
		})
	}
	if info, err := s.cfg.Root.Lstat(name); err == nil && info.Type == fsroot.TypeFile {
		visit(info) // a single file was named: search just that file
		return t, nil
	}
	if paths, ok := s.candidates(ctx, m); ok && !s.walksNoise(name, r) { // the index holds no noise
		r.narrowed = true
		err := s.visitCandidates(ctx, name, depth, paths, r, p.cur, visit)
		t = s.covered(name, depth, f)
		s.unreadDocuments(name, depth, f, r)
		return t, err
	}
	err := s.walk(ctx, name, depth, r, p.cur, visit)
	return t, err
}

// unreadDocuments tells r of the documents below name, within depth and f, whose text the index
// could not extract: a search its candidates narrowed read none of them, and must say so.
func (s *Server) unreadDocuments(name string, depth int, f *filter, r *reporter) {
	for _, u := range s.cfg.Engine.Unread(name) {
		if rel, ok := below(u.Path, name); !ok || !withinDepth(rel, depth) {
			continue
		}
		if !f.keep(fsroot.Info{Path: u.Path, Name: path.Base(u.Path), Type: fsroot.TypeFile}) {
			continue
		}
		var ce *callError
		if errors.As(documentError(u.Path, lowerExt(u.Path), u.Err), &ce) {
			r.unread(u.Path, ce.code)
		}
	}
}

// covered counts the files below name, within depth, that a search narrowed by the index's
// candidates covers: the files a walk would have read, as the index knows them, and those of them
// that f left out. The answer reports it, not the few candidates read, so that a model does not
// take "38 files searched" for a search that looked at 38 files of 38,000.
func (s *Server) covered(name string, depth int, f *filter) tally {
	var t tally
	t.searched = s.cfg.Engine.Covered(name, func(p string, st fulltext.Stamp) bool {
		if rel, ok := below(p, name); !ok || !withinDepth(rel, depth) {
			return false
		}
		if f.keep(fsroot.Info{Path: p, Name: path.Base(p), Type: fsroot.TypeFile, Size: st.Size, ModTime: st.ModTime}) {
			return true
		}
		t.exclude(p)
		return false
	})
	slices.Sort(t.some) // named in path order, as a walk names them
	return t
}

// candidates asks the index which files may hold a literal query, or the literals a regular
// expression's matches must contain. ok is false when the index cannot narrow the search (no
// index, still building, an expression without such literals, literals too short or not ASCII):
// then every file is scanned. Either way the files are read and matched the same way,
// so the results are the same.
func (s *Server) candidates(ctx context.Context, m *matcher) ([]string, bool) {
	if s.cfg.Engine == nil || m.re != nil && len(m.lits) == 0 {
		return nil, false
	}
	needle := m.needle
	if m.re != nil {
		// Every match holds every literal: the files that hold them all, as words or inside
		// words, are the candidates (Candidates ignores case, which only widens them).
		var runs []string
		for _, l := range m.lits {
			runs = append(runs, l.s)
		}
		needle = strings.Join(runs, " ")
	}
	paths, ok, err := s.cfg.Engine.Candidates(ctx, needle)
	if err != nil || !ok {
		return nil, false
	}
	return paths, true
}

// visitCandidates visits the candidate files below name in the order a walk would (depth first,
// names sorted), within depth levels as [Server.walk] counts them, judged by the policy as a walk
// judges them, leaving out those cur has been past. r counts every candidate, out of all of
// them; cur (if not nil) records the last file visited.
func (s *Server) visitCandidates(ctx context.Context, name string, depth int, paths []string, r *reporter, cur *cursor, visit func(fsroot.Info) bool) error {
	sort.Slice(paths, func(i, j int) bool { return walkOrder(paths[i], paths[j]) })
	r.setTotal(len(paths), "candidate files")
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.step()
		rel, ok := below(p, name)
		if !ok || !withinDepth(rel, depth) || cur.before(p, false) {
			continue
		}
		info, err := s.cfg.Root.Lstat(p)
		if err != nil || info.Type != fsroot.TypeFile || !s.visibleAlong(p) {
			continue
		}
		if s.cfg.Ignore.Hidden(p, false) != "" {
			continue // ignored since the index took it in
		}
		if !visit(info) {
			return nil
		}
		cur.done(ctx, p)
	}
	return ctx.Err() // the last file may have been cut short
}

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

// findMatches returns up to MaxMatchesPerFile matches with their context, and how many lines matched.
func findMatches(lines []string, m *matcher, context int) ([]Match, int) {
	var out []Match
	count := 0
	for i, l := range lines {
		line := trimEOL(l)
		if !m.match(line) {
			continue
		}
		count++
		if len(out) >= MaxMatchesPerFile {
			continue
		}
		mt := Match{Line: i + 1, Text: capString(line, MaxLineBytes)}
		for j := max(0, i-context); j < i; j++ {
			mt.Before = append(mt.Before, capString(trimEOL(lines[j]), MaxLineBytes))
		}
		for j := i + 1; j < len(lines) && j <= i+context; j++ {
			mt.After = append(mt.After, capString(trimEOL(lines[j]), MaxLineBytes))
		}
		out = append(out, mt)
	}
	return out, count
}

// capString cuts s to at most n bytes on a rune boundary.
func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

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
