//go:build windows

package fsroot

import (
	"encoding/binary"
	"syscall"
	"testing"
	"unicode/utf16"

	"golang.org/x/sys/windows"
)

// reparseBuffer builds a REPARSE_DATA_BUFFER of tag with the substitute
// and print names (and, for a symbolic link, flags), as
// FSCTL_GET_REPARSE_POINT returns it.
func reparseBuffer(tag uint32, flags uint32, subst, print string) []byte {
	s, p := utf16.Encode([]rune(subst)), utf16.Encode([]rune(print))
	head := 16
	if tag == windows.IO_REPARSE_TAG_SYMLINK {
		head = 20
	}
	b := make([]byte, head+2*len(s)+2*len(p))
	binary.LittleEndian.PutUint32(b, tag)
	binary.LittleEndian.PutUint16(b[4:], uint16(len(b)-8))
	binary.LittleEndian.PutUint16(b[8:], 0)                 // substitute offset
	binary.LittleEndian.PutUint16(b[10:], uint16(2*len(s))) // substitute length
	binary.LittleEndian.PutUint16(b[12:], uint16(2*len(s))) // print offset
	binary.LittleEndian.PutUint16(b[14:], uint16(2*len(p))) // print length
	if head == 20 {
		binary.LittleEndian.PutUint32(b[16:], flags)
	}
	for i, u := range append(s, p...) {
		binary.LittleEndian.PutUint16(b[head+2*i:], u)
	}
	return b
}

// TestReparseText holds what a link's reparse data reads as, and whether
// the resolver takes it as an escape: Wine makes no reparse points, so
// this is how the Windows link rules are tested there.
func TestReparseText(t *testing.T) {
	const relative = 1
	tests := []struct {
		name   string
		buf    []byte
		text   string
		escape bool
	}{
		{"relative link", reparseBuffer(windows.IO_REPARSE_TAG_SYMLINK, relative, `..\notes\a.md`, `..\notes\a.md`), "../notes/a.md", false},
		{"relative link, print name empty", reparseBuffer(windows.IO_REPARSE_TAG_SYMLINK, relative, `a.md`, ""), "a.md", false},
		{"absolute link", reparseBuffer(windows.IO_REPARSE_TAG_SYMLINK, 0, `\??\C:\secret.md`, `C:\secret.md`), `C:\secret.md`, true},
		{"link to a share", reparseBuffer(windows.IO_REPARSE_TAG_SYMLINK, 0, `\??\UNC\srv\share`, `\\srv\share`), `\\srv\share`, true},
		{"junction", reparseBuffer(windows.IO_REPARSE_TAG_MOUNT_POINT, 0, `\??\C:\Users`, `C:\Users`), `C:\Users`, true},
		{"junction without a print name", reparseBuffer(windows.IO_REPARSE_TAG_MOUNT_POINT, 0, `\??\C:\Users`, ""), `\??\C:\Users`, true},
		{"relative flag off, plain name", reparseBuffer(windows.IO_REPARSE_TAG_SYMLINK, 0, `x`, `x`), `\x`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := reparseText(tt.buf)
			if err != nil || text != tt.text {
				t.Fatalf("reparseText = %q, %v; want %q", text, err, tt.text)
			}
			if got := absLink(text); got != tt.escape {
				t.Errorf("absLink(%q) = %v, want %v", text, got, tt.escape)
			}
		})
	}
	for name, b := range map[string][]byte{
		"short":            {1, 2, 3},
		"another tag":      reparseBuffer(0x8000001B, 0, "x", "x"), // an AppExecLink
		"truncated header": reparseBuffer(windows.IO_REPARSE_TAG_SYMLINK, relative, "a", "a")[:18],
	} {
		if _, err := reparseText(b); err != syscall.EINVAL {
			t.Errorf("%s: err = %v, want EINVAL", name, err)
		}
	}
}
