package semantic

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/markdown"
)

// Refresh brings one path in step after a write: a file is read again and replaces its entries in
// the index and the graph; a folder is walked; a missing path is removed. It returns when the index
// and the graph reflect the path, so a search right after a write sees it.
func (e *Engine) Refresh(ctx context.Context, name string) error {
	info, err := fs.Stat(e.opts.FS, name)
	if errors.Is(err, fs.ErrNotExist) {
		return e.Remove(name)
	}
	if err != nil {
		return err
	}
	if info.IsDir() {
		files, err := e.walk(ctx, name, false)
		if err != nil {
			return err
		}
		var docs []markdown.Doc
		for _, f := range files {
			if d, err := e.read(f.path); err == nil {
				e.graph.Put(d.Outline())
				docs = append(docs, d)
			}
		}
		return e.put(docs...)
	}
	if !e.opts.Allow(name, false) {
		return e.Remove(name)
	}
	d, err := e.read(name)
	if err != nil {
		return e.Remove(name)
	}
	e.graph.Put(d.Outline())
	return e.put(d)
}

// put indexes docs and records their stamps.
func (e *Engine) put(docs ...markdown.Doc) error {
	if len(docs) == 0 {
		return nil
	}
	ix := e.index()
	if ix == nil {
		return nil // not open yet: the build that opens it reads every file anyway
	}
	var err error
	if len(docs) == 1 {
		err = ix.Put(docs[0])
	} else {
		err = ix.PutBatch(docs)
	}
	if err != nil {
		return err
	}
	e.indexed.Add(int64(len(docs)))
	return nil
}

// drop removes paths from the index, the graph and the stamps.
func (e *Engine) drop(paths ...string) error {
	if len(paths) == 0 {
		return nil
	}
	for _, p := range paths {
		e.graph.Delete(p)
	}
	ix := e.index()
	if ix == nil {
		return nil
	}
	if err := ix.Delete(paths...); err != nil {
		return err
	}
	e.mu.Lock()
	for _, p := range paths {
		delete(e.scan, p)
	}
	e.mu.Unlock()
	return nil
}

// Remove drops name, and everything below it when it is a folder, from the index and the graph.
func (e *Engine) Remove(name string) error {
	e.mu.Lock()
	for p := range e.unread { // a document gone; one still there stays unread
		if fsroot.Within(p, name) {
			if _, err := fs.Stat(e.opts.FS, p); errors.Is(err, fs.ErrNotExist) {
				delete(e.unread, p)
			}
		}
	}
	e.mu.Unlock()
	gone := e.under(name)
	if ts, ok := e.store.(textStore); ok {
		ts.drop(append(gone, name)...)
	}
	e.graph.Delete(name)
	return e.drop(gone...)
}

// Reconcile brings the index in step with changes made by other programs: it walks the root and
// reads again only the files whose size or modification time changed, as [Engine.Changed] does
// for the root. It is cheap enough to run every few seconds (a walk of stats), and does nothing
// while a build runs.
func (e *Engine) Reconcile(ctx context.Context) (changed int, err error) {
	if !e.buildMu.TryLock() {
		return 0, nil
	}
	defer e.buildMu.Unlock()
	return e.inStep(ctx, []string{"."})
}

// Changed brings in step the paths other programs changed, as a [fsroot.Watcher] reports them:
// a file whose size or modification time differs from what the index holds is read again, one
// gone (or no longer indexable) is removed, and a folder is reconciled as [Engine.Reconcile]
// reconciles the root, its files gone since removed. It waits for a build under way, and does
// nothing before the first build is complete.
func (e *Engine) Changed(ctx context.Context, paths []string) (changed int, err error) {
	e.buildMu.Lock()
	defer e.buildMu.Unlock()
	return e.inStep(ctx, paths)
}

