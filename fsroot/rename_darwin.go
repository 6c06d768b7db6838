package fsroot

import "golang.org/x/sys/unix"

// renameatNoReplace renames from in the directory fromfd to to in tofd,
// failing with EEXIST if to exists: renameatx_np with RENAME_EXCL.
func renameatNoReplace(fromfd int, from string, tofd int, to string) error {
	return unix.RenameatxNp(fromfd, from, tofd, to, unix.RENAME_EXCL)
}
