package fsroot

import "golang.org/x/sys/unix"

// renameatNoReplace renames from in the directory fromfd to to in tofd,
// failing with EEXIST if to exists: renameat2 with RENAME_NOREPLACE.
func renameatNoReplace(fromfd handle, from string, tofd handle, to string) error {
	return unix.Renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE)
}
