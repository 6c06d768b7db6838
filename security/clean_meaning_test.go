package security_test

import (
	"errors"
	"path"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/security"
)

// FuzzCleanMeaning: whatever Clean accepts names the same place as the input, under the root.
func FuzzCleanMeaning(f *testing.F) {
	for _, s := range []string{"", ".", "/", "..", "../x", "a/..", "/srv/data/x", "/srv/data_evil/x", "/mnt/real/data/y", "/etc/passwd", "a/b/../c", "//srv//data//x", "/srv/data/../data/x"} {
		f.Add(s)
	}
	p := newTestPolicy(f)
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := p.Clean(raw)
		if err != nil {
			var pe *security.PathError
			if !errors.As(err, &pe) || pe.Rule == "" || got != "" {
				t.Fatalf("Clean(%q) = %q, %#v: want \"\" and a *PathError with a Rule", raw, got, err)
			}
			return
		}
		if strings.HasPrefix(raw, "/") {
			c := path.Clean(raw)
			if c != path.Join("/srv/data", got) && c != path.Join("/mnt/real/data", got) {
				t.Fatalf("Clean(%q) = %q: a different place", raw, got)
			}
			return
		}
		want := path.Join("/srv/data", raw)
		if want != "/srv/data" && !strings.HasPrefix(want, "/srv/data/") {
			t.Fatalf("Clean(%q) = %q, but the input leaves the root", raw, got)
		}
		if want != path.Join("/srv/data", got) {
			t.Fatalf("Clean(%q) = %q: a different place", raw, got)
		}
	})
}
