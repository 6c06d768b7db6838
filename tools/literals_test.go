package tools

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
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

// TestRegexIndexOrScan checks that a regular expression searched through the index's candidates
// finds what a scan of every file finds, and reads only the files that hold its literals.
func TestRegexIndexOrScan(t *testing.T) {
	tree := []string{
		"src/a.c=void *p = kmalloc_array(n, size);\nstatic int foo;\n",
		"src/b.c=/* KMALLOC_ARRAY( in a comment */\nint bar;\n",
		"src/c.c=kmalloc(n);\n",
		"src/d.go=func NewServer(cfg Config) *Server {\n",
		"src/e.go=func newthing() {}\n",
		"notes/x.md=# Notes\nstatic long foo and more\n",
		"notes/y.md=nothing at all\n",
	}
	exprs := []string{`kmalloc_array\(`, `func\s+New[A-Z]\w*\(`, `static (int|long) foo`, `[a-z]+_array`, `no(thing|body)`}
	scan := newOptionEnv(t, optionTable{tree: tree})
	indexed := newOptionEnv(t, optionTable{tree: tree, engine: true})
	var read []string
	indexed.srv.beforeSearch = func(p string) { read = append(read, p) }
	for _, src := range exprs {
		for _, cs := range []bool{false, true} {
			args := map[string]any{"purpose": "search_content", "target": map[string]any{"path": ".", "query": src},
				"options": map[string]any{"regex": true, "caseSensitive": cs}}
			read = nil
			a, b := indexed.call(t, SearcherName, args), scan.call(t, SearcherName, args)
			if diff := cmp.Diff(b.Result["files"], a.Result["files"]); diff != "" {
				t.Errorf("%s (case-sensitive %v): index (+) and scan (-) differ:\n%s", src, cs, diff)
			}
			if src == `kmalloc_array\(` && len(read) > 2 {
				t.Errorf("%s: read %v, want only the files holding kmalloc and array", src, read)
			}
		}
	}
}

// TestFolderSearchPlan checks that a content search of a small folder reads the folder's files
// when the index would pass over more of the tree's matches than they cost to read, asks the index
// when its matches are few, and finds the same either way.
func TestFolderSearchPlan(t *testing.T) {
	tree := []string{"small/a.md=a common word and a zyzzyva\n", "small/b.md=nothing here\n"}
	for i := range 80 {
		tree = append(tree, fmt.Sprintf("big/n%02d.md=another common line\n", i))
	}
	scan := newOptionEnv(t, optionTable{tree: tree})
	indexed := newOptionEnv(t, optionTable{tree: tree, engine: true})
	var read []string
	indexed.srv.beforeSearch = func(p string) { read = append(read, p) }
	for _, tt := range []struct {
		query string
		read  []string
	}{
		{"common", []string{"small/a.md", "small/b.md"}}, // 81 matches in the tree, 2 files in the folder: walked
		{"zyzzyva", []string{"small/a.md"}},              // 1 match: the index's candidate alone
	} {
		args := map[string]any{"purpose": "search_content", "target": map[string]any{"path": "small", "query": tt.query}}
		read = nil
		a, b := indexed.call(t, SearcherName, args), scan.call(t, SearcherName, args)
		if diff := cmp.Diff(b.Result["files"], a.Result["files"]); diff != "" {
			t.Errorf("%s: index (+) and scan (-) differ:\n%s", tt.query, diff)
		}
		if !slices.Equal(read, tt.read) {
			t.Errorf("%s: read %v, want %v", tt.query, read, tt.read)
		}
	}
}
