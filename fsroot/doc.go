// Package fsroot is the only package of packfs-mcp that touches the
// operating system's filesystem. A [Root] holds one handle of the root
// directory, opened through an [os.Root], and every operation resolves its
// names from that handle with one resolver, [Root.Lookup]: component by
// component, relative to an open directory handle, never as host path
// strings. What a lookup found is what the operation then acts on: an
// [Entry] holds the handle of the directory where the name ended, and
// reads, writes, creates, removals and renames go through it.
//
// # Guarantees
//
// Every name argument is a root-relative, slash-separated path in
// [fs.ValidPath] form ("." is the root). Anything else — "..", "a/../b", a
// leading or trailing slash, an empty name, a NUL byte, a name longer than
// [MaxPathBytes] — is refused with [ErrInvalid] before the operating system sees
// it; a name whose ".." components would climb above the root also matches
// [ErrEscapes]. Safety never depends on the caller having cleaned the name:
// fsroot never joins a name to the root's host path and never calls os or
// filepath functions on such a join.
//
// No operation reaches outside the root by "..",
// absolute paths or symbolic links: an absolute link, or a relative link
// whose target climbs above the root, gives [ErrEscapes]. Errors are
// [*fs.PathError] values (or [*os.LinkError] for [Root.Rename]) carrying
// the root-relative name only; Error() never contains the root's host path.
// Missing, existing and forbidden files match [fs.ErrNotExist],
// [fs.ErrExist] and [fs.ErrPermission] under [errors.Is]. A chain of more
// than 40 symbolic links (a loop) matches [ErrLoop] and [ErrInvalid].
//
// Writes are atomic: data goes to a temporary file whose name starts with
// [TempPrefix] in the target's directory, is synced, and is then linked
// ([Root.CreateFile]) or renamed ([Root.WriteFile], [Root.AppendFile]) into
// place, so readers see the old content or the new, never a mix. Listings
// hide temporary files and [Root.CleanTemp] removes leftovers of a crash.
// The one exception is [Root.OpenAppend], for logs such as the audit
// journal: it appends in place, one O_APPEND write per call, so each
// record lands whole.
//
// # Conditional writes
//
// A file's [Version] is a hash of its bytes. [Root.WriteFileIf],
// [Root.AppendFileIf], [Root.RemoveIf] and [Root.RenameIf] take the
// version a caller read and fail with [ErrConflict], changing nothing, if
// the file holds anything else, so a write never silently replaces what
// someone else (a person in an editor) saved after the caller read it.
// WriteFileIf and AppendFileIf check last: after the temporary file is
// written and synced, they read the file at the target's name through the
// directory handle the rename then uses, and rename only if it matches.
// RemoveIf and RenameIf read the file, then unlink or rename at once.
//
// The check and the replace are still separate system calls: POSIX and
// Windows have no compare-and-swap of a file's content. A save landing
// in the window from the check's open of the file to the rename (the time
// to read and hash the file, tens of microseconds for a note, a few
// milliseconds for a file of a few MiB: BenchmarkConditionalWrite) is lost
// as it would be without a condition. So is a write in place, after the
// rename, through a handle an editor opened before it, since no system
// call can see that coming. Only mandatory locking, which Linux no longer
// offers, would close the window. Atomicity is unaffected: readers still
// see the old content or the new, whole.
//
// # Writes in parallel
//
// Each replace is atomic, but a read-modify-write (an append is one: the
// file is read, then replaced by what was read plus the new bytes) is two
// steps, and two that overlap both read the old text: the second rename
// drops the first's change. [Root.Lock] closes that gap between callers
// that take it: it locks the file a name reaches (the directory holding
// it by device and inode, and its folded name, so every spelling, link
// and root over the folder takes one lock), and its holder reads and
// replaces while no other holder can. With [Root.ShareLocks] the lock is
// also an flock on a lock file in a folder other packfs-mcp processes of
// the user share, so two servers on one folder serialise too. Programs
// that take no lock (an editor saving, a sync client) can still land in
// the window above; the version check is what catches them.
//
// # What confining names does not block, and what fsroot adds
//
// Resolving names inside the root confines where they lead; it does not
// judge what a name refers to. fsroot adds:
//
//   - FIFOs: opening a FIFO for reading blocks until a writer appears, so a
//     read could hang forever. fsroot opens with O_NONBLOCK, checks the
//     open handle with fstat and refuses anything but a regular file with
//     [ErrNotRegular]. [Root.Walk] skips FIFOs silently.
//   - Devices and sockets: a device node inside the root opens the device
//     (/dev/zero never ends; a tty may become the controlling terminal). A
//     link to /dev/... is absolute and already refused as an escape; a device
//     node or socket inside the root is refused with [ErrNotRegular] (a
//     stat before the open avoids touching the device at all, the fstat of
//     the handle is the check that counts; O_NOCTTY is always set).
//   - /proc and other pseudo-filesystems: their magic links (such as
//     /proc/self/root) read as absolute text and are refused as escapes;
//     their files report size 0 but may be large or endless, so every read
//     is bounded by the bytes actually read, never by the reported size.
//   - Bind mounts: a bind mount inside the root that shows a directory from
//     outside is, to the kernel, an ordinary directory of the root, and no
//     user-space check can tell it apart. Mounting is the operator's
//     responsibility; fsroot only makes sure a bind-mount cycle cannot make
//     [Root.Walk] loop (it refuses to enter a directory that is one of its
//     own ancestors).
//   - Hard links: a hard link inside the root can name a file that also
//     lives outside it. A regular file with a link count above one is
//     refused for reads and writes with [ErrHardLink] unless
//     [Options.AllowHardLinks] is set. Replacing such a file (when allowed)
//     renames a new file over the name inside the root, so the other names
//     keep the old content.
//
// Symbolic links are text: [Root.Lstat], [Root.ReadDir] and [Root.Walk]
// report a link's target as stored, without following it, and Walk never
// descends through a link. [Root.Resolve] and [Root.Lookup] follow links
// the way the kernel would, inside the root only, so policy can judge a
// name by what it reaches; a lookup keeps hold of the directory where the
// name ended, so the file read afterwards ([Entry.ReadFile]) is the one
// the policy judged, not whatever the name leads to by then.
//
// Listings, walks and lookups read entries, stat them, read link texts and
// descend with getdents, fstatat, readlinkat and
// openat(O_NOFOLLOW|O_DIRECTORY) relative to a directory handle that
// starts at the root's, one entry name at a time, so each component costs
// the same at any depth and none can follow a link or block on a FIFO. A
// lookup follows a link only by reading its text and walking that: an
// absolute text, or a ".." above the root, is [ErrEscapes]. Writes create,
// rename, link and remove with openat(O_CREAT|O_EXCL|O_NOFOLLOW),
// renameat, linkat, unlinkat and mkdirat relative to the handle the
// lookup of their name ended in (a final link is followed by writes of
// content, and is itself the entry for removals, renames and creates).
// Every method goes through a lookup; [Entry.WriteFileIf],
// [Entry.AppendFileIf] and [Entry.CreateFile] let a caller that judged
// [Entry.Path] write the very entry it judged.
//
// fsroot builds on Linux, macOS, the BSDs and Windows, and is tested on
// Linux (Windows in part, under Wine). On macOS a move that must not
// replace uses renameatx_np with RENAME_EXCL; on the BSDs, which lack such
// a call, it checks and then renames, and an entry created at the
// destination in between is replaced. On Windows the handle layer is
// NtCreateFile relative to a folder handle with FILE_OPEN_REPARSE_POINT,
// so no reparse point is followed, and names Win32 would rewrite (a
// trailing dot or space, a ':', a device name) are [ErrInvalid];
// SECURITY.md says what is tested where. A Root is safe for concurrent use
// by multiple goroutines.
package fsroot
