package tools

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
)

// Stable error codes. Clients may switch on them; the messages may change.
const (
	CodeInvalidArgument  = "INVALID_ARGUMENT"
	CodeInvalidPath      = "INVALID_PATH"
	CodePermissionDenied = "PERMISSION_DENIED"
	CodeOutsideRoot      = "PATH_OUTSIDE_ROOT"
	CodeBlocked          = "PATH_BLOCKED"
	CodeExtension        = "EXTENSION_NOT_ALLOWED"
	CodeAutoRun          = "AUTO_RUN_PROTECTED" // a write where what is written runs by itself
	CodeRateLimited      = "RATE_LIMITED"
	CodeNotFound         = "NOT_FOUND"
	CodeExists           = "ALREADY_EXISTS"
	CodeTooLarge         = "TOO_LARGE"
	CodeNotRegular       = "NOT_REGULAR_FILE"
	CodeHardLink         = "HARD_LINK"
	CodeRoot             = "ROOT_PROTECTED"
	CodeNotEmpty         = "NOT_EMPTY"
	CodeIsDir            = "IS_DIRECTORY"
	CodeNotDir           = "NOT_DIRECTORY"
	CodeAccess           = "ACCESS_DENIED"
	CodeTimeout          = "TIMEOUT"
	CodeAmbiguousEdit    = "AMBIGUOUS_EDIT"
	CodeEditNotFound     = "EDIT_NOT_FOUND"
	CodeNotText          = "NOT_TEXT"
	CodeNotKept          = "NOT_KEPT" // what a change would replace could not be kept in the history
	CodeNotAvailable     = "NOT_AVAILABLE"
	CodeEncrypted        = "ENCRYPTED" // a document that needs a password
	CodeMalformed        = "MALFORMED" // a document that is not what its type says, or is broken
	CodeConflict         = "CONFLICT"
	CodeInUse            = "FILE_IN_USE"
	CodeInternal         = "INTERNAL"
	CodeUnknownTool      = "UNKNOWN_TOOL"

	// The codes of refusals no tool answered: the protocol's and the HTTP transport's.
	CodeInvalidRequest   = "INVALID_REQUEST"    // a tools/call whose parameters could not be read
	CodeProtocol         = "PROTOCOL_ERROR"     // a tools/call the server answered with no result
	CodeUnauthenticated  = "UNAUTHENTICATED"    // an HTTP request without the server's token
	CodeOriginNotAllowed = "ORIGIN_NOT_ALLOWED" // an HTTP request from a web page's origin
)

// codes is the table of every code, with whether it is a denial: a refusal by policy rather than
// a failure of the operation. The denials are a permission that is off (also for a tool the server
// does not offer), the path policy, the rate limiter, the sandbox's refusals of what could alias
// or destroy more than the root allows (HARD_LINK, ROOT_PROTECTED) and the operating system's
// permission refusal (ACCESS_DENIED); missing files, bad arguments, sizes and timeouts are errors:
// the call was allowed and did not work. The journal records a denial as such ([IsDenial]).
var codes = []struct {
	name   string
	denial bool
}{
	{CodeInvalidArgument, false}, {CodeInvalidPath, false}, {CodePermissionDenied, true},
	{CodeOutsideRoot, true}, {CodeBlocked, true}, {CodeExtension, true}, {CodeRateLimited, true},
	{CodeNotFound, false}, {CodeExists, false}, {CodeTooLarge, false}, {CodeNotRegular, false},
	{CodeHardLink, true}, {CodeRoot, true}, {CodeNotEmpty, false}, {CodeIsDir, false},
	{CodeNotDir, false}, {CodeAccess, true}, {CodeTimeout, false}, {CodeAmbiguousEdit, false},
	{CodeEditNotFound, false}, {CodeNotText, false}, {CodeNotAvailable, false}, {CodeConflict, false},
	{CodeInUse, false}, {CodeInternal, false}, {CodeUnknownTool, false}, {CodeInvalidRequest, false},
	{CodeProtocol, false}, {CodeUnauthenticated, true}, {CodeOriginNotAllowed, true},
	{CodeAutoRun, true}, {CodeNotKept, false}, {CodeEncrypted, false}, {CodeMalformed, false},
}

