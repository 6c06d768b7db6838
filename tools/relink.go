package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

// MaxRewrites caps the links a move's answer lists, and rewritesTotal says when it is cut: a
// much-linked folder can have thousands, and fifty are about 2,000 tokens, enough to check a move.
const MaxRewrites = 50

// relinked is what [Server.relink] did, or would do.
type relinked struct {
	files    []string             // the documents changed, sorted
	rewrites []result.LinkRewrite // every link rewritten, by path and line
	// after holds, in a dry run, what each document rewritten would hold, by its path after the
	// moves: what the dry run's link check reads.
	after map[string][]byte
}

// relink keeps links working after moves: it rewrites the links in other documents that pointed
// into what moved, and the moved documents' own links, and returns what it changed (with dry,
// what it would change, writing nothing). Each file is rewritten atomically. keepText says what a
// wiki link whose name changes shows (see [markdown.Move]).
func (s *Server) relink(ctx context.Context, c *call, moves []markdown.Moved, dry, keepText bool) (relinked, error) {
	e := s.cfg.Engine
	if e == nil {
		return relinked{}, noIndex()
	}
	out := relinked{after: map[string][]byte{}}
	format := s.linkFormat(ctx)
	seen := map[string]bool{}
	note := func(p string, rw []markdown.Rewrite, text []byte) {
		if dry {
			out.after[p] = text
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
	for _, from := range s.linkedFromAny(moves) {
		rw, text, err := s.rewriteLinks(ctx, c, from, dry, func(data []byte, mod time.Time) ([]byte, []markdown.Rewrite) {
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
			rw, text, err := s.rewriteLinks(ctx, c, at, dry, func(data []byte, mod time.Time) ([]byte, []markdown.Rewrite) {
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

// rewriteLinks reads the text file name through one judged lookup ([Server.open], useWrite) and, unless
// dry, writes what relinking it gives back through that same entry, if the file is still as it
// was read. It returns the rewrites and what the file holds with them (none for a file it cannot
// read as text, and none for one another program changed since the read: its links are checked
// after the move).
func (s *Server) rewriteLinks(ctx context.Context, c *call, name string, dry bool, relink func([]byte, time.Time) ([]byte, []markdown.Rewrite)) ([]markdown.Rewrite, []byte, error) {
	f, err := s.open(name, useWrite)
	if err != nil {
		return nil, nil, nil
	}
	defer f.Close()
	data, info, err := f.ReadFile(ctx, s.cfg.MaxFileSize)
	if err != nil || !markdown.IsText(data) || noKey(name, data) != nil {
		return nil, nil, nil
	}
	text, rw := relink(data, info.ModTime)
	if len(rw) == 0 || dry {
		return rw, text, nil
	}
	before, err := s.keep(ctx, name, data, info.Mode)
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.WriteFileIf(ctx, text, fsroot.Version(data), s.cfg.MaxFileSize); err != nil {
		if errors.Is(err, fsroot.ErrConflict) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	s.changed(c, name, before, text, info.Mode)
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
func (s *Server) linkFormat(ctx context.Context) markdown.LinkFormat {
	data, _, err := s.readJudged(ctx, obsidianSettings, maxSettingsSize)
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
		s.cfg.Log.Printf("reading %s for the vault's link format: %v; links are written in the shortest form", obsidianSettings, err)
		return markdown.LinkShortest
	}
	if settings.NewLinkFormat == nil {
		return markdown.LinkShortest
	}
	f, ok := markdown.ParseLinkFormat(*settings.NewLinkFormat)
	if !ok {
		s.cfg.Log.Printf("%s: newLinkFormat %q is none of shortest, relative, absolute; links are written in the shortest form", obsidianSettings, *settings.NewLinkFormat)
	}
	return f
}

// report puts what relink did on a move's result, the rewrites capped at MaxRewrites.
func (r relinked) report(out *result.Writer) {
	out.UpdatedFiles, out.Rewrites = r.files, r.rewrites
	if len(r.rewrites) > MaxRewrites {
		out.Rewrites, out.RewritesTotal = r.rewrites[:MaxRewrites], len(r.rewrites)
	}
}

// Bounds of the search, on a move that keeps relationships, for the lines of text files other
// than markdown that name the moved path (a publish menu, a plugin's settings): it runs before
// every such move, so it must stay cheap on a huge tree, and it says when it stopped early rather
// than implying that nothing else names the path.
const (
	// MaxMentions caps the lines a move's answer lists; mentionsTotal counts them all.
	MaxMentions = 20
	// MaxMentionFiles bounds the files read. A vault's settings are a handful of files; thousands
	// of text files beside the notes are data, which search_content reads with its own bounds.
	MaxMentionFiles = 2000
	// MaxMentionBytes bounds the bytes read in all: 2,000 settings files of 16 KiB each, with room
	// for a few large ones. A binary file costs only its first piece (it stops at a NUL byte).
	MaxMentionBytes = 32 << 20
	// MentionBudget bounds the time the search takes, walk included: a tenth of a move's call
	// timeout, and on the measured 38,000-file tldr tree well above what the walk needs.
	MentionBudget = 2 * time.Second
	// maxMentionText caps the text shown of one line, cut around the path.
	maxMentionText = 200
)

// mentionsFound is what [Server.mentions] found.
type mentionsFound struct {
	lines []result.Mention // the first MaxMentions lines, by path and line
	total int              // every line found
	cut   string           // why the search stopped before reading every file; "" when it did not
}

// report puts the mentions on a move's result.
func (m mentionsFound) report(out *result.Writer) {
	out.Mentions, out.MentionsIncomplete = m.lines, m.cut
	if out.Mentions == nil {
		out.Mentions = []result.Mention{} // looked for, and none: not "not looked for"
	}
	if m.total > len(m.lines) {
		out.MentionsTotal = m.total
	}
}

// errBinary and errBudget stop the reading of a file: it is not text, or it is longer than the
// bytes left to read.
var (
	errBinary = errors.New("not text")
	errBudget = errors.New("over the bytes left to read")
)

// mentions finds the lines of the text files other than markdown under the root that name old (as
// written, or with its spaces escaped as %20, as in a URL), within the bounds above and what the
// tools can see. It asks the index which files may hold the path when the index is complete and
// can tell, and walks the tree otherwise. Files larger than the server reads are left out, as
// search_content leaves them. Files are named where they are after the move to dest. Call it
// before the move: it reads the files where they are.
func (s *Server) mentions(ctx context.Context, moves []markdown.Moved) mentionsFound {
	ctx, cancel := context.WithTimeout(ctx, s.mentionBudget)
	defer cancel()
	var needles []string
	for _, m := range moves {
		needles = append(needles, m.From)
		if escaped := strings.ReplaceAll(m.From, " ", "%20"); escaped != m.From {
			needles = append(needles, escaped)
		}
	}
	var found mentionsFound
	files, bytesRead := 0, int64(0)
	// visit reads one file; it reports false when a bound stops the search.
	visit := func(info fsroot.Info) bool {
		if info.Type != fsroot.TypeFile || markdown.IsMarkdown(info.Path) || info.Size > s.cfg.MaxFileSize {
			return true
		}
		if files >= MaxMentionFiles {
			found.cut = fmt.Sprintf("it read its limit of %d files", MaxMentionFiles)
			return false
		}
		files++
		data, n, err := s.readText(ctx, info.Path, MaxMentionBytes-bytesRead)
		if bytesRead += n; errors.Is(err, errBudget) {
			found.cut = fmt.Sprintf("it read its limit of %s", text.Size(MaxMentionBytes))
			return false
		}
		p := info.Path
		if to, ok := markdown.DestOf(moves, p); ok {
			p = to
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			at, ok := namesPath(line, needles)
			if !ok {
				continue
			}
			found.total++
			if len(found.lines) < MaxMentions {
				found.lines = append(found.lines, result.Mention{Path: p, Line: i + 1, Text: around(line, at)})
			}
		}
		return true
	}
	var err error
	if paths, ok := s.mentionCandidates(ctx, needles); ok {
		err = s.visitCandidates(ctx, ".", 0, paths, &reporter{}, nil, visit)
	} else {
		err = s.walk(ctx, ".", 0, &reporter{}, nil, visit)
	}
	switch {
	case found.cut != "":
	case ctx.Err() != nil:
		found.cut = "it stopped at its time limit (" + s.mentionBudget.String() + ")"
	case err != nil:
		found.cut = "the tree could not be walked (" + err.Error() + ")"
	}
	if found.cut != "" {
		found.cut = fmt.Sprintf("the search for mentions stopped after %d files: %s; other files may name %q: search_content for it to look further", files, found.cut, moves[0].From)
	}
	return found
}

// mentionCandidates asks the index which files other than markdown may hold one of the needles:
// ok is false when it cannot narrow the search (see [semantic.Engine.Candidates]).
func (s *Server) mentionCandidates(ctx context.Context, needles []string) ([]string, bool) {
	if s.cfg.Engine == nil {
		return nil, false
	}
	var out []string
	for _, n := range needles {
		paths, ok, err := s.cfg.Engine.Candidates(ctx, n, ".", 0)
		if err != nil || !ok {
			return nil, false
		}
		for _, p := range paths {
			if !markdown.IsMarkdown(p) {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out), true
}

// readText returns the text of the file at p and how many bytes it read: nil when the file is not
// text, which it sees at the first piece holding a NUL byte for most binary files, or cannot be
// read; errBudget when the file is text longer than budget bytes.
func (s *Server) readText(ctx context.Context, p string, budget int64) ([]byte, int64, error) {
	e, err := s.open(p, useRead)
	if err != nil {
		return nil, 0, err
	}
	defer e.Close()
	var data []byte
	var n int64
	_, err = e.Scan(ctx, s.cfg.MaxFileSize, func(piece []byte) error {
		switch n += int64(len(piece)); {
		case bytes.IndexByte(piece, 0) >= 0:
			return errBinary
		case n > budget:
			return errBudget
		}
		data = append(data, piece...)
		return nil
	})
	if err == nil && !markdown.IsText(data) {
		err = errBinary
	}
	if err != nil {
		return nil, n, err
	}
	return data, n, nil
}

// namesPath returns where line names one of the paths in needles as a whole: not inside a longer
// name ("a/b.md" is not named by "xa/b.md" or "a/b.md.bak", but is by "/a/b.md", "a/b.md#x" or a
// folder's "a/b.md/c").
func namesPath(line []byte, needles []string) (int, bool) {
	for _, n := range needles {
		for i := 0; i <= len(line)-len(n); {
			j := bytes.Index(line[i:], []byte(n))
			if j < 0 {
				break
			}
			j += i
			before, _ := utf8.DecodeLastRune(line[:j])
			after, size := utf8.DecodeRune(line[j+len(n):])
			if after == '.' || after == '-' { // a sentence's end, or an extension or suffix?
				next, _ := utf8.DecodeRune(line[j+len(n)+size:])
				if !nameRune(next) {
					after = ' '
				}
			}
			if (j == 0 || !nameRune(before)) && !nameRune(after) {
				return j, true
			}
			i = j + 1
		}
	}
	return 0, false
}

// nameRune reports whether r can be part of a file name's word: a letter, a digit, '_', '-' or '.'.
func nameRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// around returns line without its surrounding space, cut to maxMentionText bytes around the offset
// at when it is longer, the cuts marked with "…".
func around(line []byte, at int) string {
	lead := len(line) - len(bytes.TrimLeft(line, " \t"))
	line = bytes.TrimSpace(line)
	at -= lead
	if len(line) <= maxMentionText {
		return string(line)
	}
	start := max(0, at-maxMentionText/4)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end := min(len(line), start+maxMentionText)
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	text := string(line[start:end])
	if start > 0 {
		text = "…" + text
	}
	if end < len(line) {
		text += "…"
	}
	return text
}
