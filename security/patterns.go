package security

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// patternSet is a list of patterns in [path.Match] syntax, each one path component (".git",
// "*.pem") or several in a row (".config/gh", whose first must be a plain name), matched against
// the folded components of a path.
type patternSet struct {
	patterns []string            // folded, sorted, deduplicated
	literal  map[string]struct{} // patterns without metacharacters
	affix    []affix             // patterns whose only metacharacter is one '*'
	wild     []wildcard          // other patterns, for path.Match
	// seqs are the patterns of several components ("library/keychains"),
	// by their first one, with the rest.
	seqs map[string][][]string
}

// newPatternSet folds and checks list; kind names a pattern in errors ("blocked pattern").
func newPatternSet(kind string, list []string) (patternSet, error) {
	var s patternSet
	for _, b := range list {
		b = fold(strings.TrimSpace(b))
		pieces := strings.Split(b, "/")
		for _, piece := range pieces {
			if piece == "" || piece == "." || piece == ".." {
				return s, fmt.Errorf("%s %q must be path components such as .git or .config/gh, without an empty, \".\" or \"..\" one", kind, b)
			}
			if _, err := path.Match(piece, ""); err != nil {
				return s, fmt.Errorf("%s %q: %w", kind, b, err)
			}
		}
		if len(pieces) > 1 && strings.ContainsAny(pieces[0], `*?[\`) {
			return s, fmt.Errorf("%s %q: the first of several components must be a plain name, such as .config in .config/gh", kind, b)
		}
		s.patterns = append(s.patterns, b)
	}
	slices.Sort(s.patterns)
	s.patterns = slices.Compact(s.patterns)
	// Most patterns are plain names: look those up instead of matching, so a
	// deep path costs a map probe per component, not one Match per pattern.
	s.literal = make(map[string]struct{})
	s.seqs = map[string][][]string{}
	for _, b := range s.patterns {
		switch {
		case strings.Contains(b, "/"):
			pieces := strings.Split(b, "/")
			s.seqs[pieces[0]] = append(s.seqs[pieces[0]], pieces[1:])
		case !strings.ContainsAny(b, `*?[\`):
			s.literal[b] = struct{}{}
		case strings.Count(b, "*") == 1 && !strings.ContainsAny(b, `?[\`):
			pre, suf, _ := strings.Cut(b, "*")
			s.affix = append(s.affix, affix{pre, suf})
		default:
			s.wild = append(s.wild, newWildcard(b))
		}
	}
	return s, nil
}

// match returns what matches a pattern, or "": a component of comps (each distinct folded
// component, in any order), or a run of seq (all of them, in order) joined by "/".
func (s *patternSet) match(comps, seq []string) string {
	for _, c := range comps {
		if s.one(c) {
			return c
		}
	}
	for i, c := range seq {
		for _, rest := range s.seqs[c] {
			if i+len(rest) < len(seq) && matchAll(rest, seq[i+1:i+1+len(rest)]) {
				return strings.Join(seq[i:i+1+len(rest)], "/")
			}
		}
	}
	return ""
}

// one reports whether the folded component c matches a pattern of one component.
func (s *patternSet) one(c string) bool {
	if _, ok := s.literal[c]; ok {
		return true
	}
	for _, a := range s.affix {
		if len(c) >= len(a.prefix)+len(a.suffix) && strings.HasPrefix(c, a.prefix) && strings.HasSuffix(c, a.suffix) {
			return true
		}
	}
	for _, w := range s.wild {
		if w.match(c) {
			return true
		}
	}
	return false
}

// matchAll reports whether each of names matches the pattern at its index.
func matchAll(patterns, names []string) bool {
	for i, pat := range patterns {
		if ok, _ := path.Match(pat, names[i]); !ok {
			return false
		}
	}
	return true
}

// affix is a pattern of the form prefix*suffix, matched without path.Match.
type affix struct{ prefix, suffix string }

// wildcard is a pattern for path.Match with the longest run of plain characters that any name it
// matches contains: most names lack it, and are passed over without matching ("*.tfstate.*" tried
// every position of every component of every file a walk of the root found).
type wildcard struct{ pattern, must string }

func newWildcard(pattern string) wildcard {
	w := wildcard{pattern: pattern}
	if strings.ContainsAny(pattern, `[\`) {
		return w // classes and escapes: no run is certain, always match
	}
	for _, run := range strings.FieldsFunc(pattern, func(r rune) bool { return r == '*' || r == '?' }) {
		if len(run) > len(w.must) {
			w.must = run
		}
	}
	return w
}

func (w wildcard) match(c string) bool {
	if !strings.Contains(c, w.must) {
		return false
	}
	ok, _ := path.Match(w.pattern, c)
	return ok
}
