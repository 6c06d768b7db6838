package security

import (
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
)

// windowsName returns why Windows would give the path component c a
// meaning other than a file of that name, or "" if it would not: what
// [fsroot.WindowsName] says (a ':', a character Win32 refuses, a device
// name), or an 8.3 short name ("PROGRA~1"), which can alias a file whose
// long name the policy never saw. Trailing dots and spaces, which Windows
// drops, are refused for every root by [Policy.CheckName].
func windowsName(c string) string {
	if why := fsroot.WindowsName(c); why != "" {
		return why
	}
	if isShortName(strings.ToLower(c)) {
		return `it has the form of an 8.3 short name, which can stand for another file's long name`
	}
	return ""
}

// isShortName reports a name in the form Windows gives the short (8.3)
// alias of a long name: at most eight characters ending in "~" and
// digits, then at most a three-character extension.
func isShortName(s string) bool {
	stem, ext, dot := strings.Cut(s, ".")
	if dot && (len(ext) == 0 || len(ext) > 3 || strings.Contains(ext, ".")) {
		return false
	}
	i := strings.LastIndexByte(stem, '~')
	if i < 1 || len(stem) > 8 || i == len(stem)-1 {
		return false
	}
	for _, r := range stem[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
