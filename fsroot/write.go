package fsroot

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"syscall"
)

const (
	// defaultPerm is the permission of a new file when none is given: the
	// usual umask-022 result, readable by the user's other tools.
	defaultPerm fs.FileMode = 0o644
	// dirPerm is the permission of directories MkdirAll creates (before
	// the umask), the usual default.
	dirPerm fs.FileMode = 0o755
	// writeChunk is how much is written between context checks.
	writeChunk = 1 << 20
)

// writeTemp writes chunks to a new temporary file in the directory dir,
// sets perm on the open handle, syncs it, and returns its name in dir. On
// failure nothing is left behind.
//
// The file stays open, and locked, until the caller calls r.done once it
// has linked, renamed or removed it, so that [Root.CleanTemp], in this
// process or another server's on the same folder, leaves it alone.
func (r *Root) writeTemp(ctx context.Context, dir handle, perm fs.FileMode, chunks ...[]byte) (string, error) {
	return r.writeTempWith(dir, perm, func(f *os.File) error { return writeAll(ctx, f, chunks) })
}

// writeTempWith is writeTemp with the content written by fill, which
// writes to the new file and checks the context itself.
func (r *Root) writeTempWith(dir handle, perm fs.FileMode, fill func(f *os.File) error) (string, error) {
	tmp := TempPrefix + rand.Text()
	// Recorded before it exists, so this process's sweep never sees it unrecorded.
	r.writing.Store(tmp, (*os.File)(nil))
	fd, err := createFD(dir, tmp, 0o600)
	if err != nil {
		r.done(tmp)
		return "", err
	}
	f := os.NewFile(uintptr(fd), tmp)
	// Before anything else: another server's sweep finds it held from
	// here on (one that ran in the instant since the open could still
	// remove it, and this write would then fail, changing nothing).
	err = tryFlock(f)
	if err == nil {
		err = fill(f)
	}
	if err == nil {
		err = f.Chmod(perm) // on the handle: the name could be swapped
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		removeFD(dir, tmp, false)
		f.Close()
		r.done(tmp)
		return "", err
	}
	r.writing.Store(tmp, f)
	return tmp, nil
}

// done closes a temporary file, letting go of its lock, once it has been
// linked, renamed or removed.
func (r *Root) done(tmp string) {
	if f, ok := r.writing.LoadAndDelete(tmp); ok && f.(*os.File) != nil {
		f.(*os.File).Close()
	}
}

// writeAll writes chunks to f, checking ctx every writeChunk bytes.
func writeAll(ctx context.Context, f *os.File, chunks [][]byte) error {
	for _, c := range chunks {
		for len(c) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(len(c), writeChunk)
			if _, err := f.Write(c[:n]); err != nil {
				return err
			}
			c = c[n:]
		}
	}
	return ctx.Err()
}

// at runs fn with the handle of the directory that holds the entry, or
// would hold it once created, and the entry's name there: every write of
// an Entry acts through it, so what it changes is what the lookup found,
// whatever the names on the way lead to by then. It fails with
// [ErrIsRoot] for the root, [fs.ErrNotExist] when a directory on the way
// is missing, and [os.ErrClosed] once the Entry is closed.
func (e *Entry) at(fn func(dir handle, elem string) error) error {
	switch {
	case e.closed:
		return os.ErrClosed
	case e.path == ".":
		return ErrIsRoot
	case e.elem == "":
		// A directory reached through a link ending in "..": it exists,
		// and no entry of its parent was named.
		return fs.ErrExist
	case len(e.rest) > 0:
		return fs.ErrNotExist
	}
	return e.dirs.do(func(dir handle) error { return fn(dir, e.elem) })
}

// CreateFile creates name with data, exclusively and atomically: the data
// is written and synced to a temporary file in the same directory, which
// is then hard-linked to name and removed. The link fails with
// [fs.ErrExist] if any entry exists at name, a dangling symbolic link
// included, so a link to a missing file outside never creates that file,
// and readers never see a partial file. perm (permission bits only; 0
// means 0o644) is set exactly, regardless of the umask. The parent must
// exist, and the filesystem must support hard links. While the link is
// made the new file briefly has two links, so a concurrent read of it may
// fail with [ErrHardLink]. Errors: [ErrInvalid], [ErrIsRoot], [ErrEscapes],
// [fs.ErrExist], [fs.ErrNotExist], [ErrNotDir], [fs.ErrPermission],
// ctx.Err().
func (r *Root) CreateFile(ctx context.Context, name string, data []byte, perm fs.FileMode) error {
	e, err := r.entryOf("create", name)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.CreateFile(ctx, data, perm)
}

