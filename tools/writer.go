package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

func writerTool() mcp.Tool {
	return mcp.NewTool(WriterName,
		mcp.WithDescription("Writes are atomic: a failed call changes nothing. What a change replaces is kept: reader purpose history lists it, restore puts it back. append creates a missing file."),
		schemas[intents.Update, result.Writer](),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Write files",
			ReadOnlyHint:    mcp.ToBoolPtr(false),
			DestructiveHint: mcp.ToBoolPtr(true),
			IdempotentHint:  mcp.ToBoolPtr(false),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}

func (s *Server) update(ctx context.Context, c *call) (any, error) {
	in, err := admit[intents.Update](s, c)
	if err != nil {
		return nil, err
	}
	s.resumes.Forget() // the files a list or search went past may change
	if in.Target.Version, err = parseVersion("target.version", in.Target.Version); err != nil {
		return nil, err
	}
	row, _ := PurposeOf(WriterName, in.Purpose) // Decode admitted only the table's purposes
	from := s
	if c.from != nil {
		from = c.from // a copy from another root (see Roots)
	}
	if len(in.Target.Paths) > 0 || len(in.Target.Moves) > 0 { // only move takes them
		return s.moveMany(ctx, c, in)
	}
	if in.Target.Call != "" { // only restore takes target.call, which names no path
		in.Target.Path = "."
	}
	name, err := from.resolvePath(in.Target.Path, row.target)
	c.path = name
	if err != nil {
		return nil, err
	}
	if name == "." && in.Purpose != "mkdir" && in.Target.Call == "" && from == s { // a root may be copied into another
		return nil, fsroot.ErrIsRoot
	}
	if writesText[in.Purpose] {
		if err := s.docs().WritesText(name); err != nil {
			return nil, err
		}
	}
	if in.Content != nil && int64(len(*in.Content)) > s.cfg.MaxFileSize {
		return nil, &errs.Error{Code: errs.CodeTooLarge, Field: "content", Msg: "content is larger than the server's file size limit (" + text.Size(s.cfg.MaxFileSize) + "): write it in parts with purpose \"append\""}
	}
	if err := s.charge(c, in.Options.Recursive); err != nil {
		return nil, err
	}
	out := result.Writer{Status: result.Status{Success: true}, Path: name}
	unlock := func() {}
	if row.single {
		// Held from the read to the rename, so parallel writes of one file apply one after
		// another; edit, move and copy take the locks of the files they write themselves.
		if unlock, err = s.cfg.Root.Lock(ctx, name); err != nil {
			return nil, err
		}
	}
	err = row.write(s, ctx, &writeCall{c: c, in: in, name: name, from: from, out: &out})
	s.commit(ctx, c) // what changed, even when the call then failed
	if s.cfg.History == nil && replaces[in.Purpose] && !in.Options.DryRun {
		out.NotKept = "this server keeps no history (--no-history, or no folder for it outside the root): this change cannot be undone"
	}
	unlock()
	if err != nil {
		if row.merge {
			err = s.withCurrent(ctx, name, err)
		}
		return nil, err
	}
	if row.single && !out.DryRun {
		s.refresh(ctx, name) // edit refreshes the files it wrote
	}
	out.Metadata = c.meta()
	return out, nil
}

// writesText holds the purposes that write text into their target: refused for a document, an
// image or another binary type ([docs.Reader.WritesText]).
var writesText = map[string]bool{"create": true, "update": true, "append": true, "edit": true}

// folderAsFile turns err, the path policy's refusal of dest as the new path of the file src (a
// copy's or a move's target.destination), into IS_DIRECTORY naming the path to give instead when
// dest is a folder that is there: the policy refuses it for want of a file's extension, which a
// folder's name lacks, and the caller meant the file to go inside it. Any other err is returned
// as it is.
func (s *Server) folderAsFile(err error, dest, src string) error {
	if !errors.Is(err, security.ErrExtension) || dest == "" {
		return err
	}
	if info, serr := s.cfg.Root.Stat(dest); serr != nil || info.Type != fsroot.TypeDir {
		return err
	}
	return &errs.Error{Code: errs.CodeIsDir, Field: "target.destination", Msg: fmt.Sprintf(
		"%q is a folder: give the file's path inside it, such as %q", s.show(dest), s.show(path.Join(dest, path.Base(src))))}
}

// noFolder refuses a write into the folder dir, which does not exist, naming field when it is set.
func noFolder(dir, field string) error {
	return &errs.Error{Code: errs.CodeNotFound, Field: field, Msg: fmt.Sprintf(
		"the folder %q does not exist: set options.createPath to true to create it, or use purpose \"mkdir\" first", dir)}
}

// makeParents creates name's missing parent directories when the caller asked for it.
func (s *Server) makeParents(name string, o intents.UpdateOptions) error {
	dir := path.Dir(name)
	if dir == "." {
		return nil
	}
	if _, err := s.cfg.Root.Stat(dir); err == nil || !o.CreatePath {
		if err != nil && isNotExist(err) {
			return noFolder(s.show(dir), "")
		}
		return nil
	}
	if err := s.checkParents(name); err != nil {
		return err
	}
	e, err := s.open(dir, useMkdir)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.MkdirAll()
}

func (s *Server) create(ctx context.Context, c *call, name, content string, o intents.UpdateOptions, out *result.Writer) error {
	if err := s.cfg.Policy.CheckWrite(name); err != nil {
		return err // before any folder is made for it
	}
	if err := s.makeParents(name, o); err != nil {
		return err
	}
	e, err := s.open(name, useWrite)
	if err != nil {
		return err
	}
	defer e.Close()
	if err := e.CreateFile(ctx, []byte(content), 0); err != nil {
		return err
	}
	s.changed(c, name, nil, []byte(content), 0o644)
	out.Created, out.SizeBytes, out.Lines = true, ptr(len(content)), ptr(text.LineCount([]byte(content)))
	out.Version = fsroot.Version([]byte(content))
	return nil
}

// MaxConflictContent is the largest file whose text a CONFLICT answer carries: a note, not a log.
const MaxConflictContent = 16 << 10

// withCurrent adds the file's current text to a CONFLICT on a text file of at most
// [MaxConflictContent]; any other error, or a file it cannot read as such, it returns as it is.
func (s *Server) withCurrent(ctx context.Context, name string, err error) error {
	var ce *fsroot.ConflictError
	if !errors.As(err, &ce) {
		return err
	}
	now, _, rerr := s.readJudged(ctx, name, MaxConflictContent)
	if rerr != nil || !markdown.IsText(now) {
		return err
	}
	return &errs.Stale{Err: ce, Version: fsroot.Version(now), Content: string(now)}
}

// parseVersion returns the version a call sent in field (target.version, edits[i].version), in
// lower case, or refuses one that no read returns. Empty means the write checks nothing.
func parseVersion(field, v string) (string, error) {
	v = strings.ToLower(v)
	if v != "" && (len(v) != 16 || strings.Trim(v, "0123456789abcdef") != "") {
		return "", &errs.Error{Code: errs.CodeInvalidArgument, Field: field, Msg: fmt.Sprintf(
			"%s must be the 16 hex digits that packfs-file-reader returned as version (got %q): copy it from the read's result, or leave it out to write without a check", field, v)}
	}
	return v, nil
}

// unchanged reports a conflict unless old, the content just read, has version (if any). It runs
// before anything is written or kept; the write itself checks the file again right
// before it replaces it.
func unchanged(old []byte, version string) error {
	if version == "" {
		return nil
	}
	if v := fsroot.Version(old); v != version {
		return &fsroot.ConflictError{Current: v}
	}
	return nil
}

// noFolderVersion refuses target.version on a folder (or a link to one): a version is a file's
// content, and a folder has none to compare.
func noFolderVersion(name, purpose string, isDir bool, version string) error {
	if version == "" || !isDir {
		return nil
	}
	return &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.version", Msg: fmt.Sprintf(
		"%q is a folder, and target.version is the version of a file's content: %s the folder without target.version", name, purpose)}
}

