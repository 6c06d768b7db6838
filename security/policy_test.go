package security_test

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
)

func TestCheckName(t *testing.T) {
	p := newTestPolicy(t)
	tests := []struct {
		name   string
		in     string
		isDir  bool
		err    error // nil means allowed
		rule   string
		detail string
	}{
		// E33: case, double extensions, trailing dot or space.
		{name: "upper case", in: "FILE.MD"},
		{name: "mixed case", in: "Notes.Md"},
		{name: "double ext exe last", in: "x.md.exe", err: security.ErrExtension, rule: security.RuleExtension, detail: ".exe"},
		{name: "double ext md last", in: "x.exe.md"},
		{name: "trailing dot", in: "x.exe.", err: security.ErrInvalidPath, rule: security.RuleTrailingDotOrSpace, detail: "x.exe."},
		{name: "trailing space", in: "x.md ", err: security.ErrInvalidPath, rule: security.RuleTrailingDotOrSpace, detail: "x.md "},
		{name: "trailing dot dir", in: "a./x.md", err: security.ErrInvalidPath, rule: security.RuleTrailingDotOrSpace, detail: "a."},
		{name: "trailing ideographic space", in: "x.md\u3000", err: security.ErrInvalidPath, rule: security.RuleTrailingDotOrSpace},
		{name: "triple dot", in: ".../x.md", err: security.ErrInvalidPath, rule: security.RuleTrailingDotOrSpace},
		// E34: names with no extension.
		{name: "Makefile", in: "Makefile"},
		{name: "makefile lower", in: "src/makefile"},
		{name: "gitignore", in: ".gitignore"},
		{name: "dockerfile", in: "build/Dockerfile"},
		{name: "extensionless unknown", in: "notes", err: security.ErrExtension, rule: security.RuleExtension, detail: ""},
		{name: "dot name unknown", in: ".bashrc", err: security.ErrExtension, rule: security.RuleExtension, detail: ""},
		{name: "id_rsa", in: "id_rsa", err: security.ErrBlocked, rule: security.RuleBlocked, detail: "id_rsa"},
		{name: "id_rsa.pub", in: "id_rsa.pub", err: security.ErrBlocked, rule: security.RuleBlocked, detail: "id_rsa.pub"},
		{name: "id_ed25519 upper", in: "keys/ID_ED25519", err: security.ErrBlocked, rule: security.RuleBlocked},
		{name: "env", in: ".env", err: security.ErrBlocked, rule: security.RuleBlocked, detail: ".env"},
		{name: "env local", in: ".env.local", err: security.ErrBlocked, rule: security.RuleBlocked, detail: ".env.local"},
		{name: "env example", in: "app/.env.example", err: security.ErrBlocked, rule: security.RuleBlocked},
		{name: "env as dir", in: ".env", isDir: true, err: security.ErrBlocked, rule: security.RuleBlocked},
		// E37: whole components, case-insensitively.
		{name: "upper git mid path", in: "a/.GIT/x", err: security.ErrBlocked, rule: security.RuleBlocked, detail: ".git"},
		{name: "git config", in: ".git/config", err: security.ErrBlocked, rule: security.RuleBlocked, detail: ".git"},
		{name: "git dir", in: ".git", isDir: true, err: security.ErrBlocked, rule: security.RuleBlocked},
		{name: "pem upper", in: "key.PEM", err: security.ErrBlocked, rule: security.RuleBlocked, detail: "key.pem"},
		{name: "node_modules", in: "node_modules/x/y.js", err: security.ErrBlocked, rule: security.RuleBlocked, detail: "node_modules"},
		{name: "ssh dir", in: "~/.ssh/config", err: security.ErrBlocked, rule: security.RuleBlocked, detail: ".ssh"},
		{name: "temp file", in: "notes/.packfs-tmp-123456", err: security.ErrBlocked, rule: security.RuleBlocked},
		{name: "blocked beats trailing dot", in: "x./.git", isDir: true, err: security.ErrBlocked, rule: security.RuleBlocked},
		{name: "github in name", in: "my.github.md"},
		{name: "git prefix dir", in: "gitnotes/x.md"},
		{name: "github dir", in: ".github/workflows/ci.yml"},
		{name: "env in name", in: "docs/env.md"},
		// E35: normalisation.
		{name: "fullwidth dot", in: "x\uff0eexe", err: security.ErrExtension, rule: security.RuleExtension, detail: ".exe"},
		{name: "fullwidth dot md", in: "x\uff0emd"},
		{name: "fullwidth node_modules", in: "ｎｏｄｅ_ｍｏｄｕｌｅｓ/x.js", err: security.ErrBlocked, rule: security.RuleBlocked, detail: "node_modules"},
		{name: "fullwidth dot git", in: "\uff0egit/config", err: security.ErrBlocked, rule: security.RuleBlocked, detail: ".git"},
		{name: "fullwidth solidus git", in: "a\uff0f.git", err: security.ErrBlocked, rule: security.RuleBlocked, detail: ".git"},
		{name: "kelvin sign key", in: "server.\u212aey", err: security.ErrBlocked, rule: security.RuleBlocked, detail: "server.key"},
		{name: "one dot leader", in: "x\u2024exe", err: security.ErrExtension, rule: security.RuleExtension, detail: ".exe"},
		{name: "fullwidth dotdot", in: "\uff0e\uff0e/x.md", err: security.ErrInvalidPath, rule: security.RuleTrailingDotOrSpace},
		{name: "NFD accent", in: "cafe\u0301.md"},
		{name: "RTLO refused", in: "x\u202egpj.md", err: security.ErrInvalidPath, rule: security.RuleBidi},
		{name: "fullwidth dot component", in: "a/\uff0e/x.md", err: security.ErrInvalidPath, rule: security.RuleTrailingDotOrSpace},
		{name: "fullwidth solidus alone", in: "x.md/\uff0f", err: security.ErrExtension, rule: security.RuleExtension},
		{name: "fullwidth solidus dir", in: "\uff0f", isDir: true},
		// Repeated components are judged once, but the base is still the last.
		{name: "repeated base refused", in: "x.exe/x.md/x.exe", err: security.ErrExtension, rule: security.RuleExtension, detail: ".exe"},
		{name: "repeated dir then base", in: "x.md/x.exe/x.md"},
		{name: "deep repeated", in: strings.Repeat("d/", 2000) + "x.md"},
		{name: "deep repeated blocked", in: strings.Repeat("d/", 2000) + ".git/x.md", err: security.ErrBlocked, rule: security.RuleBlocked},
		{name: "dot components ignored", in: "./a/./x.md"},
		// Directories are judged by blocked components only.
		{name: "dir without extension", in: "notes", isDir: true},
		{name: "dir with odd extension", in: "build.exe", isDir: true},
		{name: "nested dir", in: "a/b/c", isDir: true},
		{name: "root", in: ".", isDir: true},
		{name: "root as file", in: "."},
		// Contract breaches by the caller.
		{name: "empty", in: "", err: security.ErrInvalidPath, rule: security.RuleEmpty},
		{name: "absolute", in: "/etc/passwd", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "dotdot", in: "a/../../x.md", err: security.ErrOutsideRoot, rule: security.RuleOutsideRoot},
		{name: "NUL", in: "a\x00.md", err: security.ErrInvalidPath, rule: security.RuleNUL},
		{name: "backslash", in: `a\b.md`, err: security.ErrInvalidPath, rule: security.RuleBackslash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.CheckName(tt.in, tt.isDir)
			if tt.err == nil {
				if err != nil {
					t.Fatalf("CheckName(%q, %v) = %v, want nil", tt.in, tt.isDir, err)
				}
				return
			}
			pathErr(t, err, tt.err, tt.rule)
			var pe *security.PathError
			if errors.As(err, &pe) && tt.detail != "" && pe.Detail != tt.detail {
				t.Errorf("Detail = %q, want %q", pe.Detail, tt.detail)
			}
		})
	}
}

