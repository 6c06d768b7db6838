// Package tier splits the tests in two tiers: the fast tier, `go test -short ./...`, which a
// developer runs after each change (a few minutes on two cores), and the full suite, `go test
// ./...`, which CI runs. A test that belongs to the full suite alone (it drives the built binary
// through a long table, builds a big tree, or holds the ranking over a corpus) calls [Full] first.
package tier

import "testing"

// Full skips t under -short, saying why it belongs to the full suite and how to run it.
func Full(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("full suite only (go test ./..., without -short): %s", why)
	}
}
