package fsroot

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path"
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

// writeTemp writes chunks to a new temporary file in the directory d,
// sets perm on the open handle, syncs it, and returns its name in d. On
// failure nothing is left behind.
//
// The file stays open, and flock'ed, until the caller calls r.done once
// it has linked, renamed or removed it, so that [Root.CleanTemp], in this
// process or another server's on the same folder, leaves it alone.
func (r *Root) writeTemp(ctx context.Context, d *os.Root, perm fs.FileMode, chunks ...[]byte) (string, error) {
	return r.writeTempWith(d, perm, func(f *os.File) error { return writeAll(ctx, f, chunks) })
}

// writeTempWith is writeTemp with the content written by fill, which
// writes to the new file and checks the context itself.
func (r *Root) writeTempWith(d *os.Root, perm fs.FileMode, fill func(f *os.File) error) (string, error) {
	tmp := TempPrefix + rand.Text()
	// Recorded before it exists, so this process's sweep never sees it unrecorded.
	r.writing.Store(tmp, (*os.File)(nil))
	f, err := d.OpenFile(tmp, tempFlags, 0o600)
	if err != nil {
		r.done(tmp)
		return "", err
	}
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
		removeIn(d, tmp)
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

// syncDir flushes the directory d so a link or rename in it survives a
// crash. It is best effort: the new content is already in place, and some
// filesystems refuse to sync directories.
func syncDir(d *os.Root) {
	f, err := d.OpenFile(".", dirFlags, 0)
	if err != nil {
		return
	}
	f.Sync()
	f.Close()
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
	if err := checkName(name); err != nil {
		return r.pathErr("create", name, err)
	}
	if name == "." {
		return r.pathErr("create", name, ErrIsRoot)
	}
	if perm == 0 {
		perm = defaultPerm
	}
	// The temporary file lives and dies in the directory handle opened
	// here: if the directory's name is swapped meanwhile, the file is
	// still linked or removed where it was written, never left behind.
	d, err := r.root.OpenRoot(path.Dir(name))
	if err != nil {
		return r.pathErr("create", name, err)
	}
	defer d.Close()
	tmp, err := r.writeTemp(ctx, d, perm.Perm(), data)
	if err != nil {
		return r.pathErr("create", name, err)
	}
	err = d.Link(tmp, path.Base(name))
	removeIn(d, tmp)
	r.done(tmp)
	if err != nil {
		return r.pathErr("create", name, err)
	}
	syncDir(d)
	return nil
}

// writeTarget looks name up for WriteFile and AppendFile: the file a
// write reaches, which need not exist unless mustExist. The caller closes
// the Entry. The error is a cause for pathErr.
func (r *Root) writeTarget(name string, mustExist bool) (*Entry, error) {
	if name == "." {
		return nil, ErrIsRoot
	}
	e, err := r.lookup(name)
	if err != nil {
		return nil, err
	}
	switch {
	case e.path == ".":
		err = ErrIsRoot
	case !e.exists && mustExist:
		err = fs.ErrNotExist
	case !e.exists && e.dangling:
		// Never create the target of a dangling link, even inside the
		// root: the link's author chose that name, not the caller.
		err = ErrNotRegular
	case e.exists:
		err = r.Refuses(e.info)
	}
	if err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// replace atomically replaces the root-relative target with chunks: a
// synced temporary file with permission perm in target's directory is
// renamed over it. rename(2) replaces the entry and never writes through
// it, so a link swapped in at target is replaced, not followed. If
// c.version is set, the file at target is checked against it after the
// temporary file is written and right before the rename, through the same
// directory handle, so the check is the last thing before the replace.
func (r *Root) replace(ctx context.Context, target string, perm fs.FileMode, c cond, chunks ...[]byte) error {
	// As in CreateFile, the temporary file is handled through one
	// directory handle, so a swapped directory name cannot strand it.
	d, err := r.root.OpenRoot(path.Dir(target))
	if err != nil {
		return err
	}
	defer d.Close()
	tmp, err := r.writeTemp(ctx, d, perm, chunks...)
	if err != nil {
		return err
	}
	defer r.done(tmp)
	if c.version != "" {
		if r.beforeCheck != nil {
			r.beforeCheck()
		}
		if err := r.holdsIn(ctx, d, path.Base(target), c); err != nil {
			removeIn(d, tmp)
			return err
		}
	}
	if err := d.Rename(tmp, path.Base(target)); err != nil {
		removeIn(d, tmp)
		return err
	}
	syncDir(d)
	return nil
}

// holdsIn is holds in the directory d.
func (r *Root) holdsIn(ctx context.Context, d *os.Root, elem string, c cond) error {
	f, err := d.OpenFile(".", dirFlags, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return control(f, func(dirfd handle) error { return r.holds(ctx, dirfd, elem, c) })
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
	if err := checkName(name); err != nil {
		return r.pathErr("write", name, err)
	}
	e, err := r.writeTarget(name, c.version != "")
	if err != nil {
		return r.pathErr("write", name, err)
	}
	defer e.Close()
	perm := defaultPerm
	if e.exists {
		perm = e.info.Mode.Perm()
	}
	if err := r.replace(ctx, e.path, perm, c, data); err != nil {
		return r.pathErr("write", name, err)
	}
	return nil
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
	if err := checkName(name); err != nil {
		return "", r.pathErr("append", name, err)
	}
	if c.max <= 0 {
		c.max = DefaultMaxFileSize
	}
	if int64(len(data)) > c.max {
		return "", r.pathErr("append", name, ErrTooLarge)
	}
	e, err := r.writeTarget(name, true)
	if err != nil {
		return "", r.pathErr("append", name, err)
	}
	defer e.Close()
	fd, info, err := e.open()
	if err != nil {
		return "", r.pathErr("append", name, err)
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
		err = r.replace(ctx, e.path, info.Mode.Perm(), c, old, data)
	}
	if err != nil {
		return "", r.pathErr("append", name, err)
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
	if err := checkName(name); err != nil {
		return r.pathErr("mkdir", name, err)
	}
	if name == "." {
		return nil
	}
	err := r.root.MkdirAll(name, dirPerm)
	if err == nil {
		return nil
	}
	err = r.cause(r.onTheWay(name, err))
	if errors.Is(err, syscall.EEXIST) || errors.Is(err, errnoNotDir) {
		err = withCause(ErrNotDir, fs.ErrExist, err)
	}
	return r.pathErr("mkdir", name, err)
}

// Remove removes the file, symbolic link (never its target) or empty
// directory name. A non-empty directory needs recursive, else it gives
// [ErrNotEmpty]; recursion never follows links. Errors: [ErrInvalid],
// [ErrIsRoot] (for "."), [ErrEscapes], [fs.ErrNotExist],
// [fs.ErrPermission].
func (r *Root) Remove(name string, recursive bool) error {
	if err := checkName(name); err != nil {
		return r.pathErr("remove", name, err)
	}
	if name == "." {
		return r.pathErr("remove", name, ErrIsRoot)
	}
	fi, err := r.root.Lstat(name)
	if err != nil {
		return r.pathErr("remove", name, err)
	}
	if fi.IsDir() && recursive {
		err = removeAllIn(r.root, name)
	} else {
		err = removeIn(r.root, name)
	}
	if err != nil {
		err = r.cause(err)
		if fi.IsDir() && errors.Is(err, syscall.EEXIST) { // rmdir's other answer
			err = withCause(ErrNotEmpty, err)
		}
		return r.pathErr("remove", name, err)
	}
	return nil
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
	if err := r.checkVersion(ctx, "remove", name, cond{version, max}); err != nil {
		return err
	}
	return r.Remove(name, false)
}

// RenameIf is [Root.Rename] on a condition: if version is not empty,
// oldname must reach a regular file holding content of that [Version], as
// for [Root.RemoveIf], else nothing moves and the error matches
// [ErrConflict].
func (r *Root) RenameIf(ctx context.Context, oldname, newname string, overwrite bool, version string, max int64) error {
	if err := r.checkVersion(ctx, "rename", oldname, cond{version, max}); err != nil {
		return err
	}
	return r.Rename(oldname, newname, overwrite)
}

// checkVersion checks that name reaches a regular file holding c.version,
// if set, for the operation op.
func (r *Root) checkVersion(ctx context.Context, op, name string, c cond) error {
	if c.version == "" {
		return nil
	}
	if err := checkName(name); err != nil {
		return r.pathErr(op, name, err)
	}
	e, err := r.lookup(name)
	if err != nil {
		return r.pathErr(op, name, err)
	}
	defer e.Close()
	if e.path == "." {
		return r.pathErr(op, name, ErrIsRoot)
	}
	if err := e.check(ctx, c); err != nil {
		return r.pathErr(op, name, err)
	}
	return nil
}

// Rename moves oldname to newname. A symbolic link is moved as the link,
// and a link at newname is replaced, never written through. If newname
// exists, Rename fails with [fs.ErrExist] unless overwrite; overwriting a
// directory gives [ErrIsDir]. Without overwrite the move is atomic where
// the system and filesystem can rename without replacing (Linux's
// renameat2 with RENAME_NOREPLACE, macOS's renameatx_np with
// RENAME_EXCL), so an entry created at newname meanwhile is never
// replaced. The parent of newname must exist. Errors: [ErrInvalid] (also
// for moving a directory into itself), [ErrIsRoot] (either name "."),
// [ErrEscapes], [fs.ErrNotExist], [ErrNotDir], [ErrNotEmpty],
// [fs.ErrPermission].
func (r *Root) Rename(oldname, newname string, overwrite bool) error {
	for _, name := range []string{oldname, newname} {
		if err := checkName(name); err != nil {
			return r.pathErr("rename", name, err)
		}
		if name == "." {
			return r.pathErr("rename", name, ErrIsRoot)
		}
	}
	if _, err := r.root.Lstat(oldname); err != nil {
		return r.pathErr("rename", oldname, err)
	}
	fi, err := r.root.Lstat(newname)
	switch {
	case err == nil && !overwrite:
		return r.pathErr("rename", newname, fs.ErrExist)
	case err == nil && fi.IsDir():
		return r.pathErr("rename", newname, ErrIsDir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return r.pathErr("rename", newname, err)
	}
	if overwrite {
		err = r.root.Rename(oldname, newname)
	} else {
		err = r.renameNoReplace(oldname, newname)
	}
	if err != nil {
		err = r.cause(err)
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, errnoInvalid) {
			err = withCause(ErrInvalid, err)
		}
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// renameNoReplace renames without replacing (renameatNoReplace) relative
// to the two parent directories, opened through the root. Base names of
// valid names are single components other than "." and "..", and the call
// follows no link in them, so this cannot leave the root. Where the filesystem lacks
// the flag it falls back to a plain rename, after the existence check
// Rename already made.
func (r *Root) renameNoReplace(oldname, newname string) error {
	od, err := r.root.OpenFile(path.Dir(oldname), dirFlags, 0)
	if err != nil {
		return err
	}
	defer od.Close()
	nd, err := r.root.OpenFile(path.Dir(newname), dirFlags, 0)
	if err != nil {
		return err
	}
	defer nd.Close()
	err = control(od, func(ofd handle) error {
		return control(nd, func(nfd handle) error {
			return renameatNoReplace(ofd, path.Base(oldname), nfd, path.Base(newname))
		})
	})
	if err == syscall.EINVAL || err == syscall.ENOSYS || err == syscall.ENOTSUP {
		return r.root.Rename(oldname, newname)
	}
	return err
}
