package fsroot

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// On Linux a Watcher is fsnotify's inotify watcher with one watch per folder: inotify has no
// recursive watch, so the folders a rooted walk reaches are added at the start, and each folder
// created since is added when its creation is seen.

// sysWatch is the inotify side of a [Watcher].
type sysWatch struct {
	r    *Root
	base string // the root's folder, cleaned: what event names start with
	w    *fsnotify.Watcher
	skip func(dir string) bool
	dirs int // folders watched, counted by the goroutine that adds them
}

// watchSystem watches every folder below r that skip does not refuse.
func (r *Root) watchSystem(ctx context.Context, skip func(dir string) bool) (*sysWatch, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, limitErr(err)
	}
	s := &sysWatch{r: r, base: filepath.Clean(r.dir), w: fw, skip: skip}
	if err := s.addTree(ctx, "."); err != nil {
		fw.Close()
		return nil, err
	}
	return s, nil
}

// folders returns how many folders are watched.
func (s *sysWatch) folders() int { return s.dirs }

// feed sends the root-relative paths of events on out until ctx ends, then closes the watcher.
func (s *sysWatch) feed(ctx context.Context, out chan<- string) error {
	s.pump(ctx, out)
	return s.w.Close()
}

// pump sends the paths of events on out, watching the folders created meanwhile, until ctx ends.
func (s *sysWatch) pump(ctx context.Context, out chan<- string) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-s.w.Events:
			if !ok {
				return
			}
			p, ok := s.rel(ev.Name)
			if !ok {
				continue
			}
			if ev.Has(fsnotify.Create) {
				s.follow(ctx, p)
			}
			if !emit(ctx, out, p) {
				return
			}
		case err, ok := <-s.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) && !emit(ctx, out, All) {
				return
			}
		}
	}
}

// addTree watches the folder dir and every folder below it that skip does not refuse.
func (s *sysWatch) addTree(ctx context.Context, dir string) error {
	if err := s.add(dir); err != nil {
		return err
	}
	return s.r.Walk(ctx, dir, 0, func(info Info, err error) error {
		if err != nil || info.Type != TypeDir {
			return nil
		}
		if s.skip(info.Path) {
			return fs.SkipDir
		}
		return s.add(info.Path)
	})
}

// add watches the folder dir.
func (s *sysWatch) add(dir string) error {
	if err := s.w.Add(filepath.Join(s.base, filepath.FromSlash(dir))); err != nil {
		return limitErr(err)
	}
	s.dirs++
	return nil
}

// limitErr is err, or [ErrWatchLimit] when it says the system's limit of watches or descriptors
// was reached.
func limitErr(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
		return ErrWatchLimit
	}
	return err
}

// follow watches p, just created, when it is a folder the walk would have watched, with the
// folders already inside it.
func (s *sysWatch) follow(ctx context.Context, p string) {
	if p == All || s.skip(p) {
		return
	}
	if info, err := s.r.Lstat(p); err == nil && info.Type == TypeDir {
		_ = s.addTree(ctx, p) // past the limit, the folder goes unwatched: the periodic walk finds it
	}
}

// rel returns the root-relative slash path of an event's host path, and false for one outside the
// root or not a valid path.
func (s *sysWatch) rel(name string) (string, bool) {
	if name == s.base {
		return All, true
	}
	p, ok := strings.CutPrefix(name, s.base+string(filepath.Separator))
	if !ok {
		return "", false
	}
	p = filepath.ToSlash(p)
	return p, fs.ValidPath(p)
}
