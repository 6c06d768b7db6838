package fsroot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	"syscall"
)

// versionBytes is how much of a content's SHA-256 a version keeps: 8
// bytes, 16 hex digits. Short enough for a model to copy back without
// slips; two contents of one file share a version with odds of 2^-64,
// far beyond any run of edits (this guards against accidents, not an
// adversary who can write the file anyway).
const versionBytes = 8

// Version returns the version of the content data: the first 16 hex
// digits of its SHA-256. It depends on the bytes alone, not on times or
// names, so a file saved again unchanged keeps its version. The
// conditional writes ([Root.WriteFileIf], [Root.AppendFileIf],
// [Root.RemoveIf], [Root.RenameIf]) compare a file against it.
func Version(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:versionBytes])
}

// VersionHash computes a [Version] over content written to it in pieces,
// such as those [Entry.Scan] passes, so a caller that streams a file
// learns its version without holding it. The zero value is ready to use.
type VersionHash struct{ h hash.Hash }

// Write adds p to the content; it never fails.
func (v *VersionHash) Write(p []byte) (int, error) {
	if v.h == nil {
		v.h = sha256.New()
	}
	return v.h.Write(p)
}

// Version returns the [Version] of everything written so far.
func (v *VersionHash) Version() string {
	if v.h == nil {
		return Version(nil)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(v.h.Sum(sum[:0])[:versionBytes])
}

// ConflictError is the cause of a conditional write, removal or rename
// that found the file not holding the version it was given: the file
// changed since the caller read it. It matches [ErrConflict] under
// [errors.Is].
type ConflictError struct {
	// Current is the version the file holds now, or "" if it grew past
	// the bound the check reads.
	Current string
}

// Error says that the file changed, and what version it has now.
func (e *ConflictError) Error() string {
	if e.Current == "" {
		return ErrConflict.Error() + " (now larger than the size limit)"
	}
	return fmt.Sprintf("%s (now version %s)", ErrConflict, e.Current)
}

// Is reports whether target is [ErrConflict].
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// cond is the precondition of a write: the version the file must hold,
// none if empty, and how many bytes of it the check reads at most.
type cond struct {
	version string
	max     int64
}

// compare returns nil if current is the version c asks for, else the
// conflict.
func (c cond) compare(current string) error {
	if current != c.version {
		return &ConflictError{Current: current}
	}
	return nil
}

// holds checks that the entry elem of the directory descriptor dirfd is a
// regular file holding version c.version. It opens elem without following
// a link and judges the handle as reads do, so a link, FIFO or device
// swapped in gives [ErrNotRegular] (and a hard link [ErrHardLink]);
// nothing there gives [fs.ErrNotExist]; other content gives a
// [*ConflictError]. The error is a cause for pathErr.
func (r *Root) holds(ctx context.Context, dirfd handle, elem string, c cond) error {
	fd, err := openFileFD(dirfd, elem)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return withCause(ErrNotRegular, syscall.ELOOP)
	case errors.Is(err, syscall.ENXIO): // a socket
		return ErrNotRegular
	case err != nil:
		return err
	}
	defer closeHandle(fd)
	st, err := fstatFD(fd)
	if err != nil {
		return err
	}
	if err := r.Refuses(statInfo(elem, elem, &st)); err != nil {
		return err
	}
	v, err := versionOf(ctx, fdReader(fd), st.size, c.max)
	if err != nil {
		return err
	}
	return c.compare(v)
}

// versionOf reads f, whose reported size is size, to the end and returns
// the version of what it read. A file beyond limit bytes (limit <= 0 means
// [DefaultMaxFileSize]) cannot hold content any read within the limit
// returned, so it is a conflict with no current version. ctx is checked
// between chunks.
func versionOf(ctx context.Context, f io.Reader, size, limit int64) (string, error) {
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	var h VersionHash
	// As in Entry.Scan: the reported size, plus a byte to meet the end,
	// within [512 B, readChunk].
	buf := make([]byte, min(max(size+1, 512), readChunk))
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := f.Read(buf)
		if total += int64(n); total > limit {
			return "", &ConflictError{}
		}
		h.Write(buf[:n])
		if err == io.EOF {
			return h.Version(), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// check checks that the regular file the Entry reached holds version
// c.version, opening it as [Entry.ReadFile] does. The error is a cause for
// pathErr, as for holds.
func (e *Entry) check(ctx context.Context, c cond) error {
	fd, info, err := e.open()
	if err != nil {
		return err
	}
	defer closeHandle(fd)
	v, err := versionOf(ctx, fdReader(fd), info.Size, c.max)
	if err != nil {
		return err
	}
	return c.compare(v)
}
