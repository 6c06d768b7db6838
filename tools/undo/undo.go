// Package undo is what the tools' history gives back: the changes it keeps of a file or a folder
// (the reader's history purpose), and restore, which puts back a version, a deleted folder's files
// or every change of one call, each step kept as a change in its turn so that an undo can be
// undone; and, before a folder is deleted, the keeping of its files.
package undo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
)

// MaxEntries is the most changes one history answer lists, the newest first: a page of a
// note's life, or of a folder's recent changes.
const MaxEntries = 50

// Host is what undoing needs of the tools, for one call: judged lookups, the history of what it
// changes, and the moves and folders a write makes.
type Host interface {
	// Open looks name up once, judged as a write's target when write is set, else as a read's.
	Open(name string, write bool) (*fsroot.Entry, error)
	// Keep keeps data, what name holds with permission bits mode, in the history before a
	// change; Changed records the change in the call (data nil: it removed the file).
	Keep(ctx context.Context, name string, data []byte, mode fs.FileMode) (*history.State, error)
	Changed(name string, before *history.State, data []byte, mode fs.FileMode)
	// MakeParents makes name's missing folders when o asks for it.
	MakeParents(name string, o intents.UpdateOptions) error
	// MoveBack moves what the move ch put at ch.To back to ch.Path, kept as a move of the call.
	MoveBack(ctx context.Context, ch history.Change, overwrite bool) error
	// Refresh brings the index up to date for names.
	Refresh(ctx context.Context, names ...string)
	// Show is name as the caller names it.
	Show(name string) string
}

// Tree is the root whose changes are undone.
type Tree struct {
	Host        Host
	Store       *history.Store // nil: the server keeps no history
	Root        *fsroot.Root
	Policy      *security.Policy
	MaxFileSize int64
	// MaxFolderFiles is the most files of a folder a delete keeps (tools' MaxCopyEntries).
	MaxFolderFiles int
}

// List answers the reader's history purpose in out: the changes the history keeps of name, a
// file, or of everything below it, a folder (deleted files included), newest first, each with the
// version it replaced, which restore brings back.
func (t Tree) List(ctx context.Context, name string, out *result.Reader) error {
	if t.Store == nil {
		return noHistory()
	}
	records, truncated, err := t.Store.Records(ctx, history.Touching(name, true))
	if err != nil {
		return err
	}
	out.History = []result.HistoryEntry{}
	for _, r := range records {
		for _, ch := range r.Changes {
			if !fsroot.Within(ch.Path, name) && !fsroot.Within(ch.To, name) {
				continue
			}
			if len(out.History) == MaxEntries {
				out.Truncated = true
				break
			}
			e := result.HistoryEntry{Path: ch.Path, MovedTo: ch.To, Call: r.ID, Time: r.Time.Format(time.RFC3339), Purpose: r.Purpose, Deleted: ch.After == nil && ch.To == ""}
			if ch.Before != nil {
				e.Version, e.SizeBytes = ch.Before.Version, ptr(ch.Before.Size)
			}
			out.History = append(out.History, e)
		}
	}
	out.Truncated = out.Truncated || truncated
	return nil
}

// noHistory is the refusal of a history purpose by a server that keeps none.
func noHistory() error {
	return errs.New(errs.CodeNotAvailable, "this server keeps no history (it was started with --no-history, or found no folder for it outside the root): changes are final")
}

