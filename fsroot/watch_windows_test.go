package fsroot

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchOverflow checks that a Watcher reports [All] when more changed than the system kept
// names of: 2,000 files created while the reads are stalled, more than the 64 KiB of names the
// system keeps between two reads. (Linux's queue holds 16,384 events, more than a unit test
// should write: there the test is the overflow branch's, unchanged, of fsnotify's errors.)
func TestWatchOverflow(t *testing.T) {
	stalled, release := make(chan struct{}, 1), make(chan struct{})
	beforeNextRead = func() {
		select {
		case stalled <- struct{}{}:
		default:
		}
		<-release
	}
	t.Cleanup(func() { beforeNextRead = nil }) // after the Watcher's Close: cleanups run last first
	base, r := newTree(t, Options{})
	_, await := startWatch(t, r, nil)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	root := filepath.Join(base, "root")
	writeHost(t, filepath.Join(root, "first.md"), "x") // the first read completes with it
	select {
	case <-stalled:
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported")
	}
	for i := range 2000 {
		writeHost(t, filepath.Join(root, fmt.Sprintf("a-rather-long-file-name-for-the-buffer-%04d.md", i)), "x")
	}
	close(release)
	await(All)
}
