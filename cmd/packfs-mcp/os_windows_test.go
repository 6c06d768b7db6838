//go:build windows

package main

import (
	"errors"
	"io/fs"
	"testing"
)

// mknodNull fails: Windows folders hold no device nodes.
func mknodNull(string) error { return errors.New("no device nodes on Windows") }

// terminateSelf fails: Windows has no SIGTERM to send oneself.
func terminateSelf() error { return errors.New("no SIGTERM on Windows") }

// hardLinked is false: os.Stat does not count links on Windows.
func hardLinked(fs.FileInfo) bool { return false }

// startUnprivileged skips: Windows ignores mode bits, so the unreadable
// cases (chmod 0) do not apply there.
func startUnprivileged(t *testing.T, f *fixture, args ...string) *session {
	t.Helper()
	t.Skip("Windows ignores mode bits: access is an ACL")
	return nil
}
