package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

const (
	// appendPerm is the permission of a file [Root.OpenAppend] creates: an
	// append-only log such as an audit journal records what others did,
	// so only its owner reads it.
	appendPerm fs.FileMode = 0o600
)

// Appender appends to one regular file opened with [Root.OpenAppend]. It
// is safe for concurrent use: each [Appender.Write] puts its bytes at the
// end of the file in one piece, so a caller that writes one whole record
// per call never sees records interleave.
type Appender struct {
	mu     sync.Mutex
	f      *os.File
	name   string
	r      *Root
	closed bool
}

// OpenAppend opens the regular file name for appending, creating it with
// permission 0o600 if it does not exist. Unlike [Root.WriteFile], it never
// follows a final symbolic link, and never creates a file through one: a
// new file is created exclusively (O_EXCL, which refuses any existing
// entry, links included), an existing entry must be a regular file, and
// the open handle is checked against the name after the open, so a link or
// another file swapped in meanwhile is refused too.
//
// Errors: [ErrInvalid], [ErrEscapes], [ErrIsRoot] (name is "."),
// [ErrNotRegular] (a symbolic link, FIFO, socket or device, with [ErrIsDir]
// for a directory), [ErrHardLink] (more than one link, unless
// [Options.AllowHardLinks]), [fs.ErrNotExist] (a missing parent),
// [ErrNotDir], [fs.ErrPermission].
func (r *Root) OpenAppend(name string) (*Appender, error) {
	if name == "." {
		return nil, r.pathErr("open", name, ErrIsRoot)
	}
	f, err := r.openAppend(name)
	if err != nil {
		return nil, r.pathErr("open", name, err)
	}
	return &Appender{f: f, name: name, r: r}, nil
}

// openAppend implements OpenAppend, returning a cause for pathErr. The
// name is looked up once, a final link not followed, and the file opened
// or created in the directory the lookup ended in, never following a
// link there either; the open handle is judged last.
func (r *Root) openAppend(name string) (*os.File, error) {
	e, err := r.lookupLink(name)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if e.exists {
		if err := r.Refuses(e.info); err != nil {
			return nil, err // a link (refused, not followed), a folder, a device
		}
	}
	var fd handle
	err = e.at(func(dir handle, elem string) error {
		var err error
		fd, err = appendFD(dir, elem, !e.exists, appendPerm)
		if errors.Is(err, fs.ErrExist) && !e.exists {
			fd, err = appendFD(dir, elem, false, 0) // made meanwhile: judged below
		}
		return err
	})
	switch {
	case errors.Is(err, syscall.ELOOP): // a link swapped in
		return nil, withCause(ErrNotRegular, syscall.ELOOP)
	case errors.Is(err, syscall.ENXIO): // a FIFO without a reader, or a socket
		return nil, ErrNotRegular
	case err != nil:
		return nil, err
	}
	// Judged by its handle, which counts links on every system.
	st, err := fstatFD(fd)
	if err == nil {
		err = r.Refuses(statInfo("", "", &st))
	}
	if err != nil {
		closeHandle(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// Name returns the root-relative name the Appender was opened with.
func (a *Appender) Name() string { return a.name }

// Write appends p to the file in one piece: the whole of p is written
// under the Appender's lock, with O_APPEND, in one system call unless the
// kernel accepts only part of it (on a full disk, say), when the rest
// follows at once. It returns an error wrapping [fs.ErrClosed] after
// [Appender.Close].
func (a *Appender) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return 0, a.r.pathErr("write", a.name, fs.ErrClosed)
	}
	n, err := a.f.Write(p)
	if err != nil {
		return n, a.r.pathErr("write", a.name, err)
	}
	return n, nil
}

// Sync flushes what was appended to stable storage.
func (a *Appender) Sync() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return a.r.pathErr("sync", a.name, fs.ErrClosed)
	}
	if err := a.f.Sync(); err != nil {
		return a.r.pathErr("sync", a.name, err)
	}
	return nil
}

// Close syncs and closes the file. Later writes fail; closing twice is
// harmless.
func (a *Appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.closed = true
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return a.r.pathErr("close", a.name, err)
	}
	return nil
}
