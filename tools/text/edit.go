package text

import (
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// utf8BOM is kept in front of a file that had it, and never matched against.
const utf8BOM = "\ufeff"

// maxNearestScan bounds how many lines are compared when an edit's text is not found.
const maxNearestScan = 20000

// Apply applies edits in order to name's text and returns the new text and how many
// replacements were made; each edit comes with its index in the call's edits, which an error names.
// The file's byte-order mark and line endings are kept: when the file uses CRLF and an edit's
// text uses LF, the edit is adapted to the file. Each oldText must match exactly once unless
// replaceAll is set; otherwise nothing is changed and the error says where it matched or what was
// nearest.
func Apply(name, text string, edits iter.Seq2[int, intents.Edit]) (string, int, error) {
	bom := strings.HasPrefix(text, utf8BOM)
	text = strings.TrimPrefix(text, utf8BOM)
	crlf := usesCRLF(text)
	total := 0
	for i, e := range edits {
		old, repl := e.OldText, e.NewText
		if crlf && !strings.Contains(old, "\r") {
			old = strings.ReplaceAll(old, "\n", "\r\n")
			if !strings.Contains(repl, "\r") {
				repl = strings.ReplaceAll(repl, "\n", "\r\n")
			}
		}
		field := fmt.Sprintf("edits[%d].oldText", i)
		n := strings.Count(text, old)
		switch {
		case n == 0:
			return "", 0, &errs.Error{Code: errs.CodeEditNotFound, Field: field, Msg: notFoundMessage(field, name, text, old)}
		case n > 1 && !e.ReplaceAll:
			return "", 0, &errs.Error{Code: errs.CodeAmbiguousEdit, Field: field, Msg: fmt.Sprintf(
				"%s matches %d places in %q (lines %s): include more surrounding lines so it matches once, or set replaceAll to true to change them all",
				field, n, name, matchLines(text, old, 5))}
		}
		if e.ReplaceAll {
			text = strings.ReplaceAll(text, old, repl)
		} else {
			text = strings.Replace(text, old, repl, 1)
		}
		total += n
	}
	if bom {
		text = utf8BOM + text
	}
	return text, total, nil
}

// usesCRLF reports whether text ends its lines with CRLF (judged by the first line ending).
func usesCRLF(text string) bool {
	i := strings.IndexByte(text, '\n')
	return i > 0 && text[i-1] == '\r'
}

// matchLines lists the 1-based lines where old starts, at most limit of them.
func matchLines(text, old string, limit int) string {
	var lines []string
	at := 0
	for len(lines) < limit {
		i := strings.Index(text[at:], old)
		if i < 0 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(text[:at+i], "\n")+1))
		at += i + max(1, len(old))
		if at > len(text) {
			break
		}
	}
	return strings.Join(lines, ", ")
}

// notFoundMessage says that old is not in text and shows the line most like old's first line, so the
// model can copy the file's exact text.
func notFoundMessage(field, name, text, old string) string {
	probe := ""
	for _, l := range strings.Split(old, "\n") {
		if strings.TrimSpace(l) != "" {
			probe = strings.TrimSpace(l)
			break
		}
	}
	best, bestLine, bestScore := "", 0, 0.0
	for i, l := range strings.SplitN(text, "\n", maxNearestScan) {
		if sc := similarity(probe, strings.TrimSpace(l)); sc > bestScore {
			best, bestLine, bestScore = strings.TrimRight(l, "\r"), i+1, sc
		}
	}
	msg := fmt.Sprintf("%s was not found in %q", field, name)
	if bestScore >= 0.3 {
		msg += fmt.Sprintf("; the nearest is line %d: %q", bestLine, Cap(best, 200))
	}
	return msg + ": read the file and copy the text exactly, including spaces and line breaks"
}

// similarity is the Dice coefficient of the two strings' character bigrams, from 0 to 1.
func similarity(a, b string) float64 {
	if a == "" || b == "" {
		return 0
	}
	if a == b {
		return 1
	}
	grams := make(map[string]int)
	ra := []rune(a)
	for i := 0; i+1 < len(ra); i++ {
		grams[string(ra[i:i+2])]++
	}
	rb := []rune(b)
	common := 0
	for i := 0; i+1 < len(rb); i++ {
		g := string(rb[i : i+2])
		if grams[g] > 0 {
			grams[g]--
			common++
		}
	}
	pairs := len(ra) - 1 + len(rb) - 1
	if pairs <= 0 {
		return 0
	}
	return 2 * float64(common) / float64(pairs)
}

// Cap cuts s to at most n bytes on a rune boundary.
func Cap(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
