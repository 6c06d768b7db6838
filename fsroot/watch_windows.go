package fsroot

import (
	"context"
	"errors"
	"os"
	"path"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a Watcher is one ReadDirectoryChangesW over the root's folder with bWatchSubtree
// set: the system reports every change below it, in folders old and new, from one handle, so
// there is nothing to add as folders come and no limit of watches to reach (fsnotify adds one
// handle per folder, and none for the folders created since). The names it reports are
// relative to the root's folder, and what skip refuses is dropped from them. The folder is
// opened again from the root's own handle (not from its host path), for asynchronous reads,
// sharing read, write and delete so that other programs still rename and remove what is in it.
// A read is asynchronous so that the end of the context, signalled on an event, can stop it:
// the goroutine waits on both events, and a read it no longer wants is cancelled and waited for
// before the buffer and the handle go.

// notifyBufferSize is the buffer of one read: 64 KiB, the most ReadDirectoryChangesW takes on
// a network share, and enough for about 1,000 names between two reads. Past it the system
// reports an overflow, which is a walk ([All]).
const notifyBufferSize = 64 << 10

// notifyFilter is what a read reports: names created, removed and renamed (files and folders),
// and a file's size, last write and attributes (the read-only flag), what inotify reports on
// Linux.
const notifyFilter = windows.FILE_NOTIFY_CHANGE_FILE_NAME | windows.FILE_NOTIFY_CHANGE_DIR_NAME |
	windows.FILE_NOTIFY_CHANGE_SIZE | windows.FILE_NOTIFY_CHANGE_LAST_WRITE | windows.FILE_NOTIFY_CHANGE_ATTRIBUTES

// beforeNextRead, if set, runs after each read is taken in and before the next starts: tests
// stall the reads there so that the system's buffer overflows. Always nil outside tests.
var beforeNextRead func()

// errStopped is what a wait answers when the context ended before the read did.
var errStopped = errors.New("watch stopped")

// sysWatch is the ReadDirectoryChangesW side of a [Watcher]. Only the goroutine of feed uses it
// once watchSystem returns.
type sysWatch struct {
	dir     handle // the root's folder, opened for asynchronous reads
	done    handle // manual-reset event: the read under way completed
	stop    handle // manual-reset event: the context ended
	ov      windows.Overlapped
	buf     []uint64 // the read's buffer, as words: ReadDirectoryChangesW wants it DWORD-aligned
	reading bool     // a read is under way: the system may write buf and ov
	skip    func(dir string) bool
}

// watchSystem opens the root's folder for notifications and starts the first read, so that a
// filesystem that has none (ERROR_INVALID_FUNCTION) is told at once.
func (r *Root) watchSystem(_ context.Context, skip func(dir string) bool) (*sysWatch, error) {
	s := &sysWatch{dir: noHandle, buf: make([]uint64, notifyBufferSize/8), skip: skip}
	err := r.atRoot(func(top handle) error {
		var err error
		s.dir, err = openNotifyDir(top)
		return err
	})
	if err == nil {
		s.done, err = newEvent()
	}
	if err == nil {
		s.stop, err = newEvent()
	}
	if err == nil {
		err = s.start()
	}
	if err != nil {
		return nil, errors.Join(err, s.release())
	}
	return s, nil
}

// openNotifyDir opens the folder dir again, for ReadDirectoryChangesW, through NtCreateFile
// relative to dir's handle with an empty name, so it is the folder the Root holds whatever its
// host path has become. It asks for FILE_LIST_DIRECTORY only, shares read, write and delete,
// opens for backup intent and does not follow a reparse point (FILE_FLAG_BACKUP_SEMANTICS and
// FILE_FLAG_OPEN_REPARSE_POINT), and leaves out FILE_SYNCHRONOUS_IO_NONALERT, so the handle
// is asynchronous (FILE_FLAG_OVERLAPPED).
func openNotifyDir(dir handle) (handle, error) {
	u, err := windows.NewNTUnicodeString("")
	if err != nil {
		return noHandle, err
	}
	oa := &windows.OBJECT_ATTRIBUTES{RootDirectory: dir, ObjectName: u}
	oa.Length = uint32(unsafe.Sizeof(*oa))
	var h handle
	err = windows.NtCreateFile(&h, windows.FILE_LIST_DIRECTORY, oa, &windows.IO_STATUS_BLOCK{}, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, windows.FILE_OPEN,
		windows.FILE_DIRECTORY_FILE|windows.FILE_OPEN_FOR_BACKUP_INTENT|windows.FILE_OPEN_REPARSE_POINT, 0, 0)
	if err != nil {
		return noHandle, ntError(err)
	}
	return h, nil
}

// newEvent makes a manual-reset event, not signalled: it stays signalled once set, so a wait
// that begins after the signal still sees it.
func newEvent() (handle, error) {
	h, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return 0, os.NewSyscallError("CreateEvent", err)
	}
	return h, nil
}

// folders is 1: one watch covers the tree.
func (s *sysWatch) folders() int { return 1 }