func TestCheckNameConfig(t *testing.T) {
	tests := []struct {
		name  string
		cfg   security.PolicyConfig
		in    string
		isDir bool
		err   error
	}{
		{name: "star allows exe", cfg: security.PolicyConfig{AllowedExtensions: []string{"*"}}, in: "x.exe"},
		{name: "star allows extensionless", cfg: security.PolicyConfig{AllowedExtensions: []string{"*"}}, in: "notes"},
		{name: "star still blocks", cfg: security.PolicyConfig{AllowedExtensions: []string{"*"}}, in: ".git/config", err: security.ErrBlocked},
		{name: "ext without dot", cfg: security.PolicyConfig{AllowedExtensions: []string{"MD"}}, in: "x.md"},
		{name: "ext with dot", cfg: security.PolicyConfig{AllowedExtensions: []string{" .Txt "}}, in: "x.TXT"},
		{name: "ext not listed", cfg: security.PolicyConfig{AllowedExtensions: []string{"md"}}, in: "x.txt", err: security.ErrExtension},
		{name: "empty list allows none", cfg: security.PolicyConfig{AllowedExtensions: []string{}}, in: "x.md", err: security.ErrExtension},
		{name: "empty list keeps names", cfg: security.PolicyConfig{AllowedExtensions: []string{}}, in: "Makefile"},
		{name: "custom name", cfg: security.PolicyConfig{AllowedNames: []string{"BUILD"}}, in: "build"},
		{name: "custom names drop defaults", cfg: security.PolicyConfig{AllowedNames: []string{"BUILD"}}, in: "Makefile", err: security.ErrExtension},
		{name: "name with extension", cfg: security.PolicyConfig{AllowedNames: []string{"go.work"}, AllowedExtensions: []string{}}, in: "go.work"},
		{name: "custom blocked", cfg: security.PolicyConfig{BlockedPaths: []string{"Private*"}}, in: "docs/private-notes/x.md", err: security.ErrBlocked},
		{name: "custom blocked keeps defaults", cfg: security.PolicyConfig{BlockedPaths: []string{"private"}}, in: ".git/config", isDir: true, err: security.ErrBlocked},
		{name: "custom blocked keeps secrets", cfg: security.PolicyConfig{BlockedPaths: []string{"Downloads"}}, in: "code/credentials.json", err: security.ErrBlocked},
		{name: "unblock one default", cfg: security.PolicyConfig{Unblock: []string{"node_modules"}}, in: "node_modules/x/index.js"},
		{name: "unblock keeps the others", cfg: security.PolicyConfig{Unblock: []string{"NODE_MODULES"}}, in: ".ssh/config", isDir: true, err: security.ErrBlocked},
		{name: "no defaults", cfg: security.PolicyConfig{NoDefaultBlocked: true}, in: ".git/config", isDir: true},
		{name: "no defaults keeps added", cfg: security.PolicyConfig{NoDefaultBlocked: true, BlockedPaths: []string{"private"}}, in: "private/x.md", err: security.ErrBlocked},
		{name: "temp always blocked", cfg: security.PolicyConfig{BlockedPaths: []string{}}, in: ".packfs-tmp-1", isDir: true, err: security.ErrBlocked},
		{name: "components in a row", cfg: security.PolicyConfig{BlockedPaths: []string{".config/gh"}}, in: "home/.config/gh/hosts.yml", err: security.ErrBlocked},
		{name: "components in a row, the folder", cfg: security.PolicyConfig{BlockedPaths: []string{".config/gh"}}, in: ".Config/GH", isDir: true, err: security.ErrBlocked},
		{name: "components apart", cfg: security.PolicyConfig{BlockedPaths: []string{".config/gh"}}, in: ".config/x/gh/hosts.yml"},
		{name: "components repeated", cfg: security.PolicyConfig{BlockedPaths: []string{".config/gh"}}, in: "gh/.config/gh/hosts.yml", err: security.ErrBlocked},
		{name: "components with a wildcard", cfg: security.PolicyConfig{BlockedPaths: []string{"code/user/*.json"}}, in: "a/Code/User/mcp.json", err: security.ErrBlocked},
		{name: "blocked character class", cfg: security.PolicyConfig{BlockedPaths: []string{"[a-c].md"}}, in: "B.md", err: security.ErrBlocked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := security.NewPolicy(tt.cfg)
			if err != nil {
				t.Fatalf("NewPolicy: %v", err)
			}
			if err := p.CheckName(tt.in, tt.isDir); !errors.Is(err, tt.err) {
				t.Errorf("CheckName(%q) = %v, want %v", tt.in, err, tt.err)
			}
		})
	}
}

