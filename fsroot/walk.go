package fsroot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
)

const (
	// walkOpenWindow is how many of the deepest directories on Walk's
	// stack keep their handle open; deeper trees would otherwise hold one
	// descriptor per level and run out.
	walkOpenWindow = 64
	// walkCheckpoint makes every walkCheckpoint-th level keep its handle
	// as well, so reopening a directory whose handle was closed costs at
	// most walkCheckpoint openat calls, while a walk holds about
	// depth/walkCheckpoint + walkOpenWindow descriptors.
	walkCheckpoint = 64
)

// errChanged reports a directory that was replaced between listing its
// parent and entering it; Walk does not enter it.
var errChanged = errors.New("directory changed during the walk")

// errCycle reports a directory that is its own ancestor, which only a
// bind mount can make; Walk does not enter it again.
var errCycle = &multiError{msg: "directory cycle", errs: []error{ErrInvalid}}

// WalkFunc is called by [Root.Walk] for each entry. err is non-nil when a
// directory could not be entered or read; info then describes that
// directory, which was already reported with a nil err, and returning nil
// continues with its siblings. Return [fs.SkipDir] to skip a directory (or,
// for a non-directory, the rest of its parent), [fs.SkipAll] to stop.
type WalkFunc func(info Info, err error) error

// walkFrame is one directory on Walk's explicit stack.
type walkFrame struct {
	dir     *os.File // nil while closed to save descriptors
	name    string   // entry name in the parent
	id      fileID   // what dir must be when reopened
	pathLen int      // length of this directory's path in walker.path
	entries []Info   // sorted; Path unset
	next    int      // index of the next entry to visit
}

// Walk visits everything below the directory name (not name itself) in
// lexical order, depth first, calling fn with Lstat information. name is
// reached like [Root.ReadDir] reaches it; below it, symbolic links are
// reported as TypeSymlink and never followed, FIFOs, sockets and devices
// are skipped silently, and [TempPrefix] entries are hidden. maxDepth 0
// means unlimited, 1 only the direct children of name.
//
// Walk keeps its own stack, so tree depth is not bounded by Go's stack,
// and holds at most one directory's entries per level. It descends with
// openat(2) relative to the parent's handle, one component at a time,
// without following links, and checks that the directory it enters is the
// one it listed, so entries swapped during the walk cannot redirect it and
// a bind-mount cycle cannot make it loop. It returns ctx.Err() when ctx
// ends, fn's error if fn fails, and [ErrInvalid], [ErrEscapes],
// [fs.ErrNotExist] or [ErrNotDir] if name cannot be listed.
func (r *Root) Walk(ctx context.Context, name string, maxDepth int, fn WalkFunc) error {
	return r.walk(ctx, name, maxDepth, false, fn)
}

// walk implements Walk, showing TempPrefix entries if withTemp.
func (r *Root) walk(ctx context.Context, name string, maxDepth int, withTemp bool, fn WalkFunc) error {
	start, err := r.openDir(name)
	if err != nil {
		return r.pathErr("walk", name, err)
	}
	w := &walker{r: r, ctx: ctx, withTemp: withTemp, onStack: map[fileID]bool{}}
	defer w.closeAll()
	if name != "." {
		w.path = []byte(name)
	}
	if err := w.push(start, name, ""); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return r.pathErr("walk", name, err)
	}
	for len(w.stack) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		top := w.stack[len(w.stack)-1]
		if top.next == len(top.entries) {
			w.pop()
			continue
		}
		info := top.entries[top.next]
		top.entries[top.next] = Info{} // let visited entries be collected
		top.next++
		if info.Type == TypeOther {
			continue
		}
		info.Path = w.childPath(info.Name)
		depth := len(w.stack)
		switch err := fn(info, nil); {
		case err == fs.SkipAll:
			return nil
		case err == fs.SkipDir:
			if info.Type != TypeDir {
				top.next = len(top.entries)
			}
			continue
		case err != nil:
			return err
		}
		if info.Type != TypeDir || (maxDepth > 0 && depth >= maxDepth) {
			continue
		}
		if err := w.descend(top, info); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			switch err := fn(info, r.pathErr("walk", info.Path, err)); {
			case err == fs.SkipAll:
				return nil
			case err != nil && err != fs.SkipDir:
				return err
			}
		}
	}
	return nil
}

// walker is Walk's state: the stack of open directories and the path of
// the deepest one, shared by all levels so deep trees do not hold one long
// path per level.
type walker struct {
	r        *Root
	ctx      context.Context
	withTemp bool
	stack    []*walkFrame
	onStack  map[fileID]bool
	path     []byte
}

// childPath returns the root-relative path of entry name of the deepest
// directory.
func (w *walker) childPath(name string) string {
	if len(w.path) == 0 {
		return name
	}
	return string(w.path) + "/" + name
}

// descend enters the directory entry info of top.
func (w *walker) descend(top *walkFrame, info Info) error {
	parent, err := w.handle(len(w.stack) - 1)
	if err != nil {
		return err
	}
	dir, err := openDirAt(parent, info.Name, info.Path)
	if err != nil {
		return err
	}
	return w.push(dir, info.Name, info.Path)
}

