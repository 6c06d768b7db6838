package security

import "testing"

// mustOK fails the test at once when err is not nil.
func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
