// Package errs is how the tools fail: the stable codes a client may switch on, the errors the
// handlers raise with their code and sentence chosen, and [Status], the one table from an error to
// the flat error fields of an answer, in words a model can act on.
package errs

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
