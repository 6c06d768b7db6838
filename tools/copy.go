package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
	"github.com/packfs/packfs-mcp/tools/text"
)

// Copy limits. A folder copy is planned whole, and refused whole, before it writes anything.
const (
	// MaxCopyEntries is the most entries one folder copy walks (files, folders, links, and the
	// entries the listing hides), counted before anything is written: enough for a project's notes,
	// few enough that the copy ends well within a call's deadline and that its plan, a path or two
	// per entry, stays small.
	MaxCopyEntries = 10_000
	// MaxCopyListed is how many entries a copy's answer names: the skipped ones, and with dryRun the
	// paths it would write. The counts cover them all.
	MaxCopyListed = 50
)

// copyEntry is one folder or file a folder copy writes.
type copyEntry struct {
	src, dest string // root-relative
	dir       bool
	exists    bool  // with overwrite: something is at dest already (a folder to merge into, a file to replace)
	size      int64 // of a file, as the walk saw it
}

// copyPlan is everything a folder copy will do, decided before it does any of it.
type copyPlan struct {
	entries              []copyEntry // in walk order: a folder before what it holds
	files, dirs, replace int
	bytes                int64
	skipped              []result.CopySkip // the first MaxCopyListed of them
	skippedAll, hidden   int
}

// copy copies target.path to target.destination: a file, or with options.recursive a folder and
// what the listing shows in it. The source is judged as the reader judges it (a link by its own name
// and by what it reaches, whose file or folder is copied); the destination as a write's path.
// Everything that can be refused is refused before anything is written, and a copy that fails
// midway removes what it created.
//
// from is the root target.path is in: s, or another root when the tools serve several. Its policy
// judges the source, and s's the destination.
func (s *Server) copy(ctx context.Context, c *call, from *Server, in intents.Update, out *result.Writer) error {
	name, src, err := from.lookup(in.Target.Path)
	if err != nil {
		return err
	}
	defer src.Close()
	info, err := src.Info()
	if err != nil {
		return err
	}
	if src.Path() == "." && from == s {
		return fsroot.ErrIsRoot // the root, or a link to it
	}
	isDir := info.Type == fsroot.TypeDir
	dest, real, err := s.copyDestination(in.Target.Destination, isDir)
	if err != nil {
		return s.folderAsFile(err, dest, src.Path())
	}
	out.Destination = dest
	if from != s {
		real = "" // another root's paths are never the source's
	}
	if err := copyRefuses(from.show(src.Path()), s.show(dest), from.show(real), isDir, in.Options.Recursive); err != nil {
		return err
	}
	if isDir {
		return s.copyDir(ctx, c, from, name, src.Path(), dest, in.Options, out)
	}
	return s.copyFile(ctx, c, from, name, src, info, dest, in.Options, out)
}

// copyDestination runs the path policy on target.destination (see resolveReal), and returns the
// cleaned name and the path it reaches through links inside the root.
func (s *Server) copyDestination(raw string, isDir bool) (name, real string, err error) {
	name, real, err = s.resolveReal(raw, isDir)
	if err == nil && (name == "." || real == ".") {
		err = fsroot.ErrIsRoot
	}
	if err == nil {
		err = s.writable(name, real)
	}
	if err != nil {
		return name, real, &errs.File{Err: err, Name: name, Field: "target.destination"}
	}
	return name, real, nil
}

// copyRefuses refuses the copies that make no sense whatever is on disk: onto the source itself,
// a folder into itself or over a folder that holds it, and a folder without options.recursive.
// src and real are the paths the source and the destination dest reach, as the caller names them
// ("" for a destination in another root).
func copyRefuses(src, dest, real string, isDir, recursive bool) error {
	refuse := func(format string, args ...any) error {
		return &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.destination", Msg: fmt.Sprintf(format, args...)}
	}
	same := real != "" // both ends in one root
	switch {
	case same && real == src:
		return refuse("%q is target.path itself: choose another destination for the copy", dest)
	case same && isDir && fsroot.Within(real, src):
		return refuse("%q is inside target.path %q: a folder cannot be copied into itself; choose a destination outside it", dest, src)
	case same && isDir && fsroot.Within(src, real):
		return refuse("%q holds target.path %q: a folder cannot be copied over a folder it is in; choose another destination", dest, src)
	case isDir && !recursive:
		return &errs.Error{Code: errs.CodeInvalidArgument, Field: "options.recursive", Msg: fmt.Sprintf(
			"%q is a folder: set options.recursive to true to copy it with everything in it, or name a file in it as target.path", src)}
	}
	return nil
}

