package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
)

func writerTool() mcp.Tool {
	return mcp.NewTool(WriterName,
		mcp.WithDescription("Writes are atomic: a failed call changes nothing. What a change replaces is kept: reader purpose history lists it, restore puts it back. append creates a missing file."),
		schemas[intents.Update, WriterResult](),
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
	s.resumes.forget() // the files a list or search went past may change
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
		if err := s.writesText(name); err != nil {
			return nil, err
		}
	}
	if in.Content != nil && int64(len(*in.Content)) > s.cfg.MaxFileSize {
		return nil, &callError{code: CodeTooLarge, field: "content", msg: "content is larger than the server's file size limit (" + humanBytes(s.cfg.MaxFileSize) + "): write it in parts with purpose \"append\""}
	}
	if err := s.charge(c, in.Options.Recursive); err != nil {
		return nil, err
	}
	out := WriterResult{Status: Status{Success: true}, Path: name}
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
// image or another binary type ([Server.writesText]).
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
	return &callError{code: CodeIsDir, field: "target.destination", msg: fmt.Sprintf(
		"%q is a folder: give the file's path inside it, such as %q", s.show(dest), s.show(path.Join(dest, path.Base(src))))}
}

// noFolder refuses a write into the folder dir, which does not exist, naming field when it is set.
func noFolder(dir, field string) error {
	return &callError{code: CodeNotFound, field: field, msg: fmt.Sprintf(
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

func (s *Server) create(ctx context.Context, c *call, name, content string, o intents.UpdateOptions, out *WriterResult) error {
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
	out.Created, out.SizeBytes, out.Lines = true, ptr(len(content)), ptr(lineCount([]byte(content)))
	out.Version = fsroot.Version([]byte(content))
	return nil
}

// MaxConflictContent is the largest file whose text a CONFLICT answer carries: a note, not a log.
const MaxConflictContent = 16 << 10

// staleWrite is a CONFLICT that carries the file's text now, so that the caller merges its change
// into it and retries without a read in between.
type staleWrite struct {
	err     *fsroot.ConflictError
	version string // of content
	content string
}

func (e *staleWrite) Error() string { return e.err.Error() }
func (e *staleWrite) Unwrap() error { return e.err }

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
	return &staleWrite{err: ce, version: fsroot.Version(now), content: string(now)}
}

// parseVersion returns the version a call sent in field (target.version, edits[i].version), in
// lower case, or refuses one that no read returns. Empty means the write checks nothing.
func parseVersion(field, v string) (string, error) {
	v = strings.ToLower(v)
	if v != "" && (len(v) != 16 || strings.Trim(v, "0123456789abcdef") != "") {
		return "", &callError{code: CodeInvalidArgument, field: field, msg: fmt.Sprintf(
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
	return &callError{code: CodeInvalidArgument, field: "target.version", msg: fmt.Sprintf(
		"%q is a folder, and target.version is the version of a file's content: %s the folder without target.version", name, purpose)}
}

func (s *Server) replace(ctx context.Context, c *call, name, content, version string, o intents.UpdateOptions, out *WriterResult) error {
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
			return newError(CodeNotFound, "%q does not exist: use purpose \"create\" to make a new file", s.show(name))
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
	out.SizeBytes, out.Version, out.Lines = ptr(len(content)), v, ptr(lineCount([]byte(content)))
	return nil
}

func (s *Server) appendTo(ctx context.Context, c *call, name, content, version string, o intents.UpdateOptions, out *WriterResult) error {
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
		return newError(CodeTooLarge, "appending would make %q larger than the server's file size limit (%s): start a new file", s.show(name), humanBytes(s.cfg.MaxFileSize))
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
		out.Diff = unifiedDiff(s.show(name), string(old), string(old)+content)
	}
	return nil
}

// replaces are the purposes whose change replaces or removes what a file held: without a
// history, their answers say it cannot be undone.
var replaces = map[string]bool{"update": true, "append": true, "edit": true, "delete": true, "move": true, "restore": true}

// MaxAppendDiff is the largest append whose answer shows it as a diff, under the file's last
// lines: enough for a note's new section, where an agent would otherwise read the end back.
const MaxAppendDiff = 4 << 10

func (s *Server) remove(ctx context.Context, c *call, name, version string, o intents.UpdateOptions, out *WriterResult) error {
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
		if inside, err = s.keepFolder(ctx, e, name, out); err != nil {
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
func (s *Server) keepRemoved(ctx context.Context, e *fsroot.Entry, name string, info fsroot.Info, version string, out *WriterResult) (*history.State, error) {
	if info.Type != fsroot.TypeFile {
		out.NotKept = "a link is not kept in the history: this delete cannot be undone"
		return nil, nil
	}
	old, st, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	if errors.Is(err, fsroot.ErrTooLarge) {
		out.NotKept = "the file is larger than the server's file size limit (" + humanBytes(s.cfg.MaxFileSize) + "), which the history keeps: this delete cannot be undone"
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
	return newError(CodeNotEmpty, "%q holds %s that the policy blocks (version control, dependencies, secrets or credentials), which no call can see or delete, so %s. Move the folder whole (purpose \"move\"), or delete what you can see in it one by one; the operator can take a name off the blocked list (--unblock NAME)", shown, what, done)
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

// moving is one file or folder a move takes, and where.
type moving struct {
	markdown.Moved
	dir bool
}

func (s *Server) move(ctx context.Context, c *call, name string, in intents.Update, out *WriterResult) error {
	isDir, err := s.isFolder(name)
	if err != nil {
		return err
	}
	if err := noFolderVersion(s.show(name), "move", isDir, in.Target.Version); err != nil {
		return err
	}
	dest, err := s.resolvePath(in.Target.Destination, kindOf(isDir))
	if err != nil {
		if !isDir {
			err = s.folderAsFile(err, dest, name)
		}
		return s.destErr(err)
	}
	if dest == "." {
		return fsroot.ErrIsRoot
	}
	out.Destination = dest
	return s.moveAll(ctx, c, []moving{{markdown.Moved{From: name, To: dest}, isDir}}, in, out)
}

// moveWritable judges where m puts what it moves: its destination, as its parents' links reach
// it, and, for a folder moved where a place that runs what is written goes on below (a folder
// moved to .config may hold fish/config.fish), every entry at its new path.
func (s *Server) moveWritable(ctx context.Context, m moving) error {
	refuse := func(err error, name string) error {
		return &fileError{err: err, name: name, field: "target.destination"}
	}
	real := m.To
	if e, err := s.cfg.Root.LookupLink(m.To); err == nil {
		real = e.Path()
		e.Close()
	}
	if err := s.writable(m.To, real); err != nil {
		return refuse(err, m.To)
	}
	if !m.dir || !s.cfg.Policy.HoldsAutoRun(real) {
		return nil
	}
	return s.cfg.Root.Walk(ctx, m.From, 0, func(info fsroot.Info, err error) error {
		if err != nil || info.Path == m.From {
			return nil
		}
		to := path.Join(real, strings.TrimPrefix(info.Path, m.From+"/"))
		if err := s.cfg.Policy.CheckWrite(to); err != nil {
			return refuse(err, to)
		}
		return nil
	})
}

// isFolder reports whether name is a folder, or a link to one.
func (s *Server) isFolder(name string) (bool, error) {
	info, err := s.cfg.Root.Lstat(name)
	if err != nil {
		return false, err
	}
	st, err := s.cfg.Root.Stat(name)
	return err == nil && st.Type == fsroot.TypeDir || info.Type == fsroot.TypeDir, nil
}

func kindOf(isDir bool) kind {
	if isDir {
		return kindDir
	}
	return kindFile
}

// moveMany answers a move of target.paths into the folder target.destination, each keeping its
// name, or of each of target.moves to its own destination: every one moves, or none does.
func (s *Server) moveMany(ctx context.Context, c *call, in intents.Update) (any, error) {
	pairs := in.Target.Moves
	if len(pairs) == 0 {
		for _, p := range in.Target.Paths {
			pairs = append(pairs, intents.MovePair{Path: p})
		}
	}
	var moves []moving
	at := map[string]int{} // destination -> index of the pair
	for i, pair := range pairs {
		m, err := s.movePair(c, in, i, pair)
		if err != nil {
			return nil, err
		}
		if j, ok := at[m.To]; ok {
			field := pairField(in, i, "destination")
			if len(in.Target.Moves) == 0 {
				field = pairField(in, i, "path") // what is the same is its name
			}
			return nil, &callError{code: CodeInvalidArgument, field: field, msg: fmt.Sprintf(
				"%s and %s would both be %q: a folder holds one file of a name; give each its own destination (target.moves)", pairField(in, j, "path"), pairField(in, i, "path"), s.show(m.To))}
		}
		at[m.To] = i
		moves = append(moves, m)
	}
	if err := s.chained(in, moves); err != nil {
		return nil, err
	}
	if err := s.charge(c, false); err != nil {
		return nil, err
	}
	out := WriterResult{Status: Status{Success: true}}
	if len(in.Target.Moves) == 0 {
		out.Destination = path.Dir(moves[0].To)
	}
	if err := s.moveAll(ctx, c, moves, in, &out); err != nil {
		return nil, err
	}
	for _, m := range moves {
		out.Moved = append(out.Moved, MovedFile{Path: m.From, Destination: m.To})
	}
	out.Metadata = c.meta()
	return out, nil
}

// pairField names the field of the i-th file of a move of several: target.paths[i], or
// target.moves[i].path or .destination (what).
func pairField(in intents.Update, i int, what string) string {
	if len(in.Target.Moves) == 0 {
		if what == "destination" {
			return "target.destination"
		}
		return fmt.Sprintf("target.paths[%d]", i)
	}
	return fmt.Sprintf("target.moves[%d].%s", i, what)
}

// movePair judges the i-th file of a move of several, pair, and where it goes: its own
// destination, or into target.destination under its name.
func (s *Server) movePair(c *call, in intents.Update, i int, pair intents.MovePair) (moving, error) {
	field := pairField(in, i, "path")
	name, err := s.resolvePath(pair.Path, kindAny)
	if c.path == "" {
		c.path = name
	}
	if err == nil && name == "." {
		err = fsroot.ErrIsRoot
	}
	if err != nil {
		return moving{}, s.withField(err, field)
	}
	isDir, err := s.isFolder(name)
	if err != nil {
		return moving{}, s.withField(err, field)
	}
	to := pair.Destination
	if len(in.Target.Moves) == 0 {
		to = path.Join(in.Target.Destination, path.Base(name))
	}
	dest, err := s.resolvePath(to, kindOf(isDir))
	if err != nil {
		if len(in.Target.Moves) > 0 {
			return moving{}, s.withField(err, pairField(in, i, "destination"))
		}
		return moving{}, s.destErr(err)
	}
	if fsroot.Within(dest, name) {
		return moving{}, &callError{code: CodeInvalidArgument, field: pairField(in, i, "destination"), msg: fmt.Sprintf(
			"%q is inside %s, %q: a folder cannot move into itself; choose a destination outside it", s.show(dest), field, s.show(name))}
	}
	return moving{markdown.Moved{From: name, To: dest}, isDir}, nil
}

// chained refuses a move of several where one file's destination is, or is inside, what another
// moves, or one moves inside another: done in turn, one rename would overwrite, or carry off,
// what another has still to move.
func (s *Server) chained(in intents.Update, moves []moving) error {
	for i, a := range moves {
		for j, b := range moves {
			switch {
			case i == j:
			case fsroot.Within(a.To, b.From):
				return &callError{code: CodeInvalidArgument, field: pairField(in, i, "destination"), msg: fmt.Sprintf(
					"%q is where %s is now, which this call moves too: a chain or a swap needs two calls (move one to a new name first)", s.show(a.To), pairField(in, j, "path"))}
			case fsroot.Within(a.From, b.From):
				return &callError{code: CodeInvalidArgument, field: pairField(in, i, "path"), msg: fmt.Sprintf(
					"%q is inside %q, which %s moves: move the folder, or what is in it, not both", s.show(a.From), s.show(b.From), pairField(in, j, "path"))}
			}
		}
	}
	return nil
}

// moveAll moves each of moves, all or none, and with options.preserveRelationships keeps the
// links to them working: the links between two documents that move together reach each other
// where they go. A rename that fails puts back the ones made before it.
func (s *Server) moveAll(ctx context.Context, c *call, moves []moving, in intents.Update, out *WriterResult) error {
	pairs := make([]markdown.Moved, len(moves))
	for i, m := range moves {
		pairs[i] = m.Moved
	}
	version := in.Target.Version
	for _, m := range moves {
		if err := s.moveWritable(ctx, m); err != nil {
			return err
		}
	}
	if in.Options.PreserveRelationships {
		if err := s.linksKnown(); err != nil {
			return err
		}
	}
	if !in.Options.DryRun {
		unlock, err := s.cfg.Root.Lock(ctx, s.moveWrites(pairs, in.Options.PreserveRelationships)...)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if version != "" {
		// Before anything changes, the folders options.createPath makes included; RenameIf
		// checks again right before the rename.
		old, _, err := s.readJudged(ctx, pairs[0].From, s.cfg.MaxFileSize)
		if err != nil {
			return err
		}
		if err := unchanged(old, version); err != nil {
			return err
		}
	}
	keep, relinks := in.Options.LinkText != "target", in.Options.PreserveRelationships
	if !in.Options.Overwrite && (in.Options.DryRun || len(moves) > 1) {
		for i, m := range moves { // a move of several looks before it moves any
			if _, err := s.cfg.Root.Lstat(m.To); err == nil {
				err := existsAt(m.To).(*callError)
				if len(in.Target.Moves) > 0 {
					err.field = pairField(in, i, "destination")
				}
				return err
			}
		}
	}
	if in.Options.DryRun {
		out.DryRun = true
		if relinks {
			r, err := s.relink(ctx, nil, pairs, true, keep)
			if err != nil {
				return err
			}
			r.report(out)
			s.mentions(ctx, pairs).report(out)
			reportLinks(out)(s.holdLinks(pairs).predict(s.cfg.Engine.AfterMoves(pairs), r.after))
		}
		return nil
	}
	for _, m := range moves {
		if err := s.makeParents(m.To, in.Options); err != nil {
			return err
		}
	}
	var mentions mentionsFound
	var held linkCheck
	if relinks {
		// Before the move, where the index knows the files.
		mentions, held = s.mentions(ctx, pairs), s.holdLinks(pairs)
	}
	if err := s.renameAll(ctx, c, moves, in.Options.Overwrite, version); err != nil {
		return err
	}
	touched := []string{}
	for _, p := range pairs {
		touched = append(touched, p.From, p.To)
	}
	if relinks {
		r, err := s.relink(ctx, c, pairs, false, keep)
		if err != nil {
			s.cfg.Log.Printf("rewriting links after moving %q: %v", pairs[0].From, err)
		}
		r.report(out)
		mentions.report(out)
	}
	s.refresh(ctx, append(touched, out.UpdatedFiles...)...)
	if relinks {
		held.report(s, out)
	}
	return nil
}

// renameAll renames each of moves in turn; when one fails, it renames back those it made, newest
// first, so that a failed move of several leaves every file where it was.
func (s *Server) renameAll(ctx context.Context, c *call, moves []moving, overwrite bool, version string) error {
	var changes []history.Change
	for i, m := range moves {
		replaced, err := s.keepReplaced(ctx, m, overwrite)
		if err == nil {
			err = s.rename(ctx, m.From, m.To, m.dir, overwrite, version)
		}
		if err == nil {
			if replaced != nil {
				changes = append(changes, *replaced)
			}
			changes = append(changes, history.Change{Path: m.From, To: m.To})
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if uerr := s.rename(ctx, moves[j].To, moves[j].From, moves[j].dir, false, ""); uerr != nil {
				s.cfg.Log.Printf("putting %q back after a failed move: %v", moves[j].From, uerr)
			}
		}
		if errors.Is(err, fs.ErrExist) {
			return existsAt(m.To)
		}
		return err
	}
	if s.cfg.History != nil {
		c.changes = append(c.changes, changes...)
	}
	return nil
}

// keepReplaced keeps, before m moves a file over one at its destination (overwrite), what that
// file holds: the change for the call's record, or nil when nothing is replaced or no history is
// kept.
func (s *Server) keepReplaced(ctx context.Context, m moving, overwrite bool) (*history.Change, error) {
	if s.cfg.History == nil || !overwrite || m.dir {
		return nil, nil
	}
	e, err := s.open(m.To, useReplace)
	if err != nil {
		return nil, nil // the rename refuses it, or makes it
	}
	defer e.Close()
	if info, err := e.Info(); err != nil || info.Type != fsroot.TypeFile {
		return nil, nil // nothing there, or a folder the rename refuses to replace
	}
	old, info, err := e.ReadFile(ctx, s.cfg.MaxFileSize)
	if err != nil {
		return nil, err
	}
	before, err := s.keep(ctx, m.To, old, info.Mode)
	if err != nil {
		return nil, err
	}
	return &history.Change{Path: m.To, Before: before}, nil
}

// moveWrites lists the files a move writes, for their locks: the two ends of each of moves, and
// with relinks the documents that link into them and those they hold, whose links are rewritten.
// A document inside a moved folder keeps its lock across the move (see [fsroot.Root.Lock]).
func (s *Server) moveWrites(moves []markdown.Moved, relinks bool) []string {
	var names []string
	for _, m := range moves {
		names = append(names, m.From, m.To)
	}
	if relinks {
		names = append(names, s.linkedFromAny(moves)...)
		for _, m := range moves {
			names = append(names, s.cfg.Engine.Documents(m.From)...)
		}
	}
	return names
}

// linkedFromAny lists the documents outside every one of moves that link into one of them.
func (s *Server) linkedFromAny(moves []markdown.Moved) []string {
	var out []string
	for _, m := range moves {
		for _, p := range s.linkedFrom(m.From) {
			if !slices.ContainsFunc(moves, func(o markdown.Moved) bool { return fsroot.Within(p, o.From) }) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// linksKnown says whether a move can keep links working: the index must know every link to what
// moves. While it is being built, what it knows is a part, and a move would rewrite a part of the
// links and call the rest checked; so the move is refused, nothing moved, until the build ends.
func (s *Server) linksKnown() error {
	e := s.cfg.Engine
	if e == nil {
		return &callError{code: CodeNotAvailable, field: "options.preserveRelationships", msg: "links cannot be kept working because the search index is off on this server (--no-index): move without preserveRelationships"}
	}
	st := e.Status()
	if st.Complete {
		return nil
	}
	progress := fmt.Sprintf("%d of %d files indexed", st.Done, st.Total)
	if st.Phase != semantic.PhaseIndexing {
		progress = fmt.Sprintf("%s: %d files found so far", st.Phase, st.Total)
	}
	retry := retryAfter(st.Left)
	return &callError{code: CodeNotAvailable, field: "options.preserveRelationships", retry: retry, msg: fmt.Sprintf(
		"links cannot be kept working yet: the search index is still being built (%s), and a move that keeps links must know every link to what moves. "+
			"Nothing was moved. Try again in about %s, or move without preserveRelationships.", progress, roundUp(retry))}
}

func existsAt(dest string) error {
	return &callError{code: CodeExists, field: "target.destination", msg: "\"" + dest + "\" already exists: choose another destination, or set options.overwrite to true to replace that file"}
}

func (s *Server) mkdir(name string, out *WriterResult) error {
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
	return newError(CodeNotText, "%q is not UTF-8 text (binary, or another encoding such as UTF-16): writing text into it would corrupt it; replace it whole with purpose \"update\" if that is what you mean", name)
}

// withField attaches the argument name to a path error found on a second path of the call.
func (s *Server) withField(err error, field string) error {
	st := failure(err, "", s.show)
	return &callError{code: st.Code, field: field, msg: field + ": " + st.Error}
}

// rename moves name to dest, each looked up once (a final link not followed) and judged by the
// path it reached (dest as a folder when isDir), and moves the entries those lookups found.
func (s *Server) rename(ctx context.Context, name, dest string, isDir, overwrite bool, version string) error {
	src, err := s.open(name, useRemove)
	if err != nil {
		return err
	}
	defer src.Close()
	u := useReplace
	if isDir {
		u = useReplaceDir
	}
	dst, err := s.open(dest, u)
	if err != nil {
		if _, judged := errors.AsType[*security.PathError](err); judged {
			return s.destErr(err) // the policy's: name the field
		}
		return err
	}
	defer dst.Close()
	return src.RenameIf(ctx, dst, overwrite, version, s.cfg.MaxFileSize)
}

// destErr names target.destination in err, a failure to judge or reach it, unless err is a call
// error, which names its field already.
func (s *Server) destErr(err error) error {
	var ce *callError
	if !errors.As(err, &ce) {
		return s.withField(err, "target.destination")
	}
	return err
}

// writeCall is what a writer purpose works on: the call and its intent, target.path cleaned
// (name), the root a copy reads from (from: the writer's own, or another root's), and the answer
// it fills.
type writeCall struct {
	c    *call
	in   intents.Update
	name string
	from *Server
	out  *WriterResult
}