// feed sends the root-relative paths of changes on out until ctx ends or a read fails, then
// releases the handles. The end of ctx sets the stop event, which wakes the wait.
func (s *sysWatch) feed(ctx context.Context, out chan<- string) error {
	fired := make(chan struct{})
	unhook := context.AfterFunc(ctx, func() {
		windows.SetEvent(s.stop)
		close(fired)
	})
	err := s.pump(ctx, out)
	if !unhook() {
		<-fired // the event is set: it may now be closed
	}
	return errors.Join(err, s.release())
}

// pump sends the paths each read reports on out, starting the next read first so that no
// change goes unseen meanwhile, until ctx ends or a read fails. A failed read is reported as
// [All] (what changed since is unknown) and ends the watch.
func (s *sysWatch) pump(ctx context.Context, out chan<- string) error {
	for {
		n, err := s.wait()
		var paths []string
		switch {
		case errors.Is(err, errStopped):
			return nil
		case errors.Is(err, windows.ERROR_NOTIFY_ENUM_DIR): // too much changed for the system's buffer
			paths = []string{All}
		case err != nil:
			emit(ctx, out, All)
			return os.NewSyscallError("ReadDirectoryChangesW", err)
		default:
			paths = s.paths(n)
		}
		if beforeNextRead != nil {
			beforeNextRead()
		}
		if err := s.start(); err != nil {
			emit(ctx, out, All)
			return err
		}
		for _, p := range paths {
			if !emit(ctx, out, p) {
				return nil
			}
		}
	}
}

// start begins a read of the changes since the last one.
func (s *sysWatch) start() error {
	if err := windows.ResetEvent(s.done); err != nil {
		return os.NewSyscallError("ResetEvent", err)
	}
	s.ov = windows.Overlapped{HEvent: s.done}
	err := windows.ReadDirectoryChanges(s.dir, s.bufPtr(), notifyBufferSize, true, notifyFilter, nil, &s.ov, 0)
	if err != nil && !errors.Is(err, windows.ERROR_IO_PENDING) {
		return os.NewSyscallError("ReadDirectoryChangesW", err)
	}
	s.reading = true
	return nil
}

// wait waits until the read under way completes or the stop event is set, and returns the
// bytes the read filled (0 when the system's buffer overflowed), or errStopped.
func (s *sysWatch) wait() (uint32, error) {
	ev, err := windows.WaitForMultipleObjects([]windows.Handle{s.done, s.stop}, false, windows.INFINITE)
	if err != nil {
		return 0, os.NewSyscallError("WaitForMultipleObjects", err)
	}
	if ev != windows.WAIT_OBJECT_0 {
		return 0, errStopped
	}
	s.reading = false
	var n uint32
	err = windows.GetOverlappedResult(s.dir, &s.ov, &n, false)
	return n, err
}

// cancel stops the read under way, if any, and waits until the system is done with it: until
// then it may still write buf and ov, which must outlive it.
func (s *sysWatch) cancel() {
	if !s.reading {
		return
	}
	windows.CancelIoEx(s.dir, &s.ov) // fails only when the read completed meanwhile
	var n uint32
	windows.GetOverlappedResult(s.dir, &s.ov, &n, true)
	s.reading = false
}

// release cancels the read under way and closes the handles.
func (s *sysWatch) release() error {
	if s.dir != noHandle {
		s.cancel()
	}
	var errs []error
	for _, h := range []handle{s.dir, s.done, s.stop} {
		if h != noHandle && h != 0 {
			errs = append(errs, windows.CloseHandle(h))
		}
	}
	s.dir, s.done, s.stop = noHandle, 0, 0
	return errors.Join(errs...)
}

// bufPtr returns the first byte of the read's buffer.
func (s *sysWatch) bufPtr() *byte { return (*byte)(unsafe.Pointer(&s.buf[0])) }

// paths returns the root-relative paths of the n bytes of records a read filled, less those
// below a folder skip refuses; [All] when the system's buffer overflowed (n is 0) or the
// records are malformed.
func (s *sysWatch) paths(n uint32) []string {
	if n == 0 {
		return []string{All}
	}
	paths, ok := notifyPaths(unsafe.Slice(s.bufPtr(), min(n, notifyBufferSize)), keepNotified)
	if !ok {
		paths = append(paths, All)
	}
	return slices.DeleteFunc(paths, s.skipped)
}

// skipped reports whether p lies below a folder skip refuses. Each folder is asked every time:
// what skip answers may change (an ignore file edited), so nothing is kept.
func (s *sysWatch) skipped(p string) bool {
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if s.skip(dir) {
			return true
		}
	}
	return false
}

// keepNotified reports whether a component of a reported name can stand as spelled: not one
// fsroot refuses on Windows (see [checkName]), and not possibly an 8.3 alias, which the system
// may report for a name spelled that way by the program that changed it (PROGRA~1 for Program
// Files), so that skip would judge the alias, not the name. A component that cannot stand is
// reported as its folder, which the index then looks at whole (so "notes~1.md", which has the
// shape, costs a look at its folder).
func keepNotified(elem string) bool {
	return sysCheckName(elem) == nil && !(shortShape(elem) && strings.Contains(elem, "~"))
}
