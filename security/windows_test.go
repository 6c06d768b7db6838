package security_test

import (
	"errors"
	"testing"

	"github.com/packfs/packfs-mcp/security"
)

// TestWindowsNames holds the names Windows gives another meaning, and the
// spellings of secrets a case-insensitive filesystem opens as the secret,
// to one refusal: the same policy code decides on every system, so these
// run as pure functions here and, under Wine, in the Windows build.
func TestWindowsNames(t *testing.T) {
	tests := []struct {
		in       string
		rule     string // with WindowsNames; "" means allowed
		elsewise string // without it; "" means allowed
	}{
		// Spellings an NTFS or APFS folder opens as a secret: refused on
		// every system.
		{".ENV", security.RuleBlocked, security.RuleBlocked},
		{"ID_RSA", security.RuleBlocked, security.RuleBlocked},
		{".SSH/config", security.RuleBlocked, security.RuleBlocked},
		{".env.", security.RuleBlocked, security.RuleBlocked},
		{"secret.pem ", security.RuleTrailingDotOrSpace, security.RuleTrailingDotOrSpace},
		{"notes.md.", security.RuleTrailingDotOrSpace, security.RuleTrailingDotOrSpace},
		{"notes.md ", security.RuleTrailingDotOrSpace, security.RuleTrailingDotOrSpace},
		{"Caf\u0065\u0301/.Env", security.RuleBlocked, security.RuleBlocked},
		{`.SSH\config`, security.RuleBackslash, security.RuleBackslash},
		{`\foo.md`, security.RuleBackslash, security.RuleBackslash},
		{`C:foo.md`, security.RuleWindowsPath, security.RuleWindowsPath},
		{`\\?\C:\x.md`, security.RuleWindowsPath, security.RuleWindowsPath},
		{`\\.\pipe\x`, security.RuleWindowsPath, security.RuleWindowsPath},
		{`\\server\share\x.md`, security.RuleWindowsPath, security.RuleWindowsPath},
		// Names Windows reads another way: refused where the server runs
		// on Windows, ordinary names elsewhere.
		{"NUL.md", security.RuleWindowsName, ""},
		{"nul", security.RuleWindowsName, security.RuleExtension},
		{"CON", security.RuleWindowsName, security.RuleExtension},
		{"notes/COM1.txt", security.RuleWindowsName, ""},
		{"lpt9.md", security.RuleWindowsName, ""},
		{"com¹.md", security.RuleWindowsName, ""},
		{"CONIN$", security.RuleWindowsName, security.RuleExtension},
		{"conout$.txt", security.RuleWindowsName, ""},
		{"aux .md", security.RuleWindowsName, ""},
		{"Aux.tar.md", security.RuleWindowsName, ""},
		{"x:y.md", security.RuleWindowsPath, security.RuleWindowsPath}, // drive X, relative
		{"notes/x:y.md", security.RuleWindowsName, ""},
		{"notes:y.md", security.RuleWindowsName, ""},
		{"notes.md:secret", security.RuleWindowsName, security.RuleExtension},
		{"a/b:$DATA/c.md", security.RuleWindowsName, ""},
		{"PROGRA~1/x.md", security.RuleWindowsName, ""},
		{"NOTES~12.MD", security.RuleWindowsName, ""},
		{"what?.md", security.RuleWindowsName, ""},
		{"a<b>.md", security.RuleWindowsName, ""},
		{`say "hi".md`, security.RuleWindowsName, ""},
		// Ordinary names on every system.
		{"notes/console.md", "", ""},
		{"nullable.md", "", ""},
		{"com10.md", "", ""},
		{"lpt.md", "", ""},
		{"con-notes.md", "", ""},
		{"a~b.md", "", ""},
		{"backup~1.markdown.md", "", ""},
		{"~1.md", "", ""},
		{"draft~.md", "", ""},
		{"very-long~1.md", "", ""},
		{"CON/", "", ""}, // a folder named CON is judged below, as a directory
	}
	for _, windows := range []bool{true, false} {
		p, err := security.NewPolicy(security.PolicyConfig{RootDir: "/srv/data", WindowsNames: windows})
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			if tt.in == "CON/" {
				err := p.CheckName("CON", true)
				if got := rule(err); got != map[bool]string{true: security.RuleWindowsName, false: ""}[windows] {
					t.Errorf("windows=%v: folder CON: rule %q, want the Windows rule only on Windows", windows, got)
				}
				continue
			}
			want := tt.elsewise
			if windows {
				want = tt.rule
			}
			err := p.CheckName(tt.in, false)
			if lex, lerr := p.Clean(tt.in); lerr != nil {
				err = lerr // the form a tool call meets first
			} else if err == nil {
				err = p.CheckName(lex, false)
			}
			if got := rule(err); got != want {
				t.Errorf("windows=%v: %q: rule %q (%v), want %q", windows, tt.in, got, err, want)
			}
		}
	}
}

// TestWindowsNameMessage holds the refusal to naming the field's value,
// the rule and what to do.
func TestWindowsNameMessage(t *testing.T) {
	p, err := security.NewPolicy(security.PolicyConfig{RootDir: "/srv/data", WindowsNames: true})
	if err != nil {
		t.Fatal(err)
	}
	err = p.CheckName("notes/NUL.md", false)
	want := `path "notes/NUL.md" has the name "NUL.md", which Windows does not treat as a plain file name ("nul" is a device on Windows, whatever follows it): use another name`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if !errors.Is(err, security.ErrInvalidPath) {
		t.Errorf("%v does not match ErrInvalidPath", err)
	}
}

// TestWindowsRoot holds a policy over a Windows root: the root is
// accepted, and a caller's absolute path, which there is a drive or UNC
// form, is refused as such rather than compared.
func TestWindowsRoot(t *testing.T) {
	p, err := security.NewPolicy(security.PolicyConfig{RootDir: `C:\Users\you\Notes`, WindowsNames: true})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		`C:\Users\you\Notes\a.md`: security.RuleWindowsPath,
		`C:/Users/you/Notes/a.md`: security.RuleWindowsPath,
		`/Users/you/Notes/a.md`:   security.RuleOutsideRoot,
		"a.md":                    "",
	} {
		_, err := p.Clean(in)
		if got := rule(err); got != want {
			t.Errorf("Clean(%q): rule %q (%v), want %q", in, got, err, want)
		}
	}
}

func rule(err error) string {
	var pe *security.PathError
	if errors.As(err, &pe) {
		return pe.Rule
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}
