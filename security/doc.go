// Package security decides what may be done and what may be seen. Most of
// it makes the string-level decisions that come before any filesystem call:
// which operations are permitted ([Permissions]), how a caller's path
// becomes a root-relative name ([Policy.Clean]), which names may be reached
// at all ([Policy.CheckName]) and how fast ([Limiter] for the tools,
// [ClientLimiter] for each client of the HTTP transport). The rest says what
// of a served tree the tools may see ([Visible]; [Indexed] for the index)
// and what of that is noise ([Ignore]: what ignore files ignore, and the
// caches), one rule for listings, searches, the index and doctor.
//
// The package imports neither os, path/filepath nor syscall. Its name rules
// never touch the filesystem: they cannot see symlinks, so they are not the
// boundary. The boundary is package fsroot, which resolves every name
// through an [os.Root]; its caller passes names resolved there back to
// [Policy.CheckName], so a link is judged by what it reaches, not by its own
// name. What may be seen is judged through the [fsroot.Root] a caller hands
// over: [Visible] looks a link up there to judge what it reaches, and
// [Ignore] reads a tree's ignore files there. Otherwise the package takes
// from fsroot only values kept in one place: [fsroot.TempPrefix], so the
// temporary files it always blocks ([TempFilePattern]) are named once, the
// longest path ([fsroot.MaxPathBytes]) and the names Windows gives another
// meaning ([fsroot.WindowsName]).
//
// Every refusal is an error value that wraps one of the sentinels below
// ([ErrDenied], [ErrOutsideRoot], [ErrBlocked], [ErrExtension],
// [ErrInvalidPath], [ErrRateLimited]), so callers map errors to codes with
// [errors.Is] and read details with [errors.As]. Messages say what is wrong
// and what to do instead, contain only the caller's own (escaped) input and
// never a host path.
package security
