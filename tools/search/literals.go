package search

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// A regular expression costs what its literals cost: most files and most lines of a tree lack
// the strings every match must contain ("kmalloc" in `kmalloc_array\(`), and a byte scan rules
// them out far faster than the expression runs. The literals also ask the index which files may
// hold a match, as a literal query does.

// A literal is a string every match of an expression contains, ASCII only; fold says it matches
// ignoring case.
type literal struct {
	s    string
	fold bool
}

// requiredLiterals returns strings every match of re contains: the runs of literal text of its
// top-level sequence and of the groups and repetitions (at least once) within it. An alternation
// contributes none (each branch has its own). Runs with a byte beyond ASCII are left out, so that
// a literal's case folding is ASCII's, with the two exceptions [literal.in] allows for.
func requiredLiterals(re *syntax.Regexp) []literal {
	var out []literal
	var run []rune
	fold := false
	flush := func() {
		if l := (literal{s: string(run), fold: fold}); l.s != "" && ascii(l.s) && !slices.Contains(out, l) {
			out = append(out, l)
		}
		run = run[:0]
	}
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			f := re.Flags&syntax.FoldCase != 0
			if f != fold {
				flush()
				fold = f
			}
			run = append(run, re.Rune...)
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				walk(sub)
			}
		case syntax.OpCapture:
			walk(re.Sub[0])
		case syntax.OpPlus:
			flush()
			walk(re.Sub[0])
			flush()
		case syntax.OpRepeat:
			flush()
			if re.Min >= 1 {
				walk(re.Sub[0])
			}
			flush()
		default:
			flush()
		}
	}
	walk(re)
	flush()
	return out
}

// ascii reports whether s holds ASCII bytes only.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// in reports whether s may hold a match of l: it holds l, ignoring ASCII case if l.fold. Folding
// also takes the Kelvin sign for k and the long s for s, as the regexp package does, so a text
// with either and a literal with that letter is not ruled out.
func (l literal) in(s string) bool {
	if !l.fold {
		return strings.Contains(s, l.s)
	}
	if indexFoldASCII(s, l.s) >= 0 {
		return true
	}
	return strings.ContainsAny(l.s, "kK") && strings.Contains(s, "\u212a") ||
		strings.ContainsAny(l.s, "sS") && strings.Contains(s, "\u017f")
}

// indexFoldASCII returns the index of the first instance of lit, an ASCII string, in s, ignoring
// ASCII case, or -1. It looks for lit's first byte in both cases with strings.IndexByte, which
// runs far faster than a byte loop, and compares there with strings.EqualFold (which, on a piece
// of s as long as lit, folds no further than ASCII: a letter beyond ASCII that folds to one is
// longer).
func indexFoldASCII(s, lit string) int {
	if lit == "" {
		return 0
	}
	next := func(c byte, from int) int {
		if j := strings.IndexByte(s[from:], c); j >= 0 {
			return from + j
		}
		return len(s)
	}
	lo, up := lower(lit[0]), upper(lit[0])
	pl, pu := next(lo, 0), len(s)
	if up != lo {
		pu = next(up, 0)
	}
	for {
		i := min(pl, pu)
		if i+len(lit) > len(s) {
			return -1
		}
		if strings.EqualFold(s[i:i+len(lit)], lit) {
			return i
		}
		if i == pl {
			pl = next(lo, i+1)
		}
		if i == pu && up != lo {
			pu = next(up, i+1)
		}
	}
}

// lower and upper are c in lower and upper case, when it is an ASCII letter.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
