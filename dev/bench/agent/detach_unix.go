//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach puts the daemon in a session of its own, so the shell that
// started the bench can end without taking it along.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
