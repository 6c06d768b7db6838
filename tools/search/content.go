package search

import (
	"context"
	"errors"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/docs"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

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
		return nil, &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.query", Msg: "target.query is too long for a regular expression (at most 1000 bytes): simplify it"}
	}
	src := query
	if !o.CaseSensitive {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.query", Msg: "target.query is not a valid RE2 regular expression (" + err.Error() + "): fix it, or leave options.regex off to search for the literal text"}
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

func (w Walker) searchContent(ctx context.Context, name string, depth int, o intents.DiscoverOptions, f *Filter, m *matcher, p *Page, r *Report) (Tally, error) {
	var t Tally
	visit := func(info fsroot.Info) bool {
		if info.Type != fsroot.TypeFile {
			return true
		}
		if !f.Keep(info) {
			t.exclude(info.Path)
			return true
		}
		if w.BeforeSearch != nil {
			w.BeforeSearch(info.Path)
		}
		data, _, err := w.ReadJudged(ctx, info.Path, w.MaxFileSize)
		if errors.Is(err, security.ErrBlocked) {
			r.hide(security.HiddenBlocked) // a private key under an innocent name, or a name leading to a blocked file
			return true
		}
		body, marks, ok, unread := w.Docs.Searchable(ctx, info.Path, data, err)
		if unread != "" { // a document whose text could not be read is not "nothing found" in it
			r.unread(info.Path, unread)
		}
		if !ok {
			return true // unreadable, special, too large or binary: not searchable text
		}
		t.Searched++
		if f.Content() != "" && !containsLower(body, f.Content()) || !m.mayMatch(body) {
			return true
		}
		matches, count := findMatches(text.SplitLines(body), m, o.ContextLines)
		if count == 0 {
			return true
		}
		for i := range matches {
			matches[i].Place = extract.PlaceOf(marks, matches[i].Line)
		}
		if o.FilesOnly {
			matches = nil
		}
		return p.Add(func() result.FileEntry {
			e := result.FileEntry{Path: info.Path, Matches: matches, MatchCount: count}
			if o.IncludeModified {
				e.Modified = modTime(info)
			}
			if o.IncludeContent {
				c := text.Cap(body, MaxIncludedBytes)
				e.Content = &c
			}
			return e
		})
	}
	if info, err := w.Root.Lstat(name); err == nil && info.Type == fsroot.TypeFile {
		visit(info) // a single file was named: search just that file
		return t, nil
	}
	if paths, ok := w.candidates(ctx, m, name); ok && !w.walksNoise(name, r) { // the index holds no noise
		r.narrowed = true
		err := w.visitCandidates(ctx, name, depth, paths, r, p.cur, visit)
		t = w.covered(name, depth, f)
		w.unreadDocuments(name, depth, f, r)
		return t, err
	}
	err := w.walk(ctx, name, depth, r, p.cur, visit)
	return t, err
}

// unreadDocuments tells r of the documents below name, within depth and f, whose text the index
// could not extract: a search its candidates narrowed read none of them, and must say so.
func (w Walker) unreadDocuments(name string, depth int, f *Filter, r *Report) {
	for _, u := range w.Engine.Unread(name) {
		if rel, ok := Below(u.Path, name); !ok || !WithinDepth(rel, depth) {
			continue
		}
		if !f.Keep(fsroot.Info{Path: u.Path, Name: path.Base(u.Path), Type: fsroot.TypeFile}) {
			continue
		}
		if code := docs.UnreadCode(u.Path, u.Err); code != "" {
			r.unread(u.Path, code)
		}
	}
}

// covered counts the files below name, within depth, that a search narrowed by the index's
// candidates covers: the files a walk would have read, as the index knows them, and those of them
// that f left out. The answer reports it, not the few candidates read, so that a model does not
// take "38 files searched" for a search that looked at 38 files of 38,000.
func (w Walker) covered(name string, depth int, f *Filter) Tally {
	var t Tally
	if depth == 0 && f.none() {
		t.Searched = w.Engine.Covered(name, nil) // a count the index keeps by folder
		return t
	}
	t.Searched = w.Engine.Covered(name, func(p string, st fulltext.Stamp) bool {
		if rel, ok := Below(p, name); !ok || !WithinDepth(rel, depth) {
			return false
		}
		if f.Keep(fsroot.Info{Path: p, Name: path.Base(p), Type: fsroot.TypeFile, Size: st.Size, ModTime: st.ModTime}) {
			return true
		}
		t.exclude(p)
		return false
	})
	slices.Sort(t.Some) // named in path order, as a walk names them
	return t
}

// walkRatio is how many of the index's matches cost what reading one file of a folder does: a
// match costs a read of its record's path, a file of a walk its read and match, some 30 to 40
// times more (dev/bench/README.md, Scale).
const walkRatio = 32

// candidates asks the index which files at or below name may hold a literal query, or the literals a regular
// expression's matches must contain. ok is false when the index cannot narrow the search (no
// index, still building, an expression without such literals, literals too short or not ASCII),
// or when name is a folder so small beside the tree that reading its files costs less than the
// index's pass over the whole tree's matches (walkRatio): then every file is scanned. Either way the files are read and matched the same way,
// so the results are the same.
func (w Walker) candidates(ctx context.Context, m *matcher, name string) ([]string, bool) {
	if w.Engine == nil || m.re != nil && len(m.lits) == 0 {
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
	most := 0
	if name != "." {
		most = max(1, walkRatio*w.Engine.Covered(name, nil))
	}
	paths, ok, err := w.Engine.Candidates(ctx, needle, name, most)
	if err != nil || !ok {
		return nil, false
	}
	return paths, true
}

// visitCandidates visits the candidate files below name in the order a walk would (depth first,
// names sorted), within depth levels as [Walker.walk] counts them, judged by the policy as a walk
// judges them, leaving out those cur has been past. r counts every candidate, out of all of
// them; cur (if not nil) records the last file visited.
func (w Walker) visitCandidates(ctx context.Context, name string, depth int, paths []string, r *Report, cur *cursor, visit func(fsroot.Info) bool) error {
	sort.Slice(paths, func(i, j int) bool { return WalkOrder(paths[i], paths[j]) })
	r.setTotal(len(paths), "candidate files")
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.step()
		rel, ok := Below(p, name)
		if !ok || !WithinDepth(rel, depth) || cur.before(p, false) {
			continue
		}
		info, err := w.Root.Lstat(p)
		if err != nil || info.Type != fsroot.TypeFile || !w.visibleAlong(p) {
			continue
		}
		if w.Ignore.Hidden(p, false) != "" {
			continue // ignored since the index took it in
		}
		if !visit(info) {
			return nil
		}
		cur.done(ctx, p)
	}
	return ctx.Err() // the last file may have been cut short
}

// findMatches returns up to MaxMatchesPerFile matches with their context, and how many lines matched.
func findMatches(lines []string, m *matcher, context int) ([]result.Match, int) {
	var out []result.Match
	count := 0
	for i, l := range lines {
		line := text.TrimEOL(l)
		if !m.match(line) {
			continue
		}
		count++
		if len(out) >= MaxMatchesPerFile {
			continue
		}
		mt := result.Match{Line: i + 1, Text: text.Cap(line, MaxLineBytes)}
		for j := max(0, i-context); j < i; j++ {
			mt.Before = append(mt.Before, text.Cap(text.TrimEOL(lines[j]), MaxLineBytes))
		}
		for j := i + 1; j < len(lines) && j <= i+context; j++ {
			mt.After = append(mt.After, text.Cap(text.TrimEOL(lines[j]), MaxLineBytes))
		}
		out = append(out, mt)
	}
	return out, count
}