// copyFile copies the file src reached, which name named, to dest.
func (s *Server) copyFile(ctx context.Context, c *call, from *Server, name string, src *fsroot.Entry, info fsroot.Info, dest string, o intents.UpdateOptions, out *result.Writer) error {
	if err := from.cfg.Root.Refuses(info); err != nil {
		return err
	}
	if info.Size > s.cfg.MaxFileSize {
		return s.tooLargeToCopy(from.show(name))
	}
	parents, err := s.missingParents(dest, o.CreatePath)
	if err != nil {
		return err
	}
	exists, err := s.copyTarget(dest, false, o.Overwrite)
	if err != nil {
		return err
	}
	out.Created = !exists
	if o.DryRun {
		out.DryRun, out.SizeBytes = true, ptr(int(info.Size))
		return nil
	}
	made, err := s.makeDirs(parents)
	if err != nil {
		return s.undoCopy(err, made, nil)
	}
	dst, err := s.open(dest, useReplace)
	if err != nil {
		return s.undoCopy(&errs.File{Err: err, Name: dest, Field: "target.destination"}, made, nil)
	}
	defer dst.Close()
	unlock, err := s.cfg.Root.LockEntries(ctx, dst)
	if err != nil {
		return s.undoCopy(err, made, nil)
	}
	before, err := s.keepCopied(ctx, dst, dest)
	if err != nil {
		unlock()
		return s.undoCopy(err, made, nil)
	}
	v, n, err := dst.CopyFrom(ctx, src, o.Overwrite, s.cfg.MaxFileSize)
	unlock()
	if err != nil {
		return s.undoCopy(s.copyFailed(from, err, name, dest), made, nil)
	}
	s.changedTo(c, dest, before, v, n, info.Mode)
	out.Version, out.SizeBytes = v, ptr(int(n))
	s.refresh(ctx, dest)
	return nil
}

// copyDir copies the folder src (which name named) to dest: it plans the copy, then makes the
// missing parents, the new folders and the new files, and only then replaces the files that were
// there (with overwrite), so that a failure before the last pass has changed nothing it cannot
// remove again.
func (s *Server) copyDir(ctx context.Context, c *call, from *Server, name, src, dest string, o intents.UpdateOptions, out *result.Writer) error {
	parents, err := s.missingParents(dest, o.CreatePath)
	if err != nil {
		return err
	}
	p, err := s.planCopy(ctx, from, name, src, dest, o.Overwrite)
	if err != nil {
		return err
	}
	out.Created = !p.entries[0].exists
	out.FilesCopied, out.FoldersCopied, out.FilesReplaced = ptr(p.files), ptr(p.dirs), p.replace
	out.Skipped, out.HiddenEntries = p.skipped, p.hidden
	if p.skippedAll > len(p.skipped) {
		out.SkippedTotal = p.skippedAll
	}
	if o.DryRun {
		out.DryRun, out.BytesCopied = true, ptr(p.bytes)
		for _, e := range p.entries[:min(len(p.entries), MaxCopyListed)] {
			out.WouldCopy = append(out.WouldCopy, e.dest)
		}
		return nil
	}
	made, err := s.makeDirs(parents)
	if err != nil {
		return s.undoCopy(err, made, nil)
	}
	var copied int64
	for _, e := range p.entries {
		if e.exists {
			continue
		}
		if e.dir {
			err = s.makeDir(e.dest)
		} else {
			var n int64
			n, err = s.copyOne(ctx, c, from, e, false)
			copied += n
		}
		if err != nil {
			if e.dir {
				err = s.copyFailed(from, err, e.src, e.dest)
			}
			return s.undoCopy(err, made, nil)
		}
		made = append(made, e.dest)
	}
	var replaced []string
	for _, e := range p.entries {
		if !e.exists || e.dir {
			continue
		}
		n, err := s.copyOne(ctx, c, from, e, true)
		if err != nil {
			return s.undoCopy(err, made, replaced)
		}
		copied += n
		replaced = append(replaced, e.dest)
	}
	out.BytesCopied = ptr(copied)
	s.refresh(ctx, dest)
	return nil
}

