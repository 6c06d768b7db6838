package serving

import (
	"bytes"
	"context"
	"log"
	"runtime"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
)

// TestWatchQuietWhenShuttingDown checks that a server stopped while it starts watching its folders
// says nothing on stderr about file events being unavailable: it said "file events unavailable
// (context canceled)" when a client closed it right after the index was ready.
func TestWatchQuietWhenShuttingDown(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file events are used on Linux only")
	}
	root, err := fsroot.Open(t.TempDir(), fsroot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	policy, err := security.NewPolicy(security.PolicyConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	m := &mount{Mount: tools.Mount{Root: root, Policy: policy, Ignore: security.NewIgnore(root, policy, security.IgnoreConfig{})},
		log: log.New(&out, "", 0), warn: log.New(&out, "", 0)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w, err := m.watch(ctx)
	if err == nil {
		w.Close()
		t.Fatal("watching with a context already ended succeeded")
	}
	if out.Len() > 0 {
		t.Errorf("stopping while the watch starts logged %q, want nothing", out.String())
	}
}
