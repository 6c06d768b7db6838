package search

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/intents"
)

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		re   string
		want []literal
	}{
		{`kmalloc_array\(`, []literal{{"kmalloc_array(", false}}},
		{`(?i)func\s+New[A-Z]\w*\(`, []literal{{"func", true}, {"new", true}, {"(", true}}},
		{`\bstatic (int|long) foo\b`, []literal{{"static ", false}, {" foo", false}}},
		{`(ab)+c?d`, []literal{{"ab", false}, {"d", false}}},
		{`x{2,}y{0,3}`, []literal{{"x", false}}},
		{`foo|bar`, nil},
		{`foo|foobar`, []literal{{"foo", false}}}, // Simplify factors the common prefix out
		{`[a-z]q[0-9]+x`, []literal{{"q", false}, {"x", false}}},
		{`naïve`, nil}, // not ASCII
		{`.*`, nil},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := requiredLiterals(re.Simplify())
		// The parser folds single letters into case-insensitive literals; compare folded text.
		for i := range got {
			if got[i].fold {
				got[i].s = strings.ToLower(got[i].s)
			}
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(literal{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.re, diff)
		}
	}
}

// TestMatcherAgreesWithRegexp checks that ruling lines and files out by their literals never
// loses a match: the matcher matches exactly the lines the expression alone matches, with and
// without case, on lines with the letters that fold beyond ASCII (the Kelvin sign, the long s).
func TestMatcherAgreesWithRegexp(t *testing.T) {
	lines := []string{
		"kmalloc_array(n, size)", "KMALLOC_ARRAY(n)", "\u212amalloc_array(x)", "func NewServer(cfg Config)",
		"FUNC newthing(", "func\tNewX(", "static int foo", "ſtatic int foo", "STATIC INT FOO", "",
		"naïve café", "abcd", "ababd", "Ab AB ab d", "xq12x", "q x", "the Q1X", "no match here",
	}
	exprs := []string{`kmalloc_array\(`, `func\s+New[A-Z]\w*\(`, `\bstatic (int|long) foo\b`, `(ab)+c?d`,
		`[a-z]q[0-9]+x`, `foo|bar`, `naïve`, `^$`, `k`, `s`, `x{2,}`}
	for _, src := range exprs {
		for _, caseSensitive := range []bool{false, true} {
			m, err := newMatcher(src, intents.DiscoverOptions{Regex: true, CaseSensitive: caseSensitive})
			if err != nil {
				t.Fatal(err)
			}
			full := src
			if !caseSensitive {
				full = "(?i)" + src
			}
			re := regexp.MustCompile(full)
			for _, l := range lines {
				if got, want := m.match(l), re.MatchString(l); got != want {
					t.Errorf("%s (case-sensitive %v) on %q: match %v, the expression %v", src, caseSensitive, l, got, want)
				}
				if re.MatchString(l) && !m.mayMatch("before\n"+l+"\nafter") {
					t.Errorf("%s (case-sensitive %v): a file holding %q ruled out", src, caseSensitive, l)
				}
			}
		}
	}
}

// TestContainsLower checks the ASCII shortcut against what it replaces.
func TestContainsLower(t *testing.T) {
	texts := []string{"Hello World", "ıİ", "\u212a", "KELVIN\u212a", "HELLO", "\u212aey", "straße", "ſun", "İstanbul", "", "abcABC", "aAbB"}
	needles := []string{"hello", "key", "sun", "i", "k", "ı", "straße", "i̇stanbul", "istanbul", "", "cab", "bb", "ab"}
	for _, s := range texts {
		for _, n := range needles {
			if got, want := containsLower(s, n), strings.Contains(strings.ToLower(s), n); got != want {
				t.Errorf("containsLower(%q, %q) = %v, want %v", s, n, got, want)
			}
		}
	}
}