func TestNewPolicyErrors(t *testing.T) {
	tests := []struct {
		name    string
		cfg     security.PolicyConfig
		mention string // the offending value the error must name
		bad     bool   // the error wraps path.ErrBadPattern
	}{
		{name: "bad pattern", cfg: security.PolicyConfig{BlockedPaths: []string{"ok", "[x"}}, mention: "[x", bad: true},
		{name: "bad pattern escape", cfg: security.PolicyConfig{BlockedPaths: []string{`x\`}}, mention: `x\`, bad: true},
		{name: "pattern with empty component", cfg: security.PolicyConfig{BlockedPaths: []string{"a//b"}}, mention: "a//b"},
		{name: "pattern with dot-dot", cfg: security.PolicyConfig{BlockedPaths: []string{"../b"}}, mention: "../b"},
		{name: "pattern starting with a wildcard", cfg: security.PolicyConfig{BlockedPaths: []string{"*/b"}}, mention: "*/b"},
		{name: "empty pattern", cfg: security.PolicyConfig{BlockedPaths: []string{" "}}, mention: `""`},
		{name: "unblock not a default", cfg: security.PolicyConfig{Unblock: []string{"drafts"}}, mention: "drafts"},
		{name: "unblock temp", cfg: security.PolicyConfig{Unblock: []string{security.TempFilePattern}}, mention: security.TempFilePattern},
		{name: "relative root", cfg: security.PolicyConfig{RootDir: "srv/data"}, mention: "srv/data"},
		{name: "relative resolved root", cfg: security.PolicyConfig{RootDir: "/srv/data", RootResolved: "data"}, mention: "data"},
		{name: "double extension", cfg: security.PolicyConfig{AllowedExtensions: []string{"tar.gz"}}, mention: ".tar.gz"},
		{name: "empty extension", cfg: security.PolicyConfig{AllowedExtensions: []string{"."}}, mention: `"."`},
		{name: "extension with slash", cfg: security.PolicyConfig{AllowedExtensions: []string{"a/b"}}, mention: ".a/b"},
		{name: "empty name", cfg: security.PolicyConfig{AllowedNames: []string{""}}, mention: `""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := security.NewPolicy(tt.cfg)
			if err == nil {
				t.Fatalf("NewPolicy = %v, nil; want an error", p)
			}
			if got := errors.Is(err, path.ErrBadPattern); got != tt.bad {
				t.Errorf("errors.Is(err, path.ErrBadPattern) = %v, want %v (err: %v)", got, tt.bad, err)
			}
			// The message must name the value so a user can fix the flag.
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %q does not name %s", err, tt.mention)
			}
		})
	}
}

