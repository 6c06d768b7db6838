package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"
)

// This file holds what every system shares of the few operations fsroot
// performs, all relative to an open directory handle: [Root.Lookup] and
// Walk stat, read links and descend in constant time per component however
// deep they are, and every write acts through the handle of the directory
// its lookup ended in. Each call takes a single entry name (never
// containing "/", never "." or ".."), and never follows a symbolic link,
// so it cannot leave the directory. Each system gives them in a file of
// its own: openat, fstatat, readlinkat, renameat, linkat, unlinkat and
// mkdirat on Linux, macOS and the BSDs (sys_unix.go), NtCreateFile
// relative to a directory handle with FILE_OPEN_REPARSE_POINT and
// NtSetInformationFile on the handle it opened on Windows
// (sys_windows.go).
//
// Every system's file provides: the type handle (a descriptor, or a
// HANDLE) and noHandle; closeHandle; openDirFD, openFileFD, lstatFD,
// lstatNameFD, storedName, readlinkFD and fstatFD; createFD, appendFD, lockFileFD, renameFD,
// renameatNoReplace, linkFD, removeFD, mkdirFD and syncFD; control (the
// handle of an *os.File); fdReader; tryFlock and errLocked; and the open
// flags readFlags and dirFlags.

// sysStat is what fsroot needs of a file's status, from any system.
type sysStat struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
	links uint64
	id    fileID
	// reparse marks, on Windows, a reparse point that is not a link (a
	// cloud placeholder): its data is read by opening it again.
	reparse bool
}

// fileID identifies a file: a directory reached again under another name
// has the same fileID (device and inode; volume and file index on Windows).
type fileID struct{ dev, ino uint64 }

// openDirAt opens the subdirectory name of dir; rel, root-relative, only
// names the result (for error messages, which fsroot rewraps anyway).
func openDirAt(dir *os.File, name, rel string) (*os.File, error) {
	var nfd handle
	err := control(dir, func(fd handle) error {
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
func statAt(dir *os.File, name string) (sysStat, error) {
	var st sysStat
	err := control(dir, func(fd handle) error {
		var err error
		st, err = lstatFD(fd, name)
		return err
	})
	return st, err
}

// readlinkAt returns the text of the symbolic link name in dir.
func readlinkAt(dir *os.File, name string) (string, error) {
	var target string
	err := control(dir, func(fd handle) error {
		var err error
		target, err = readlinkFD(fd, name)
		return err
	})
	return target, err
}

// handleStat is the status of an open file, from its handle: on every
// system it counts links and identifies the file, which os's FileInfo does
// not on Windows.
func handleStat(f *os.File) (sysStat, error) {
	var st sysStat
	err := control(f, func(fd handle) error {
		var err error
		st, err = fstatFD(fd)
		return err
	})
	return st, err
}

// handleID returns the fileID of an open file.
func handleID(f *os.File) (fileID, error) {
	st, err := handleStat(f)
	return st.id, err
}

// statInfo builds the Info of the entry at root-relative p from st.
func statInfo(p, name string, st *sysStat) Info {
	return Info{
		Path:    p,
		Name:    name,
		Type:    fileType(st.mode),
		Size:    st.size,
		ModTime: st.mtime,
		Mode:    st.mode,
		Links:   st.links,
	}
}

// removeAllFD removes the entry name of dir and, if it is a directory,
// everything below it, entry by entry through directory handles, never
// following a link: a link to a directory is removed itself. rel is the
// entry's root-relative path; spare, if not nil, is asked about it and
// every entry below it (by root-relative path, and whether it is a
// directory) once it is stat'ed, and an entry it spares is left in place:
// the removal then fails with [ErrNotEmpty] at the first one, leaving it
// and the folders that hold it.
func removeAllFD(dir handle, name, rel string, spare func(rel string, isDir bool) bool) error {
	st, err := lstatFD(dir, name)
	if err != nil {
		return err
	}
	if spare != nil && spare(rel, st.mode.IsDir()) {
		return ErrNotEmpty
	}
	if !st.mode.IsDir() {
		return removeFD(dir, name, false)
	}
	if err := removeFD(dir, name, true); !errors.Is(err, syscall.ENOTEMPTY) {
		return err
	}
	sub, err := openDirFD(dir, name)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(sub), name)
	// Every name first: a directory read while its entries go may skip
	// some.
	names, err := f.Readdirnames(-1)
	for _, n := range names {
		if err != nil {
			break
		}
		err = control(f, func(h handle) error { return removeAllFD(h, n, path.Join(rel, n), spare) })
		if errors.Is(err, fs.ErrNotExist) {
			err = nil // removed meanwhile
		}
	}
	f.Close() // before the directory itself goes: Windows keeps it while open
	if err != nil {
		return err
	}
	return removeFD(dir, name, true)
}
