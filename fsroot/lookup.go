package fsroot

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"syscall"
)

// heldDirs bounds the directory handles one lookup keeps open: the
// heldDirs deepest levels, and every heldDirs-th level as a checkpoint. A
// ".." in a link's text then steps back to an open handle, or reopens at
// most heldDirs-1 levels from a checkpoint, while a name 2,000 levels deep
// holds about 100 descriptors rather than 2,000.
const heldDirs = 32

// Entry is what a name reached in one [Root.Lookup]: the path it led to
// after following symbolic links inside the root, whether something is
// there, what it is, and the open handle of the directory that holds it,
// (or would hold it, for a name not there yet), through which
// [Entry.ReadFile] and [Entry.Scan] open it and [Entry.WriteFileIf],
// [Entry.AppendFileIf] and [Entry.CreateFile] write it. Close it when
// done. An Entry is not safe for concurrent use.
type Entry struct {
	r    *Root
	name string // as asked, for Info.Path and errors
	path string
	// exists reports that the entry was there at the lookup; info is
	// then its lstat (never a link: links were followed).
	exists bool
	info   Info
	id     fileID // of what was found, when exists
	// dangling reports a missing entry reached through a symbolic link.
	dangling bool
	// dirs ends with the directory holding the entry, whose name in it is
	// elem; elem is "" when the entry is that directory itself (the
	// root, or a name whose links end in ".."). For a missing entry, elem
	// is the first missing component in the deepest directory there is,
	// and rest the components below it, if any (then no folder holds the
	// entry yet: only MkdirAll can reach it).
	dirs dirStack
	elem string
	rest []string
	// link, set before the lookup, makes a final symbolic link the entry
	// itself rather than a link to follow (as lstat(2) does): for
	// removals and renames, which act on the link.
	link bool
	// closed reports that Close let go of dirs: the Entry can no longer
	// open anything.
	closed bool
}

// Lookup resolves name as [Root.Resolve] does, following symbolic links
// inside the root component by component, in one pass: each component is
// opened (a directory) or stat'ed (the last) relative to the handle of the
// directory before it, so the work grows with the depth of name, not with
// its square, and no component is resolved twice. The returned [Entry]
// holds the handle of the directory where the name ended, so reading the
// file afterwards ([Entry.ReadFile]) opens it there, without resolving the
// name again: what a caller judged by [Entry.Path] is what it reads.
//
// A name that cannot be resolved is an error: [ErrInvalid], [ErrEscapes],
// [ErrLoop], [ErrNotDir] (a non-directory followed by more components),
// [fs.ErrNotExist] (a missing directory followed by ".." in a link's
// text), [fs.ErrPermission] (a directory that cannot be opened). A missing
// last component, or missing trailing part, is not: the Entry's Info then
// fails with [fs.ErrNotExist], and Path is what a create would produce.
func (r *Root) Lookup(name string) (*Entry, error) {
	e, err := r.lookup(name)
	if err != nil {
		return nil, r.pathErr("lookup", name, err)
	}
	return e, nil
}

// Path returns the root-relative path the name reached, as [Root.Resolve]
// does: "." for the root.
func (e *Entry) Path() string { return e.path }

// Info describes what was at [Entry.Path] at the lookup (Info.Path is the
// name looked up; never a link, since links were followed). If nothing
// was, it fails with [fs.ErrNotExist].
func (e *Entry) Info() (Info, error) {
	if !e.exists {
		return Info{}, e.r.pathErr("stat", e.name, fs.ErrNotExist)
	}
	return e.info, nil
}

// Close releases the directory handle the Entry holds; reading through
// the Entry afterwards fails with [os.ErrClosed]. Close never fails; it
// returns an error to be an [io.Closer].
func (e *Entry) Close() error {
	e.dirs.close()
	e.closed = true
	return nil
}

// ReadFile reads the regular file the Entry reached, as [Root.ReadFile]
// does and with the same errors, and returns its content and the open
// handle's Info (Info.Path is the name looked up). The file is opened in
// the directory the lookup ended in, without following a link: a link
// swapped in since the lookup gives [ErrNotRegular].
func (e *Entry) ReadFile(ctx context.Context, max int64) ([]byte, Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, Info{}, e.r.pathErr("read", e.name, err)
	}
	if max <= 0 {
		max = DefaultMaxFileSize
	}
	fd, info, err := e.open()
	if err != nil {
		return nil, Info{}, e.r.pathErr("read", e.name, err)
	}
	defer closeHandle(fd)
	if info.Size > max {
		return nil, Info{}, e.r.pathErr("read", e.name, ErrTooLarge)
	}
	data, err := readBounded(ctx, fdReader(fd), info.Size, max)
	if err != nil {
		return nil, Info{}, e.r.pathErr("read", e.name, err)
	}
	return data, info, nil
}