// Codes returns every stable code, in the table's order.
func Codes() []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = c.name
	}
	return out
}

// IsDenial reports whether a failed call with this code was refused by policy, rather than
// allowed and failed: the journal records it as a denial.
func IsDenial(code string) bool {
	for _, c := range codes {
		if c.name == code {
			return c.denial
		}
	}
	return false
}

// callError is an error the handlers raise themselves, with its code and sentence already chosen.
type callError struct {
	code  string
	field string
	msg   string
	retry time.Duration // when to try again, if the failure is temporary
}

func (e *callError) Error() string { return e.msg }

func newError(code, format string, args ...any) error {
	return &callError{code: code, msg: fmt.Sprintf(format, args...)}
}

// fileError is the failure of one file of an edit, which may be another than target.path's: the
// answer names that file, and the fields that named it and its version.
type fileError struct {
	err     error
	name    string // the file, root-relative
	field   string // the field that named it: edits[i].path, or "" for target.path
	version string // the field for its version: the one that gave it, or would have
	given   bool   // whether the call gave a version for it
}

func (e *fileError) Error() string { return fmt.Sprintf("%q: %v", e.name, e.err) }
func (e *fileError) Unwrap() error { return e.err }

// rolledBack is the failure of a write of an edit after it wrote other files: err is that failure;
// restored are the files put back as they were, changed those it could not put back.
type rolledBack struct {
	err               error
	restored, changed []string
}

func (e *rolledBack) Error() string { return e.err.Error() + e.note() }
func (e *rolledBack) Unwrap() error { return e.err }

// note says what became of the files written before the failure.
func (e *rolledBack) note() string {
	if len(e.changed) == 0 {
		return fmt.Sprintf(". The files written before it were put back as they were (%s): no file changed", quoted(e.restored))
	}
	note := fmt.Sprintf(". Files written before it could not be put back and stay changed (%s): read them before you retry", quoted(e.changed))
	if len(e.restored) > 0 {
		note += fmt.Sprintf("; the others were put back (%s)", quoted(e.restored))
	}
	return note
}

// quoted lists names, each quoted, joined by commas.
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// mapped is a failure already turned into its result's fields, by the root it happened in.
type mapped struct{ st Status }

func (e *mapped) Error() string { return e.st.Error }

// failure turns err into the flat error fields of a result. name is the root-relative path the call
// was working on; it is used to say what went wrong in words the model can act on, and show turns
// a root-relative path into the path the caller uses (see [Server.show]). It is the only table from
// error to code.
func failure(err error, name string, show func(string) string) Status {
	var mp *mapped
	if errors.As(err, &mp) {
		return mp.st
	}
	var rb *rolledBack
	if errors.As(err, &rb) {
		st := failure(rb.err, name, show)
		st.Error += rb.note()
		return st
	}
	var cu *copyUndone
	if errors.As(err, &cu) {
		st := failure(cu.err, name, show)
		st.Error += cu.note()
		return st
	}
	// The field a CONFLICT names, and whether the call gave the version it compared.
	vfield, given := "target.version", true
	var file *fileError
	if errors.As(err, &file) {
		name, vfield, given = file.name, file.version, file.given
	}
	name = show(name)
	st := Status{Success: false}
	var (
		ce *callError
		fe *intents.FieldError
		pe *security.PathError
		de *security.DeniedError
		re *security.RateLimitError
		ve *fsroot.ConflictError
	)
	switch {
	case errors.As(err, &ce):
		st.Code, st.Field, st.Error = ce.code, ce.field, ce.msg
		if ce.retry > 0 {
			st.RetryAfterMs = max(1, ce.retry.Milliseconds())
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
		var sw *staleWrite
		if errors.As(err, &sw) {
			st.CurrentVersion, st.CurrentContent = sw.version, &sw.content
			now = "now holds version " + sw.version
			next = "merge your change into currentContent, its text now, and retry with " + vfield + " " + sw.version
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
		st.Field = file.field
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
