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
	if err := checkName(name); err != nil {
		return nil, r.pathErr("open", name, err)
	}
	if name == "." {
		return nil, r.pathErr("open", name, ErrIsRoot)
	}
	f, err := r.openAppend(name)
	if err != nil {
		return nil, r.pathErr("open", name, err)
	}
	return &Appender{f: f, name: name, r: r}, nil
}

// openAppend implements OpenAppend, returning a cause for pathErr.
func (r *Root) openAppend(name string) (*os.File, error) {
	f, err := r.root.OpenFile(name, appendFlags|os.O_CREATE|os.O_EXCL, appendPerm)
	if err == nil {
		return f, nil // a new, empty regular file: nothing to check
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	// The name exists. Judge the entry itself first, so a link is refused
	// rather than followed.
	fi, err := r.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if err := r.checkAppendable(fi); err != nil {
		return nil, err
	}
	// Without O_CREATE the open creates nothing, even if a link was
	// swapped in since the Lstat (os.Root would follow it, inside the
	// root); the checks below then refuse what it reached.
	f, err = r.root.OpenFile(name, appendFlags, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) { // a FIFO without a reader, or a socket
			return nil, ErrNotRegular
		}
		return nil, err
	}
	opened, err := f.Stat()
	if err == nil {
		// Judged by its handle, which counts links on every system.
		var st sysStat
		if st, err = handleStat(f); err == nil {
			err = r.Refuses(statInfo("", "", &st))
		}
	}
	if err == nil {
		// The handle must be the entry the name holds now, not a file a
		// swapped-in link led to.
		var now fs.FileInfo
		if now, err = r.root.Lstat(name); err == nil && !os.SameFile(opened, now) {
			err = ErrNotRegular
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkAppendable refuses a symbolic link, then whatever [Root.Refuses]
// refuses.
func (r *Root) checkAppendable(fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return ErrNotRegular
	}
	return r.Refuses(newInfo("", fi))
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
