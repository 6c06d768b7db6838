package fsroot

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
)

// CopyFile copies the regular file src reached to name in r, atomically,
// and returns the copy's [Version] and its size in bytes. src may come
// from a lookup in r or in another Root: the bytes are read through the
// directory handle src holds, as [Entry.ReadFile] reads them (so what is
// copied is what the caller judged: a special file, a directory, a file
// with more than one hard link unless src's Root allows them, or a link
// swapped in since the lookup, is refused), and streamed, never held
// whole, to a synced temporary file in name's directory that is then
// linked or renamed into place: readers of name see nothing or the whole
// copy, and a failure leaves no partial file. The copy has the source's
// permission bits (never setuid, setgid or sticky), regardless of the
// umask.
//
// Without overwrite, the copy is linked to name as [Root.CreateFile]
// links, exclusively: any entry at name, a dangling link included, gives
// [fs.ErrExist]. With overwrite, it is renamed over whatever is at name as
// [Root.Rename] renames: a symbolic link is replaced, never followed or
// written through, a file with other hard links keeps its content under
// its other names, and a directory gives [ErrIsDir]. The parent must
// exist.
//
// At most max bytes are copied (max <= 0 means [DefaultMaxFileSize]): a
// larger source gives [ErrTooLarge], from its size before anything is
// written, or from the bytes read when it grew meanwhile. ctx is checked
// between 64 KiB pieces. Errors about the source name src's name (the name
// looked up); errors about the destination name name. Other errors:
// [ErrInvalid], [ErrIsRoot], [ErrEscapes], [fs.ErrNotExist], [ErrNotDir],
// [fs.ErrPermission], ctx.Err().
func (r *Root) CopyFile(ctx context.Context, src *Entry, name string, overwrite bool, max int64) (string, int64, error) {
	if err := checkName(name); err != nil {
		return "", 0, r.pathErr("copy", name, err)
	}
	if name == "." {
		return "", 0, r.pathErr("copy", name, ErrIsRoot)
	}
	dst, err := r.lookupLink(name)
	if err != nil {
		return "", 0, r.pathErr("copy", name, err)
	}
	defer dst.Close()
	return dst.CopyFrom(ctx, src, overwrite, max)
}

// CopyFrom is [Root.CopyFile] into the Entry (of [Root.LookupLink]), in
// the directory its lookup ended in: the copy lands where the caller
// judged, even if a folder on the way was swapped for a link since.
func (dst *Entry) CopyFrom(ctx context.Context, src *Entry, overwrite bool, max int64) (string, int64, error) {
	r, name := dst.r, dst.name
	if dst.path == "." {
		return "", 0, r.pathErr("copy", name, ErrIsRoot)
	}
	if max <= 0 {
		max = DefaultMaxFileSize
	}
	if err := ctx.Err(); err != nil {
		return "", 0, src.r.pathErr("read", src.name, err)
	}
	fd, info, err := src.open()
	if err != nil {
		return "", 0, src.r.pathErr("read", src.name, err)
	}
	defer closeHandle(fd)
	if info.Size > max {
		return "", 0, src.r.pathErr("read", src.name, ErrTooLarge)
	}
	switch {
	case dst.exists && !overwrite:
		return "", 0, r.pathErr("copy", name, fs.ErrExist)
	case dst.exists && dst.info.Type == TypeDir:
		return "", 0, r.pathErr("copy", name, ErrIsDir)
	}
	var (
		h       VersionHash
		n       int64
		readErr error
	)
	// As in CreateFile, the temporary file lives and dies in one
	// directory handle: the one the lookup of name ended in.
	err = dst.at(func(dir handle, elem string) error {
		tmp, err := r.writeTempWith(dir, info.Mode.Perm(), func(f *os.File) error {
			var err error
			n, err = copyBounded(ctx, f, fdReader(fd), &h, info.Size, max)
			var we *writeError
			if errors.As(err, &we) {
				return we.err
			}
			readErr = err
			return err
		})
		if err != nil {
			return err
		}
		defer r.done(tmp)
		if overwrite {
			err = renameFD(dir, tmp, dir, elem)
		} else {
			err = linkFD(dir, tmp, dir, elem)
		}
		if err != nil || !overwrite {
			removeFD(dir, tmp, false)
		}
		if err == nil {
			syncFD(dir)
		}
		return err
	})
	if readErr != nil {
		return "", 0, src.r.pathErr("read", src.name, readErr)
	}
	if err != nil {
		// A rename replaces anything but a directory (swapped in since
		// the lookup).
		if err = r.cause(err); errors.Is(err, fs.ErrExist) && overwrite {
			err = withCause(ErrIsDir, err)
		}
		return "", 0, r.pathErr("copy", name, err)
	}
	return h.Version(), n, nil
}

// writeError is a failure to write the copy, as opposed to reading the
// source.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// copyBounded copies src to dst and h, at most limit bytes (more gives
// ErrTooLarge), checking ctx between pieces, and returns how many bytes
// it copied. size is the reported size, a guess for the buffer. A failure
// to write dst is a *writeError.
func copyBounded(ctx context.Context, dst io.Writer, src io.Reader, h *VersionHash, size, limit int64) (int64, error) {
	// As in Scan: a buffer of the reported size plus a byte, within
	// [512 B, readChunk].
	buf := make([]byte, min(max(size+1, 512), readChunk))
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, err := src.Read(buf)
		if total += int64(n); total > limit {
			return total, ErrTooLarge
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return total, &writeError{werr}
			}
			h.Write(buf[:n])
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// Mkdir creates the one directory name with permission 0o755 (before the
// umask); its parent must exist. Unlike [Root.MkdirAll] it fails with
// [fs.ErrExist] when anything is at name, a directory or a link to one
// included (a link is never followed), so a caller that succeeds knows the
// directory is its own to remove again. Errors: [ErrInvalid],
// [ErrEscapes], [fs.ErrExist] (also for "."), [fs.ErrNotExist],
// [ErrNotDir], [fs.ErrPermission].
func (r *Root) Mkdir(name string) error {
	if name == "." {
		return r.pathErr("mkdir", name, fs.ErrExist)
	}
	e, err := r.lookupLink(name)
	if err != nil {
		return r.pathErr("mkdir", name, err)
	}
	defer e.Close()
	return e.Mkdir()
}

// Mkdir makes the one directory the Entry (of [Root.LookupLink]) names,
// in the directory the lookup ended in, as [Root.Mkdir] does.
func (e *Entry) Mkdir() error {
	err := fs.ErrExist
	if !e.exists && e.path != "." {
		err = e.at(func(dir handle, elem string) error { return mkdirFD(dir, elem, dirPerm) })
	}
	if err != nil {
		return e.r.pathErr("mkdir", e.name, err) // EEXIST matches fs.ErrExist
	}
	return nil
}