// Scan reads the regular file the Entry reached, opened as
// [Entry.ReadFile] opens it, in pieces of at most 64 KiB, passing each to
// fn, which must not keep it: the buffer is reused. It reads at most limit
// bytes (limit <= 0 means [DefaultMaxFileSize]) and fails with
// [ErrTooLarge] beyond them, so a caller can compute over a file without
// holding it whole; fn may then have seen part of it. ctx is checked
// between pieces. It returns the open handle's Info, and the errors of
// ReadFile or fn's.
func (e *Entry) Scan(ctx context.Context, limit int64, fn func(piece []byte) error) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, e.r.pathErr("read", e.name, err)
	}
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	fd, info, err := e.open()
	if err != nil {
		return Info{}, e.r.pathErr("read", e.name, err)
	}
	defer closeHandle(fd)
	if info.Size > limit {
		return Info{}, e.r.pathErr("read", e.name, ErrTooLarge)
	}
	// A buffer of the reported size, plus a byte to meet the end, within
	// [512 B, readChunk]: the size is only a guess.
	buf := make([]byte, min(max(info.Size+1, 512), readChunk))
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return Info{}, e.r.pathErr("read", e.name, err)
		}
		n, err := fdReader(fd).Read(buf)
		if total += int64(n); total > limit {
			return Info{}, e.r.pathErr("read", e.name, ErrTooLarge)
		}
		if n > 0 {
			if ferr := fn(buf[:n]); ferr != nil {
				return Info{}, ferr
			}
		}
		if err == io.EOF {
			return info, nil
		}
		if err != nil {
			return Info{}, e.r.pathErr("read", e.name, err)
		}
	}
}

// Head reads at most n bytes from the start of the regular file the Entry reached, opened as
// [Entry.ReadFile] opens it, whatever the file's size: what a caller sniffs to tell text from
// binary. It returns fewer bytes only at the end of the file.
func (e *Entry) Head(n int) ([]byte, error) {
	fd, _, err := e.open()
	if err != nil {
		return nil, e.r.pathErr("read", e.name, err)
	}
	defer closeHandle(fd)
	buf := make([]byte, n)
	got, err := io.ReadFull(fdReader(fd), buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, e.r.pathErr("read", e.name, err)
	}
	return buf[:got], nil
}

// open opens the regular file the Entry reached for reading and returns
// its descriptor, which the caller closes, and the handle's Info. It
// judges what the lookup saw first, so a device or a FIFO is never
// opened, then the open handle, which is the check that counts. The error
// is a cause for pathErr.
func (e *Entry) open() (handle, Info, error) {
	if e.closed {
		return noHandle, Info{}, os.ErrClosed
	}
	if !e.exists {
		return noHandle, Info{}, fs.ErrNotExist
	}
	if err := e.r.Refuses(e.info); err != nil {
		return noHandle, Info{}, err
	}
	var fd handle
	err := e.dirs.do(func(dir handle) error {
		var err error
		fd, err = openFileFD(dir, e.elem)
		return err
	})
	switch {
	case errors.Is(err, syscall.ELOOP):
		// A link swapped in since the lookup: it is not followed, since
		// the name was judged by where it led then.
		return noHandle, Info{}, withCause(ErrNotRegular, syscall.ELOOP)
	case errors.Is(err, syscall.ENXIO): // a socket
		return noHandle, Info{}, ErrNotRegular
	case err != nil:
		return noHandle, Info{}, err
	}
	st, err := fstatFD(fd)
	if err != nil {
		closeHandle(fd)
		return noHandle, Info{}, err
	}
	info := statInfo(e.name, path.Base(e.name), &st)
	if err := e.r.Refuses(info); err != nil {
		closeHandle(fd)
		return noHandle, Info{}, err
	}
	return fd, info, nil
}

// openDir opens the directory the Entry reached, as a handle the caller
// closes. The error is a cause for pathErr.
func (e *Entry) openDir() (handle, error) {
	if e.closed {
		return noHandle, os.ErrClosed
	}
	if !e.exists {
		return noHandle, fs.ErrNotExist // else an empty stack and name would open the root itself
	}
	var fd handle
	err := e.dirs.do(func(dir handle) error {
		elem := e.elem
		if elem == "" {
			// The directory itself: a new open file description, since a
			// duplicate of dir would share its read position.
			elem = "."
		}
		var err error
		fd, err = openDirFD(dir, elem)
		return err
	})
	if errors.Is(err, syscall.ELOOP) {
		// A link swapped in since the lookup: not followed.
		err = withCause(ErrNotDir, syscall.ELOOP)
	}
	return fd, err
}

