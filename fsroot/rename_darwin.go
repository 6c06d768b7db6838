package fsroot

import "golang.org/x/sys/unix"

// renameatNoReplace renames from in the directory fromfd to to in tofd,
// failing with EEXIST if to exists: renameatx_np with RENAME_EXCL.
func renameatNoReplace(fromfd handle, from string, tofd handle, to string) error {
	return unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_EXCL)
}
