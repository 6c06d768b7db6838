package fsroot

import (
	"io"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// This file holds the few operations fsroot performs relative to an open
// directory handle rather than through os.Root: Walk, listings and lookups
// ([Root.Lookup]) need to stat, read links and descend in constant time per
// component however deep they are, and os.Root offers neither an fstatat on
// a handle nor a non-blocking OpenRoot. Each call takes a single entry name
// (never containing "/", never "." or ".."), and never follows a symbolic
// link, so it cannot leave the directory.

// childDirFlags open a subdirectory without following a link (ELOOP),
// without blocking on a FIFO swapped in (ENOTDIR), and without acquiring
// a controlling terminal.
const childDirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC

// control runs fn with dir's descriptor, keeping dir alive and its
// blocking mode unchanged. Once dir is closed, it fails with
// [os.ErrClosed] without calling fn.
func control(dir *os.File, fn func(fd int) error) error {
	rc, err := dir.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return os.ErrClosed // the only way Control fails: the file is closed
	}
	return ferr
}

// openDirAt opens the subdirectory name of dir; rel, root-relative, only
// names the result (for error messages, which fsroot rewraps anyway).
func openDirAt(dir *os.File, name, rel string) (*os.File, error) {
	var nfd int
	err := control(dir, func(fd int) error {
		var err error
		nfd, err = openDirFD(fd, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), rel), nil
}

// statAt is lstat of the entry name of dir.
func statAt(dir *os.File, name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := control(dir, func(fd int) error { return lstatFD(fd, name, &st) })
	return st, err
}

// readlinkAt returns the text of the symbolic link name in dir.
func readlinkAt(dir *os.File, name string) (string, error) {
	var target string
	err := control(dir, func(fd int) error {
		var err error
		target, err = readlinkFD(fd, name)
		return err
	})
	return target, err
}

// openDirFD opens the subdirectory name of the directory descriptor dirfd
// with childDirFlags and returns the new descriptor, which the caller
// closes.
func openDirFD(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, childDirFlags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// openFileFD opens the entry name of the directory descriptor dirfd for
// reading with readFlags, without following a link (ELOOP).
func openFileFD(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, readFlags|unix.O_NOFOLLOW, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// lstatFD is lstat of the entry name of the directory descriptor dirfd.
func lstatFD(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

// readlinkFD returns the text of the symbolic link name in the directory
// descriptor dirfd.
func readlinkFD(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		for err == unix.EINTR {
			n, err = unix.Readlinkat(dirfd, name, buf)
		}
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

// fstatFD is fstat of the descriptor fd.
func fstatFD(fd int, st *unix.Stat_t) error {
	for {
		err := unix.Fstat(fd, st)
		if err != unix.EINTR {
			return err
		}
	}
}

// fdReader reads a descriptor fsroot opened (and closes); a read of 0
// bytes is the end of the file.
type fdReader int

func (f fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
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