// lookup implements Lookup, returning a cause for pathErr on failure.
func (r *Root) lookup(name string) (*Entry, error) { return r.lookupAs(name, false) }

// lookupLink is lookup that does not follow a final symbolic link: the
// Entry is then the link itself, as for lstat(2).
func (r *Root) lookupLink(name string) (*Entry, error) { return r.lookupAs(name, true) }

// lookupAs implements lookup and lookupLink.
func (r *Root) lookupAs(name string, link bool) (*Entry, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	e := &Entry{r: r, name: name, dirs: dirStack{r: r}, link: link}
	if err := e.resolve(); err != nil {
		e.dirs.close()
		return nil, err
	}
	return e, nil
}

// pending is a path component still to resolve; viaLink marks those that
// came from a link's target rather than from the name itself.
type pending struct {
	elem    string
	viaLink bool
}

// real reports whether p names something to resolve: not "" or ".".
func (p pending) real() bool { return p.elem != "" && p.elem != "." }

// resolve walks e.name: it enters every directory on the way, follows
// links by putting their text in place of their name, and stops at the
// last component, which it stats. The walk is the kernel's: ".." steps
// back to the directory the walk came from (a link's text is relative to
// the link's directory), a non-directory cannot be followed by anything,
// not even a trailing "/" from a link's text, and more than maxSymlinks
// links fail.
func (e *Entry) resolve() error {
	d := &e.dirs
	var todo []pending
	for elem := range strings.SplitSeq(e.name, "/") {
		todo = append(todo, pending{elem: elem})
	}
	links := 0
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		switch p.elem {
		case "", ".":
			continue
		case "..":
			if len(d.names) == 0 {
				return ErrEscapes
			}
			d.pop()
			continue
		}
		last := !slices.ContainsFunc(todo, pending.real)
		if !last {
			// Most components on the way are directories: one openat
			// enters them. Only when it fails does a stat tell a link
			// from a file.
			err := d.enter(p.elem)
			switch {
			case err == nil:
				continue
			case errors.Is(err, syscall.ELOOP) || errors.Is(err, errnoNotDir):
				// A link or a file: the stat below tells which.
			case errors.Is(err, fs.ErrNotExist):
				return e.missing(p, todo)
			default:
				return err
			}
		}
		var st sysStat
		err := d.do(func(dir handle) error {
			s, stored, err := lstatNameFD(dir, p.elem)
			if err == nil {
				st, p.elem = s, stored // named as the volume stores it, as enter does
			}
			return err
		})
		if errors.Is(err, fs.ErrNotExist) {
			return e.missing(p, todo)
		}
		if err != nil {
			return err
		}
		switch {
		case st.mode&fs.ModeSymlink != 0 && e.link && len(todo) == 0 && !p.viaLink:
			return e.found(p.elem, &st) // the name's own last component, not followed
		case st.mode&fs.ModeSymlink != 0:
			if links++; links > maxSymlinks {
				return errLoop
			}
			var target string
			err := d.do(func(dir handle) error {
				var err error
				target, err = readlinkFD(dir, p.elem)
				return err
			})
			if errors.Is(err, syscall.EINVAL) {
				// Replaced by a non-link after the stat: look again.
				todo = append([]pending{p}, todo...)
				continue
			}
			if err != nil {
				return err
			}
			if target == "" || absLink(target) {
				return ErrEscapes
			}
			var expanded []pending
			for elem := range strings.SplitSeq(target, "/") {
				expanded = append(expanded, pending{elem: elem, viaLink: true})
			}
			todo = append(expanded, todo...)
		case st.mode.IsDir():
			if !last {
				// Not a directory when entered, one now: look again.
				// links, counted, bounds the retries.
				if links++; links > maxSymlinks {
					return errLoop
				}
				todo = append([]pending{p}, todo...)
				continue
			}
			return e.found(p.elem, &st)
		default:
			// The kernel refuses anything after a non-directory, even a
			// trailing "/" or "/." from a link's text.
			if len(todo) > 0 {
				return ErrNotDir
			}
			return e.found(p.elem, &st)
		}
	}
	// The name ended on a directory entered (or the root): the entry is
	// that directory itself.
	var st sysStat
	if err := d.do(func(dir handle) error {
		var err error
		st, err = fstatFD(dir)
		return err
	}); err != nil {
		return err
	}
	return e.found("", &st)
}

// found records the entry elem of the deepest directory (the directory
// itself if elem is ""), described by st, and lets go of the handles of
// the directories above it.
func (e *Entry) found(elem string, st *sysStat) error {
	if err := e.dirs.keepLast(); err != nil {
		return err
	}
	e.exists, e.elem = true, elem
	e.path = e.dirs.join(elem)
	e.info = statInfo(e.name, path.Base(e.name), st)
	e.id = st.id
	return nil
}