func (s *Server) replace(ctx context.Context, c *call, name, content, version string, o intents.UpdateOptions, out *result.Writer) error {
	e, err := s.open(name, useWrite)
	if err != nil {
		return err
	}
	defer e.Close()
	old, info, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	if err == nil {
		err = noKey(name, old)
	}
	if err != nil {
		if isNotExist(err) {
			return errs.New(errs.CodeNotFound, "%q does not exist: use purpose \"create\" to make a new file", s.show(name))
		}
		return err
	}
	if err := unchanged(old, version); err != nil {
		return err
	}
	before, err := s.keep(ctx, name, old, info.Mode)
	if err != nil {
		return err
	}
	v, err := e.WriteFileIf(ctx, []byte(content), version, s.cfg.MaxFileSize)
	if err != nil {
		return err
	}
	s.changed(c, name, before, []byte(content), info.Mode)
	out.SizeBytes, out.Version, out.Lines = ptr(len(content)), v, ptr(text.LineCount([]byte(content)))
	return nil
}

func (s *Server) appendTo(ctx context.Context, c *call, name, content, version string, o intents.UpdateOptions, out *result.Writer) error {
	e, err := s.open(name, useWrite)
	if err != nil {
		return err
	}
	defer func() {
		if e != nil {
			e.Close()
		}
	}()
	old, info, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	if isNotExist(err) && version == "" {
		err = s.create(ctx, c, name, content, o, out)
		if !errors.Is(err, fs.ErrExist) {
			if err == nil {
				out.BytesAppended = ptr(len(content))
			}
			return err
		}
		// Made meanwhile by a call that locked it before its folder existed, under the key of
		// the folder above: append to what it wrote.
		e.Close()
		if e, err = s.open(name, useWrite); err != nil {
			return err
		}
		old, info, err = e.ReadFile(ctx, s.cfg.MaxFileSize)
	}
	if err == nil {
		err = noKey(name, old)
	}
	if err != nil {
		return err
	}
	if err := unchanged(old, version); err != nil {
		return err
	}
	if !markdown.IsText(old) {
		return notText(s.show(name))
	}
	if int64(len(old)+len(content)) > s.cfg.MaxFileSize {
		return errs.New(errs.CodeTooLarge, "appending would make %q larger than the server's file size limit (%s): start a new file", s.show(name), text.Size(s.cfg.MaxFileSize))
	}
	before, err := s.keep(ctx, name, old, info.Mode)
	if err != nil {
		return err
	}
	v, err := e.AppendFileIf(ctx, []byte(content), version, s.cfg.MaxFileSize)
	if err != nil {
		return err
	}
	s.changed(c, name, before, []byte(string(old)+content), info.Mode)
	out.SizeBytes, out.BytesAppended, out.Version = ptr(len(old)+len(content)), ptr(len(content)), v
	if len(content) <= MaxAppendDiff {
		out.Diff = text.Diff(s.show(name), string(old), string(old)+content)
	}
	return nil
}

