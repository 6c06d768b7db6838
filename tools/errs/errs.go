package errs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/result"
)

// Error is an error the handlers raise themselves, with its code and sentence already chosen.
type Error struct {
	Code  string
	Field string        // the argument refused, as a JSON path such as target.path; "" for none
	Msg   string        // what went wrong and what to do instead
	Retry time.Duration // when to try again, if the failure is temporary
}

func (e *Error) Error() string { return e.Msg }

// New is an [Error] of code whose sentence is format with args.
func New(code, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// File is the failure of one file of a call about several, which may be another than
// target.path's: the answer names that file, and the fields that named it and its version.
type File struct {
	Err     error
	Name    string // the file, root-relative
	Field   string // the field that named it: edits[i].path, target.destination, or "" for target.path
	Version string // the field for its version: the one that gave it, or would have
	Given   bool   // whether the call gave a version for it
}

func (e *File) Error() string { return fmt.Sprintf("%q: %v", e.Name, e.Err) }
func (e *File) Unwrap() error { return e.Err }

// Undone is the failure of a call after it wrote, and what it did about what it had written (an
// edit put files back, a copy removed what it made): Note says what became of them, in words
// that follow Err's sentence.
type Undone struct {
	Err  error
	Note string
}

func (e *Undone) Error() string { return e.Err.Error() + e.Note }
func (e *Undone) Unwrap() error { return e.Err }

// Stale is a CONFLICT that carries the file's text now, so that the caller merges its change
// into it and retries without a read in between.
type Stale struct {
	Err     *fsroot.ConflictError
	Version string // of Content
	Content string
}

func (e *Stale) Error() string { return e.Err.Error() }
func (e *Stale) Unwrap() error { return e.Err }

// Mapped is a failure already turned into its result's fields, by the root it happened in.
type Mapped struct{ Status result.Status }

func (e *Mapped) Error() string { return e.Status.Error }

// Status turns err into the flat error fields of a result. name is the root-relative path the call
// was working on; it is used to say what went wrong in words the model can act on, and show turns
// a root-relative path into the path the caller uses (tools' Server.show). It is the only table
// from error to code.
func Status(err error, name string, show func(string) string) result.Status {
	var mp *Mapped
	if errors.As(err, &mp) {
		return mp.Status
	}
	var u *Undone
	if errors.As(err, &u) {
		st := Status(u.Err, name, show)
		st.Error += u.Note
		return st
	}
	// The field a CONFLICT names, and whether the call gave the version it compared.
	vfield, given := "target.version", true
	var file *File
	if errors.As(err, &file) {
		name, vfield, given = file.Name, file.Version, file.Given
	}
	name = show(name)
	st := result.Status{Success: false}
	var (
		ce *Error
		fe *intents.FieldError
		pe *security.PathError
		de *security.DeniedError
		re *security.RateLimitError
		ve *fsroot.ConflictError
	)
	switch {
	case errors.As(err, &ce):
		st.Code, st.Field, st.Error = ce.Code, ce.Field, ce.Msg
		if ce.Retry > 0 {
			st.RetryAfterMs = max(1, ce.Retry.Milliseconds())
		}
	case errors.As(err, &fe):
		st.Code, st.Field, st.Error = CodeInvalidArgument, fe.Field, fe.Message
	case errors.As(err, &de):
		st.Code, st.Error = CodePermissionDenied, de.Error()
	case errors.As(err, &re):
		st.Code, st.Error = CodeRateLimited, re.Error()
		st.RetryAfterMs = re.RetryAfter.Milliseconds()
		if st.RetryAfterMs < 1 {
			st.RetryAfterMs = 1
		}
	case errors.As(err, &ve):
		st.Code, st.Field, st.CurrentVersion = CodeConflict, vfield, ve.Current
		now := "now holds version " + ve.Current
		if ve.Current == "" {
			now = "is now larger than the file size limit"
		}
		next := "read it again, merge your change into what is there now, and retry with the new version"
		var sw *Stale
		if errors.As(err, &sw) {
			st.CurrentVersion, st.CurrentContent = sw.Version, &sw.Content
			now = "now holds version " + sw.Version
			next = "merge your change into currentContent, its text now, and retry with " + vfield + " " + sw.Version
		}
		since := "since the read that returned " + vfield
		if !given {
			since = "while this call was editing it"
		}
		st.Error = fmt.Sprintf("%q changed %s (it %s), so nothing was written: %s", name, since, now, next)
	case errors.As(err, &pe):
		shown := *pe
		if !path.IsAbs(pe.Path) {
			shown.Path = show(pe.Path)
		}
		st.Code, st.Error = pathCode(pe.Err), shown.Error()
		if pe.Rule == security.RuleNotText {
			st.Code = CodeNotText // of a type that opens by content, and not text
		}
		if root, _, _ := strings.Cut(shown.Path, "/"); st.Code == CodeOutsideRoot && shown.Path != pe.Path {
			// One of several roots: "the root" and a path relative to it would not say which.
			st.Error = fmt.Sprintf("path %q climbs out of root %q: a path starts with a root's name and stays inside that root; list \".\" to see the roots", shown.Path, root)
		}
		if st.Code == CodeOutsideRoot && path.IsAbs(pe.Path) {
			// Do not echo a host path outside the root, even the caller's own.
			st.Error = "that absolute path is outside the root: use a path relative to the root, such as \"notes/todo.md\""
		}
	default:
		st.Code, st.Error = fsFailure(err, name)
	}
	if file != nil && st.Field == "" {
		st.Field = file.Field
	}
	return st
}

func pathCode(sentinel error) string {
	switch {
	case errors.Is(sentinel, security.ErrOutsideRoot):
		return CodeOutsideRoot
	case errors.Is(sentinel, security.ErrBlocked):
		return CodeBlocked
	case errors.Is(sentinel, security.ErrExtension):
		return CodeExtension
	case errors.Is(sentinel, security.ErrAutoRun):
		return CodeAutoRun
	default:
		return CodeInvalidPath
	}
}

// fsFailure maps the filesystem layer's errors, the specific sentinels before the generic io/fs ones
// (ENOTEMPTY also matches fs.ErrExist). Its messages are written here, from the root-relative
// name, so no host path can reach the client.
func fsFailure(err error, name string) (code, msg string) {
	q := fmt.Sprintf("%q", name)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout, fmt.Sprintf("the operation on %s ran past its deadline: try a smaller path or narrower criteria", q)
	case errors.Is(err, context.Canceled):
		return CodeTimeout, fmt.Sprintf("the operation on %s was cancelled", q)
	case errors.Is(err, semantic.ErrIndexUnavailable):
		return CodeNotAvailable, "the search index could not be opened (the server logged why): use purpose \"search_content\" meanwhile"
	case errors.Is(err, fsroot.ErrEscapes):
		return CodeOutsideRoot, fmt.Sprintf("%s leads outside the root (through a symbolic link or ..): use a path inside the root", q)
	case errors.Is(err, fsroot.ErrLoop):
		return CodeInvalidPath, fmt.Sprintf("%s goes through too many symbolic links (a loop?): name the file the links lead to", q)
	case errors.Is(err, fsroot.ErrInvalid):
		return CodeInvalidPath, fmt.Sprintf("%s is not a valid path: use a relative path with forward slashes, such as \"notes/todo.md\"", q)
	case errors.Is(err, fsroot.ErrTooLarge):
		return CodeTooLarge, fmt.Sprintf("%s is larger than the size limit: read it in parts with preferences.offset and preferences.limit, or raise the server's maxFileSize", q)
	case errors.Is(err, fsroot.ErrIsDir):
		return CodeIsDir, fmt.Sprintf("%s is a directory: name a file, or use packfs-file-searcher to list it", q)
	case errors.Is(err, fsroot.ErrNotRegular):
		return CodeNotRegular, fmt.Sprintf("%s is not a regular file (a device, pipe, socket, directory or dangling link): only regular files can be read or written", q)
	case errors.Is(err, fsroot.ErrHardLink):
		return CodeHardLink, fmt.Sprintf("%s has more than one hard link, which could alias a file outside the root: it is refused unless the server allows hard links", q)
	case errors.Is(err, fsroot.ErrIsRoot):
		return CodeRoot, "the root itself cannot be deleted, moved or overwritten: name an entry inside it"
	case errors.Is(err, fsroot.ErrNotEmpty):
		return CodeNotEmpty, fmt.Sprintf("directory %s is not empty: set options.recursive to true to delete it with everything inside", q)
	case errors.Is(err, fsroot.ErrInUse):
		return CodeInUse, fmt.Sprintf("%s is open in another program that keeps others from changing it, so nothing was changed: close it there, or wait, and retry", q)
	case errors.Is(err, fsroot.ErrNotDir):
		return CodeNotDir, fmt.Sprintf("%s (or one of its parents) is not a directory: a file stands where a folder is needed; list the folder above with packfs-file-searcher (purpose \"list\") to see what is there", q)
	case errors.Is(err, fs.ErrNotExist) && strings.HasPrefix(name, "~"):
		return CodeNotFound, fmt.Sprintf("%s does not exist: paths are relative to the root, where ~ is an ordinary character, not a home folder: give the path from the root, such as \"notes/todo.md\"", q)
	case errors.Is(err, fs.ErrNotExist):
		return CodeNotFound, fmt.Sprintf("%s does not exist: list its folder with packfs-file-searcher (purpose \"list\") to see what is there", q)
	case errors.Is(err, fs.ErrExist):
		return CodeExists, fmt.Sprintf("%s already exists: use purpose \"update\" to replace it, or choose another name", q)
	case errors.Is(err, fs.ErrPermission):
		return CodeAccess, fmt.Sprintf("the operating system refused access to %s: check the file's permissions on the server", q)
	}
	return CodeInternal, fmt.Sprintf("the operation on %s failed unexpectedly; the server logged the details", q)
}