// entryOf looks name up for op, which acts on the entry itself (a final
// link not followed), refusing the root: the caller closes the Entry.
func (r *Root) entryOf(op, name string) (*Entry, error) {
	if name == "." {
		return nil, r.pathErr(op, name, ErrIsRoot)
	}
	e, err := r.lookupLink(name)
	if err != nil {
		return nil, r.pathErr(op, name, err)
	}
	return e, nil
}

// CreateFile creates the file the Entry names, as [Root.CreateFile] does,
// in the directory the lookup ended in: [fs.ErrExist] if the lookup found
// anything there (a link to a missing file included), or if anything has
// appeared there since.
func (e *Entry) CreateFile(ctx context.Context, data []byte, perm fs.FileMode) error {
	if err := e.create(ctx, data, perm); err != nil {
		return e.r.pathErr("create", e.name, err)
	}
	return nil
}

// create implements Entry.CreateFile, returning a cause for pathErr.
func (e *Entry) create(ctx context.Context, data []byte, perm fs.FileMode) error {
	if e.exists || e.dangling {
		return fs.ErrExist
	}
	if perm == 0 {
		perm = defaultPerm
	}
	// The temporary file lives and dies in the one directory handle, so
	// a directory swapped meanwhile cannot strand it.
	return e.at(func(dir handle, elem string) error {
		tmp, err := e.r.writeTemp(ctx, dir, perm.Perm(), data)
		if err != nil {
			return err
		}
		err = linkFD(dir, tmp, dir, elem)
		removeFD(dir, tmp, false)
		e.r.done(tmp)
		if err == nil {
			syncFD(dir)
		}
		return err
	})
}

// writable refuses what a write through the Entry must not replace: the
// root, a missing file when mustExist, the missing target of a dangling
// link (its author chose that name, not the caller), and whatever
// [Root.Refuses] refuses.
func (e *Entry) writable(mustExist bool) error {
	switch {
	case e.path == ".":
		return ErrIsRoot
	case !e.exists && mustExist:
		return fs.ErrNotExist
	case !e.exists && e.dangling:
		return ErrNotRegular
	case e.exists:
		return e.r.Refuses(e.info)
	}
	return nil
}

// replace atomically replaces the entry with chunks: a synced temporary
// file with permission perm in the entry's directory is renamed over it.
// A rename replaces the entry and never writes through it, so a link
// swapped in meanwhile is replaced, not followed. If c.version is set, the
// file is checked against it after the temporary file is written and
// right before the rename, through the same directory handle, so the
// check is the last thing before the replace.
func (e *Entry) replace(ctx context.Context, perm fs.FileMode, c cond, chunks ...[]byte) error {
	r := e.r
	return e.at(func(dir handle, elem string) error {
		tmp, err := r.writeTemp(ctx, dir, perm, chunks...)
		if err != nil {
			return err
		}
		defer r.done(tmp)
		if c.version != "" {
			if r.beforeCheck != nil {
				r.beforeCheck()
			}
			if err := r.holds(ctx, dir, elem, c); err != nil {
				removeFD(dir, tmp, false)
				return err
			}
		}
		if err := renameFD(dir, tmp, dir, elem); err != nil {
			removeFD(dir, tmp, false)
			return err
		}
		syncFD(dir)
		return nil
	})
}

// WriteFile atomically replaces the content of name with data, or creates
// it with permission 0o644. name is resolved first ([Root.Resolve]): a
// symbolic link inside the root to a regular file is written through to
// its target and kept. An existing target keeps its permission bits and
// must be a regular file ([ErrNotRegular], [ErrIsDir]) with one link
// unless allowed ([ErrHardLink]). A dangling link gives [ErrNotRegular]
// and creates nothing. The data is written and synced to a temporary file
// beside the target, which is renamed over it; on any failure the old file
// is untouched and the temporary file removed. Concurrent writers do not
// mix: the last rename wins whole. Other errors: [ErrInvalid], [ErrIsRoot],
// [ErrEscapes], [fs.ErrNotExist] (missing parent), [ErrNotDir],
// [fs.ErrPermission], ctx.Err().
func (r *Root) WriteFile(ctx context.Context, name string, data []byte) error {
	return r.writeFile(ctx, name, data, cond{})
}