// missing records that component p of the deepest directory does not
// exist: Path is that directory joined with p and the rest. A rest with
// ".." is refused: as an escape if it climbs above the root, otherwise as
// missing, because the kernel cannot pass through a missing directory.
// The Entry keeps the handle of that directory, where a write creates p.
func (e *Entry) missing(p pending, todo []pending) error {
	elems := append(slices.Clone(e.dirs.names), p.elem)
	dangling := p.viaLink
	dotdot := false
	var rest []string
	for _, t := range todo {
		dangling = dangling || t.viaLink
		dotdot = dotdot || t.elem == ".."
		elems = append(elems, t.elem)
		if t.real() {
			rest = append(rest, t.elem)
		}
	}
	joined := path.Join(elems...)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return ErrEscapes
	}
	if dotdot {
		return fs.ErrNotExist
	}
	if err := e.dirs.keepLast(); err != nil {
		return err
	}
	e.path, e.dangling = joined, dangling
	e.elem, e.rest = p.elem, rest
	return nil
}

// dirStack is the chain of directories a lookup entered below the root:
// names[i] was entered from level i-1 (the root for i = 0), and fds[i] is
// its handle, or noHandle while closed to save descriptors.
type dirStack struct {
	r     *Root
	names []string
	fds   []handle
}

// do runs fn with the handle of the deepest directory (the root's when
// none was entered), reopening it if it was closed.
func (d *dirStack) do(fn func(dir handle) error) error {
	k := len(d.names) - 1
	if k < 0 {
		return d.r.atRoot(fn)
	}
	if d.fds[k] == noHandle {
		if err := d.reopen(k); err != nil {
			return err
		}
	}
	return fn(d.fds[k])
}

// enter opens the subdirectory name of the deepest directory, without
// following a link, and makes it the deepest. It closes the handle of the
// level leaving the window of held handles, unless that is a checkpoint.
func (d *dirStack) enter(name string) error {
	var fd handle
	err := d.do(func(dir handle) error {
		var err error
		fd, err = openDirFD(dir, name)
		return err
	})
	if err != nil {
		return err
	}
	// The path names the folder as the volume stores it, never by an alias, so that what the
	// caller judges by Entry.Path is the folder's own name.
	if name, err = storedName(fd, name); err != nil {
		closeHandle(fd)
		return err
	}
	d.names = append(d.names, name)
	d.fds = append(d.fds, fd)
	if k := len(d.fds) - 1 - heldDirs; k >= 0 && (k+1)%heldDirs != 0 && d.fds[k] != noHandle {
		closeHandle(d.fds[k])
		d.fds[k] = noHandle
	}
	return nil
}

// reopen reopens level k, closed to save descriptors, and the closed levels
// above it, by name from the nearest level still open (or the root),
// without following links.
func (d *dirStack) reopen(k int) error {
	j := k - 1
	for j >= 0 && d.fds[j] == noHandle {
		j--
	}
	for i := j + 1; i <= k; i++ {
		var fd handle
		open := func(dir handle) error {
			var err error
			fd, err = openDirFD(dir, d.names[i])
			return err
		}
		var err error
		if i == 0 {
			err = d.r.atRoot(open)
		} else {
			err = open(d.fds[i-1])
		}
		if err != nil {
			return err
		}
		d.fds[i] = fd
	}
	return nil
}

// pop leaves the deepest directory.
func (d *dirStack) pop() {
	k := len(d.names) - 1
	if d.fds[k] != noHandle {
		closeHandle(d.fds[k])
	}
	d.names, d.fds = d.names[:k], d.fds[:k]
}

// keepLast makes sure the deepest directory is open and closes the others,
// which a lookup no longer needs once it has found its entry.
func (d *dirStack) keepLast() error {
	k := len(d.names) - 1
	if k < 0 {
		return nil
	}
	if d.fds[k] == noHandle {
		if err := d.reopen(k); err != nil {
			return err
		}
	}
	for i, fd := range d.fds[:k] {
		if fd != noHandle {
			closeHandle(fd)
			d.fds[i] = noHandle
		}
	}
	return nil
}

// join returns the root-relative path of the entry elem of the deepest
// directory ("" for the directory itself).
func (d *dirStack) join(elem string) string {
	p := path.Join(append(slices.Clip(d.names), elem)...)
	if p == "" {
		return "."
	}
	return p
}

// close closes every handle still open; the stack then names the root.
func (d *dirStack) close() {
	for _, fd := range d.fds {
		if fd != noHandle {
			closeHandle(fd)
		}
	}
	d.names, d.fds = nil, nil
}