// Restore answers the writer's restore purpose: it puts back in name the version the
// history kept (version, or by default the one the last change replaced), through a lookup judged
// like any write, and keeps what it replaces, so a restore is undone like any change. With no
// version given, the file must still be as the last change left it (else CONFLICT, unless
// options.overwrite): what someone wrote since is not silently undone. Undoing a create removes
// the file. A name the history knows only files below is a deleted folder: restoreFolder.
func (t Tree) Restore(ctx context.Context, name, version string, o intents.UpdateOptions, out *result.Writer) error {
	if t.Store == nil {
		return noHistory()
	}
	records, _, err := t.Store.Records(ctx, history.Touching(name, true))
	if err != nil {
		return err
	}
	var changes, under []history.Change // of name, and of the files below it, newest first
	for _, r := range records {
		for _, ch := range r.Changes {
			switch {
			case ch.Path == name:
				changes = append(changes, ch)
			case fsroot.Within(ch.Path, name):
				under = append(under, ch)
			}
		}
	}
	if version == "" && len(records) > 0 && hasMove(records[0]) {
		return t.undoRecord(ctx, records[0], o, out) // a move, and its link rewrites, undo together
	}
	if len(changes) == 0 && len(under) > 0 && version == "" {
		return t.restoreFolder(ctx, name, under, o, out)
	}
	if len(changes) == 0 {
		return errs.New(errs.CodeNotFound, "the history keeps no change of %q: purpose history lists what it keeps", t.Host.Show(name))
	}
	last, want := changes[0], changes[0].Before
	if version != "" {
		i := slices.IndexFunc(changes, func(ch history.Change) bool { return ch.Before != nil && ch.Before.Version == version })
		if i < 0 {
			return &errs.Error{Code: errs.CodeNotFound, Field: "target.version", Msg: fmt.Sprintf("version %s of %q is not kept: purpose history lists the kept versions", version, t.Host.Show(name))}
		}
		want = changes[i].Before
	}
	if version == "" && !o.Overwrite {
		if err := t.asLeft(ctx, name, last.After); err != nil {
			return err
		}
	}
	return t.putBack(ctx, name, want, o, out)
}

// asLeft refuses with CONFLICT a restore of name that would undo a change whose result (after;
// nil: it removed the file) is no longer what name holds.
func (t Tree) asLeft(ctx context.Context, name string, after *history.State) error {
	e, err := t.Host.Open(name, true)
	if err != nil {
		return err
	}
	defer e.Close()
	now, _, err := e.ReadFile(ctx, t.MaxFileSize)
	if err != nil && !notExist(err) {
		return err
	}
	exists := err == nil
	if after == nil && !exists || after != nil && exists && fsroot.Version(now) == after.Version {
		return nil
	}
	return &errs.Error{Code: errs.CodeConflict, Msg: fmt.Sprintf("%q changed since the last change this restore would undo: nothing was written; read it, then restore a version purpose history lists (target.version), or set options.overwrite to put back the one before anyway", t.Host.Show(name))}
}

// putBack makes name hold want (nil: no file), keeping what it replaces, and brings the index up
// to date for it.
func (t Tree) putBack(ctx context.Context, name string, want *history.State, o intents.UpdateOptions, out *result.Writer) error {
	defer t.Host.Refresh(ctx, name)
	e, err := t.Host.Open(name, true)
	if err != nil {
		return err
	}
	defer func() { e.Close() }()
	now, info, err := e.ReadFile(ctx, t.MaxFileSize)
	exists := err == nil
	if err != nil && !notExist(err) {
		return err
	}
	switch {
	case want == nil && !exists:
		return nil // made by the change undone, and gone already
	case want == nil: // undo of a create: remove what it made, kept first
		before, err := t.Host.Keep(ctx, name, now, info.Mode)
		if err == nil {
			err = e.RemoveIf(ctx, fsroot.Version(now), t.MaxFileSize)
		}
		if err != nil {
			return err
		}
		t.Host.Changed(name, before, nil, 0)
		out.Deleted = true
		return nil
	}
	content, err := t.Store.Content(ctx, want.SHA256)
	if err != nil {
		return err
	}
	if exists {
		if fsroot.Version(now) != want.Version {
			before, err := t.Host.Keep(ctx, name, now, info.Mode)
			if err != nil {
				return err
			}
			if _, err := e.WriteFileIf(ctx, content, fsroot.Version(now), t.MaxFileSize); err != nil {
				return err
			}
			t.Host.Changed(name, before, content, info.Mode)
		}
	} else {
		e.Close()
		if err := t.Host.MakeParents(name, o); err != nil {
			return err
		}
		if e, err = t.Host.Open(name, true); err != nil {
			return err
		}
		if err := e.CreateFile(ctx, content, want.Mode); err != nil {
			return err
		}
		t.Host.Changed(name, nil, content, want.Mode)
		out.Created = true
	}
	out.SizeBytes, out.Version = ptr(len(content)), want.Version
	return nil
}

