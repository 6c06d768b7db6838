package security

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/packfs/packfs-mcp/fsroot"
)

// Sentinel errors. Every error this package returns wraps exactly one of
// them, so callers can map errors to codes with [errors.Is].
var (
	// ErrDenied means the server's permissions do not allow the operation.
	ErrDenied = errors.New("permission denied")
	// ErrOutsideRoot means a path names something outside the root.
	ErrOutsideRoot = errors.New("path is outside the root")
	// ErrBlocked means a path contains a blocked component, such as ".git" or ".env".
	ErrBlocked = errors.New("path is blocked")
	// ErrExtension means a file's extension (or extensionless name) is not allowed.
	ErrExtension = errors.New("extension not allowed")
	// ErrInvalidPath means a path is malformed: bad characters, a Windows
	// form, too long, or a name the filesystem layer must never see.
	ErrInvalidPath = errors.New("invalid path")
	// ErrAutoRun means a write would put a file where it runs by itself ([AutoRuns]).
	ErrAutoRun = errors.New("path runs by itself")
	// ErrRateLimited means a request was refused by the [Limiter].
	ErrRateLimited = errors.New("rate limit exceeded")
)

// Rules are the stable values of [PathError.Rule]. They name which check
// refused a path, so tools and tests need not parse messages.
const (
	RuleOutsideRoot        = "outside-root"
	RuleBlocked            = "blocked"
	RuleExtension          = "extension"
	RuleNUL                = "nul"
	RuleControl            = "control-character"
	RuleBidi               = "bidi-character"
	RuleInvisible          = "invisible-character"
	RuleInvalidUTF8        = "invalid-utf8"
	RuleWindowsPath        = "windows-path"
	RuleBackslash          = "backslash"
	RuleTooLong            = "too-long"
	RuleComponentTooLong   = "component-too-long"
	RuleTrailingDotOrSpace = "trailing-dot-or-space"
	RuleEmpty              = "empty"
	RuleWindowsName        = "windows-name"
	RuleAutoRun            = "auto-run"
	RuleSecretContent      = "secret-content"
	RuleNotText            = "not-text"
)

const (
	// MaxDisplayBytes bounds the escaped path kept in [PathError.Path], so a
	// hostile 4 KB path cannot flood a log line or a model's context.
	MaxDisplayBytes = 200
	// maxDetailBytes bounds [PathError.Detail] for the same reason; a detail
	// is one component or one extension, and 40 bytes shows enough of either
	// while keeping every message under 400 bytes.
	maxDetailBytes = 40
)

// PathError reports a refused path. Its message is one sentence saying what
// is wrong and what to do instead, for example
//
//	path "../x" is outside the root: use a path relative to the root, such as "notes/todo.md"
type PathError struct {
	// Path is the caller's input made printable (control, bidi and invisible
	// characters shown as \u escapes, invalid bytes as \x escapes) and
	// truncated to MaxDisplayBytes.
	Path string
	// Rule is one of the Rule constants, such as [RuleOutsideRoot].
	Rule string
	// Err is the sentinel the error wraps, such as [ErrOutsideRoot].
	Err error
	// Detail is optional context, made printable like Path: the blocked
	// component, the refused extension or the offending character (U+202E).
	Detail string
	// Allowed are a few of the extensions the policy allows, for a refused
	// extension's message (the first its configuration lists).
	Allowed []string
	// reason says, for RuleWindowsName, what Windows makes of the name, and for RuleAutoRun what
	// runs it.
	reason string
}

// newPathError builds a PathError, escaping and truncating raw and detail.
func newPathError(raw, rule string, err error, detail string) *PathError {
	return &PathError{
		Path:   printable(raw, MaxDisplayBytes),
		Rule:   rule,
		Err:    err,
		Detail: printable(detail, maxDetailBytes),
	}
}

