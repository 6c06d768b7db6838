package security_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
)

// newTestPolicy returns the policy the tables run against: a root given as
// /srv/data that really lives at /mnt/real/data.
func newTestPolicy(t testing.TB) *security.Policy {
	t.Helper()
	p, err := security.NewPolicy(security.PolicyConfig{
		RootDir:      "/srv/data",
		RootResolved: "/mnt/real/data",
	})
	if err != nil {
		t.Fatalf("NewPolicy: %v", err)
	}
	return p
}

// pathErr asserts that err is a *PathError wrapping sentinel with rule.
func pathErr(t *testing.T, err, sentinel error, rule string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("err = %v, want errors.Is %v", err, sentinel)
	}
	var pe *security.PathError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %T %v, want *security.PathError", err, err)
	}
	if pe.Rule != rule {
		t.Errorf("Rule = %q, want %q (err: %v)", pe.Rule, rule, err)
	}
}

func TestClean(t *testing.T) {
	p := newTestPolicy(t)
	long := strings.Repeat("a/", fsroot.MaxPathBytes/2) + "b" // 4097 bytes
	tests := []struct {
		name string
		in   string
		want string // cleaned name when err is nil
		err  error
		rule string
	}{
		// A1: relative traversal.
		{name: "dotdot x", in: "../x", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "a dotdot dotdot x", in: "a/../../x", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "dots then dotdot", in: "./././../x", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "dotdot alone", in: "..", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "dotdot slash", in: "../", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "deep dotdot", in: "a/b/../../../etc/passwd", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "a dotdot is root", in: "a/..", want: "."},
		{name: "inner dotdot stays inside", in: "a/b/../c.md", want: "a/c.md"},
		{name: "dotdot-looking name", in: "..x/y", want: "..x/y"},
		{name: "triple dot name", in: ".../x", want: ".../x"},
		// A2: absolute paths.
		{name: "absolute outside", in: "/etc/passwd", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "absolute slash", in: "/", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "absolute double slash", in: "//", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "absolute parent of root", in: "/srv", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "absolute inside", in: "/srv/data/notes/a.md", want: "notes/a.md"},
		{name: "absolute inside resolved", in: "/mnt/real/data/notes/a.md", want: "notes/a.md"},
		{name: "absolute inside unclean", in: "//srv//data/./notes/../notes/a.md", want: "notes/a.md"},
		{name: "absolute escape from inside", in: "/srv/data/../../etc/passwd", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "absolute resolved escape", in: "/mnt/real/data/../x", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		// A3: sibling prefixes.
		{name: "sibling underscore", in: "/srv/data_evil/x", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "sibling suffix", in: "/srv/datax", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "sibling via dotdot", in: "/srv/data/../data_evil/x", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "resolved sibling", in: "/mnt/real/data2/x", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "case differs", in: "/SRV/DATA/x", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		// A4: the root itself.
		{name: "empty", in: "", want: "."},
		{name: "dot", in: ".", want: "."},
		{name: "dot slash", in: "./", want: "."},
		{name: "dot dot slash dot", in: "././.", want: "."},
		{name: "absolute root", in: "/srv/data", want: "."},
		{name: "absolute root slash", in: "/srv/data/", want: "."},
		{name: "absolute resolved root", in: "/mnt/real/data", want: "."},
		// A5: backslashes and Windows forms.
		{name: "backslash traversal", in: `a\..\..\x`, err: security.ErrInvalidPath, rule: security.RuleBackslash},
		{name: "backslash in name", in: `notes\todo.md`, err: security.ErrInvalidPath, rule: security.RuleBackslash},
		{name: "leading backslash", in: `\Users\x.md`, err: security.ErrInvalidPath, rule: security.RuleBackslash},
		{name: "drive backslash", in: `C:\Users\x.md`, err: security.ErrInvalidPath, rule: security.RuleWindowsPath},
		{name: "drive slash", in: `c:/Users/x.md`, err: security.ErrInvalidPath, rule: security.RuleWindowsPath},
		{name: "drive relative", in: `D:notes.md`, err: security.ErrInvalidPath, rule: security.RuleWindowsPath},
		{name: "UNC", in: `\\server\share`, err: security.ErrInvalidPath, rule: security.RuleWindowsPath},
		{name: "device path", in: `\\?\C:\x`, err: security.ErrInvalidPath, rule: security.RuleWindowsPath},
		{name: "drive after cleaning", in: "x/../C:", err: security.ErrInvalidPath, rule: security.RuleWindowsPath},
		{name: "drive under absolute root", in: "/srv/data/c:/x.md", err: security.ErrInvalidPath, rule: security.RuleWindowsPath},
		{name: "colon later is a name", in: "a/c:x.md", want: "a/c:x.md"},
		// A6: characters.
		{name: "NUL", in: "a\x00.md", err: security.ErrInvalidPath, rule: security.RuleNUL},
		{name: "NUL before control", in: "\n\x00", err: security.ErrInvalidPath, rule: security.RuleNUL},
		{name: "CR LF", in: "a.md\r\nINFO forged", err: security.ErrInvalidPath, rule: security.RuleControl},
		{name: "LF", in: "a\nb.md", err: security.ErrInvalidPath, rule: security.RuleControl},
		{name: "TAB", in: "a\tb.md", err: security.ErrInvalidPath, rule: security.RuleControl},
		{name: "escape", in: "a\x1b[31m.md", err: security.ErrInvalidPath, rule: security.RuleControl},
		{name: "DEL", in: "a\x7f.md", err: security.ErrInvalidPath, rule: security.RuleControl},
		{name: "C1 NEL", in: "a\u0085.md", err: security.ErrInvalidPath, rule: security.RuleControl},
		{name: "line separator", in: "a\u2028.md", err: security.ErrInvalidPath, rule: security.RuleControl},
		{name: "control before bidi", in: "\u202ea\tb", err: security.ErrInvalidPath, rule: security.RuleControl},
		{name: "RTLO", in: "invoice\u202egpj.md", err: security.ErrInvalidPath, rule: security.RuleBidi},
		{name: "LRM", in: "a\u200e.md", err: security.ErrInvalidPath, rule: security.RuleBidi},
		{name: "arabic letter mark", in: "a\u061c.md", err: security.ErrInvalidPath, rule: security.RuleBidi},
		{name: "isolate", in: "a\u2067.md", err: security.ErrInvalidPath, rule: security.RuleBidi},
		{name: "zero-width space", in: ".g\u200bit/config", err: security.ErrInvalidPath, rule: security.RuleInvisible},
		{name: "zero-width joiner", in: "a\u200d.md", err: security.ErrInvalidPath, rule: security.RuleInvisible},
		{name: "word joiner", in: "a\u2060.md", err: security.ErrInvalidPath, rule: security.RuleInvisible},
		{name: "BOM", in: "\ufeffa.md", err: security.ErrInvalidPath, rule: security.RuleInvisible},
		{name: "soft hyphen", in: "a\u00ad.md", err: security.ErrInvalidPath, rule: security.RuleInvisible},
		{name: "tag character", in: "a\U000E0041.md", err: security.ErrInvalidPath, rule: security.RuleInvisible},
		{name: "hangul filler", in: "\u3164.md", err: security.ErrInvalidPath, rule: security.RuleInvisible},
		{name: "invalid UTF-8", in: "a\xff.md", err: security.ErrInvalidPath, rule: security.RuleInvalidUTF8},
		{name: "invalid before NUL", in: "\x00\xc0", err: security.ErrInvalidPath, rule: security.RuleInvalidUTF8},
		{name: "UTF-8 surrogate", in: "a\xed\xa0\x80.md", err: security.ErrInvalidPath, rule: security.RuleInvalidUTF8},
		{name: "unicode name", in: "notes/café ☕.md", want: "notes/café ☕.md"},
		// A7: lengths.
		{name: "4097-byte path", in: long, err: security.ErrInvalidPath, rule: security.RuleTooLong},
		{name: "4096-byte path", in: long[:fsroot.MaxPathBytes], want: long[:fsroot.MaxPathBytes-1]},
		{name: "10000 levels", in: strings.Repeat("d/", 10000), err: security.ErrInvalidPath, rule: security.RuleTooLong},
		{name: "256-byte component", in: "a/" + strings.Repeat("x", 256), err: security.ErrInvalidPath, rule: security.RuleComponentTooLong},
		{name: "255-byte component", in: "a/" + strings.Repeat("x", 255), want: "a/" + strings.Repeat("x", 255)},
		// A8: no expansion, no decoding.
		{name: "tilde", in: "~", want: "~"},
		{name: "tilde ssh", in: "~/.ssh/id_rsa", want: "~/.ssh/id_rsa"},
		{name: "percent encoded", in: "%2e%2e%2f", want: "%2e%2e%2f"},
		{name: "percent encoded path", in: "%2e%2e%2fetc%2fpasswd", want: "%2e%2e%2fetc%2fpasswd"},
		{name: "env var", in: "$HOME/x", want: "$HOME/x"},
		// A9 and trailing slashes.
		{name: "relative", in: "notes/todo.md", want: "notes/todo.md"},
		{name: "dot slash relative", in: "./notes//todo.md", want: "notes/todo.md"},
		{name: "trailing slash", in: "notes/", want: "notes"},
		{name: "trailing slashes", in: "notes/sub///", want: "notes/sub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Clean(tt.in)
			if tt.err != nil {
				pathErr(t, err, tt.err, tt.rule)
				if got != "" {
					t.Errorf("Clean returned %q with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Clean(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCleanRootForms(t *testing.T) {
	tests := []struct {
		name string
		cfg  security.PolicyConfig
		in   string
		want string
		err  error
	}{
		{name: "slash root takes absolute", cfg: security.PolicyConfig{RootDir: "/"}, in: "/etc/x.md", want: "etc/x.md"},
		{name: "slash root itself", cfg: security.PolicyConfig{RootDir: "/"}, in: "/", want: "."},
		{name: "slash root still refuses dotdot", cfg: security.PolicyConfig{RootDir: "/"}, in: "../x", err: security.ErrOutsideRoot},
		{name: "no root refuses absolute", cfg: security.PolicyConfig{}, in: "/srv/data/x", err: security.ErrOutsideRoot},
		{name: "no root takes relative", cfg: security.PolicyConfig{}, in: "x/y", want: "x/y"},
		{name: "unclean root", cfg: security.PolicyConfig{RootDir: "/srv//data/"}, in: "/srv/data/x", want: "x"},
		{name: "resolved defaults to root", cfg: security.PolicyConfig{RootDir: "/srv/data"}, in: "/srv/data/x", want: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := security.NewPolicy(tt.cfg)
			if err != nil {
				t.Fatalf("NewPolicy: %v", err)
			}
			got, err := p.Clean(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Clean(%q) error = %v, want %v", tt.in, err, tt.err)
			}
			if got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestCleanThenCheck runs A8's "~/.ssh/id_rsa" through both steps: Clean
// keeps it as a literal relative name and CheckName blocks it.
func TestCleanThenCheck(t *testing.T) {
	p := newTestPolicy(t)
	name, err := p.Clean("~/.ssh/id_rsa")
	if err != nil {
		t.Fatalf("Clean: %v", err)
	}
	pathErr(t, p.CheckName(name, false), security.ErrBlocked, security.RuleBlocked)
}