func TestPolicyLists(t *testing.T) {
	p, err := security.NewPolicy(security.PolicyConfig{
		AllowedExtensions: []string{"TXT", ".md", "md"},
		AllowedNames:      []string{"Makefile"},
		BlockedPaths:      []string{".Git", ".git", "*.PEM", "Drafts"},
		NoDefaultBlocked:  true,
	})
	if err != nil {
		t.Fatalf("NewPolicy: %v", err)
	}
	if diff := cmp.Diff([]string{".md", ".txt"}, p.AllowedExtensions()); diff != "" {
		t.Errorf("AllowedExtensions() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"*.pem", ".git", security.TempFilePattern, "drafts"}, p.BlockedPaths()); diff != "" {
		t.Errorf("BlockedPaths() mismatch (-want +got):\n%s", diff)
	}
	if got, want := p.Summary(), "2 extensions, 1 file names, 4 blocked patterns, 0 auto-run places write-protected (defaults NOT blocked: .git .hg "; !strings.HasPrefix(got, want) {
		t.Errorf("Summary() = %q, want it to start with %q", got, want)
	}
	added, err := security.NewPolicy(security.PolicyConfig{BlockedPaths: []string{"Drafts"}, Unblock: []string{"*.PEM"}})
	if err != nil {
		t.Fatalf("NewPolicy: %v", err)
	}
	if got := added.BlockedPaths(); len(got) != len(security.DefaultBlockedPaths()) || !slices.Contains(got, "drafts") || slices.Contains(got, "*.pem") {
		t.Errorf("BlockedPaths() = %q: want the defaults and drafts, without *.pem", got)
	}
	if diff := cmp.Diff([]string{"*.pem"}, added.DefaultsOff()); diff != "" {
		t.Errorf("DefaultsOff() mismatch (-want +got):\n%s", diff)
	}
	if got := added.Summary(); !strings.HasSuffix(got, "(defaults NOT blocked: *.pem)") {
		t.Errorf("Summary() = %q: want *.pem named", got)
	}

	star, err := security.NewPolicy(security.PolicyConfig{AllowedExtensions: []string{"*", "md"}})
	if err != nil {
		t.Fatalf("NewPolicy: %v", err)
	}
	if diff := cmp.Diff([]string{"*", ".md"}, star.AllowedExtensions()); diff != "" {
		t.Errorf("AllowedExtensions() with * mismatch (-want +got):\n%s", diff)
	}
	def, err := security.NewPolicy(security.PolicyConfig{})
	if err != nil {
		t.Fatalf("NewPolicy: %v", err)
	}
	t.Logf("default policy: %s", def.Summary())

	if got := star.Summary(); !strings.HasPrefix(got, "any extension, ") {
		t.Errorf("Summary() = %q, want it to start with %q", got, "any extension, ")
	}
}

func TestDefaults(t *testing.T) {
	p, err := security.NewPolicy(security.PolicyConfig{})
	if err != nil {
		t.Fatalf("NewPolicy(defaults): %v", err)
	}
	exts := p.AllowedExtensions()
	for _, never := range []string{".env", ".exe", ".so", ".dll", ".zip", ".pem", ".key"} {
		if slices.Contains(exts, never) {
			t.Errorf("default extensions include %s", never)
		}
	}
	for _, want := range []string{".md", ".txt", ".json", ".go", ".pdf", ".png"} {
		if !slices.Contains(exts, want) {
			t.Errorf("default extensions lack %s", want)
		}
	}
	if len(exts) != len(security.DefaultAllowedExtensions()) {
		t.Errorf("default extensions have duplicates: %d folded from %d", len(exts), len(security.DefaultAllowedExtensions()))
	}
	if !slices.Contains(security.DefaultBlockedPaths(), security.TempFilePattern) {
		t.Errorf("DefaultBlockedPaths() lacks %s", security.TempFilePattern)
	}
	// Every default allowed name must actually be reachable.
	for _, n := range security.DefaultAllowedNames() {
		if err := p.CheckName(n, false); err != nil {
			t.Errorf("default allowed name %q refused: %v", n, err)
		}
	}
	// The defaults must be fresh copies a caller may modify.
	d := security.DefaultBlockedPaths()
	d[0] = "changed"
	if security.DefaultBlockedPaths()[0] == "changed" {
		t.Error("DefaultBlockedPaths() returns shared storage")
	}
}

// BenchmarkCheckName measures the worst case the length limits allow: a
// 4 KB name of 1,365 distinct components.
func BenchmarkCheckName(b *testing.B) {
	p := newTestPolicy(b)
	var sb strings.Builder
	for i := 0; sb.Len() < fsroot.MaxPathBytes-10; i++ {
		fmt.Fprintf(&sb, "%02x/", i%256+i/256)
	}
	name := sb.String() + "x.md"
	for b.Loop() {
		_ = p.CheckName(name, false)
	}
}

// BenchmarkCheckNameTypical measures the name of a file a walk of the root finds.
func BenchmarkCheckNameTypical(b *testing.B) {
	p := newTestPolicy(b)
	for b.Loop() {
		_ = p.CheckName("copy3/pages.de/linux/tar-extract-archive.md", false)
	}
}

// BenchmarkClean measures a typical relative path.
func BenchmarkClean(b *testing.B) {
	p := newTestPolicy(b)
	for b.Loop() {
		_, _ = p.Clean("notes/2026/january/meeting.md")
	}
}

func TestCache(t *testing.T) {
	p, err := security.NewPolicy(security.PolicyConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, want string }{
		{"go/pkg/mod/golang.org/x/text@v0.43.0/cases/cases.go", "go/pkg/mod"},
		{"go/pkg/mod", "go/pkg/mod"},
		{".cache/go-build/00/abc", ".cache"},
		{"code/app/.venv/lib/python3.11/site-packages/x.py", ".venv"},
		{"Library/Caches/com.apple.Safari/x", "library/caches"},
		{"notes/cache.md", ""},
		{"go/pkg/model.go", ""},
		{"go/src/mod/x.go", ""},
		{".", ""},
	} {
		if got := p.Cache(tt.in); got != tt.want {
			t.Errorf("Cache(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAddExtensions checks that AddExtensions adds to the defaults, or to AllowedExtensions when
// that is set, and takes nothing away.
func TestAddExtensions(t *testing.T) {
	tests := []struct {
		name      string
		cfg       security.PolicyConfig
		allowed   []string
		forbidden []string
	}{
		{"to the defaults", security.PolicyConfig{AddExtensions: []string{".txtar", "tmpl"}}, []string{"a.txtar", "b.TMPL", "c.md", "d.pdf"}, []string{"e.exe"}},
		{"to a strict list", security.PolicyConfig{AllowedExtensions: []string{".md"}, AddExtensions: []string{".txtar"}}, []string{"a.txtar", "c.md"}, []string{"d.pdf", "f.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := security.NewPolicy(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.allowed {
				if err := p.CheckName(n, false); err != nil {
					t.Errorf("CheckName(%s) = %v, want allowed", n, err)
				}
			}
			for _, n := range tt.forbidden {
				if err := p.CheckName(n, false); !errors.Is(err, security.ErrExtension) {
					t.Errorf("CheckName(%s) = %v, want an extension refusal", n, err)
				}
			}
		})
	}
	if _, err := security.NewPolicy(security.PolicyConfig{AddExtensions: []string{"a/b"}}); err == nil {
		t.Error("an added extension with a slash is accepted")
	}
}
