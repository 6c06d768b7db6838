//go:build !unix

package main

import "os/exec"

// detach does nothing where there are no sessions: the daemon outlives
// its parent anyway.
func detach(cmd *exec.Cmd) {}
