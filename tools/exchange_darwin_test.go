package tools

import "golang.org/x/sys/unix"

// exchange atomically swaps the entries a and b (renameatx_np RENAME_SWAP), so both names exist
// at every instant; either may be a directory, a file or a symbolic link.
func exchange(a, b string) error {
	return unix.RenameatxNp(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_SWAP)
}
