//go:build unix && !linux && !darwin

package fsroot

import "golang.org/x/sys/unix"

// renameatNoReplace has no system call to rely on here (the BSDs have no
// rename that refuses to replace): it answers ENOTSUP, and Rename falls
// back to a plain rename after its own check that to does not exist.
func renameatNoReplace(fromfd handle, from string, tofd handle, to string) error {
	return unix.ENOTSUP
}