// push lists the open directory dir and puts it on the stack, taking
// ownership of dir. rel is its root-relative path ("" for the start).
func (w *walker) push(dir *os.File, name, rel string) error {
	id, err := handleID(dir)
	if err == nil && w.onStack[id] {
		err = errCycle
	}
	var entries []Info
	if err == nil {
		entries, _, err = listDir(w.ctx, dir, "", -1, w.withTemp)
	}
	if err != nil {
		dir.Close()
		return err
	}
	sortInfos(entries)
	if rel != "" {
		if len(w.path) > 0 {
			w.path = append(w.path, '/')
		}
		w.path = append(w.path, name...)
	}
	w.stack = append(w.stack, &walkFrame{dir: dir, name: name, id: id, pathLen: len(w.path), entries: entries})
	w.onStack[id] = true
	// Close the handle of the level leaving the window, unless it is a
	// checkpoint.
	if k := len(w.stack) - 1 - walkOpenWindow; k > 0 && k%walkCheckpoint != 0 {
		if f := w.stack[k]; f.dir != nil {
			f.dir.Close()
			f.dir = nil
		}
	}
	return nil
}

// pop removes the deepest directory.
func (w *walker) pop() {
	f := w.stack[len(w.stack)-1]
	if f.dir != nil {
		f.dir.Close()
	}
	delete(w.onStack, f.id)
	w.stack = w.stack[:len(w.stack)-1]
	if len(w.stack) > 0 {
		w.path = w.path[:w.stack[len(w.stack)-1].pathLen]
	}
}

// handle returns the open handle of stack level k, reopening it from the
// nearest open ancestor if it was closed.
func (w *walker) handle(k int) (*os.File, error) {
	if w.stack[k].dir != nil {
		return w.stack[k].dir, nil
	}
	j := k - 1
	for w.stack[j].dir == nil { // level 0 is never closed
		j--
	}
	cur := w.stack[j].dir
	for i := j + 1; i <= k; i++ {
		next, err := openDirAt(cur, w.stack[i].name, w.stack[i].name)
		if cur != w.stack[j].dir {
			cur.Close()
		}
		if err != nil {
			return nil, err
		}
		cur = next
		if id, err := handleID(cur); err != nil || id != w.stack[i].id {
			cur.Close()
			return nil, errChanged
		}
	}
	w.stack[k].dir = cur
	return cur, nil
}

// closeAll releases every handle still open.
func (w *walker) closeAll() {
	for _, f := range w.stack {
		if f.dir != nil {
			f.dir.Close()
		}
	}
}

// sortInfos sorts infos by name.
func sortInfos(infos []Info) {
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
}

// CleanTemp removes the files whose name starts with [TempPrefix] anywhere
// under the root, left behind by a crash during a write, and returns how
// many it removed. It leaves alone the temporary files of writes in
// progress, this process's or another's (each holds an flock on its file
// until it is in place), so it can run in the background while servers
// write. Directories that cannot be read are skipped; the first error met
// is returned with the count.
func (r *Root) CleanTemp(ctx context.Context) (int, error) {
	removed := 0
	var first error
	err := r.walk(ctx, ".", 0, true, func(info Info, err error) error {
		if err != nil {
			if first == nil {
				first = err
			}
			return nil
		}
		if info.Type == TypeDir || !strings.HasPrefix(info.Name, TempPrefix) {
			return nil
		}
		if _, busy := r.writing.Load(info.Name); busy {
			return nil // a write in progress, not a leftover
		}
		if info.Type == TypeFile {
			f, busy := r.claimTemp(info.Path)
			if busy {
				return nil // another process's write in progress
			}
			if f != nil {
				defer f.Close()
			}
		}
		e, err := r.lookupLink(info.Path)
		if err == nil {
			err = e.remove(false, nil)
			e.Close()
		}
		if err != nil {
			if first == nil && !errors.Is(err, fs.ErrNotExist) {
				first = r.pathErr("cleantemp", info.Path, err)
			}
			return nil
		}
		removed++
		return nil
	})
	if err != nil {
		return removed, err
	}
	return removed, first
}

// claimTemp takes the flock of the temporary file name, which its writer
// holds until the file is in place, and returns the open file, whose
// Close lets go of it; busy reports that a writer holds it. A file that
// cannot be opened (gone already, or swapped for something else) returns
// nil and is left to the removal.
func (r *Root) claimTemp(name string) (f *os.File, busy bool) {
	e, err := r.lookupLink(name)
	if err != nil {
		return nil, false
	}
	defer e.Close()
	if !e.exists || e.info.Type != TypeFile {
		return nil, false
	}
	var fd handle
	if err := e.dirs.do(func(dir handle) error {
		var err error
		fd, err = openFileFD(dir, e.elem) // never a link followed
		return err
	}); err != nil {
		return nil, false
	}
	f = os.NewFile(uintptr(fd), name)
	if err := tryFlock(f); err != nil {
		f.Close()
		return nil, err == errLocked
	}
	return f, false
}