// replaces are the purposes whose change replaces or removes what a file held: without a
// history, their answers say it cannot be undone.
var replaces = map[string]bool{"update": true, "append": true, "edit": true, "delete": true, "move": true, "restore": true}

// MaxAppendDiff is the largest append whose answer shows it as a diff, under the file's last
// lines: enough for a note's new section, where an agent would otherwise read the end back.
const MaxAppendDiff = 4 << 10

func (s *Server) remove(ctx context.Context, c *call, name, version string, o intents.UpdateOptions, out *result.Writer) error {
	e, err := s.open(name, useRemove)
	if err != nil {
		return err
	}
	defer e.Close()
	info, _ := e.Info() // open(useRemove) found something
	isDir := info.Type == fsroot.TypeDir
	if info.Type == fsroot.TypeSymlink && version != "" {
		st, err := s.cfg.Root.Stat(name)
		isDir = err == nil && st.Type == fsroot.TypeDir
	}
	if err := noFolderVersion(s.show(name), "delete", isDir, version); err != nil {
		return err
	}
	var before *history.State
	var inside []history.Change // a folder's files, kept
	switch {
	case s.cfg.History == nil:
	case info.Type == fsroot.TypeDir:
		if inside, err = s.undoing(c).KeepFolder(ctx, e, name, out); err != nil {
			return err
		}
	default:
		if before, err = s.keepRemoved(ctx, e, name, info, version, out); err != nil {
			return err
		}
		if before != nil && version == "" {
			version = before.Version // remove what was kept, not what a writer put there since
		}
	}
	linked := s.linkedFrom(name)
	switch {
	case version != "":
		err = e.RemoveIf(ctx, version, s.cfg.MaxFileSize)
	case o.Recursive && info.Type == fsroot.TypeDir:
		err = s.removeFolder(ctx, e, s.show(name))
	default:
		err = e.Remove(o.Recursive)
	}
	if err != nil {
		return err
	}
	if before != nil {
		s.changed(c, name, before, nil, 0)
	}
	c.changes = append(c.changes, inside...)
	out.Deleted, out.LinkedFrom = true, linked
	return nil
}

