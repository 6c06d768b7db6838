package security_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/security"
)

// maxMessageBytes bounds a refusal message: a hostile path must not turn
// an error into a flood in a log line or a model's context.
const maxMessageBytes = 400

func TestPathErrorMessages(t *testing.T) {
	p := newTestPolicy(t)
	hostile := []struct {
		name  string
		in    string
		check bool   // run through CheckName instead of Clean
		hint  string // what the message must suggest
	}{
		{name: "outside", in: "../x", hint: "relative to the root"},
		{name: "absolute outside", in: "/etc/passwd", hint: "relative to the root"},
		{name: "windows", in: `C:\Users\x.md`, hint: "slash path relative to the root"},
		{name: "backslash", in: `a\..\..\x`, hint: `"/"`},
		{name: "NUL", in: "a\x00b", hint: "remove"},
		{name: "CRLF", in: "x.md\r\n2026-01-01 INFO forged", hint: "without tabs, line breaks"},
		{name: "ANSI escape", in: "\x1b]0;pwned\x07x.md", hint: "control"},
		{name: "RTLO", in: "invoice\u202egpj.md", hint: "remove"},
		{name: "zero width", in: "a\u200b.md", hint: "remove"},
		{name: "BOM", in: "\ufeffa.md", hint: "remove"},
		{name: "invalid UTF-8", in: "a\xff\xfe.md", hint: "UTF-8"},
		{name: "too long with LF", in: strings.Repeat("\n", 5000), hint: "control"},
		{name: "too long", in: strings.Repeat("ab/", 2000), hint: "shorter path"},
		{name: "long component", in: strings.Repeat("é", 200), hint: "shorter names"},
		{name: "blocked", in: ".git/config", check: true, hint: "does not contain"},
		{name: "blocked long component", in: "id_rsa" + strings.Repeat("x", 240), check: true, hint: "does not contain"},
		{name: "extension", in: "x.md.exe", check: true, hint: "allowed extension, such as .md, .txt, .json, .csv"},
		{name: "long extension", in: "x." + strings.Repeat("e", 250), check: true, hint: "allowed extension"},
		{name: "no extension", in: "notes", check: true, hint: "allowed extension, such as .md, .txt, .json, .csv"},
		{name: "trailing dot", in: "x.exe.", check: true, hint: "remove the trailing"},
		{name: "empty", in: "", check: true, hint: `"."`},
	}
	for _, tt := range hostile {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.check {
				err = p.CheckName(tt.in, false)
			} else {
				_, err = p.Clean(tt.in)
			}
			var pe *security.PathError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *security.PathError", err)
			}
			msg := err.Error()
			if len(msg) >= maxMessageBytes {
				t.Errorf("message is %d bytes, want < %d: %q", len(msg), maxMessageBytes, msg)
			}
			if len(pe.Path) > security.MaxDisplayBytes {
				t.Errorf("Path is %d bytes, want <= %d", len(pe.Path), security.MaxDisplayBytes)
			}
			for _, r := range msg {
				if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
					t.Fatalf("message contains unescaped %U: %q", r, msg)
				}
			}
			if !strings.Contains(msg, ": ") || !strings.Contains(msg, tt.hint) {
				t.Errorf("message %q does not suggest %q", msg, tt.hint)
			}
		})
	}
}

func TestPathErrorEscaping(t *testing.T) {
	p := newTestPolicy(t)
	tests := []struct {
		name     string
		in       string
		wantPath string
		detail   string
	}{
		{name: "tab", in: "a\tb", wantPath: `a\u0009b`, detail: "U+0009"},
		{name: "RTLO", in: "x\u202egpj.md", wantPath: `x\u202egpj.md`, detail: "U+202E"},
		{name: "invalid byte", in: "a\xffb", wantPath: `a\xffb`},
		{name: "tag", in: "a\U000E0041", wantPath: `a\U000e0041`, detail: "U+E0041"},
		{name: "windows kept readable", in: `C:\Users\x.md`, wantPath: `C:\Users\x.md`},
		{name: "truncated", in: "../" + strings.Repeat("x", 300), wantPath: "../" + strings.Repeat("x", security.MaxDisplayBytes-6) + "..."},
		{name: "truncated at escape", in: strings.Repeat("x", 195) + "\n" + strings.Repeat("y", 10), wantPath: strings.Repeat("x", 195) + "..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Clean(tt.in)
			var pe *security.PathError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *security.PathError", err)
			}
			if diff := cmp.Diff(tt.wantPath, pe.Path); diff != "" {
				t.Errorf("Path mismatch (-want +got):\n%s", diff)
			}
			if tt.detail != "" && pe.Detail != tt.detail {
				t.Errorf("Detail = %q, want %q", pe.Detail, tt.detail)
			}
		})
	}
}

func TestPathErrorExample(t *testing.T) {
	// The one message other packages quote in their documentation.
	p := newTestPolicy(t)
	_, err := p.Clean("../x")
	want := `path "../x" is outside the root: use a path relative to the root, such as "notes/todo.md"`
	if err == nil || err.Error() != want {
		t.Errorf("Clean(\"../x\") error = %v, want %s", err, want)
	}
}

func TestPathErrorUnwrap(t *testing.T) {
	// A PathError built by hand, as another package's test might.
	err := error(&security.PathError{Path: "x", Rule: "future-rule", Err: security.ErrBlocked})
	if !errors.Is(err, security.ErrBlocked) {
		t.Errorf("errors.Is(%v, ErrBlocked) = false", err)
	}
	if errors.Is(err, security.ErrOutsideRoot) {
		t.Errorf("errors.Is(%v, ErrOutsideRoot) = true", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `"x"`) {
		t.Errorf("message %q does not name the path", msg)
	}
}

// TestExtensionMessageNamesAllowed checks that a refused extension's message names extensions the
// policy allows (the familiar ones first), never ones it refuses.
func TestExtensionMessageNamesAllowed(t *testing.T) {
	tests := []struct {
		exts []string
		want string
	}{
		{nil, "such as .md, .txt, .json, .csv"},
		{[]string{"py", ".RS", "md"}, "such as .md, .py, .rs"},
		{[]string{}, "use a file with an allowed extension"},
	}
	for _, tt := range tests {
		p, err := security.NewPolicy(security.PolicyConfig{RootDir: "/srv/data", AllowedExtensions: tt.exts})
		if err != nil {
			t.Fatal(err)
		}
		err = p.CheckName("notes.exe", false)
		if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("allowed %v: message %v, want it to end %q", tt.exts, err, tt.want)
		}
	}
}
