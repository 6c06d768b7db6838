package fsroot

import (
	"cmp"
	"context"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// lockKey names a file for [Root.Lock] by what identifies it, not by the
// string a caller typed: the directory that holds it, by device and inode
// (the same through any root, link or spelling that reaches it, and kept
// when the directory is renamed), and its name there, folded. When the
// directory does not exist yet, the nearest one that does, and the path
// below it.
type lockKey struct {
	dev, ino uint64
	name     string
}

func (k lockKey) compare(o lockKey) int {
	return cmp.Or(cmp.Compare(k.dev, o.dev), cmp.Compare(k.ino, o.ino), strings.Compare(k.name, o.name))
}

// fileLock is one key's lock: a token taken by the holder, and the count
// of callers holding or waiting for it, so the entry goes with the last.
type fileLock struct {
	token chan struct{}
	refs  int
}

// fileLocks is the process's table of file locks, shared by every Root, so
// that two roots over one folder, or one inside the other, take one lock
// for one file.
var fileLocks = struct {
	sync.Mutex
	m map[lockKey]*fileLock
}{m: map[lockKey]*fileLock{}}

// Lock takes the write lock of each file the names reach, in this process,
// and returns the function that lets go of them all. A caller holds it
// from the read of a read-modify-write (an append, an edit, a write on a
// version) to its rename, so that two such writes of one file through
// this process never overlap and neither loses the other's change.
//
// A name is resolved as a write resolves it, following links inside the
// root; the lock is the file's, whatever name, root or case variant
// reached it. Names are folded (lower case, NFC), so on a case-insensitive
// filesystem "Notes.md" and "notes.md" share a lock; on a case-sensitive
// one they then share it needlessly, which costs only parallelism. The
// file need not exist. Locks are taken in one order whatever the order of
// names, so two calls of Lock cannot deadlock each other; a caller must
// not call Lock again while it holds a lock. A name that cannot be
// resolved is locked as written: the write that follows refuses it. A
// file in a folder not there yet is keyed by the nearest folder that is,
// so once a write has made the folder, a later Lock keys the file by its
// own folder instead: writes that make folders (a create, an update with
// its path) read nothing first, so neither loses the other's change.
//
// Lock waits until every lock is free or ctx is done; then it returns
// ctx.Err() holding nothing. With [Root.ShareLocks] it also keeps out the
// other packfs-mcp processes sharing the lock folder; it never keeps out
// other programs (an editor), which take no lock: the conditional writes
// ([Root.WriteFileIf]) are what guards against those.
func (r *Root) Lock(ctx context.Context, names ...string) (unlock func(), err error) {
	keys := make([]lockKey, 0, len(names))
	for _, name := range names {
		keys = append(keys, r.lockKey(name))
	}
	return r.lockKeys(ctx, keys)
}

// LockEntries is [Root.Lock] of the files the entries found (or would
// create), keyed from the folder handles their lookups hold, without
// resolving their names again: the lock is of what the caller judged. An
// entry whose folder is not there yet is keyed as Lock keys its path.
func (r *Root) LockEntries(ctx context.Context, entries ...*Entry) (unlock func(), err error) {
	keys := make([]lockKey, 0, len(entries))
	for _, e := range entries {
		k, ok := e.lockKey()
		if !ok {
			k = r.lockKey(e.path)
		}
		keys = append(keys, k)
	}
	return r.lockKeys(ctx, keys)
}

// lockKeys takes the locks of keys, in one order for every caller.
func (r *Root) lockKeys(ctx context.Context, keys []lockKey) (unlock func(), err error) {
	// One order for every caller, in this process and the others that
	// share the lock folder: by slot, then by key.
	slices.SortFunc(keys, func(a, b lockKey) int { return cmp.Or(cmp.Compare(a.slot(), b.slot()), a.compare(b)) })
	keys = slices.CompactFunc(keys, func(a, b lockKey) bool { return a == b })
	h := &held{}
	shared := r.locks.Load()
	for i, k := range keys {
		if err := acquire(ctx, k); err != nil {
			h.release()
			return nil, err
		}
		h.keys = append(h.keys, k)
		if shared == nil || i+1 < len(keys) && keys[i+1].slot() == k.slot() {
			continue
		}
		f, err := lockSlot(ctx, shared, k.slot())
		if err != nil {
			h.release()
			return nil, err
		}
		h.files = append(h.files, f)
	}
	var once sync.Once
	return func() { once.Do(h.release) }, nil
}

// held is what one call of Lock holds: its keys in this process, and the
// lock files of their slots in the shared folder.
type held struct {
	keys  []lockKey
	files []*os.File
}

func (h *held) release() {
	for _, f := range h.files {
		f.Close() // lets go of the flock
	}
	releaseAll(h.keys)
}

// lockKey returns the key of the file name reaches.
func (r *Root) lockKey(name string) lockKey {
	p := name
	if checkName(name) == nil {
		if e, err := r.lookup(name); err == nil {
			k, ok := e.lockKey()
			e.Close()
			if ok {
				return k
			}
			p = e.path
		}
	}
	// The file or its folder is not there yet: key the name by the
	// nearest folder that is, and the path below it.
	rest := ""
	for {
		dir, base := path.Dir(p), path.Base(p)
		if p == "." {
			dir, base = ".", ""
		}
		rest = path.Join(base, rest)
		if e, err := r.lookup(dir); err == nil {
			id, ok := e.id, e.exists && e.info.Type == TypeDir
			e.Close()
			if ok {
				return lockKey{dev: id.dev, ino: id.ino, name: fold(rest)}
			}
		}
		if dir == "." {
			// The root cannot be reached: key the name by the root's own
			// host path, which no other Root over the folder lacks.
			return lockKey{name: fold(r.resolved + "/" + rest)}
		}
		p = dir
	}
}

// lockKey is the key of the file e found, or would create in the folder
// it ended in, from the folder handle the lookup holds, without resolving
// the name again; ok is false when e ended before the folder that would
// hold it (missing folders below), or is a folder reached through "..",
// with no handle of its own.
func (e *Entry) lockKey() (k lockKey, ok bool) {
	if e.closed || e.elem == "" || len(e.rest) > 0 {
		return k, false
	}
	var st sysStat
	if e.dirs.do(func(dir handle) error {
		var err error
		st, err = fstatFD(dir)
		return err
	}) != nil {
		return k, false
	}
	return lockKey{dev: st.id.dev, ino: st.id.ino, name: fold(e.elem)}, true
}

// fold is the form of a name that a case- and normalization-insensitive
// filesystem (APFS, NTFS) would not tell apart from its variants.
func fold(name string) string { return norm.NFC.String(strings.ToLower(name)) }

// acquire takes k's lock, or gives up when ctx is done.
func acquire(ctx context.Context, k lockKey) error {
	fileLocks.Lock()
	l := fileLocks.m[k]
	if l == nil {
		l = &fileLock{token: make(chan struct{}, 1)}
		fileLocks.m[k] = l
	}
	l.refs++
	fileLocks.Unlock()
	select {
	case l.token <- struct{}{}:
		return nil // free: taken at once, whatever the context
	default:
	}
	select {
	case l.token <- struct{}{}:
		return nil
	case <-ctx.Done():
		forget(k, l)
		return ctx.Err()
	}
}

// releaseAll lets go of the locks of keys, which the caller holds.
func releaseAll(keys []lockKey) {
	for _, k := range keys {
		fileLocks.Lock()
		l := fileLocks.m[k]
		fileLocks.Unlock()
		<-l.token
		forget(k, l)
	}
}

// forget drops one caller's reference to l, and l with the last.
func forget(k lockKey, l *fileLock) {
	fileLocks.Lock()
	defer fileLocks.Unlock()
	if l.refs--; l.refs == 0 {
		delete(fileLocks.m, k)
	}
}
