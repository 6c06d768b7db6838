package security

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/packfs/packfs-mcp/fsroot"
)

const (
	// MaxComponentBytes is the longest single name accepted, in bytes. It is
	// NAME_MAX on Linux and the limit of common filesystems (ext4, APFS, NTFS
	// in UTF-16 units), so longer names could never be created.
	MaxComponentBytes = 255
)

// Clean turns a caller's path into a root-relative slash path in
// [io/fs.ValidPath] form, "." for the root itself. It decides on the string
// alone; fsroot resolves the result, symlinks included, inside the root.
//
// The checks run in this order, and the first failure is returned as a
// *[PathError]:
//
//  1. invalid UTF-8 ([RuleInvalidUTF8]);
//  2. a NUL byte ([RuleNUL]);
//  3. other C0 and C1 control characters, DEL, and the line and paragraph
//     separators U+2028 and U+2029, including CR, LF and TAB, which could
//     forge log lines ([RuleControl]);
//  4. bidi controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069,
//     which can make "x\u202Egpj.md" display as "xdm.jpg" ([RuleBidi]);
//  5. zero-width and invisible characters U+200B–U+200D, U+2060–U+2064,
//     U+FEFF, U+00AD, U+034F, U+180E, the Hangul fillers and the Unicode
//     tag characters U+E0000–U+E007F, which make two different names look
//     the same or smuggle hidden text ([RuleInvisible]);
//  6. Windows forms: a drive letter ("C:", "C:\", "C:/") or a UNC or device
//     prefix ("\\server", "\\?\") ([RuleWindowsPath]);
//  7. any other backslash: on Linux it is an ordinary character, so
//     "a\..\..\x" would be a single odd name rather than a traversal, and
//     a caller who sends one almost certainly meant "/" ([RuleBackslash]);
//  8. more than [fsroot.MaxPathBytes] bytes ([RuleTooLong]);
//  9. a component of more than [MaxComponentBytes] bytes
//     ([RuleComponentTooLong]).
//
// Then "" and "." are the root. An absolute path is accepted only if, after
// [path.Clean], it equals or lies under the configured RootDir or
// RootResolved, compared whole component by whole component (so with root
// "/srv/data", "/srv/datax", "/srv/data_evil/x" and
// "/srv/data/../data_evil/x" are outside); the root prefix is then
// stripped. A relative path is cleaned with [path.Clean] and is outside
// ([RuleOutsideRoot]) if the result is ".." or starts with "../"; "a/.." is
// the root. A result that starts with a drive letter ("x/../C:") is
// refused as [RuleWindowsPath]. A trailing slash is dropped. Nothing is
// expanded or decoded: "~" and "%2e%2e%2f" are ordinary names.
//
// Clean is idempotent: its result, cleaned again, is returned unchanged.
func (p *Policy) Clean(raw string) (string, error) {
	if err := lexical(raw); err != nil {
		return "", err
	}
	if raw == "" || raw == "." {
		return ".", nil
	}
	c := path.Clean(raw)
	if path.IsAbs(c) {
		rel, ok := "", false
		for _, root := range p.roots {
			if rel, ok = under(c, root); ok {
				break
			}
		}
		if !ok {
			return "", newPathError(raw, RuleOutsideRoot, ErrOutsideRoot, "")
		}
		c = rel
	} else if c == ".." || strings.HasPrefix(c, "../") {
		return "", newPathError(raw, RuleOutsideRoot, ErrOutsideRoot, "")
	}
	// Cleaning can bring a drive letter to the front ("x/../C:"); refuse it
	// as the raw form would be, so every result passes Clean again unchanged.
	if isWindowsPath(c) {
		return "", newPathError(raw, RuleWindowsPath, ErrInvalidPath, "")
	}
	return c, nil
}

// under reports whether the clean absolute path c equals root or lies
// beneath it, and returns c relative to root ("." for root itself).
func under(c, root string) (string, bool) {
	switch {
	case root == "/":
		if c == "/" {
			return ".", true
		}
		return c[1:], true
	case c == root:
		return ".", true
	case strings.HasPrefix(c, root) && c[len(root)] == '/':
		return c[len(root)+1:], true
	}
	return "", false
}

// lexical runs the character, Windows-form and length checks shared by
// [Policy.Clean] and [Policy.CheckName], in the documented order.
func lexical(raw string) *PathError {
	if !utf8.ValidString(raw) {
		return newPathError(raw, RuleInvalidUTF8, ErrInvalidPath, "")
	}
	if strings.IndexByte(raw, 0) >= 0 {
		return newPathError(raw, RuleNUL, ErrInvalidPath, "")
	}
	// One pass per class keeps the documented precedence: a path with both a
	// TAB and an RTLO is reported as a control character wherever they are.
	for _, c := range []struct {
		is   func(rune) bool
		rule string
	}{
		{isControl, RuleControl},
		{isBidi, RuleBidi},
		{isInvisible, RuleInvisible},
	} {
		if i := strings.IndexFunc(raw, c.is); i >= 0 {
			r, _ := utf8.DecodeRuneInString(raw[i:])
			return newPathError(raw, c.rule, ErrInvalidPath, runeName(r))
		}
	}
	if isWindowsPath(raw) {
		return newPathError(raw, RuleWindowsPath, ErrInvalidPath, "")
	}
	if strings.IndexByte(raw, '\\') >= 0 {
		return newPathError(raw, RuleBackslash, ErrInvalidPath, "")
	}
	if len(raw) > fsroot.MaxPathBytes {
		return newPathError(raw, RuleTooLong, ErrInvalidPath, "")
	}
	for rest := raw; rest != ""; {
		var comp string
		comp, rest, _ = strings.Cut(rest, "/")
		if len(comp) > MaxComponentBytes {
			return newPathError(raw, RuleComponentTooLong, ErrInvalidPath, comp)
		}
	}
	return nil
}

// isWindowsPath reports a drive-letter prefix ("C:", "c:\x", "C:/x") or a
// UNC or device prefix ("\\server\share", "\\?\C:\x").
func isWindowsPath(s string) bool {
	if strings.HasPrefix(s, `\\`) {
		return true
	}
	return len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z')
}

// isWindowsAbs reports an absolute Windows path: a drive and a separator
// ("C:\Users", "C:/Users") or a UNC or device prefix.
func isWindowsAbs(s string) bool {
	return strings.HasPrefix(s, `\\`) || isWindowsPath(s) && len(s) >= 3 && (s[2] == '\\' || s[2] == '/')
}

// isControl reports C0 and C1 control characters, DEL, and the Unicode line
// and paragraph separators, all of which can break a log line in two.
func isControl(r rune) bool {
	return r < 0x20 || 0x7F <= r && r <= 0x9F || r == 0x2028 || r == 0x2029
}

// isBidi reports the bidirectional formatting characters.
func isBidi(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// isInvisible reports characters that render as nothing (or as blank
// space indistinguishable from nothing) and so make look-alike names.
func isInvisible(r rune) bool {
	switch {
	case 0x200B <= r && r <= 0x200D, 0x2060 <= r && r <= 0x2064:
		return true
	case r == 0xFEFF, r == 0x00AD, r == 0x034F, r == 0x180E:
		return true
	case r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0: // Hangul fillers
		return true
	case 0xE0000 <= r && r <= 0xE007F: // tags, used to hide text from readers
		return true
	}
	return false
}