// KeepFolder keeps, before the folder e found at name is deleted, the content of every file in it
// (each looked up and judged as a read is), and returns their changes for the call's record, named
// below name. What it cannot keep it counts in out.NotKept: links, files over the size limit, and
// every file when there are more than MaxFolderFiles. A folder holding what the policy blocks is
// kept nothing of: the delete refuses it.
func (t Tree) KeepFolder(ctx context.Context, e *fsroot.Entry, name string, out *result.Writer) ([]history.Change, error) {
	var changes []history.Change
	var lost []string
	n := 0
	err := t.Root.Walk(ctx, e.Path(), 0, func(info fsroot.Info, err error) error {
		if err != nil {
			return err
		}
		if errors.Is(t.Policy.CheckName(info.Path, true), security.ErrBlocked) {
			return errBlockedInside // the delete refuses the folder: keep nothing for it
		}
		p := name
		if info.Path != e.Path() {
			p = path.Join(name, strings.TrimPrefix(info.Path, e.Path()+"/"))
		}
		switch info.Type {
		case fsroot.TypeDir:
			return nil
		case fsroot.TypeFile:
		default:
			lost = append(lost, p)
			return nil
		}
		if n++; n > t.MaxFolderFiles {
			return errTooMany
		}
		fe, err := t.Host.Open(info.Path, false)
		if err != nil {
			lost = append(lost, p) // refused for another reason (a hard link): not kept
			return nil
		}
		data, st, err := fe.ReadFile(ctx, t.MaxFileSize)
		fe.Close()
		if errors.Is(err, fsroot.ErrTooLarge) {
			lost = append(lost, p)
			return nil
		}
		if err != nil {
			return err
		}
		kept, err := t.Host.Keep(ctx, p, data, st.Mode)
		if err != nil {
			return err
		}
		changes = append(changes, history.Change{Path: p, Before: kept})
		return nil
	})
	if errors.Is(err, errBlockedInside) {
		return nil, nil
	}
	if errors.Is(err, errTooMany) {
		out.NotKept = fmt.Sprintf("the folder holds more than %d files, more than the history keeps of one delete: this delete cannot be undone", t.MaxFolderFiles)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(lost) > 0 {
		out.NotKept = fmt.Sprintf("%d entries were not kept (links, files over the size limit or with other hard links), such as %q: restore brings back the rest", len(lost), t.Host.Show(lost[0]))
	}
	return changes, nil
}

// errTooMany and errBlockedInside stop KeepFolder's walk of a folder too large to keep, or one
// holding what the policy blocks, which the delete refuses (tools' removeFolder).
var (
	errTooMany       = errors.New("too many files")
	errBlockedInside = errors.New("blocked entry inside")
)

// restoreFolder brings back the files below the folder name whose last change deleted them, as
// one change: a file there again is a CONFLICT, before anything is written, unless
// options.overwrite; a failure midway leaves those restored before it, each kept as a change of
// this call, so it can be undone. changes are the history's changes below name, newest first.
func (t Tree) restoreFolder(ctx context.Context, name string, changes []history.Change, o intents.UpdateOptions, out *result.Writer) error {
	seen := map[string]bool{}
	var gone []history.Change // the files whose last change removed them
	for _, ch := range changes {
		if seen[ch.Path] {
			continue
		}
		seen[ch.Path] = true
		if ch.After == nil && ch.Before != nil {
			gone = append(gone, ch)
		}
	}
	if len(gone) == 0 {
		return errs.New(errs.CodeNotFound, "no file below %q was deleted by a change the history keeps: purpose history lists what it keeps", t.Host.Show(name))
	}
	if !o.Overwrite {
		for _, ch := range gone {
			if _, err := t.Root.Lstat(ch.Path); err == nil {
				return &errs.Error{Code: errs.CodeConflict, Msg: fmt.Sprintf("%q is there again, so nothing was restored: set options.overwrite to put the deleted version back over it, or restore the files one by one", t.Host.Show(ch.Path))}
			}
		}
	}
	for _, ch := range gone {
		one := result.Writer{}
		o.CreatePath = true // the folders went with the files
		if err := t.putBack(ctx, ch.Path, ch.Before, o, &one); err != nil {
			return &errs.File{Err: err, Name: ch.Path}
		}
		out.Files = append(out.Files, result.EditedFile{Path: ch.Path, Version: one.Version, SizeBytes: one.SizeBytes})
	}
	out.Created = true
	return nil
}

// hasMove reports whether r moved a file or a folder.
func hasMove(r *history.Record) bool {
	return slices.ContainsFunc(r.Changes, func(ch history.Change) bool { return ch.To != "" })
}

// Call answers restore with target.call: it undoes every change of the call the history records
// under id ([Tree.undoRecord]).
func (t Tree) Call(ctx context.Context, id string, o intents.UpdateOptions, out *result.Writer) error {
	if t.Store == nil {
		return noHistory()
	}
	records, _, err := t.Store.Records(ctx, func(r *history.Record) bool { return r.ID == id })
	if err != nil {
		return err
	}
	if len(records) == 0 {
		return &errs.Error{Code: errs.CodeNotFound, Field: "target.call", Msg: fmt.Sprintf("no call %q is kept: purpose history lists the calls it keeps", id)}
	}
	return t.undoRecord(ctx, records[0], o, out)
}

// undoRecord undoes every change of r, the last first: a move is moved back, a content put back
// (a file r made is removed). It first checks that each file is still as r left it, a CONFLICT
// before anything is done unless options.overwrite; each step is kept as a change of this call,
// so the undo can be undone in its turn.
func (t Tree) undoRecord(ctx context.Context, r *history.Record, o intents.UpdateOptions, out *result.Writer) error {
	movedTo := map[string]bool{} // where r's moves put something: those paths hold the moved entry
	for _, ch := range r.Changes {
		if ch.To != "" {
			movedTo[ch.To] = true
		}
	}
	if !o.Overwrite {
		for i, ch := range r.Changes {
			var err error
			switch {
			case ch.To != "":
				// A later change of r that made a file where the move took it from is undone
				// first, freeing the place.
				freed := slices.ContainsFunc(r.Changes[i+1:], func(l history.Change) bool { return l.Path == ch.Path && l.To == "" })
				err = t.movedStill(ch, freed)
			case !movedTo[ch.Path]:
				err = t.asLeft(ctx, ch.Path, ch.After)
			}
			if err != nil {
				return err
			}
		}
	}
	o.CreatePath = true // a folder on the way may have gone since
	for i := len(r.Changes) - 1; i >= 0; i-- {
		ch := r.Changes[i]
		one := result.Writer{}
		var err error
		if ch.To != "" {
			err = t.Host.MoveBack(ctx, ch, o.Overwrite)
		} else {
			err = t.putBack(ctx, ch.Path, ch.Before, o, &one)
		}
		if err != nil {
			return &errs.File{Err: err, Name: ch.Path}
		}
		out.Files = append(out.Files, result.EditedFile{Path: ch.Path, Version: one.Version, SizeBytes: one.SizeBytes})
	}
	return nil
}

// movedStill refuses with CONFLICT the undo of the move ch when what it moved is no longer where
// it put it, or its old place is taken (and not freed by the undo first).
func (t Tree) movedStill(ch history.Change, freed bool) error {
	if _, err := t.Root.Lstat(ch.To); err != nil {
		return &errs.Error{Code: errs.CodeConflict, Msg: fmt.Sprintf("%q is no longer where the move put it, so nothing was undone", t.Host.Show(ch.To))}
	}
	if _, err := t.Root.Lstat(ch.Path); err == nil && !freed {
		return &errs.Error{Code: errs.CodeConflict, Msg: fmt.Sprintf("%q, where the move took it from, is taken again, so nothing was undone: set options.overwrite to move it back over that", t.Host.Show(ch.Path))}
	}
	return nil
}

// notExist reports whether err says a file is not there, or a file stands where a folder on its
// path should be.
func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fsroot.ErrNotDir)
}

func ptr[T any](v T) *T { return &v }
