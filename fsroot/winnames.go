package fsroot

import "strings"

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

// WindowsName returns why Windows would read the path component elem as
// something other than a file of that name, or "" if it would not: a ':'
// (an alternate data stream of another file, or a drive), a character
// Win32 refuses in names (<>"|?*), or a device name. On Windows fsroot
// refuses such names itself; the policy (security) refuses them with this
// reason before they get here. It judges one component and reads nothing.
func WindowsName(elem string) string {
	if i := strings.IndexAny(elem, `:<>"|?*`); i >= 0 {
		if elem[i] == ':' {
			return `":" names an alternate data stream or a drive on Windows`
		}
		return `"` + elem[i:i+1] + `" is not allowed in Windows names`
	}
	stem, _, _ := strings.Cut(strings.ToLower(elem), ".")
	if stem = strings.TrimRight(stem, " "); windowsDevices[stem] {
		return `"` + stem + `" is a device on Windows, whatever follows it`
	}
	return ""
}
