package fsroot

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
)

// This file reads the records Windows' ReadDirectoryChangesW fills its buffer with. It is plain
// byte handling, built on every system so that its tests run on Linux too; only
// watch_windows.go calls it.

// notifyHeader is the size of a FILE_NOTIFY_INFORMATION record's fixed part: NextEntryOffset,
// Action and FileNameLength, three little-endian uint32s. FileNameLength bytes of UTF-16 follow.
const notifyHeader = 12

// notifyPaths returns the root-relative paths the FILE_NOTIFY_INFORMATION records in buf name,
// in order, each as hintPath makes it with keep. ok is false when buf is malformed (a record
// running past its end), so the caller reports [All] rather than trust what it read.
func notifyPaths(buf []byte, keep func(elem string) bool) (paths []string, ok bool) {
	for off := 0; ; {
		if off < 0 || off > len(buf)-notifyHeader {
			return paths, false
		}
		rec := buf[off:]
		next := int(binary.LittleEndian.Uint32(rec))
		size := int(binary.LittleEndian.Uint32(rec[8:]))
		if size < 0 || size > len(rec)-notifyHeader || size%2 != 0 {
			return paths, false
		}
		paths = append(paths, hintPath(utf16LE(rec[notifyHeader:notifyHeader+size]), keep))
		if next <= 0 {
			return paths, true
		}
		off += next
	}
}

// utf16LE returns the little-endian UTF-16 units of b, whose length is even.
func utf16LE(b []byte) []uint16 {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return u
}

// hintPath turns a name Windows reports, relative to the watched folder with backslashes, into
// the root-relative slash path to look at again: the name itself, or, when one of its
// components is not a name fsroot takes as spelled (badly formed UTF-16, empty, "." or "..", a
// "/" or NUL inside, or one keep refuses), the folder that holds that component ("." for the
// root). So a change is never lost for its name, and the path is always in [fs.ValidPath] form.
func hintPath(name []uint16, keep func(elem string) bool) string {
	p := All
	for len(name) > 0 {
		elem := name
		if i := indexUnit(name, '\\'); i >= 0 {
			elem, name = name[:i], name[i+1:]
		} else {
			name = nil
		}
		s, ok := decodeElem(elem)
		if !ok || !keep(s) {
			break
		}
		if p == All {
			p = s
		} else {
			p += "/" + s
		}
	}
	return p
}

// indexUnit returns the index of the first c in u, or -1.
func indexUnit(u []uint16, c uint16) int {
	for i, x := range u {
		if x == c {
			return i
		}
	}
	return -1
}

// decodeElem returns the path component u spells, and false when it is not one: an unpaired
// surrogate (which no Go string can spell back to the same name), empty, "." or "..", or holding
// a "/" or a NUL.
func decodeElem(u []uint16) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		r := rune(u[i])
		if utf16.IsSurrogate(r) {
			if i+1 == len(u) {
				return "", false
			}
			if r = utf16.DecodeRune(r, rune(u[i+1])); r == '\uFFFD' {
				return "", false
			}
			i++
		}
		b.WriteRune(r)
	}
	s := b.String()
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\x00") {
		return "", false
	}
	return s, true
}