// WriteFileIf is [Root.WriteFile] on a condition: if version is not
// empty, name must be an existing regular file (or a link to one) holding
// content of that [Version] when it is replaced, else nothing is written
// and the error matches [ErrConflict], its cause a [*ConflictError] with
// the version found; a file missing by then gives [fs.ErrNotExist]. The
// file is checked after the new content is written to the temporary file,
// right before the rename: see the package doc for the window that
// remains. The check reads at most max bytes (max <= 0 means
// [DefaultMaxFileSize]); a larger file is a conflict. WriteFileIf returns
// the version of data. Other errors as for WriteFile.
func (r *Root) WriteFileIf(ctx context.Context, name string, data []byte, version string, max int64) (string, error) {
	if err := r.writeFile(ctx, name, data, cond{version, max}); err != nil {
		return "", err
	}
	return Version(data), nil
}

// writeFile implements WriteFile and WriteFileIf.
func (r *Root) writeFile(ctx context.Context, name string, data []byte, c cond) error {
	e, err := r.lookup(name)
	if err != nil {
		return r.pathErr("write", name, err)
	}
	defer e.Close()
	if err := e.writeFile(ctx, data, c); err != nil {
		return r.pathErr("write", name, err)
	}
	return nil
}

// WriteFileIf replaces the file the Entry reached, or creates it if the
// lookup found nothing there, as [Root.WriteFileIf] does, in the
// directory the lookup ended in, and returns the version of data.
func (e *Entry) WriteFileIf(ctx context.Context, data []byte, version string, max int64) (string, error) {
	if err := e.writeFile(ctx, data, cond{version, max}); err != nil {
		return "", e.r.pathErr("write", e.name, err)
	}
	return Version(data), nil
}

// writeFile implements the writes of WriteFile and WriteFileIf,
// returning a cause for pathErr.
func (e *Entry) writeFile(ctx context.Context, data []byte, c cond) error {
	if err := e.writable(c.version != ""); err != nil {
		return err
	}
	perm := defaultPerm
	if e.exists {
		perm = e.info.Mode.Perm()
	}
	return e.replace(ctx, perm, c, data)
}

// AppendFile appends data to the existing regular file name, atomically:
// it reads the file and replaces it with old content plus data, as
// [Root.WriteFile] does, keeping its permission bits. If the result would
// exceed max bytes (max <= 0 means [DefaultMaxFileSize]) it fails with
// [ErrTooLarge] before writing. A missing file, or a dangling link, gives
// [fs.ErrNotExist]. A concurrent writer between the read and the replace
// loses its change: callers hold [Root.Lock] of name around the append
// (and whatever they read before it), or use [Root.AppendFileIf]. Other
// errors as for WriteFile and [Root.ReadFile].
func (r *Root) AppendFile(ctx context.Context, name string, data []byte, max int64) error {
	_, err := r.appendFile(ctx, name, data, cond{max: max})
	return err
}

// AppendFileIf is [Root.AppendFile] on a condition: if version is not
// empty, the content read before appending must have that [Version], and
// the file must still hold it right before the replace (as for
// [Root.WriteFileIf]), else nothing is written and the error matches
// [ErrConflict]. It returns the version of the file's new content, what
// was read plus data.
func (r *Root) AppendFileIf(ctx context.Context, name string, data []byte, version string, max int64) (string, error) {
	return r.appendFile(ctx, name, data, cond{version, max})
}

// appendFile implements AppendFile and AppendFileIf; c.max is the size
// limit.
func (r *Root) appendFile(ctx context.Context, name string, data []byte, c cond) (string, error) {
	e, err := r.lookup(name)
	if err != nil {
		return "", r.pathErr("append", name, err)
	}
	defer e.Close()
	v, err := e.appendFile(ctx, data, c)
	if err != nil {
		return "", r.pathErr("append", name, err)
	}
	return v, nil
}

