package relink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// Mentions is what [Tree.Mentions] found.
type Mentions struct {
	Lines []result.Mention // the first MaxMentions lines, by path and line
	Total int              // every line found
	Cut   string           // why the search stopped before reading every file; "" when it did not
}

// Report puts the mentions on a move's result.
func (m Mentions) Report(out *result.Writer) {
	out.Mentions, out.MentionsIncomplete = m.Lines, m.Cut
	if out.Mentions == nil {
		out.Mentions = []result.Mention{} // looked for, and none: not "not looked for"
	}
	if m.Total > len(m.Lines) {
		out.MentionsTotal = m.Total
	}
}

// errBinary and errBudget stop the reading of a file: it is not text, or it is longer than the
// bytes left to read.
var (
	errBinary = errors.New("not text")
	errBudget = errors.New("over the bytes left to read")
)

// Mentions finds the lines of the text files other than markdown under the root that name old (as
// written, or with its spaces escaped as %20, as in a URL), within the bounds above and what the
// tools can see. It asks the index which files may hold the path when the index is complete and
// can tell, and walks the tree otherwise. Files larger than the server reads are left out, as
// search_content leaves them. Files are named where they are after the move to dest. Call it
// before the move: it reads the files where they are.
func (t Tree) Mentions(ctx context.Context, moves []markdown.Moved) Mentions {
	ctx, cancel := context.WithTimeout(ctx, t.Budget)
	defer cancel()
	var needles []string
	for _, m := range moves {
		needles = append(needles, m.From)
		if escaped := strings.ReplaceAll(m.From, " ", "%20"); escaped != m.From {
			needles = append(needles, escaped)
		}
	}
	var found Mentions
	files, bytesRead := 0, int64(0)
	// visit reads one file; it reports false when a bound stops the search.
	visit := func(info fsroot.Info) bool {
		if info.Type != fsroot.TypeFile || markdown.IsMarkdown(info.Path) || info.Size > t.MaxFileSize {
			return true
		}
		if files >= MaxMentionFiles {
			found.Cut = fmt.Sprintf("it read its limit of %d files", MaxMentionFiles)
			return false
		}
		files++
		data, n, err := t.readText(ctx, info.Path, MaxMentionBytes-bytesRead)
		if bytesRead += n; errors.Is(err, errBudget) {
			found.Cut = fmt.Sprintf("it read its limit of %s", text.Size(MaxMentionBytes))
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
			found.Total++
			if len(found.Lines) < MaxMentions {
				found.Lines = append(found.Lines, result.Mention{Path: p, Line: i + 1, Text: around(line, at)})
			}
		}
		return true
	}
	var err error
	if paths, ok := t.candidates(ctx, needles); ok {
		err = t.Host.Visit(ctx, paths, visit)
	} else {
		err = t.Host.Walk(ctx, visit)
	}
	switch {
	case found.Cut != "":
	case ctx.Err() != nil:
		found.Cut = "it stopped at its time limit (" + t.Budget.String() + ")"
	case err != nil:
		found.Cut = "the tree could not be walked (" + err.Error() + ")"
	}
	if found.Cut != "" {
		found.Cut = fmt.Sprintf("the search for mentions stopped after %d files: %s; other files may name %q: search_content for it to look further", files, found.Cut, moves[0].From)
	}
	return found
}

// candidates asks the index which files other than markdown may hold one of the needles:
// ok is false when it cannot narrow the search (see [semantic.Engine.Candidates]).
func (t Tree) candidates(ctx context.Context, needles []string) ([]string, bool) {
	if t.Engine == nil {
		return nil, false
	}
	var out []string
	for _, n := range needles {
		paths, ok, err := t.Engine.Candidates(ctx, n, ".", 0)
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
func (t Tree) readText(ctx context.Context, p string, budget int64) ([]byte, int64, error) {
	e, err := t.Host.Open(p, false)
	if err != nil {
		return nil, 0, err
	}
	defer e.Close()
	var data []byte
	var n int64
	_, err = e.Scan(ctx, t.MaxFileSize, func(piece []byte) error {
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