// inStep brings paths in step, as Changed says, with buildMu held.
func (e *Engine) inStep(ctx context.Context, paths []string) (changed int, err error) {
	ix := e.index()
	if ix == nil || !e.complete.Load() {
		return 0, nil
	}
	var docs []markdown.Doc
	var gone []string
	lists := folderLists{fsys: e.opts.FS, of: map[string][]fs.DirEntry{}}
	for _, p := range paths {
		files, isDir, err := e.look(ctx, p, lists.entry)
		if err != nil {
			return 0, err
		}
		held := 0 // of files, those the index holds
		for _, f := range files {
			old, ok := ix.Stamp(f.path)
			if ok {
				held++
			}
			if ok && old.Equal(f.stamp) || !ok && e.stillNotText(f) {
				continue
			}
			d, err := e.read(f.path)
			e.noteText(f, err)
			if err == nil {
				e.graph.Put(d.Outline())
				docs = append(docs, d)
			} else if ok {
				gone = append(gone, f.path) // no longer text, or no longer readable
			}
		}
		gone = append(gone, e.goneFrom(ix, p, isDir, files, held)...)
	}
	if err := e.put(docs...); err != nil {
		return 0, err
	}
	return len(docs) + len(gone), e.drop(gone...)
}

// stillNotText reports whether f was found not text when it last had its stamp.
func (e *Engine) stillNotText(f file) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, ok := e.binary[f.path]
	return ok && st.Equal(f.stamp)
}

// noteText records what reading f found: not text (err is errNotText), or anything else.
func (e *Engine) noteText(f file, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if errors.Is(err, errNotText) {
		e.binary[f.path] = f.stamp
	} else {
		delete(e.binary, f.path)
	}
}

// goneFrom returns what the index holds at p (the file, or every file below the folder) that the
// walk of p no longer found: files, of which the index holds held. When the walk was of the whole
// tree and found every file the index holds, nothing is gone, and the index's paths are not listed
// again (on a big tree, that set and that list were a good part of a walk's garbage:
// dev/bench/README.md, An idle server).
func (e *Engine) goneFrom(ix *fulltext.Index, p string, isDir bool, files []file, held int) []string {
	if p == "." {
		if n, err := ix.Count(); err == nil && n == held {
			return nil
		}
	}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.path] = true
	}
	had := []string{p}
	if isDir || len(files) == 0 {
		had = ix.Under(p)
	}
	var gone []string
	for _, h := range had {
		if !seen[h] && ix.Holds(h) {
			gone = append(gone, h)
		}
	}
	return gone
}

// look returns the indexable files at p: p itself when it is one, the files below it when it is
// a folder the policy lets in (and isDir), none when it is gone, neither, or below a folder the
// policy keeps out.
func (e *Engine) look(ctx context.Context, p string, entry func(string) (fs.DirEntry, error)) (files []file, isDir bool, err error) {
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if !e.opts.Allow(dir, true) {
			return nil, false, nil // below a folder the walk does not enter
		}
	}
	d, err := entry(p)
	if err != nil {
		return nil, false, nil // gone, or not reachable through the root: nothing to index there
	}
	if d.IsDir() {
		if p != "." && !e.opts.Allow(p, true) {
			return nil, true, nil
		}
		files, err := e.walk(ctx, p, false)
		return files, true, err
	}
	if ok, _ := e.admit(p, d); !ok {
		return nil, false, nil
	}
	info, err := d.Info()
	if err != nil || info.Size() > e.opts.MaxFileBytes {
		return nil, false, nil
	}
	return []file{{p, fulltext.Stamp{Size: info.Size(), ModTime: info.ModTime()}}}, false, nil
}

// folderLists reads folders once for a batch of paths, to tell what each path is as its folder
// lists it: without following a symbolic link, as a walk sees it.
type folderLists struct {
	fsys fs.FS
	of   map[string][]fs.DirEntry
}

// entry returns the directory entry of p.
func (l folderLists) entry(p string) (fs.DirEntry, error) {
	if p == "." {
		info, err := fs.Stat(l.fsys, p)
		if err != nil {
			return nil, err
		}
		return fs.FileInfoToDirEntry(info), nil
	}
	dir := path.Dir(p)
	entries, ok := l.of[dir]
	if !ok {
		var err error
		if entries, err = fs.ReadDir(l.fsys, dir); err != nil {
			return nil, err
		}
		l.of[dir] = entries
	}
	i, found := slices.BinarySearchFunc(entries, path.Base(p), func(d fs.DirEntry, name string) int { return strings.Compare(d.Name(), name) })
	if !found {
		return nil, fs.ErrNotExist
	}
	return entries[i], nil
}
