// Package boundary holds, in its tests, the module's layering rules: which package may import
// which, and which may reach the host's filesystem (TestBoundary, TestCorporaOnlyInTests,
// TestNoBleveRoot). It has no code of its own; its tests run fast, apart from the server's.
package boundary