// Error returns one sentence: what is wrong with the path and what to do.
func (e *PathError) Error() string {
	p := `path "` + e.Path + `"`
	switch e.Rule {
	case RuleOutsideRoot:
		return p + ` is outside the root: use a path relative to the root, such as "notes/todo.md"`
	case RuleBlocked:
		return p + ` is blocked because "` + e.Detail + `" is a protected name (version control, dependencies, secrets or credentials): use a path that does not contain it`
	case RuleExtension:
		use := `: use a file with an allowed extension`
		if len(e.Allowed) > 0 {
			use += `, such as ` + strings.Join(e.Allowed, ", ")
		}
		if e.Detail == "" {
			return p + ` has no extension and is not an allowed file name` + use
		}
		return p + ` has the extension "` + e.Detail + `", which this server does not allow` + use
	case RuleNUL:
		return p + ` contains a NUL byte: remove it`
	case RuleControl:
		return fmt.Sprintf(`%s contains the control character %s: use a name without tabs, line breaks or other control characters`, p, e.Detail)
	case RuleBidi:
		return fmt.Sprintf(`%s contains the bidirectional control character %s, which can disguise a name: remove it`, p, e.Detail)
	case RuleInvisible:
		return fmt.Sprintf(`%s contains the invisible character %s, which can disguise a name: remove it`, p, e.Detail)
	case RuleInvalidUTF8:
		return p + ` is not valid UTF-8: send the path as UTF-8 text`
	case RuleWindowsPath:
		return p + ` is a Windows path: use a slash path relative to the root, such as "docs/notes.md"`
	case RuleBackslash:
		return p + ` contains a backslash: separate directories with "/" instead`
	case RuleTooLong:
		return fmt.Sprintf(`%s is longer than %d bytes: use a shorter path`, p, fsroot.MaxPathBytes)
	case RuleComponentTooLong:
		return fmt.Sprintf(`%s has a name longer than %d bytes: use shorter names`, p, MaxComponentBytes)
	case RuleTrailingDotOrSpace:
		return p + ` has a name ending in a dot or space ("` + e.Detail + `"): remove the trailing dot or space`
	case RuleWindowsName:
		return p + ` has the name "` + e.Detail + `", which Windows does not treat as a plain file name (` + e.reason + `): use another name`
	case RuleAutoRun:
		return autoRunMessage(p, e.Detail, e.reason)
	case RuleNotText:
		return p + ` is of a type this server opens only as text, and its content is not text (a NUL byte or invalid UTF-8 in its first bytes): it can be listed, not read`
	case RuleSecretContent:
		return p + ` holds a private key ("` + e.Detail + `"), which is refused whatever the file's name: keys stay out of every answer`
	case RuleEmpty:
		return `path is empty: give a path relative to the root, such as "notes/todo.md", or "." for the root`
	}
	if e.Err == nil {
		return p + " is refused"
	}
	return p + ": " + e.Err.Error()
}

// Unwrap returns the sentinel, so errors.Is(err, ErrOutsideRoot) works.
func (e *PathError) Unwrap() error { return e.Err }

// printable escapes s so it can be shown in one log line or message without
// changing how the text around it is displayed, then truncates it to at most
// max bytes (ending in "..." when cut).
//
// Invalid UTF-8 bytes become \xNN; control, bidi, invisible and other
// non-printing runes become \uXXXX (or \UXXXXXXXX). Printing text, including
// backslashes and quotes, is kept as it is, so a Windows path still reads
// like one.
func printable(s string, max int) string {
	const ellipsis = "..."
	var b strings.Builder
	lastFit := 0 // length of b when it last left room for the ellipsis
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		var piece string
		switch {
		case r == utf8.RuneError && size == 1:
			piece = fmt.Sprintf(`\x%02x`, s[i])
		case needsEscape(r):
			piece = runeEscape(r)
		default:
			piece = s[i : i+size]
		}
		if b.Len()+len(piece) > max {
			// Cut at a piece boundary, so neither a rune nor an escape is split.
			return b.String()[:lastFit] + ellipsis
		}
		b.WriteString(piece)
		if b.Len()+len(ellipsis) <= max {
			lastFit = b.Len()
		}
	}
	return b.String()
}

// needsEscape reports whether r must not appear raw in a message.
func needsEscape(r rune) bool {
	return isControl(r) || isBidi(r) || isInvisible(r) || !unicode.IsPrint(r)
}

// runeEscape formats r as \uXXXX, or \UXXXXXXXX beyond the BMP.
func runeEscape(r rune) string {
	if r > 0xFFFF {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// runeName formats r as U+XXXX for a PathError Detail.
func runeName(r rune) string { return fmt.Sprintf("U+%04X", r) }
