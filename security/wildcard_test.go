package security

import (
	"path"
	"testing"
)

// TestWildcardMatch checks that a wildcard pattern's prefilter never changes path.Match's verdict.
func TestWildcardMatch(t *testing.T) {
	patterns := []string{"*.tfstate.*", "a?b*c", "*x*y*", "??", "[xy]*.log", `we\*ird*`, "id_rsa*", "*"}
	names := []string{"", "main.tfstate.backup", "main.tfstate", ".tfstate.", "aXbc", "abc", "aXbYYc", "xy", "yx", "x",
		"x.log", "z.log", "we*ird-one", "weird", "id_rsa.pub", "a.tfstate.b.tfstate.c"}
	for _, pat := range patterns {
		w := newWildcard(pat)
		for _, name := range names {
			want, _ := path.Match(pat, name)
			if got := w.match(name); got != want {
				t.Errorf("%q matching %q = %v, want %v (run %q)", pat, name, got, want, w.must)
			}
		}
	}
}
