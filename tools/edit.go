package tools

import (
	"context"
	"fmt"
	"io/fs"
	"iter"
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

// editFile is one file of an edit: the edits that apply to it, and what they make of it.
type editFile struct {
	name    string         // root-relative, as the policy cleaned the first path that named it
	entry   *fsroot.Entry  // what name reached, judged: the file is read and written through it
	field   string         // the field that named it: edits[i].path, or "" for target.path
	version string         // the version the caller gave for it, or "" for none
	vfield  string         // the field that gave its version, or would have
	at      []int          // its edits, as indexes into the call's, in order
	old     []byte         // what it held when read
	text    string         // what its edits make of old
	n       int            // how many replacements they made
	kept    *history.State // old as the history keeps it, or nil without history
	mode    fs.FileMode    // its permission bits
	written string         // its version once written
}

// its yields f's edits with their indexes in the call's edits.
func (f *editFile) its(edits []intents.Edit) iter.Seq2[int, intents.Edit] {
	return func(yield func(int, intents.Edit) bool) {
		for _, i := range f.at {
			if !yield(i, edits[i]) {
				return
			}
		}
	}
}

// edit applies in's edits to target.path (name) and to the files the edits name in path, all or
// nothing: every file is read and edited in memory first, and only when every edit applies are
// they written, one by one, each on the condition that it still holds what was read. When a
// write fails, the files written before it are put back.
func (s *Server) edit(ctx context.Context, c *call, name string, in intents.Update, out *result.Writer) error {
	files, err := s.editFiles(c, name, in)
	defer closeEdited(files)
	if err != nil {
		return err
	}
	if !in.Options.DryRun {
		entries := make([]*fsroot.Entry, len(files))
		for i, f := range files {
			entries[i] = f.entry
		}
		// Held from the reads to the last write: parallel edits of one file apply one after
		// another, each to the text the one before left.
		unlock, err := s.cfg.Root.LockEntries(ctx, entries...)
		if err != nil {
			return err
		}
		defer unlock()
	}
	for _, f := range files {
		if err := s.editText(ctx, f, in.Edits); err != nil {
			return s.fileFailed(ctx, f, err)
		}
	}
	if !in.Options.DryRun {
		if err := s.writeEdited(ctx, c, files, in.Options); err != nil {
			return err
		}
	}
	answerEdit(files, in.Options.DryRun, s.show, out)
	return nil
}

// editFiles groups in's edits by the file they apply to, each edit's path judged by the path
// policy as target.path is, and checks the versions given. target.path's file (name) comes
// first, if an edit applies to it, then the others in the order of their first edit. Two paths
// that reach one file (b.md and a/../b.md, or a link and the file it leads to) are one file.
// Each file is looked up once, and its entry judged ([Server.open], useWrite): the caller reads and writes
// it through that entry, and closes the files (closeEdited) whatever the error.
func (s *Server) editFiles(c *call, name string, in intents.Update) ([]*editFile, error) {
	entry, err := s.open(name, useWrite)
	if err != nil {
		return nil, err
	}
	target := &editFile{name: name, entry: entry, version: in.Target.Version, vfield: "target.version"}
	files, byReal := []*editFile{target}, map[string]*editFile{entry.Path(): target}
	for i, e := range in.Edits {
		f := target
		if e.Path != "" {
			field := fmt.Sprintf("edits[%d].path", i)
			n, entry, err := s.editEntry(e.Path)
			if err == nil {
				if err = s.docs().WritesText(n); err != nil {
					entry.Close()
				}
			}
			if err != nil {
				return files, &errs.File{Err: err, Name: n, Field: field}
			}
			if f = byReal[entry.Path()]; f != nil {
				entry.Close()
			} else {
				f = &editFile{name: n, entry: entry, field: field, vfield: fmt.Sprintf("edits[%d].version", i)}
				files, byReal[entry.Path()] = append(files, f), f
			}
		}
		if e.Version != "" {
			field := fmt.Sprintf("edits[%d].version", i)
			v, err := parseVersion(field, e.Version)
			if err != nil {
				return files, err
			}
			switch {
			case f.version == "":
				f.version, f.vfield = v, field
			case f.version != v:
				return files, &errs.Error{Code: errs.CodeInvalidArgument, Field: field, Msg: fmt.Sprintf(
					"%s (%s) and %s (%s) are two versions of %q, which has one: send the version its last read returned, once", field, v, f.vfield, f.version, s.show(f.name))}
			}
		}
		f.at = append(f.at, i)
	}
	if len(target.at) == 0 {
		if in.Target.Version != "" {
			return files, &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.version", Msg: fmt.Sprintf(
				"target.version is the version of %q, which no edit applies to (each names another file in path): leave target.version out, and give each file's version in its edits' version", s.show(name))}
		}
		target.entry.Close()
		files = files[1:]
	}
	if len(files) > intents.MaxEditFiles {
		return files, &errs.Error{Code: errs.CodeInvalidArgument, Field: "edits", Msg: fmt.Sprintf(
			"the edits apply to %d files, and one call edits at most %d: split them into several calls", len(files), intents.MaxEditFiles)}
	}
	for range len(files) - 1 { // the call itself paid for one file
		if err := s.charge(c, false); err != nil {
			return files, err
		}
	}
	return files, nil
}