// AppendFileIf appends data to the existing regular file the Entry
// reached, as [Root.AppendFileIf] does, in the directory the lookup ended
// in.
func (e *Entry) AppendFileIf(ctx context.Context, data []byte, version string, max int64) (string, error) {
	v, err := e.appendFile(ctx, data, cond{version, max})
	if err != nil {
		return "", e.r.pathErr("append", e.name, err)
	}
	return v, nil
}

// appendFile implements the appends, returning a cause for pathErr.
func (e *Entry) appendFile(ctx context.Context, data []byte, c cond) (string, error) {
	if c.max <= 0 {
		c.max = DefaultMaxFileSize
	}
	if int64(len(data)) > c.max {
		return "", ErrTooLarge
	}
	if err := e.writable(true); err != nil {
		return "", err
	}
	fd, info, err := e.open()
	if err != nil {
		return "", err
	}
	var old []byte
	if info.Size > c.max {
		err = ErrTooLarge
	} else {
		old, err = readBounded(ctx, fdReader(fd), info.Size, c.max)
	}
	closeHandle(fd)
	var h VersionHash
	if c.version != "" {
		// The condition comes first: a file that changed is a conflict
		// whatever its size, and one past max was never read whole.
		if errors.Is(err, ErrTooLarge) {
			err = &ConflictError{}
		} else if err == nil {
			h.Write(old)
			err = c.compare(h.Version())
		}
	}
	if err == nil && int64(len(old)) > c.max-int64(len(data)) {
		err = ErrTooLarge
	}
	if err == nil {
		err = e.replace(ctx, info.Mode.Perm(), c, old, data)
	}
	if err != nil {
		return "", err
	}
	if c.version == "" {
		h.Write(old)
	}
	h.Write(data)
	return h.Version(), nil
}

// MkdirAll creates the directory name and any missing parents with
// permission 0o755 (before the umask). An existing directory, or a link
// inside the root to one, is fine. A non-directory at name or at a parent
// gives an error matching both [ErrNotDir] and [fs.ErrExist]. Other
// errors: [ErrInvalid], [ErrEscapes], [fs.ErrPermission].
func (r *Root) MkdirAll(name string) error {
	if name == "." {
		return nil
	}
	e, err := r.lookup(name)
	if err != nil {
		return r.pathErr("mkdir", name, r.mkdirCause(err))
	}
	defer e.Close()
	return e.MkdirAll()
}

// mkdirCause is err, a failure of MkdirAll, as its callers test it: a
// non-directory in the way matches both [ErrNotDir] and [fs.ErrExist].
func (r *Root) mkdirCause(err error) error {
	err = r.cause(err)
	if errors.Is(err, syscall.EEXIST) || errors.Is(err, ErrNotDir) {
		err = withCause(ErrNotDir, fs.ErrExist, err)
	}
	return err
}

// MkdirAll creates the directory the Entry (of [Root.Lookup]) names and
// any missing parents, as [Root.MkdirAll] does, from the directory the
// lookup ended in: what is made lies below what the caller judged, even
// if a folder on the way was swapped for a link since. Errors as for
// Root.MkdirAll.
func (e *Entry) MkdirAll() error {
	if e.path == "." {
		return nil
	}
	if err := e.mkdirAll(); err != nil {
		return e.r.pathErr("mkdir", e.name, e.r.mkdirCause(err))
	}
	return nil
}

