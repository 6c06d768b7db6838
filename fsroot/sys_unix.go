//go:build unix

package fsroot

import (
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// handle is an open descriptor.
type handle = int

// noHandle marks a closed level of a lookup's directory stack.
const noHandle handle = -1

const (
	// readFlags open a file for reading without blocking on a FIFO and
	// without a device becoming the controlling terminal.
	readFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY | syscall.O_CLOEXEC
	// dirFlags open a directory, failing on anything else without
	// blocking.
	dirFlags = readFlags | syscall.O_DIRECTORY
	// childDirFlags open a subdirectory without following a link (ELOOP),
	// without blocking on a FIFO swapped in (ENOTDIR), and without
	// acquiring a controlling terminal.
	childDirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC
)

// errLocked is what tryFlock answers when another open file holds the lock.
var errLocked error = unix.EWOULDBLOCK

// closeHandle closes a descriptor fsroot opened.
func closeHandle(fd handle) { unix.Close(fd) }

// control runs fn with f's descriptor, keeping f alive and its blocking
// mode unchanged. Once f is closed, it fails with [os.ErrClosed] without
// calling fn.
func control(f *os.File, fn func(fd handle) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return os.ErrClosed // the only way Control fails: the file is closed
	}
	return ferr
}

// openDirFD opens the subdirectory name of the directory descriptor dirfd
// with childDirFlags and returns the new descriptor, which the caller
// closes. name "." opens dirfd's directory again, as a new open file.
func openDirFD(dirfd handle, name string) (handle, error) {
	for {
		fd, err := unix.Openat(dirfd, name, childDirFlags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// openFileFD opens the entry name of the directory descriptor dirfd for
// reading with readFlags, without following a link (ELOOP).
func openFileFD(dirfd handle, name string) (handle, error) {
	for {
		fd, err := unix.Openat(dirfd, name, readFlags|unix.O_NOFOLLOW, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// lstatFD is lstat of the entry name of the directory descriptor dirfd.
func lstatFD(dirfd handle, name string) (sysStat, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return unixStat(&st), err
		}
	}
}

// readlinkFD returns the text of the symbolic link name in the directory
// descriptor dirfd.
func readlinkFD(dirfd handle, name string) (string, error) {
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
func fstatFD(fd handle) (sysStat, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstat(fd, &st)
		if err != unix.EINTR {
			return unixStat(&st), err
		}
	}
}

// fdReader reads a descriptor fsroot opened (and closes); a read of 0
// bytes is the end of the file.
type fdReader handle

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

// unixStat converts a stat buffer.
func unixStat(st *unix.Stat_t) sysStat {
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
	return sysStat{
		mode:  mode,
		size:  st.Size,
		mtime: time.Unix(st.Mtim.Unix()),
		links: uint64(st.Nlink),
		id:    fileID{uint64(st.Dev), uint64(st.Ino)},
	}
}

// tryFlock takes an exclusive flock on f without waiting: errLocked when
// another open file holds one. flock locks belong to the open file, so two
// callers in one process exclude each other as two processes do.
func tryFlock(f *os.File) error {
	return control(f, func(fd handle) error { return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) })
}

// infoOwner is the user owning fi, when the system says.
func infoOwner(fi fs.FileInfo) (uid int, ok bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}

// errnoNotDir is what a system call answers for a file where a directory
// was needed.
const errnoNotDir = syscall.ENOTDIR

// modeBitsMean reports that a file's permission bits say who may change it.
const modeBitsMean = true

// sysCheckName refuses the valid names this system would read another
// way: none here.
func sysCheckName(string) error { return nil }

// absLink reports a link text that starts from the filesystem's root
// rather than the link's folder: the resolver refuses it as an escape.
func absLink(target string) bool { return strings.HasPrefix(target, "/") }

// errnoInUse is what a system call answers for a file another program
// keeps from being changed: a running program's file.
const errnoInUse = syscall.ETXTBSY

// errnoInvalid is what a system call answers for an argument it refuses,
// such as a folder moved into itself.
const errnoInvalid = syscall.EINVAL

// createFD creates the entry name of dirfd exclusively (EEXIST for any
// entry there, a link included: O_EXCL never follows one) and opens it
// for writing, with permission perm before the umask.
func createFD(dirfd handle, name string, perm fs.FileMode) (handle, error) {
	return openatRetry(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, perm)
}

// appendFD opens the entry name of dirfd for appending, creating it
// exclusively with perm when create: ELOOP for a link, ENXIO for a FIFO
// without a reader or a socket, and never blocking.
func appendFD(dirfd handle, name string, create bool, perm fs.FileMode) (handle, error) {
	flags := unix.O_WRONLY | unix.O_APPEND | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC
	if create {
		flags |= unix.O_CREAT | unix.O_EXCL
	}
	return openatRetry(dirfd, name, flags, perm)
}

// lockFileFD opens the lock file name of dirfd for reading and writing,
// creating it with permission perm if it is missing, never following a
// link.
func lockFileFD(dirfd handle, name string, perm fs.FileMode) (handle, error) {
	return openatRetry(dirfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, perm)
}

// openatRetry is openat, retried on EINTR.
func openatRetry(dirfd handle, name string, flags int, perm fs.FileMode) (handle, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, uint32(perm.Perm()))
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// renameFD renames from in fromfd to to in tofd, replacing whatever is at
// to but a directory: renameat, which never follows a link in either.
func renameFD(fromfd handle, from string, tofd handle, to string) error {
	return unix.Renameat(fromfd, from, tofd, to)
}

// linkFD makes to in tofd a new hard link to from in fromfd (which, a
// link, is linked itself, not its target): EEXIST for any entry at to.
func linkFD(fromfd handle, from string, tofd handle, to string) error {
	return unix.Linkat(fromfd, from, tofd, to, 0)
}

// removeFD removes the entry name of dirfd: a file or a link (never its
// target), or an empty directory when dir.
func removeFD(dirfd handle, name string, dir bool) error {
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	err := unix.Unlinkat(dirfd, name, flags)
	if err == unix.EEXIST { // rmdir's other answer for a folder not empty
		err = unix.ENOTEMPTY
	}
	return err
}

// mkdirFD creates the directory name in dirfd with permission perm
// before the umask: EEXIST for any entry there, a link included.
func mkdirFD(dirfd handle, name string, perm fs.FileMode) error {
	return unix.Mkdirat(dirfd, name, uint32(perm.Perm()))
}

// syncFD flushes the open file or directory fd, best effort.
func syncFD(fd handle) { unix.Fsync(fd) }

// storedName returns the name the volume stores for the entry h, opened as name: name itself.
// These systems know no aliases of a name but its case and Unicode forms on a case-insensitive
// volume (APFS), which the policy folds.
func storedName(_ handle, name string) (string, error) { return name, nil }

// lstatNameFD is lstatFD that also returns the name the volume stores (storedName).
func lstatNameFD(dir handle, name string) (sysStat, string, error) {
	st, err := lstatFD(dir, name)
	return st, name, err
}
