// Package security makes the string-level decisions that come before any
// filesystem call: which operations are permitted ([Permissions]), how a
// caller's path becomes a root-relative name ([Policy.Clean]), which names
// may be reached at all ([Policy.CheckName]) and how fast ([Limiter] for the
// tools, [ClientLimiter] for each client of the HTTP transport).
//
// The package is deliberately pure: it imports neither os, path/filepath nor
// syscall, and never touches the filesystem. It imports fsroot for one
// constant, [fsroot.TempPrefix], so the temporary files it always blocks
// ([TempFilePattern]) are named in one place. It cannot see symlinks, so it is
// not the boundary. The boundary is package fsroot, which resolves every name
// through an [os.Root]; its caller passes names resolved there back to
// [Policy.CheckName], so a link is judged by what it reaches, not by its own
// name.
//
// Every refusal is an error value that wraps one of the sentinels below
// ([ErrDenied], [ErrOutsideRoot], [ErrBlocked], [ErrExtension],
// [ErrInvalidPath], [ErrRateLimited]), so callers map errors to codes with
// [errors.Is] and read details with [errors.As]. Messages say what is wrong
// and what to do instead, contain only the caller's own (escaped) input and
// never a host path.
package security
