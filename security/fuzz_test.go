package security_test

import (
	"io/fs"
	"strings"
	"testing"
)

func FuzzClean(f *testing.F) {
	for _, seed := range []string{
		"", ".", "/", "..", "../x", "a/..", "a/../../x", "./././../x",
		"/srv/data", "/srv/data/x", "/srv/data_evil/x", "/srv/data/../data_evil/x",
		"/mnt/real/data/../../x", `a\..\..\x`, `C:\Users\x.md`, `\\server\share`,
		"a\x00b", "a\r\nb", "x\u202egpj.md", "a\u200b", "\ufeffa", "\xff",
		"~/.ssh/id_rsa", "%2e%2e%2f", "notes/", "//x//y//", "a/./b/../../..",
		"\uff0e\uff0e/x", ".../x", "0/0/../../A:", "/srv/data/C:",
	} {
		f.Add(seed)
	}
	p := newTestPolicy(f)
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := p.Clean(raw)
		if err != nil {
			if got != "" {
				t.Fatalf("Clean(%q) = %q with error %v", raw, got, err)
			}
			return
		}
		if got != "." && !fs.ValidPath(got) {
			t.Fatalf("Clean(%q) = %q, not a valid fs path", raw, got)
		}
		for _, c := range strings.Split(got, "/") {
			if c == ".." {
				t.Fatalf("Clean(%q) = %q, has a .. component", raw, got)
			}
		}
		// Cleaning is idempotent: a clean name means the same thing again.
		if again, err := p.Clean(got); err != nil || again != got {
			t.Fatalf("Clean(Clean(%q)) = %q, %v; want %q", raw, again, err, got)
		}
		// CheckName may refuse, but never panics on Clean's output.
		_ = p.CheckName(got, false)
		_ = p.CheckName(got, true)
	})
}
