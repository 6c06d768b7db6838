package fsroot

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// This file holds the few operations fsroot performs relative to an open
// directory handle rather than through os.Root: Walk and listings need to
// stat, read links and descend in constant time per entry however deep
// they are, and os.Root offers neither an fstatat on a handle nor a
// non-blocking OpenRoot. Each call takes a single entry name read from
// the directory itself (never containing "/", never "." or ".."), and
// never follows a symbolic link, so it cannot leave the directory.

// childDirFlags open a subdirectory without following a link (ELOOP),
// without blocking on a FIFO swapped in (ENOTDIR), and without acquiring
// a controlling terminal.
const childDirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC

// control runs fn with dir's descriptor, keeping dir alive and its
// blocking mode unchanged.
func control(dir *os.File, fn func(fd int) error) error {
	rc, err := dir.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// openDirAt opens the subdirectory name of dir; rel, root-relative, only
// names the result (for error messages, which fsroot rewraps anyway).
func openDirAt(dir *os.File, name, rel string) (*os.File, error) {
	var nfd int
	err := control(dir, func(fd int) error {
		var err error
		for {
			nfd, err = unix.Openat(fd, name, childDirFlags, 0)
			if err != unix.EINTR {
				return err
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), rel), nil
}

// statAt is lstat of the entry name of dir.
func statAt(dir *os.File, name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := control(dir, func(fd int) error {
		return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	})
	return st, err
}

// readlinkAt returns the text of the symbolic link name in dir.
func readlinkAt(dir *os.File, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		var n int
		err := control(dir, func(fd int) error {
			var err error
			n, err = unix.Readlinkat(fd, name, buf)
			return err
		})
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
		if size >= unix.PathMax*2 {
			return "", unix.ENAMETOOLONG
		}
	}
}

// statInfo builds the Info of the entry at root-relative p from st.
func statInfo(p, name string, st *unix.Stat_t) Info {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	}
	if st.Mode&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return Info{
		Path:    p,
		Name:    name,
		Type:    fileType(mode),
		Size:    st.Size,
		ModTime: time.Unix(st.Mtim.Unix()),
		Mode:    mode,
		Links:   uint64(st.Nlink),
	}
}

// fileID identifies a file: a directory reached again under another name
// has the same fileID.
type fileID struct{ dev, ino uint64 }

// handleID returns the fileID of an open file.
func handleID(f *os.File) (fileID, error) {
	var st unix.Stat_t
	err := control(f, func(fd int) error { return unix.Fstat(fd, &st) })
	return fileID{uint64(st.Dev), st.Ino}, err
}
