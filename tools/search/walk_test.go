package search

import (
	"context"
	"fmt"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
)

// countedProgress records what a walk told its progress.
type countedProgress struct {
	steps, total int
	unit         string
}

func (p *countedProgress) Step()                           { p.steps++ }
func (p *countedProgress) SetTotal(total int, unit string) { p.total, p.unit = total, unit }

// TestProgressCandidates checks that a search narrowed by the index counts every candidate, out of
// all of them, even those it skips.
func TestProgressCandidates(t *testing.T) {
	root, err := fsroot.Open(testfs.TempDir(t), fsroot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	if err != nil {
		t.Fatal(err)
	}
	w := Walker{Root: root, Policy: policy}
	var got countedProgress
	var paths []string
	for i := range 1500 {
		paths = append(paths, fmt.Sprintf("gone/%04d.md", i)) // missing: skipped, yet counted
	}
	err = w.visitCandidates(context.Background(), ".", 0, paths, &Report{Progress: &got}, nil, func(fsroot.Info) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if got.steps != 1500 || got.total != 1500 || got.unit != "candidate files" {
		t.Errorf("progress = %+v, want 1500 steps of 1500 candidate files", got)
	}
}
