package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestIndexFollowsFileEvents checks, through the binary with the default settings, that files
// another program writes, and deletes, reach the index from the system's file events: within
// 5 s, where the walk that stands in for events elsewhere runs every 10 s and, with events, every
// 10 minutes.
func TestIndexFollowsFileEvents(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file events are used on Linux only; elsewhere a walk every 10 s follows other programs (TestIndexFollowsOtherPrograms)")
	}
	f := workspace(t)
	s := start(t, f, nil)
	waitIndexed(t, s)
	await := func(what, query, path string, want bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			res, _ := s.call(searcher, semanticQuery(query, nil))
			if has(paths(res), path) == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not in step with the files after 5 s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// The first change may reach the index through the walk that starts following events; the
	// next ones come from events alone.
	must(t, os.WriteFile(filepath.Join(f.root, "notes/first.md"), []byte("# Okapi sightings\n"), 0o644))
	await("a file written", "okapi sightings", "notes/first.md", true)
	must(t, os.MkdirAll(filepath.Join(f.root, "zoo/new"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.root, "zoo/new/quokka.md"), []byte("# Quokka census\n"), 0o644))
	await("a file written in a new folder", "quokka census", "zoo/new/quokka.md", true)
	must(t, os.Remove(filepath.Join(f.root, "notes/first.md")))
	await("a file deleted", "okapi sightings", "notes/first.md", false)
}
