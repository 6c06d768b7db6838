package serving

import (
	"net/url"
	"testing"
)

// must fails t on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }
