//go:build windows

package fsroot

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows every open relative to a directory is NtCreateFile with that
// directory as the RootDirectory of a one-component name and
// FILE_OPEN_REPARSE_POINT, so a symbolic link, a junction or any other
// name-surrogate reparse point is opened as itself and never followed;
// fsroot then judges what it opened. The NT layer does no Win32 name
// rewriting (trailing dots and spaces, device names and drive or UNC
// prefixes mean nothing to it); names Win32 would rewrite are refused
// before any call by [checkName]. 8.3 short names are the volume's own
// aliases, which NtCreateFile resolves: a lookup names each component it
// reached by its stored long name (storedName), so the caller judges that.

// handle is an open HANDLE.
type handle = windows.Handle

// noHandle marks a closed level of a lookup's directory stack.
const noHandle handle = windows.InvalidHandle

// The open flags for os.Root, which opens only the root itself: no
// O_NONBLOCK or O_NOCTTY, since FIFOs and terminals are not files of a
// directory on Windows.
const (
	readFlags = os.O_RDONLY
	dirFlags  = os.O_RDONLY
)

// errLocked is what tryFlock answers when another handle holds the lock.
var errLocked error = windows.ERROR_LOCK_VIOLATION

// errnoNotDir is what a Windows call answers for a file where a folder
// was needed (ERROR_PATH_NOT_FOUND, which syscall calls ENOTDIR, is a
// missing folder on the way).
const errnoNotDir = syscall.Errno(windows.ERROR_DIRECTORY)

// closeHandle closes a handle fsroot opened.
func closeHandle(h handle) { windows.CloseHandle(h) }

// control runs fn with f's handle, keeping f alive. Once f is closed, it
// fails with [os.ErrClosed] without calling fn.
func control(f *os.File, fn func(h handle) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(handle(fd)) }); err != nil {
		return os.ErrClosed
	}
	return ferr
}

// ntOpen opens the entry name of the directory dir ("." for dir itself)
// with access and the NT create options, never following a reparse point.
func ntOpen(dir handle, name string, access, options uint32) (handle, error) {
	return ntCreate(dir, name, access, options|windows.FILE_OPEN_REPARSE_POINT)
}

// ntCreate opens the entry name of dir with access and the NT create
// options as given: without FILE_OPEN_REPARSE_POINT it follows a reparse
// point, so only openFileFD calls it, on a file it already judged.
func ntCreate(dir handle, name string, access, options uint32) (handle, error) {
	return ntCreateAs(dir, name, access, windows.FILE_OPEN, options)
}

// ntCreateAs is ntCreate with the NT create disposition: FILE_OPEN,
// FILE_CREATE (which fails on any entry there, a reparse point included)
// or FILE_OPEN_IF.
func ntCreateAs(dir handle, name string, access, disposition, options uint32) (handle, error) {
	if name == "." {
		name = ""
	}
	u, err := windows.NewNTUnicodeString(name)
	if err != nil {
		return noHandle, syscall.EINVAL
	}
	oa := &windows.OBJECT_ATTRIBUTES{RootDirectory: dir, ObjectName: u, Attributes: windows.OBJ_CASE_INSENSITIVE}
	oa.Length = uint32(unsafe.Sizeof(*oa))
	var h handle
	err = windows.NtCreateFile(&h, access|windows.SYNCHRONIZE, oa, &windows.IO_STATUS_BLOCK{}, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, disposition,
		options|windows.FILE_SYNCHRONOUS_IO_NONALERT|windows.FILE_OPEN_FOR_BACKUP_INTENT, 0, 0)
	if err != nil {
		return noHandle, ntError(err)
	}
	return h, nil
}

// openNoLink is ntOpen, failing with ELOOP (and closing the handle) when
// what it opened is a link, and returning the handle's status.
func openNoLink(dir handle, name string, access, options uint32) (handle, sysStat, error) {
	h, err := ntOpen(dir, name, access, options)
	if err != nil {
		return noHandle, sysStat{}, err
	}
	st, err := fstatFD(h)
	if err == nil && st.mode&fs.ModeSymlink != 0 {
		err = syscall.ELOOP
	}
	if err != nil {
		closeHandle(h)
		return noHandle, sysStat{}, err
	}
	return h, st, nil
}

// ntError maps an NTSTATUS to the errno fsroot's callers test.
func ntError(err error) error {
	s, ok := err.(windows.NTStatus)
	if !ok {
		return err
	}
	switch s {
	case windows.STATUS_OBJECT_NAME_NOT_FOUND, windows.STATUS_OBJECT_PATH_NOT_FOUND:
		return syscall.ERROR_FILE_NOT_FOUND
	case windows.STATUS_NOT_A_DIRECTORY:
		return errnoNotDir
	case windows.STATUS_REPARSE_POINT_ENCOUNTERED:
		return syscall.ELOOP
	case windows.STATUS_OBJECT_NAME_INVALID:
		return syscall.EINVAL
	case windows.STATUS_OBJECT_NAME_COLLISION:
		return syscall.EEXIST
	case windows.STATUS_DIRECTORY_NOT_EMPTY:
		return syscall.ENOTEMPTY
	case windows.STATUS_FILE_IS_A_DIRECTORY:
		return syscall.EISDIR
	}
	return s.Errno()
}

// openDirFD opens the subdirectory name of dir: ELOOP for a link or a
// junction, errnoNotDir for anything else that is not a directory.
func openDirFD(dir handle, name string) (handle, error) {
	h, _, err := openNoLink(dir, name, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE|windows.FILE_READ_ATTRIBUTES|windows.READ_CONTROL, windows.FILE_DIRECTORY_FILE)
	return h, err
}

// openFileFD opens the entry name of dir for reading: ELOOP for a link.
// Another kind of reparse point (a cloud placeholder, a deduplicated
// file) is opened again without FILE_OPEN_REPARSE_POINT, so its data is
// read, and kept only if it is the same file.
func openFileFD(dir handle, name string) (handle, error) {
	const access = windows.FILE_GENERIC_READ
	h, st, err := openNoLink(dir, name, access, 0)
	if err != nil || !st.reparse {
		return h, err
	}
	closeHandle(h)
	if h, err = ntCreate(dir, name, access, windows.FILE_NON_DIRECTORY_FILE); err != nil {
		return noHandle, err
	}
	again, err := fstatFD(h)
	if err == nil && again.id != st.id {
		err = syscall.ELOOP // swapped since the first open
	}
	if err != nil {
		closeHandle(h)
		return noHandle, err
	}
	return h, nil
}

// lstatFD is the status of the entry name of dir, not following a link.
func lstatFD(dir handle, name string) (sysStat, error) {
	h, err := ntOpen(dir, name, windows.FILE_READ_ATTRIBUTES, 0)
	if err != nil {
		return sysStat{}, err
	}
	defer closeHandle(h)
	return fstatFD(h)
}

// readlinkFD returns the text of the link name in dir: a relative
// symbolic link's text with "/" for "\", or an absolute one (a junction's
// always is) as stored, which the resolver refuses. Not a link: EINVAL.
func readlinkFD(dir handle, name string) (string, error) {
	h, err := ntOpen(dir, name, windows.FILE_READ_ATTRIBUTES, 0)
	if err != nil {
		return "", err
	}
	defer closeHandle(h)
	buf := make([]byte, windows.MAXIMUM_REPARSE_DATA_BUFFER_SIZE)
	var n uint32
	err = windows.DeviceIoControl(h, windows.FSCTL_GET_REPARSE_POINT, nil, 0, &buf[0], uint32(len(buf)), &n, nil)
	if err == windows.ERROR_NOT_A_REPARSE_POINT {
		return "", syscall.EINVAL
	}
	if err != nil {
		return "", err
	}
	return reparseText(buf[:n])
}

// reparseText decodes a REPARSE_DATA_BUFFER of a symbolic link or a
// junction: its print name, with the substitute name when that is empty.
func reparseText(b []byte) (string, error) {
	if len(b) < 8 {
		return "", syscall.EINVAL
	}
	tag := binary.LittleEndian.Uint32(b)
	// 8 bytes of header, then four 16-bit offsets and lengths, then (for
	// a symbolic link) 32 bits of flags, then the names.
	head := map[uint32]int{windows.IO_REPARSE_TAG_SYMLINK: 20, windows.IO_REPARSE_TAG_MOUNT_POINT: 16}[tag]
	if head == 0 || len(b) < head {
		return "", syscall.EINVAL
	}
	flags := 0
	if tag == windows.IO_REPARSE_TAG_SYMLINK {
		flags = int(binary.LittleEndian.Uint32(b[16:]))
	}
	field := func(at int) string {
		off, n := int(binary.LittleEndian.Uint16(b[at:])), int(binary.LittleEndian.Uint16(b[at+2:]))
		if head+off+n > len(b) {
			return ""
		}
		u := make([]uint16, n/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[head+off+2*i:])
		}
		return string(utf16.Decode(u))
	}
	text := field(12) // the print name
	if text == "" {
		text = field(8) // the substitute name
	}
	const symlinkRelative = 1
	if tag == windows.IO_REPARSE_TAG_SYMLINK && flags&symlinkRelative != 0 {
		return strings.ReplaceAll(text, `\`, "/"), nil
	}
	if text == "" || !strings.HasPrefix(text, `\`) && !isDriveAbs(text) {
		text = `\` + text // absolute whatever it says
	}
	return text, nil
}

// isDriveAbs reports a drive-letter path such as C:\x.
func isDriveAbs(s string) bool { return len(s) >= 2 && s[1] == ':' }

// absLink reports a link text that does not start from the link's folder:
// a root-relative "\x" or "/x", a drive ("C:\x", "C:x"), a device or UNC
// prefix: the resolver refuses it as an escape.
func absLink(target string) bool {
	return strings.HasPrefix(target, "/") || strings.HasPrefix(target, `\`) || isDriveAbs(target)
}

// fstatFD is the status of the open handle h.
func fstatFD(h handle) (sysStat, error) {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return sysStat{}, err
	}
	st := sysStat{
		size:  int64(d.FileSizeHigh)<<32 | int64(d.FileSizeLow),
		mtime: time.Unix(0, d.LastWriteTime.Nanoseconds()),
		links: uint64(d.NumberOfLinks),
		id:    fileID{uint64(d.VolumeSerialNumber), uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)},
	}
	dir := d.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0
	switch {
	case dir:
		st.mode = fs.ModeDir | 0o777
	case d.FileAttributes&windows.FILE_ATTRIBUTE_READONLY != 0:
		st.mode = 0o444
	default:
		st.mode = 0o666
	}
	if d.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		var tag struct{ attributes, tag uint32 }
		if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&tag)), uint32(unsafe.Sizeof(tag))); err != nil {
			return sysStat{}, err
		}
		const nameSurrogate = 0x20000000 // the tag's bit for links of any kind
		if tag.tag&nameSurrogate != 0 {
			st.mode = fs.ModeSymlink | 0o777
		} else {
			st.reparse = true
		}
	}
	if !dir && st.mode&fs.ModeSymlink == 0 {
		if t, err := windows.GetFileType(h); err == nil && t != windows.FILE_TYPE_DISK {
			st.mode |= fs.ModeDevice | fs.ModeCharDevice
		}
	}
	return st, nil
}

// fdReader reads a handle fsroot opened (and closes).
type fdReader handle

func (f fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n uint32
	err := windows.ReadFile(handle(f), p, &n, nil)
	switch {
	case err == windows.ERROR_HANDLE_EOF || err == windows.ERROR_BROKEN_PIPE:
		return 0, io.EOF
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

// lockOffset is where tryFlock locks one byte: far past any file's end,
// so the lock, which Windows enforces on reads and writes of the range,
// never stands in a reader's way.
const lockOffset = 1<<63 - 2

// tryFlock takes an exclusive lock on f without waiting: errLocked when
// another handle holds it. As with flock, the lock belongs to the handle,
// so two callers in one process exclude each other as two processes do.
func tryFlock(f *os.File) error {
	return control(f, func(h handle) error {
		ol := &windows.Overlapped{Offset: lockOffset & 0xffffffff, OffsetHigh: lockOffset >> 32}
		return windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	})
}

// The classes of NtSetInformationFile that give an open file a new name.
const (
	fileRenameInformation   = 10
	fileLinkInformation     = 11
	fileRenameInformationEx = 65
	// The flags of FILE_RENAME_INFORMATION_EX.
	renameReplace = 0x1
	renamePOSIX   = 0x2
)

// renameatNoReplace renames from in the directory fromDir to to in toDir,
// failing with EEXIST if to exists: the entry is opened relative to
// fromDir without following a link, and renamed relative to toDir with
// FileRenameInformation, ReplaceIfExists false.
func renameatNoReplace(fromDir handle, from string, toDir handle, to string) error {
	return mapName(setName(fromDir, from, windows.DELETE, fileRenameInformation, 0, toDir, to))
}

// renameFD renames from in fromDir to to in toDir, replacing a file at to:
// with POSIX semantics where the system and filesystem have them (the old
// file goes at once even if a reader holds it open), else classically.
func renameFD(fromDir handle, from string, toDir handle, to string) error {
	err := setName(fromDir, from, windows.DELETE, fileRenameInformationEx, renameReplace|renamePOSIX, toDir, to)
	if s, ok := err.(windows.NTStatus); ok && (s == windows.STATUS_INVALID_INFO_CLASS || s == windows.STATUS_INVALID_PARAMETER || s == windows.STATUS_NOT_SUPPORTED || s == windows.STATUS_NOT_IMPLEMENTED) {
		err = setName(fromDir, from, windows.DELETE, fileRenameInformation, 1, toDir, to)
	}
	return mapName(err)
}

// linkFD makes to in toDir a new hard link to from in fromDir:
// FileLinkInformation on from, opened without following a link, EEXIST
// for any entry at to.
func linkFD(fromDir handle, from string, toDir handle, to string) error {
	return mapName(setName(fromDir, from, windows.FILE_WRITE_ATTRIBUTES, fileLinkInformation, 0, toDir, to))
}

// setName opens the entry from of fromDir with access, never following a
// reparse point, and gives it the name to in toDir with the
// NtSetInformationFile class: a FILE_RENAME_INFORMATION(_EX) or a
// FILE_LINK_INFORMATION, which share one layout (ReplaceIfExists, a
// BOOLEAN padded to the handle's alignment, or the Flags of the _EX form;
// RootDirectory; FileNameLength; FileName). It returns the NTSTATUS as it
// is, for the caller to map (see mapName).
func setName(fromDir handle, from string, access, class, flags uint32, toDir handle, to string) error {
	h, err := ntOpen(fromDir, from, access, 0)
	if err != nil {
		return err
	}
	defer closeHandle(h)
	name := utf16.Encode([]rune(to))
	type nameInfo struct {
		flags      uint32
		root       handle
		nameLength uint32
		name       [1]uint16
	}
	size := int(unsafe.Offsetof(nameInfo{}.name)) + 2*len(name)
	buf := make([]byte, max(size, int(unsafe.Sizeof(nameInfo{}))))
	ni := (*nameInfo)(unsafe.Pointer(&buf[0]))
	ni.flags, ni.root = flags, toDir
	ni.nameLength = uint32(2 * len(name))
	copy(unsafe.Slice(&ni.name[0], len(name)), name)
	return windows.NtSetInformationFile(h, &windows.IO_STATUS_BLOCK{}, &buf[0], uint32(len(buf)), class)
}

// mapName maps setName's answer: a name taken is EEXIST.
func mapName(err error) error {
	if s, ok := err.(windows.NTStatus); ok && s == windows.STATUS_OBJECT_NAME_COLLISION {
		return syscall.EEXIST
	}
	if err != nil {
		return ntError(err)
	}
	return nil
}

// createFD creates the entry name of dir exclusively (EEXIST for any
// entry there, a link or junction included) and opens it for writing.
// The permission is set on the handle afterwards (only the read-only
// attribute means anything here).
func createFD(dir handle, name string, _ fs.FileMode) (handle, error) {
	return ntCreateAs(dir, name, windows.FILE_GENERIC_WRITE|windows.FILE_READ_ATTRIBUTES, windows.FILE_CREATE, windows.FILE_NON_DIRECTORY_FILE|windows.FILE_OPEN_REPARSE_POINT)
}

// appendAccess is what Go's own open asks for O_WRONLY|O_APPEND: writing
// at the end only (FILE_APPEND_DATA without FILE_WRITE_DATA), attributes,
// and a flush.
const appendAccess = windows.STANDARD_RIGHTS_WRITE | windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.FILE_WRITE_EA | windows.FILE_READ_ATTRIBUTES

// appendFD opens the entry name of dir for appending, creating it
// exclusively when create: ELOOP for a link, which is never followed.
func appendFD(dir handle, name string, create bool, perm fs.FileMode) (handle, error) {
	disposition := uint32(windows.FILE_OPEN)
	if create {
		disposition = windows.FILE_CREATE
	}
	return openNotLink(dir, name, appendAccess, disposition)
}

// lockFileFD opens the lock file name of dir for reading and writing,
// creating it if it is missing: ELOOP for a link.
func lockFileFD(dir handle, name string, _ fs.FileMode) (handle, error) {
	return openNotLink(dir, name, windows.FILE_GENERIC_READ|windows.FILE_GENERIC_WRITE, windows.FILE_OPEN_IF)
}

// openNotLink opens or creates (by disposition) the file name of dir with
// access, never following a reparse point, and refuses with ELOOP what it
// opened if that is a reparse point: a link, or a placeholder whose data
// is elsewhere.
func openNotLink(dir handle, name string, access, disposition uint32) (handle, error) {
	h, err := ntCreateAs(dir, name, access|windows.FILE_READ_ATTRIBUTES, disposition, windows.FILE_NON_DIRECTORY_FILE|windows.FILE_OPEN_REPARSE_POINT)
	if err != nil {
		return noHandle, err
	}
	st, err := fstatFD(h)
	if err == nil && (st.mode&fs.ModeSymlink != 0 || st.reparse) {
		err = syscall.ELOOP
	}
	if err != nil {
		closeHandle(h)
		return noHandle, err
	}
	return h, nil
}

// removeFD removes the entry name of dir (a file, a link itself, or an
// empty directory): the entry is opened relative to dir without following
// a reparse point, then marked for deletion (see deleteHandle).
func removeFD(dir handle, name string, _ bool) error {
	h, err := ntOpen(dir, name, windows.DELETE|windows.FILE_READ_ATTRIBUTES, 0)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		// DELETE alone may be granted where reading attributes is not.
		h, err = ntOpen(dir, name, windows.DELETE, 0)
	}
	if err != nil {
		return err
	}
	defer closeHandle(h)
	return deleteHandle(h)
}

// mkdirFD creates the directory name in dir: EEXIST for any entry there.
func mkdirFD(dir handle, name string, _ fs.FileMode) error {
	h, err := ntCreateAs(dir, name, windows.FILE_LIST_DIRECTORY, windows.FILE_CREATE, windows.FILE_DIRECTORY_FILE|windows.FILE_OPEN_REPARSE_POINT)
	if err != nil {
		return err
	}
	closeHandle(h)
	return nil
}

// syncFD flushes the open file h, best effort: a directory handle, opened
// to read, cannot be flushed on Windows, where NTFS journals the name
// changes itself.
func syncFD(h handle) { windows.FlushFileBuffers(h) }

// infoOwner: Windows folders have owners in ACLs, not user ids.
func infoOwner(fs.FileInfo) (uid int, ok bool) { return 0, false }

// modeBitsMean reports that a file's permission bits say who may change
// it: not on Windows, where they only reflect the read-only attribute.
const modeBitsMean = false

// sysCheckName refuses, with [ErrInvalid], the valid names Windows would
// read another way, so that no caller of fsroot reaches them whatever its
// own policy: a component ending in a dot or a space (dropped by Win32),
// holding a backslash (a separator), or one [WindowsName] judges.
func sysCheckName(name string) error {
	for elem := range strings.SplitSeq(name, "/") {
		if elem == "." {
			continue
		}
		if strings.ContainsRune(elem, '\\') || strings.HasSuffix(elem, ".") || strings.HasSuffix(elem, " ") || WindowsName(elem) != "" {
			return invalidName
		}
	}
	return nil
}

// deleteHandle marks the open file h for deletion with POSIX semantics
// (the name goes at once, open handles or not), or, where the system or
// the filesystem lacks them (FAT, Windows before 10 1607, Wine 8), with
// the classic disposition, which removes the name when the last handle
// closes.
func deleteHandle(h handle) error {
	const (
		fileDispositionInformation   = 13
		fileDispositionInformationEx = 64
		dispositionDelete            = 0x1
		dispositionPOSIX             = 0x2
		dispositionIgnoreReadOnly    = 0x10
	)
	ex := uint32(dispositionDelete | dispositionPOSIX | dispositionIgnoreReadOnly)
	err := windows.NtSetInformationFile(h, &windows.IO_STATUS_BLOCK{}, (*byte)(unsafe.Pointer(&ex)), 4, fileDispositionInformationEx)
	if err == nil {
		return nil
	}
	if s, ok := err.(windows.NTStatus); ok && s == windows.STATUS_DIRECTORY_NOT_EMPTY {
		return syscall.ENOTEMPTY
	}
	classic := uint32(1) // a BOOLEAN DeleteFile, padded
	err = windows.NtSetInformationFile(h, &windows.IO_STATUS_BLOCK{}, (*byte)(unsafe.Pointer(&classic)), 4, fileDispositionInformation)
	if s, ok := err.(windows.NTStatus); ok && s == windows.STATUS_DIRECTORY_NOT_EMPTY {
		return syscall.ENOTEMPTY
	}
	if err != nil {
		return ntError(err)
	}
	return nil
}

// errnoInUse is what Windows answers for a file another program opened
// without sharing it (an editor, Office, an antivirus scan).
const errnoInUse = syscall.Errno(windows.ERROR_SHARING_VIOLATION)

// errnoInvalid is what a Windows call answers for an argument it refuses,
// such as a folder moved into itself.
const errnoInvalid = syscall.Errno(windows.ERROR_INVALID_PARAMETER)

// The flags of GetFinalPathNameByHandle: the path with every component's long name, and without
// the volume's name, or with its NT device name where a volume has no other.
const (
	fileNameNormalized = 0x0
	volumeNameNT       = 0x2
	volumeNameNone     = 0x4
)

// storedName returns the name the volume stores for the entry h, which was opened as name: its
// long name, when name is an 8.3 short name standing for it (PROGRA~1 for Program Files, or the
// alias Wine or Samba forms, _DOC~2XZ for .docker), so the policy judges the name that lists
// show. Only a name of the 8.3 shape can be an alias; any other is returned as it is, unasked.
func storedName(h handle, name string) (string, error) {
	if !shortShape(name) {
		return name, nil
	}
	buf := make([]uint16, 512)
	for _, flags := range []uint32{fileNameNormalized | volumeNameNone, fileNameNormalized | volumeNameNT} {
		for {
			n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), flags)
			if err != nil {
				break
			}
			if int(n) >= len(buf) {
				buf = make([]uint16, n+1)
				continue
			}
			p := windows.UTF16ToString(buf[:n])
			if base := p[strings.LastIndexAny(p, `\/`)+1:]; base != "" {
				return base, nil
			}
			break
		}
	}
	// The volume cannot say: refuse rather than judge an alias by its own name.
	return "", ErrInvalid
}

// shortShape reports whether name has the shape of an 8.3 name, which every short name has: at
// most eight characters, then at most a dot and three more, none of them a space or a second
// dot, and not starting with a dot.
func shortShape(name string) bool {
	stem, ext, _ := strings.Cut(name, ".")
	return stem != "" && len(stem) <= 8 && len(ext) <= 3 && !strings.ContainsAny(ext, ". ") && !strings.Contains(stem, " ")
}

// lstatNameFD is lstatFD that also returns the name the volume stores for the entry (storedName).
func lstatNameFD(dir handle, name string) (sysStat, string, error) {
	h, err := ntOpen(dir, name, windows.FILE_READ_ATTRIBUTES, 0)
	if err != nil {
		return sysStat{}, "", err
	}
	defer closeHandle(h)
	st, err := fstatFD(h)
	if err != nil {
		return sysStat{}, "", err
	}
	stored, err := storedName(h, name)
	return st, stored, err
}
