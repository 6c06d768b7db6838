package serving

import (
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestClientDir checks which root URIs name a folder on this machine.
func TestClientDir(t *testing.T) {
	tests := []struct {
		uri, want, err string
	}{
		{uri: "file:///home/me/notes", want: "/home/me/notes"},
		{uri: "file:///home/me/My%20Notes/", want: "/home/me/My Notes"},
		{uri: "file://localhost/srv/x", want: "/srv/x"},
		{uri: "file:///a/../b", want: "/b"},
		{uri: "file:///", want: "/"},
		{uri: "http://example.com/notes", err: "only file:// roots"},
		{uri: "file://server/share", err: "on another machine (server)"},
		{uri: "file:relative/path", err: "no absolute path"},
		{uri: "notes", err: "only file:// roots"},
		{uri: "%zz", err: "not a URI"},
	}
	for _, tt := range tests {
		got, err := clientDir(tt.uri)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("clientDir(%q) = %q, %v; want an error with %q", tt.uri, got, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("clientDir(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
		}
	}
}

// TestPoolLinger checks the pool of the clients' folders: two clients offering one folder share
// its mount; a folder no client serves stays open while a call pinned it, and for lingerFor after,
// when a client offering it again finds it open; then it is closed.
func TestPoolLinger(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	folder := filepath.Join(dir, "notes")
	must(t, os.MkdirAll(folder, 0o755))
	a, err := build(Config{Semantic: SemanticConfig{Disabled: true}}, log.New(io.Discard, "", 0))
	must(t, err)
	defer a.close()
	// A folder unheld and unpinned closes at once: only the pin keeps it.
	setLinger(a, time.Millisecond)
	offer := []mcp.Root{{URI: fileURI(folder), Name: "notes"}}
	one, two := newClientRoots(a, "one"), newClientRoots(a, "two")
	one.apply(offer, false)
	two.apply(offer, false)
	if n := len(a.mountList()); n != 1 {
		t.Fatalf("two clients offering one folder: %d mounts, want 1 shared", n)
	}
	m := a.mountList()[0]
	unpin := one.pin()
	one.apply(nil, false)
	two.apply(nil, false)
	time.Sleep(200 * time.Millisecond)
	if !slices.Contains(a.mountList(), m) {
		t.Fatal("closed while a call pinned it")
	}
	// Offered again within lingerFor, however slow the machine: lingerFor is an hour here.
	setLinger(a, time.Hour)
	unpin()
	two.apply(offer, false)
	if got := a.mountList(); len(got) != 1 || got[0] != m {
		t.Fatalf("offered again within lingerFor: mounts %v, want the same one reused", got)
	}
	setLinger(a, time.Millisecond)
	two.apply(nil, false)
	deadline := time.Now().Add(5 * time.Second)
	for slices.Contains(a.mountList(), m) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if slices.Contains(a.mountList(), m) {
		t.Fatal("still open long after lingerFor with no client and no call")
	}
}

// TestClientEnded checks that a client whose session ended serves nothing, even from a listing
// that answers after the end: its folders would otherwise stay open for good.
func TestClientEnded(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	must(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
	a, err := build(Config{Semantic: SemanticConfig{Disabled: true}}, log.New(io.Discard, "", 0))
	must(t, err)
	defer a.close()
	setLinger(a, time.Millisecond)
	s := fakeSession{"s1"}
	a.streamOpened(t.Context(), s)
	c := a.clientOf(a.mcp.WithContext(t.Context(), s))
	offer := []mcp.Root{{URI: fileURI(filepath.Join(dir, "notes"))}}
	c.apply(offer, false)
	a.streamClosed(s)
	c.apply(offer, false) // the listing under way at the end answers
	if names := c.tools.Names(); len(names) != 0 {
		t.Errorf("an ended client serves %v", names)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(a.mountList()) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(a.mountList()); n != 0 {
		t.Errorf("%d folders open after the only client ended", n)
	}
}

// setLinger sets how long a's unheld folders stay open, under the lock the pool reads it with.
func setLinger(a *app, d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lingerTest = d
}