// keepRemoved keeps, before a delete, the content of the file e found at name (info): its state
// for the call's record. What it cannot keep it says in out.NotKept: a link (links are not kept),
// a file larger than the size limit.
func (s *Server) keepRemoved(ctx context.Context, e *fsroot.Entry, name string, info fsroot.Info, version string, out *result.Writer) (*history.State, error) {
	if info.Type != fsroot.TypeFile {
		out.NotKept = "a link is not kept in the history: this delete cannot be undone"
		return nil, nil
	}
	old, st, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	if errors.Is(err, fsroot.ErrTooLarge) {
		out.NotKept = "the file is larger than the server's file size limit (" + text.Size(s.cfg.MaxFileSize) + "), which the history keeps: this delete cannot be undone"
		return nil, nil
	}
	if err == nil {
		err = unchanged(old, version)
	}
	if err != nil {
		return nil, err
	}
	return s.keep(ctx, name, old, st.Mode)
}

// removeFolder removes the folder e found and everything in it, unless it holds entries the
// policy blocks: no call can see them, so none deletes them. It counts them first and refuses
// before removing anything; one that appears during the removal stops it where it is.
func (s *Server) removeFolder(ctx context.Context, e *fsroot.Entry, shown string) error {
	n := 0
	err := s.cfg.Root.Walk(ctx, e.Path(), 0, func(info fsroot.Info, err error) error {
		if err != nil || info.Path == e.Path() || !s.blocked(info.Path, info.Type == fsroot.TypeDir) {
			return nil
		}
		n++
		return fs.SkipDir // a blocked folder counts once
	})
	if err != nil {
		return err
	}
	if n > 0 {
		return blockedInside(shown, n, false)
	}
	if err := e.RemoveAll(s.blocked); errors.Is(err, fsroot.ErrNotEmpty) {
		return blockedInside(shown, 1, true)
	} else if err != nil {
		return err
	}
	return nil
}

// blocked reports whether the policy blocks the entry at p by a component of its name (.git,
// .env, credential stores), not by its extension: a file is judged as a folder is, whatever isDir.
func (s *Server) blocked(p string, isDir bool) bool {
	return errors.Is(s.cfg.Policy.CheckName(p, true), security.ErrBlocked)
}

// blockedInside is the refusal of a recursive delete of the folder shown that holds n entries the
// policy blocks; late says one appeared while the folder was being deleted, which stopped there.
func blockedInside(shown string, n int, late bool) error {
	what := fmt.Sprintf("%d entries", n)
	if n == 1 {
		what = "an entry"
	}
	done := "nothing was deleted"
	if late {
		done = "it appeared during the delete, which stopped there: list the folder to see what is left"
	}
	return errs.New(errs.CodeNotEmpty, "%q holds %s that the policy blocks (version control, dependencies, secrets or credentials), which no call can see or delete, so %s. Move the folder whole (purpose \"move\"), or delete what you can see in it one by one; the operator can take a name off the blocked list (--unblock NAME)", shown, what, done)
}

// linkedFrom lists the documents outside name (a file, or a folder and everything in it) that link
// into it, as the index knows them.
func (s *Server) linkedFrom(name string) []string {
	if s.cfg.Engine == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, b := range s.cfg.Engine.LinksInto(name) {
		if !seen[b.From] && !fsroot.Within(b.From, name) {
			seen[b.From] = true
			out = append(out, b.From)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Server) mkdir(name string, out *result.Writer) error {
	e, err := s.open(name, useMkdir)
	if err != nil {
		return err
	}
	defer e.Close()
	_, missing := e.Info()
	if err := e.MkdirAll(); err != nil { // if it exists, says whether it is a directory
		return err
	}
	out.Created = missing != nil
	return nil
}

func notText(name string) error {
	return errs.New(errs.CodeNotText, "%q is not UTF-8 text (binary, or another encoding such as UTF-16): writing text into it would corrupt it; replace it whole with purpose \"update\" if that is what you mean", name)
}

// withField attaches the argument name to a path error found on a second path of the call.
func (s *Server) withField(err error, field string) error {
	st := errs.Status(err, "", s.show)
	return &errs.Error{Code: st.Code, Field: field, Msg: field + ": " + st.Error}
}
