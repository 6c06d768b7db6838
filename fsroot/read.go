package fsroot

import (
	"context"
	"io"
	"math"
	"os"
	"path"
	"slices"
	"strings"
)

const (
	// DefaultMaxFileSize is the largest file the server reads or writes
	// unless configured otherwise, and the limit [Root.ReadFile] and
	// [Root.AppendFile] use when given max <= 0. 10 MiB is more than any
	// document an agent edits (one answer carries at most a few hundred
	// KiB of it), and small enough that one call, which holds a file a few
	// times over while it decodes, checks and encodes it, cannot exhaust
	// the server's memory. It is defined here, in the lowest package, so
	// every other one refers to this one value.
	DefaultMaxFileSize = 10 << 20
	// DefaultMaxDirEntries is the entry limit [Root.ReadDir] uses when
	// given max <= 0, so one listing stays bounded in time and memory.
	DefaultMaxDirEntries = 100_000
	// readChunk is how much ReadFile reads between context checks: big
	// enough to keep system calls few, small enough to notice a
	// cancellation promptly.
	readChunk = 64 << 10
	// dirBatch is how many entries a directory read fetches at once, so a
	// huge directory is never read in one allocation and the context is
	// checked between batches.
	dirBatch = 1024
)

// ReadFile reads the regular file name, at most max bytes (max <= 0 means
// [DefaultMaxFileSize]), and returns its content and the open handle's
// Info (Info.Path is name). It is [Root.Lookup] then [Entry.ReadFile].
//
// The file is opened through the root without blocking, and the handle is
// checked: not a regular file gives [ErrNotRegular] (with [ErrIsDir] for a
// directory), more than one hard link gives [ErrHardLink] unless allowed,
// a reported size above max gives [ErrTooLarge] at once. The read itself
// stops after max+1 bytes whatever the reported size, so a file that grows
// or lies about its size also gives [ErrTooLarge]. ctx is checked between
// 64 KiB chunks. Other errors: [ErrInvalid], [ErrEscapes],
// [fs.ErrNotExist], [fs.ErrPermission].
func (r *Root) ReadFile(ctx context.Context, name string, max int64) ([]byte, Info, error) {
	if err := checkName(name); err != nil {
		return nil, Info{}, r.pathErr("read", name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, Info{}, r.pathErr("read", name, err)
	}
	e, err := r.lookup(name)
	if err != nil {
		return nil, Info{}, r.pathErr("read", name, err)
	}
	defer e.Close()
	return e.ReadFile(ctx, max)
}

// readBounded reads f to the end, failing with ErrTooLarge beyond max
// bytes. size is the reported size (at most max), used only as a first
// capacity guess.
func readBounded(ctx context.Context, f io.Reader, size, max int64) ([]byte, error) {
	max = min(max, math.MaxInt-1) // max+1 must not overflow
	// One spare byte lets a file of exactly size bytes hit EOF without
	// growing the buffer.
	buf := make([]byte, 0, min(size, max)+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			grown := min(int64(cap(buf))*2, max+1)
			buf = slices.Grow(buf, int(grown)-len(buf))
		}
		end := min(cap(buf), len(buf)+readChunk)
		n, err := f.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadDir lists the directory name (following symbolic links inside the
// root), sorted by entry name, each entry with Lstat information
// (Info.Path is path.Join(name, entry); a link's Info.Target holds its
// text). Entries starting with [TempPrefix] are hidden, and entries that
// vanish while listing are skipped. At most max entries are returned (max
// <= 0 means [DefaultMaxDirEntries]); truncated reports that more exist,
// in which case the entries returned are an arbitrary subset. ctx is
// checked between batches. Errors: [ErrInvalid], [ErrEscapes],
// [fs.ErrNotExist], [ErrNotDir], [fs.ErrPermission].
func (r *Root) ReadDir(ctx context.Context, name string, max int) (entries []Info, truncated bool, err error) {
	if max <= 0 {
		max = DefaultMaxDirEntries
	}
	dir, err := r.openDir(name)
	if err != nil {
		return nil, false, r.pathErr("readdir", name, err)
	}
	defer dir.Close()
	entries, truncated, err = listDir(ctx, dir, name, max, false)
	if err != nil {
		return nil, false, r.pathErr("readdir", name, err)
	}
	sortInfos(entries)
	return entries, truncated, nil
}

// listDir reads up to max entries (max < 0: all) of the open directory
// dir, reached at the root-relative name, in directory order, with Lstat
// information. Info.Path is path.Join(name, entry), or empty if name is
// empty (Walk builds paths itself, so deep trees do not keep a long path
// per entry). It hides TempPrefix entries unless withTemp, and reports
// whether entries were left unread.
func listDir(ctx context.Context, dir *os.File, name string, max int, withTemp bool) ([]Info, bool, error) {
	var out []Info
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		batch, eof, err := readBatch(dir, name, withTemp)
		if err != nil {
			return nil, false, err
		}
		if max >= 0 && len(out)+len(batch) > max {
			return append(out, batch[:max-len(out)]...), true, nil
		}
		out = append(out, batch...)
		if eof {
			return out, false, nil
		}
	}
}

// readBatch reads the next dirBatch names of dir and returns the entries
// listDir would, and whether the directory is exhausted.
func readBatch(dir *os.File, name string, withTemp bool) ([]Info, bool, error) {
	names, err := dir.Readdirnames(dirBatch)
	if err == io.EOF || (err == nil && len(names) == 0) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := make([]Info, 0, len(names))
	for _, entry := range names {
		if !withTemp && strings.HasPrefix(entry, TempPrefix) {
			continue
		}
		st, err := statAt(dir, entry)
		if err != nil {
			continue // vanished
		}
		p := ""
		if name != "" {
			p = path.Join(name, entry)
		}
		info := statInfo(p, entry, &st)
		if info.Type == TypeSymlink {
			if info.Target, err = readlinkAt(dir, entry); err != nil {
				continue // vanished or replaced
			}
		}
		out = append(out, info)
	}
	return out, false, nil
}

// openDir looks name up and opens the directory it reaches, following
// links inside the root, as an *os.File the caller closes. The error is a
// cause for pathErr.
func (r *Root) openDir(name string) (*os.File, error) {
	e, err := r.lookup(name)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if e.exists && e.info.Type != TypeDir {
		return nil, ErrNotDir
	}
	fd, err := e.openDir()
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}