// editEntry cleans raw, an edit's path, and looks it up once for the edit ([Server.open]):
// the cleaned name, and the entry the caller closes.
func (s *Server) editEntry(raw string) (string, *fsroot.Entry, error) {
	name, err := s.cfg.Policy.Clean(raw)
	if err != nil {
		return name, nil, err
	}
	if name == "." {
		return name, nil, fsroot.ErrIsRoot
	}
	e, err := s.open(name, useWrite)
	return name, e, err
}

// closeEdited closes the entries of files.
func closeEdited(files []*editFile) {
	for _, f := range files {
		f.entry.Close()
	}
}

// editText reads f, checks its version and applies its edits in memory.
func (s *Server) editText(ctx context.Context, f *editFile, edits []intents.Edit) error {
	old, _, err := f.entry.ReadFile(ctx, s.cfg.MaxFileSize)
	if err == nil {
		err = noKey(f.name, old)
	}
	if err != nil {
		return err
	}
	if err := unchanged(old, f.version); err != nil {
		return err
	}
	if !markdown.IsText(old) {
		return notText(s.show(f.name))
	}
	edited, n, err := text.Apply(s.show(f.name), string(old), f.its(edits))
	if err != nil {
		return err
	}
	if int64(len(edited)) > s.cfg.MaxFileSize {
		return errs.New(errs.CodeTooLarge, "the edits would make %q larger than the server's file size limit (%s)", s.show(f.name), text.Size(s.cfg.MaxFileSize))
	}
	f.old, f.text, f.n = old, edited, n
	return nil
}

// writeEdited keeps every file in the history, then writes them one by one. When a write
// fails, it puts back the files written before it, each on the condition that it still holds what
// this call wrote, and the error says what became of them.
func (s *Server) writeEdited(ctx context.Context, c *call, files []*editFile, o intents.UpdateOptions) error {
	for _, f := range files {
		info, err := f.entry.Info()
		if err == nil {
			f.mode = info.Mode
			f.kept, err = s.keep(ctx, f.name, f.old, f.mode)
		}
		if err != nil {
			return s.fileFailed(ctx, f, err)
		}
	}
	names := make([]string, 0, len(files))
	for i, f := range files {
		if s.beforeWrite != nil {
			s.beforeWrite(f.name)
		}
		v, err := f.entry.WriteFileIf(ctx, []byte(f.text), fsroot.Version(f.old), s.cfg.MaxFileSize)
		if err != nil {
			err = s.fileFailed(ctx, f, err)
			if i > 0 {
				err = s.restore(ctx, files[:i], err)
			}
			return err
		}
		f.written = v
		names = append(names, f.name)
	}
	for _, f := range files {
		s.changed(c, f.name, f.kept, []byte(f.text), f.mode)
	}
	s.refresh(ctx, names...)
	return nil
}

// restore puts back the files an edit wrote before err stopped it, even past the call's deadline,
// and returns err with what became of them.
func (s *Server) restore(ctx context.Context, written []*editFile, err error) error {
	ctx = context.WithoutCancel(ctx)
	var restored, changed []string
	for _, f := range written {
		if _, rerr := f.entry.WriteFileIf(ctx, f.old, f.written, s.cfg.MaxFileSize); rerr != nil {
			s.cfg.ErrorLog.Printf("edit: %q stays changed: putting it back after a failed write: %v", f.name, rerr)
			changed = append(changed, f.name)
		} else {
			restored = append(restored, f.name)
		}
	}
	s.refresh(ctx, changed...)
	return &errs.Undone{Err: err, Note: rolledBack(restored, changed)}
}

// rolledBack says what became of the files an edit wrote before a write failed: restored are
// those put back as they were, changed those it could not put back.
func rolledBack(restored, changed []string) string {
	if len(changed) == 0 {
		return fmt.Sprintf(". The files written before it were put back as they were (%s): no file changed", quoted(restored))
	}
	note := fmt.Sprintf(". Files written before it could not be put back and stay changed (%s): read them before you retry", quoted(changed))
	if len(restored) > 0 {
		note += fmt.Sprintf("; the others were put back (%s)", quoted(restored))
	}
	return note
}

// fileFailed names f in err, so that the answer gives f's path and the fields that named it and
// its version, and adds f's text now to a CONFLICT.
func (s *Server) fileFailed(ctx context.Context, f *editFile, err error) error {
	return &errs.File{Err: s.withCurrent(ctx, f.name, err), Name: f.name, Field: f.field, Version: f.vfield, Given: f.version != ""}
}

// answerEdit shapes an edit's answer: for one file as it always was; for several, the replacements
// in all, every file's diff one after the other (each named by show, as the caller names it), and
// each file's own figures in files.
func answerEdit(files []*editFile, dryRun bool, show func(string) string, out *result.Writer) {
	var diffs strings.Builder
	total := 0
	for _, f := range files {
		diffs.WriteString(text.Diff(show(f.name), string(f.old), f.text))
		total += f.n
		e := result.EditedFile{Path: f.name, Version: f.written, SizeBytes: ptr(len(f.text)), Replacements: f.n}
		if dryRun {
			e.Version, e.SizeBytes = fsroot.Version(f.old), nil
		}
		out.Files = append(out.Files, e)
	}
	out.Path, out.Replacements, out.DryRun = files[0].name, ptr(total), dryRun
	out.Diff = text.Cap(diffs.String(), MaxContentBytes)
	if len(files) == 1 {
		one := out.Files[0]
		out.Version, out.SizeBytes, out.Files = one.Version, one.SizeBytes, nil
	}
}
