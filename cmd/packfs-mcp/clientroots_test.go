package main

import (
	"strings"
	"testing"
	"time"
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

// TestClientRootsDrain checks that a removed root waits for the calls that began before it was
// removed, and only for those: it is closed once they end, whatever calls began since.
func TestClientRootsDrain(t *testing.T) {
	c := newClientRoots(nil)
	before := c.enter()
	drained := c.drain()
	after := c.enter()
	defer after()
	select {
	case <-drained:
		t.Fatal("drained while a call that began before is still running")
	case <-time.After(50 * time.Millisecond):
	}
	before()
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
		t.Fatal("not drained after the call that began before ended; a later call must not hold it")
	}
}