// mkdirAll creates the directories the Entry names that are missing, one
// below the other from the directory the lookup ended in, never following
// a link: one made at a missing name meanwhile fails with EEXIST.
func (e *Entry) mkdirAll() error {
	switch {
	case e.exists && e.info.Type == TypeDir:
		return nil
	case e.exists || e.dangling:
		return syscall.EEXIST // a file, or a link to nothing
	}
	return e.dirs.do(func(dir handle) error {
		cur := noHandle // the last directory made, opened
		defer func() {
			if cur != noHandle {
				closeHandle(cur)
			}
		}()
		for _, elem := range append([]string{e.elem}, e.rest...) {
			if err := mkdirFD(dir, elem, dirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			next, err := openDirFD(dir, elem)
			if cur != noHandle {
				closeHandle(cur)
				cur = noHandle
			}
			if errors.Is(err, syscall.ELOOP) {
				err = syscall.EEXIST
			}
			if err != nil {
				return err
			}
			cur, dir = next, next
		}
		return nil
	})
}

// Remove removes the file, symbolic link (never its target) or empty
// directory name. A non-empty directory needs recursive, else it gives
// [ErrNotEmpty]; recursion never follows links. Errors: [ErrInvalid],
// [ErrIsRoot] (for "."), [ErrEscapes], [fs.ErrNotExist],
// [fs.ErrPermission].
func (r *Root) Remove(name string, recursive bool) error {
	e, err := r.entryOf("remove", name)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.Remove(recursive)
}

// remove removes the entry from the directory the lookup ended in;
// recursively, what spare spares stays (see removeAllFD).
func (e *Entry) remove(recursive bool, spare func(string, bool) bool) error {
	if !e.exists {
		return fs.ErrNotExist
	}
	isDir := e.info.Type == TypeDir
	return e.at(func(dir handle, elem string) error {
		if isDir && recursive {
			return removeAllFD(dir, elem, e.path, spare)
		}
		return removeFD(dir, elem, isDir)
	})
}

// RemoveIf removes name, a regular file or a symbolic link to one (the
// link, never its target), on a condition: if version is not empty, the
// file name reaches must hold content of that [Version], else nothing is
// removed and the error matches [ErrConflict], its cause a
// [*ConflictError] with the version found. The file is read (at most max
// bytes, max <= 0 meaning [DefaultMaxFileSize]; a larger file is a
// conflict) right before the removal; see the package doc for the window
// that remains. A directory gives [ErrIsDir]. Other errors as for
// [Root.Remove] and [Root.ReadFile].
func (r *Root) RemoveIf(ctx context.Context, name, version string, max int64) error {
	e, err := r.entryOf("remove", name)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.RemoveIf(ctx, version, max)
}

// LookupLink is [Root.Lookup] without following a final symbolic link:
// the Entry is then the link itself, as lstat(2) sees it, for
// [Entry.Remove] and [Entry.RenameIf], which act on the link. Reads and
// writes of content through such an Entry refuse a link with
// [ErrNotRegular].
func (r *Root) LookupLink(name string) (*Entry, error) {
	e, err := r.lookupLink(name)
	if err != nil {
		return nil, r.pathErr("lookup", name, err)
	}
	return e, nil
}

// Remove removes what the Entry found, as [Root.Remove] does, from the
// directory the lookup ended in: a link itself from an Entry of
// [Root.LookupLink], what it led to from one of [Root.Lookup].
func (e *Entry) Remove(recursive bool) error {
	if err := e.remove(recursive, nil); err != nil {
		return e.r.pathErr("remove", e.name, err)
	}
	return nil
}

// RemoveAll removes the directory the Entry found and everything in it,
// as [Entry.Remove] with recursive does, but for the entries spare names:
// it is asked about each entry below the directory, by its root-relative
// path ([Entry.Path] joined with the names below it) and whether it is a
// directory, before that entry is touched. The first entry it spares
// stops the removal with [ErrNotEmpty], leaving that entry and the
// folders that hold it (the entries removed before it stay removed:
// judge the tree before, and let spare catch what appeared since).
func (e *Entry) RemoveAll(spare func(path string, isDir bool) bool) error {
	below := func(p string, isDir bool) bool { return p != e.path && spare(p, isDir) } // the folder itself was judged
	if err := e.remove(true, below); err != nil {
		return e.r.pathErr("remove", e.name, err)
	}
	return nil
}

// RemoveIf is [Entry.Remove] of a file, or a link to one, on the
// condition of [Root.RemoveIf].
func (e *Entry) RemoveIf(ctx context.Context, version string, max int64) error {
	if err := e.checkVersion(ctx, cond{version, max}); err != nil {
		return e.r.pathErr("remove", e.name, err)
	}
	return e.Remove(false)
}

// RenameIf is [Root.RenameIf] of the entries: what e found (a link
// itself, from [Root.LookupLink]) moves to the name dst found, between
// the directory handles the two lookups hold.
func (e *Entry) RenameIf(ctx context.Context, dst *Entry, overwrite bool, version string, max int64) error {
	if err := e.checkVersion(ctx, cond{version, max}); err != nil {
		return e.r.pathErr("rename", e.name, err)
	}
	return e.renameTo(dst, overwrite)
}

// RenameIf is [Root.Rename] on a condition: if version is not empty,
// oldname must reach a regular file holding content of that [Version], as
// for [Root.RemoveIf], else nothing moves and the error matches
// [ErrConflict].
func (r *Root) RenameIf(ctx context.Context, oldname, newname string, overwrite bool, version string, max int64) error {
	src, dst, err := r.renameEntries(oldname, newname)
	if err != nil {
		return err
	}
	defer src.Close()
	defer dst.Close()
	return src.RenameIf(ctx, dst, overwrite, version, max)
}

// checkVersion checks that the file the Entry found, or the file a link
// it found leads to, holds c.version, if set. The error is a cause for
// pathErr.
func (e *Entry) checkVersion(ctx context.Context, c cond) error {
	switch {
	case c.version == "":
		return nil
	case e.path == ".":
		return ErrIsRoot
	case !e.exists || e.info.Type != TypeSymlink:
		return e.check(ctx, c)
	}
	t, err := e.r.lookup(e.name)
	if err != nil {
		return err
	}
	defer t.Close()
	return t.check(ctx, c)
}

// Rename moves oldname to newname. A symbolic link is moved as the link,
// and a link at newname is replaced, never written through. If newname
// exists, Rename fails with [fs.ErrExist] unless overwrite; overwriting a
// directory gives [ErrIsDir]. Without overwrite the move is atomic where
// the system and filesystem can rename without replacing (Linux's
// renameat2 with RENAME_NOREPLACE, macOS's renameatx_np with
// RENAME_EXCL, Windows's FileRenameInformation), so an entry created at
// newname meanwhile is never replaced. The parent of newname must exist.
// Both names are looked up once ([Root.Lookup], a final link not
// followed), and the entry moves between the directory handles those
// lookups hold. Errors: [ErrInvalid] (also for moving a directory into
// itself), [ErrIsRoot] (either name "."), [ErrEscapes], [fs.ErrNotExist],
// [ErrNotDir], [ErrNotEmpty], [fs.ErrPermission].
func (r *Root) Rename(oldname, newname string, overwrite bool) error {
	src, dst, err := r.renameEntries(oldname, newname)
	if err != nil {
		return err
	}
	defer src.Close()
	defer dst.Close()
	return src.renameTo(dst, overwrite)
}

// renameEntries looks up the two names of a rename, neither following a
// final link. The caller closes both.
func (r *Root) renameEntries(oldname, newname string) (src, dst *Entry, err error) {
	for _, name := range []string{oldname, newname} {
		if err := checkName(name); err != nil {
			return nil, nil, r.pathErr("rename", name, err)
		}
		if name == "." {
			return nil, nil, r.pathErr("rename", name, ErrIsRoot)
		}
	}
	if src, err = r.lookupLink(oldname); err != nil {
		return nil, nil, r.pathErr("rename", oldname, err)
	}
	if dst, err = r.lookupLink(newname); err != nil {
		src.Close()
		return nil, nil, r.pathErr("rename", newname, err)
	}
	return src, dst, nil
}

// renameTo moves what e found to the name dst found, as Rename does.
func (e *Entry) renameTo(dst *Entry, overwrite bool) error {
	r := e.r
	switch {
	case !e.exists:
		return r.pathErr("rename", e.name, fs.ErrNotExist)
	case dst.exists && !overwrite:
		return r.pathErr("rename", dst.name, fs.ErrExist)
	case dst.exists && dst.info.Type == TypeDir:
		return r.pathErr("rename", dst.name, ErrIsDir)
	}
	err := e.at(func(od handle, oe string) error {
		return dst.at(func(nd handle, ne string) error {
			if overwrite {
				return renameFD(od, oe, nd, ne)
			}
			err := renameatNoReplace(od, oe, nd, ne)
			if err == syscall.EINVAL || err == syscall.ENOSYS || err == syscall.ENOTSUP {
				// The filesystem lacks the flag: a plain rename, after
				// the existence check above.
				return renameFD(od, oe, nd, ne)
			}
			return err
		})
	})
	if err != nil {
		err = r.cause(err)
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, errnoInvalid) {
			err = withCause(ErrInvalid, err)
		}
		return &os.LinkError{Op: "rename", Old: e.name, New: dst.name, Err: err}
	}
	return nil
}