// planCopy walks the folder src (which name named) and plans its copy to dest: what the listing
// shows is copied, but links and files of a type the tools cannot create (listed in skipped); what
// it hides is counted and never named. It
// refuses, before anything is written, a folder of more than MaxCopyEntries entries, a file larger
// than the server's limit, a folder it cannot read, a destination the policy refuses, and what is
// in the way at the destination (see copyTarget).
func (s *Server) planCopy(ctx context.Context, from *Server, name, src, dest string, overwrite bool) (*copyPlan, error) {
	exists, err := s.copyTarget(dest, true, overwrite)
	if err != nil {
		return nil, err
	}
	p := &copyPlan{entries: []copyEntry{{src: src, dest: dest, dir: true, exists: exists}}, dirs: 1}
	walked := 0
	err = from.cfg.Root.Walk(ctx, src, 0, func(info fsroot.Info, err error) error {
		if err != nil {
			// A folder it cannot read: a copy without it would lose what it holds.
			return &errs.File{Err: err, Name: info.Path, Field: "target.path"}
		}
		if walked++; walked > MaxCopyEntries {
			return &errs.Error{Code: errs.CodeTooLarge, Field: "target.path", Msg: fmt.Sprintf(
				"%q holds more than %d entries, more than one copy takes: copy its folders one by one", from.show(name), MaxCopyEntries)}
		}
		if !from.visible(info) {
			p.hidden++
			if info.Type == fsroot.TypeDir {
				return fs.SkipDir
			}
			return nil
		}
		if info.Type == fsroot.TypeSymlink {
			p.skip(info.Path, "symbolic link, not followed")
			return nil
		}
		rel, _ := search.Below(info.Path, src)
		e := copyEntry{src: info.Path, dest: path.Join(dest, rel), dir: info.Type == fsroot.TypeDir, size: info.Size}
		if err := s.cfg.Policy.CheckName(e.dest, e.dir); errors.Is(err, security.ErrExtension) {
			p.skip(info.Path, "a type the tools cannot create") // listings name it, with what they do with it
			return nil
		} else if err != nil {
			return &errs.File{Err: err, Name: e.dest, Field: "target.destination"}
		}
		if err := s.cfg.Policy.CheckWrite(e.dest); err != nil {
			return &errs.File{Err: err, Name: e.dest, Field: "target.destination"}
		}
		if !e.dir && e.size > s.cfg.MaxFileSize {
			return s.tooLargeToCopy(from.show(e.src))
		}
		if exists {
			// Only a folder that was there can hold something in the way.
			if e.exists, err = s.copyTarget(e.dest, e.dir, overwrite); err != nil {
				return err
			}
		}
		if e.dir {
			p.dirs++
		} else {
			p.files, p.bytes = p.files+1, p.bytes+e.size
			if e.exists {
				p.replace++
			}
		}
		p.entries = append(p.entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// skip records an entry the listing shows that the copy leaves out.
func (p *copyPlan) skip(name, reason string) {
	p.skippedAll++
	if len(p.skipped) < MaxCopyListed {
		p.skipped = append(p.skipped, result.CopySkip{Path: name, Reason: reason})
	}
}

// copyTarget reports whether something is at dest, a path a copy writes, and refuses what the copy
// must not write over: anything without overwrite; with it, anything but a folder where a folder
// goes (a folder is merged only into a folder, never through a link), and a folder where a file
// goes. A file, a link or a special file where a file goes is replaced as a move replaces it: the
// entry itself, never what a link leads to.
func (s *Server) copyTarget(dest string, isDir, overwrite bool) (bool, error) {
	info, err := s.cfg.Root.Lstat(dest)
	switch {
	case isNotExist(err):
		return false, nil
	case err != nil:
		return false, &errs.File{Err: err, Name: dest, Field: "target.destination"}
	case !overwrite:
		what := "replace that file, or for a folder merge into it"
		if isDir {
			what = "merge the copy into that folder"
		}
		return true, &errs.Error{Code: errs.CodeExists, Field: "target.destination", Msg: fmt.Sprintf(
			"%q already exists: choose another destination, or set options.overwrite to true to %s", s.show(dest), what)}
	case isDir && info.Type != fsroot.TypeDir:
		return true, &errs.Error{Code: errs.CodeNotDir, Field: "target.destination", Msg: fmt.Sprintf(
			"%q is a %s, not a folder: a folder is copied to a new path, or with options.overwrite merged into a folder (never through a link)", s.show(dest), info.Type)}
	case !isDir && info.Type == fsroot.TypeDir:
		return true, &errs.Error{Code: errs.CodeIsDir, Field: "target.destination", Msg: fmt.Sprintf(
			"%q is a folder, and a file cannot replace a folder: name a path inside it for the file, or another destination", s.show(dest))}
	}
	return true, nil
}

// copyOne copies the file of a folder copy at e.src to e.dest, new or, with overwrite, replacing
// what is there. The file is looked up again and must be where the plan found it: a folder on the
// way turned into a link meanwhile is not followed.
func (s *Server) copyOne(ctx context.Context, c *call, from *Server, e copyEntry, overwrite bool) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if s.beforeWrite != nil {
		s.beforeWrite(e.dest)
	}
	src, err := from.cfg.Root.Lookup(e.src)
	if err != nil {
		return 0, &errs.File{Err: err, Name: e.src, Field: "target.path"}
	}
	defer src.Close()
	if src.Path() != e.src {
		return 0, &errs.Error{Code: errs.CodeConflict, Field: "target.path", Msg: fmt.Sprintf(
			"%q changed while the folder was being copied (a folder on its way became a link): copy again", from.show(e.src))}
	}
	dst, err := s.open(e.dest, useReplace)
	if err != nil {
		return 0, &errs.File{Err: err, Name: e.dest, Field: "target.destination"}
	}
	defer dst.Close()
	unlock, err := s.cfg.Root.LockEntries(ctx, dst)
	if err != nil {
		return 0, err
	}
	before, err := s.keepCopied(ctx, dst, e.dest)
	if err != nil {
		unlock()
		return 0, err
	}
	v, n, err := dst.CopyFrom(ctx, src, overwrite, s.cfg.MaxFileSize)
	unlock()
	if err != nil {
		return 0, s.copyFailed(from, err, e.src, e.dest)
	}
	s.changedTo(c, e.dest, before, v, n, 0o644)
	return n, nil
}

// copyFailed names the file a failed copy of src (in root from) to dest was about: the
// destination, or the source.
func (s *Server) copyFailed(from *Server, err error, src, dest string) error {
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe) && pe.Path == dest:
		if errors.Is(err, fs.ErrExist) {
			return &errs.Error{Code: errs.CodeExists, Field: "target.destination", Msg: fmt.Sprintf(
				"%q appeared while it was being copied there: choose another destination, or set options.overwrite to true", s.show(dest))}
		}
		return &errs.File{Err: err, Name: dest, Field: "target.destination"}
	case errors.Is(err, fsroot.ErrTooLarge):
		return s.tooLargeToCopy(from.show(src))
	}
	return &errs.File{Err: err, Name: src, Field: "target.path"}
}

// tooLargeToCopy refuses a file above the server's size limit; name is as the caller names it.
func (s *Server) tooLargeToCopy(name string) error {
	return &errs.Error{Code: errs.CodeTooLarge, Field: "target.path", Msg: fmt.Sprintf(
		"%q is larger than the server's file size limit (%s), so it cannot be copied: copy what you need without it", name, text.Size(s.cfg.MaxFileSize))}
}

// missingParents returns the folders above dest that do not exist, the highest first, or refuses
// them without createPath. The policy judged them with dest.
func (s *Server) missingParents(dest string, createPath bool) ([]string, error) {
	var missing []string
	for dir := path.Dir(dest); dir != "."; dir = path.Dir(dir) {
		_, err := s.cfg.Root.Stat(dir)
		if err == nil {
			break
		}
		if !isNotExist(err) {
			return nil, &errs.File{Err: err, Name: dir, Field: "target.destination"}
		}
		missing = append([]string{dir}, missing...)
	}
	if len(missing) > 0 && !createPath {
		return nil, noFolder(s.show(path.Dir(dest)), "target.destination")
	}
	return missing, nil
}

// makeDirs makes the folders dirs, each in a parent that exists, and returns those it made.
func (s *Server) makeDirs(dirs []string) ([]string, error) {
	var made []string
	for _, d := range dirs {
		if err := s.makeDir(d); err != nil {
			return made, &errs.File{Err: err, Name: d, Field: "target.destination"}
		}
		made = append(made, d)
	}
	return made, nil
}

// makeDir makes the one folder name through its judged lookup ([Server.open], useReplaceDir).
func (s *Server) makeDir(name string) error {
	e, err := s.open(name, useReplaceDir)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.Mkdir()
}
