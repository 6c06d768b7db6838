package security

import (
	"strings"
)

// windowsDevices are the names Windows opens as devices whatever the
// folder and whatever follows a dot or trailing spaces: "NUL.md" and
// "com1 .txt" are the null device and a serial port, not files.
var windowsDevices = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"conin$": true, "conout$": true, "clock$": true,
	"com0": true, "com1": true, "com2": true, "com3": true, "com4": true,
	"com5": true, "com6": true, "com7": true, "com8": true, "com9": true,
	"com¹": true, "com²": true, "com³": true,
	"lpt0": true, "lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true,
	"lpt5": true, "lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
	"lpt¹": true, "lpt²": true, "lpt³": true,
}

// windowsName returns why Windows would give the path component c a
// meaning other than a file of that name, or "" if it would not: a
// reserved device name, a ':' (an alternate data stream of another file,
// or a drive), a character Windows refuses in names, or an 8.3 short name
// ("PROGRA~1"), which can alias a file whose long name the policy never
// saw. Trailing dots and spaces, which Windows drops, are refused for every
// root by [Policy.CheckName].
func windowsName(c string) string {
	if i := strings.IndexAny(c, `:<>"|?*`); i >= 0 {
		if c[i] == ':' {
			return `":" names an alternate data stream or a drive on Windows`
		}
		return `"` + c[i:i+1] + `" is not allowed in Windows names`
	}
	lower := strings.ToLower(c)
	stem, _, _ := strings.Cut(lower, ".")
	if windowsDevices[strings.TrimRight(stem, " ")] {
		return `"` + strings.TrimRight(stem, " ") + `" is a device on Windows, whatever follows it`
	}
	if isShortName(lower) {
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
