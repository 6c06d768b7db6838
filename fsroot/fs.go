package fsroot

import (
	"io"
	"io/fs"
	"os"
	"path"
	"time"
)

// FS returns a read-only [fs.FS] over the root, for packages that read
// files (search, indexing) and can then be tested with fstest.MapFS.
// Opening a regular file goes through the same lookup, non-blocking open
// and regular-file and hard-link checks as [Root.ReadFile]; directories can be
// opened and read with ReadDir (hiding [TempPrefix] entries); FIFOs,
// sockets and devices give [ErrNotRegular]. Names follow [fs.ValidPath];
// errors are [*fs.PathError] values with root-relative names. It does not
// bound file sizes: wrap it, or check Stat, before reading everything.
func (r *Root) FS() fs.FS { return rootFS{r: r} }

// JudgedFS is [Root.FS] for a caller with a policy: Open hands judge the
// name it was given, the path that name reached through symbolic links
// inside the root, and whether a directory is there, and opens nothing
// judge refuses. The open then goes through that same lookup, so a name
// judged by what it reached cannot read something else (a file swapped
// for a link to a refused one is refused, or not followed). judge's error
// is the [*fs.PathError]'s Err.
func (r *Root) JudgedFS(judge func(name, reached string, isDir bool) error) fs.FS {
	return rootFS{r: r, judge: judge}
}

type rootFS struct {
	r     *Root
	judge func(name, reached string, isDir bool) error // nil: everything
}

// Open implements [fs.FS]: one [Root.Lookup] of name, judged (JudgedFS),
// then an open of what it reached in the directory where the lookup ended.
func (fsys rootFS) Open(name string) (fs.File, error) {
	r := fsys.r
	e, err := r.lookup(name)
	if err != nil {
		return nil, r.pathErr("open", name, err)
	}
	defer e.Close()
	if fsys.judge != nil && e.exists {
		if err := fsys.judge(name, e.path, e.info.Type == TypeDir); err != nil {
			return nil, r.pathErr("open", name, err)
		}
	}
	if e.exists && e.info.Type == TypeDir {
		fd, err := e.openDir()
		if err != nil {
			return nil, r.pathErr("open", name, err)
		}
		f := os.NewFile(uintptr(fd), name)
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, r.pathErr("open", name, err)
		}
		return &dirFile{r: r, f: f, name: name, info: fileInfo{name, fi}}, nil
	}
	fd, info, err := e.open()
	if err != nil {
		return nil, r.pathErr("open", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	return &file{r: r, f: f, name: name, info: fileInfo{name, infoFileInfo{info}}}, nil
}

// fileInfo gives an os FileInfo the root-relative base name.
type fileInfo struct {
	name string
	fs.FileInfo
}

func (fi fileInfo) Name() string { return path.Base(fi.name) }

// file is a regular file opened through [Root.FS].
type file struct {
	r    *Root
	f    *os.File
	name string
	info fileInfo
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }

func (f *file) Read(b []byte) (int, error) {
	n, err := f.f.Read(b)
	if err != nil && err != io.EOF {
		err = f.r.pathErr("read", f.name, err)
	}
	return n, err
}

func (f *file) Close() error {
	if err := f.f.Close(); err != nil {
		return f.r.pathErr("close", f.name, err)
	}
	return nil
}

// dirFile is a directory opened through [Root.FS].
type dirFile struct {
	r    *Root
	f    *os.File
	name string
	info fileInfo
	// pending holds entries listed but not yet returned.
	pending []Info
	eof     bool
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }

func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: ErrIsDir}
}

func (d *dirFile) Close() error {
	if err := d.f.Close(); err != nil {
		return d.r.pathErr("close", d.name, err)
	}
	return nil
}

// ReadDir implements [fs.ReadDirFile], in directory order.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	for !d.eof && (n <= 0 || len(d.pending) < n) {
		batch, eof, err := readBatch(d.f, d.name, false)
		if err != nil {
			return nil, d.r.pathErr("readdir", d.name, err)
		}
		d.pending = append(d.pending, batch...)
		d.eof = eof
	}
	take := len(d.pending)
	if n > 0 {
		take = min(n, take)
	}
	out := make([]fs.DirEntry, take)
	for i, info := range d.pending[:take] {
		out[i] = dirEntry{info}
	}
	d.pending = d.pending[take:]
	if n > 0 && take == 0 {
		return nil, io.EOF
	}
	return out, nil
}

// dirEntry is an [fs.DirEntry] built from Lstat information.
type dirEntry struct{ info Info }

func (e dirEntry) Name() string               { return e.info.Name }
func (e dirEntry) IsDir() bool                { return e.info.Type == TypeDir }
func (e dirEntry) Type() fs.FileMode          { return e.info.Mode.Type() }
func (e dirEntry) Info() (fs.FileInfo, error) { return infoFileInfo{e.info}, nil }
func (e dirEntry) String() string             { return fs.FormatDirEntry(e) }

// infoFileInfo is an [fs.FileInfo] view of an Info.
type infoFileInfo struct{ info Info }

func (i infoFileInfo) Name() string       { return i.info.Name }
func (i infoFileInfo) Size() int64        { return i.info.Size }
func (i infoFileInfo) Mode() fs.FileMode  { return i.info.Mode }
func (i infoFileInfo) ModTime() time.Time { return i.info.ModTime }
func (i infoFileInfo) IsDir() bool        { return i.info.Type == TypeDir }
func (i infoFileInfo) Sys() any           { return nil }
