package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Sentinel errors. fsroot wraps them, together with the root-relative name,
// in an [*fs.PathError]; test for them with [errors.Is].
var (
	// ErrEscapes reports a name that would leave the root: a ".." that
	// climbs above it, an absolute symbolic link, or a link whose target
	// leads outside.
	ErrEscapes = errors.New("path escapes the root")
	// ErrNotRegular reports a FIFO, socket, device or directory where a
	// regular file is needed.
	ErrNotRegular = errors.New("not a regular file")
	// ErrHardLink reports a regular file with more than one hard link while
	// [Options.AllowHardLinks] is false.
	ErrHardLink = errors.New("file has more than one hard link")
	// ErrTooLarge reports a file, or a file plus appended data, above the
	// caller's size limit.
	ErrTooLarge = errors.New("file is too large")
	// ErrIsRoot reports an attempt to remove, move, or overwrite the root.
	ErrIsRoot = errors.New("operation not allowed on the root")
	// ErrNotEmpty reports a non-recursive removal of a non-empty directory.
	ErrNotEmpty = errors.New("directory is not empty")
	// ErrIsDir reports a directory where a file or a replaceable entry is
	// needed.
	ErrIsDir = errors.New("is a directory")
	// ErrNotDir reports a non-directory where a directory is needed.
	ErrNotDir = errors.New("not a directory")
	// ErrInvalid reports a name that fails [fs.ValidPath], contains a NUL
	// byte or is too long, and a chain of symbolic links that is too long
	// (a loop).
	ErrInvalid = errors.New("invalid name")
	// ErrLoop reports a chain of symbolic links too long to follow, such as
	// a loop; such an error also matches [ErrInvalid].
	ErrLoop = errors.New("too many levels of symbolic links")
	// ErrConflict reports a conditional write, removal or rename that found
	// the file not holding the [Version] it was given; the cause is a
	// [*ConflictError] carrying the version found.
	ErrConflict = errors.New("file changed since it was read")
	// ErrInUse reports a file another program holds open in a way that
	// keeps others from changing it (a Windows sharing mode, a running
	// program's file); an atomic write that meets it changes nothing.
	ErrInUse = errors.New("file is in use by another program")
)

// multiError prints as msg and matches every error in errs under
// [errors.Is], so one failure can carry a sentinel and the errno behind it.
type multiError struct {
	msg  string
	errs []error
}

func (e *multiError) Error() string   { return e.msg }
func (e *multiError) Unwrap() []error { return e.errs }

// withCause returns an error printed as sentinel's message that matches
// sentinel and each of causes.
func withCause(sentinel error, causes ...error) error {
	return &multiError{msg: sentinel.Error(), errs: append([]error{sentinel}, causes...)}
}

// errLoop reports more than maxSymlinks links on one name. It is an invalid
// name: retrying cannot make it resolve.
var errLoop = &multiError{msg: ErrLoop.Error(), errs: []error{ErrLoop, ErrInvalid, fs.ErrInvalid, syscall.ELOOP}}

// pathErr builds the error every method returns: op, the root-relative
// name, and a cause free of host paths.
func (r *Root) pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: r.cause(err)}
}

// cause strips the path-carrying wrappers os puts around an error (their
// paths may be host paths, as with a handle opened through an os.Root) and
// maps what remains onto fsroot's sentinels. Errors built by fsroot and
// context errors pass through.
func (r *Root) cause(err error) error {
	for {
		var next error
		switch e := err.(type) {
		case *fs.PathError:
			next = e.Err
		case *os.LinkError:
			next = e.Err
		case *os.SyscallError:
			next = e.Err
		}
		if next == nil {
			break
		}
		err = next
	}
	errno, ok := err.(syscall.Errno)
	if !ok {
		return err
	}
	if errno == errnoInUse {
		return withCause(ErrInUse, errno)
	}
	switch errno {
	case syscall.ELOOP:
		return errLoop
	case errnoNotDir:
		return withCause(ErrNotDir, errno)
	case syscall.EISDIR:
		return withCause(ErrIsDir, errno)
	case syscall.ENOTEMPTY:
		return withCause(ErrNotEmpty, errno)
	case syscall.ENAMETOOLONG:
		return &multiError{msg: errno.Error(), errs: []error{ErrInvalid, fs.ErrInvalid, errno}}
	}
	return errno
}

// invalidName is the cause for a name that fails validation; it also
// matches [fs.ErrInvalid] so [Root.FS] follows the io/fs convention.
var invalidName = &multiError{msg: ErrInvalid.Error(), errs: []error{ErrInvalid, fs.ErrInvalid}}

// escapingName is the cause for a name whose ".." components climb above
// the root: invalid as a name, and an escape attempt.
var escapingName = &multiError{msg: ErrEscapes.Error(), errs: []error{ErrInvalid, fs.ErrInvalid, ErrEscapes}}
