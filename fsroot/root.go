package fsroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// TempPrefix starts the name of every temporary file fsroot creates;
// [Root.ReadDir] and [Root.Walk] hide such entries, and [Root.CleanTemp]
// removes leftovers.
const TempPrefix = ".packfs-tmp-"

// MaxPathBytes is the longest path accepted, in bytes. It is Linux's PATH_MAX: anything longer
// fails in the kernel anyway, no legitimate caller needs more, and refusing it early gives a clear
// message and bounds the resolution work one call can cause. It lives here, in the lowest package,
// so that security's path policy, the journal and the intents' validate tags (which a test ties to
// it) hold one number.
const MaxPathBytes = 4096

const (
	// maxSymlinks bounds the links followed while resolving one name. It
	// matches Linux's limit, so a name resolves here iff it would for the
	// kernel, and a loop ends quickly.
	maxSymlinks = 40
)

// Options configures a [Root]. The zero value is the safe default.
type Options struct {
	// AllowHardLinks permits reading and writing regular files whose link
	// count is above one. If false, such files are refused with
	// [ErrHardLink], because a hard link can alias a file outside the root.
	AllowHardLinks bool
}

// Root is a directory tree that every operation is confined to. Create one
// with [Open]; it is safe for concurrent use.
type Root struct {
	root *os.Root
	// top is a handle of the root directory, from which [Root.Lookup]
	// walks names (see [Root.atRoot]).
	top      *os.File
	opts     Options
	dir      string
	resolved string
	// writing holds the names of the temporary files this Root is writing
	// now (random, so unique), which CleanTemp must not remove.
	writing sync.Map
	// locks is the folder of lock files shared with other processes
	// (ShareLocks), or nil.
	locks atomic.Pointer[Root]
	// beforeCheck, if set, runs in a conditional replace after the
	// temporary file is written and before the file is checked: tests
	// change the file there. Always nil outside tests.
	beforeCheck func()
}

// Open opens the directory dir as a [Root]. dir may be relative to the
// current working directory; it is made absolute and its symbolic links
// are resolved once, at open time, so re-pointing a link later does not
// move the root. Unlike the methods, Open's errors name dir, since the
// operator supplied it.
func Open(dir string, opts Options) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", dir, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", dir, err)
	}
	root, err := os.OpenRoot(resolved)
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", dir, err)
	}
	fi, err := root.Stat(".")
	if err == nil && !fi.IsDir() {
		err = ErrNotDir
	}
	var top *os.File
	if err == nil {
		top, err = root.OpenFile(".", dirFlags, 0)
	}
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("open root %s: %w", dir, err)
	}
	r := &Root{root: root, top: top, opts: opts, dir: abs, resolved: resolved}
	return r, nil
}

// Close closes the root. Files already open through it stay usable; every
// later method call fails.
func (r *Root) Close() error {
	r.top.Close()
	return r.root.Close()
}

// atRoot runs fn with the descriptor of the root directory. The descriptor
// stays open while fn runs, even if the Root is closed meanwhile; once it
// is closed, atRoot fails with [os.ErrClosed] without calling fn.
func (r *Root) atRoot(fn func(dir handle) error) error {
	return control(r.top, fn)
}

// Dir returns the root's absolute path as given to [Open], cleaned.
func (r *Root) Dir() string { return r.dir }

// ResolvedDir returns the root's absolute path with symbolic links
// resolved at open time. It names the directory the Root actually holds.
func (r *Root) ResolvedDir() string { return r.resolved }

// FileType is the kind of a directory entry.
type FileType string

// The kinds of entries in [Info.Type].
const (
	TypeFile    FileType = "file"
	TypeDir     FileType = "directory"
	TypeSymlink FileType = "symlink"
	// TypeOther is a FIFO, socket, device or anything else that is not a
	// regular file, directory or symbolic link.
	TypeOther FileType = "other"
)

// Info describes a file. It holds no host paths.
type Info struct {
	// Path is the root-relative slash path; "." for the root.
	Path string
	// Name is the base name; "." for the root.
	Name string
	// Type is the kind of entry.
	Type FileType
	// Size is the length in bytes reported by the system; it is
	// information only and never bounds a read.
	Size int64
	// ModTime is the modification time.
	ModTime time.Time
	// Mode holds the type and permission bits.
	Mode fs.FileMode
	// Links is the hard link count.
	Links uint64
	// Target is, for a TypeSymlink from [Root.Lstat], [Root.ReadDir] or
	// [Root.Walk], the link text as stored. It may point outside the root;
	// it is only text.
	Target string
}

func fileType(m fs.FileMode) FileType {
	switch {
	case m.IsRegular():
		return TypeFile
	case m.IsDir():
		return TypeDir
	case m&fs.ModeSymlink != 0:
		return TypeSymlink
	}
	return TypeOther
}

// Within reports whether name is the folder dir or lies below it, both root-relative names in
// [fs.ValidPath] form ("." is the root, which holds every name). Names are compared as they are
// spelled, whole component by whole component ("a/bc" is not within "a/b"); an empty name, which
// names nothing, is within no folder. Like [HostRel] for host paths, it is the one spelling of
// "at or below" for names, so that every package draws a folder's edge in the same place.
func Within(name, dir string) bool {
	return name != "" && (dir == "." || name == dir || strings.HasPrefix(name, dir+"/"))
}

// checkName validates a name argument, returning the cause to wrap when it
// is refused.
func checkName(name string) error {
	if len(name) > MaxPathBytes || strings.IndexByte(name, 0) >= 0 {
		return invalidName
	}
	if fs.ValidPath(name) {
		return sysCheckName(name)
	}
	// Tell an attempt to climb above the root from a merely unclean name.
	depth := 0
	for elem := range strings.SplitSeq(name, "/") {
		switch elem {
		case "..":
			depth--
		case "", ".":
		default:
			depth++
		}
		if depth < 0 {
			return escapingName
		}
	}
	return invalidName
}

// Stat returns information about name, following symbolic links inside the
// root. Info.Path is name. Errors: [ErrInvalid], [ErrEscapes],
// [fs.ErrNotExist], [ErrNotDir].
func (r *Root) Stat(name string) (Info, error) {
	e, err := r.lookup(name)
	if err != nil {
		return Info{}, r.pathErr("stat", name, err)
	}
	e.Close()
	return e.Info()
}

// Lstat returns information about name without following a final symbolic
// link; for a link, Info.Target holds its text. Errors as for [Root.Stat].
func (r *Root) Lstat(name string) (Info, error) {
	for tries := 0; ; tries++ {
		e, err := r.lookupLink(name)
		if err != nil {
			return Info{}, r.pathErr("lstat", name, err)
		}
		if !e.exists {
			e.Close()
			return Info{}, r.pathErr("lstat", name, fs.ErrNotExist)
		}
		info := e.info
		if info.Type == TypeSymlink {
			err = e.dirs.do(func(dir handle) error {
				var err error
				info.Target, err = readlinkFD(dir, e.elem)
				return err
			})
			if errors.Is(err, syscall.EINVAL) && tries < maxSymlinks {
				e.Close()
				continue // replaced by a non-link since the lookup: look again
			}
			if err != nil {
				err = r.pathErr("lstat", name, err)
			}
		}
		e.Close()
		if err != nil {
			return Info{}, err
		}
		return info, nil
	}
}

// Refuses reports the error a read or a replacement of the entry info
// describes would meet, judged as every method judges it: [ErrNotRegular]
// for anything but a regular file (with [ErrIsDir] for a directory),
// [ErrHardLink] for a file with more than one hard link unless
// [Options.AllowHardLinks], and nil otherwise. A caller that listed entries
// can so tell which of them the tools will refuse without opening each.
func (r *Root) Refuses(info Info) error {
	switch {
	case info.Type == TypeDir:
		return withCause(ErrIsDir, ErrNotRegular)
	case info.Type != TypeFile:
		return ErrNotRegular
	case info.Links > 1 && !r.opts.AllowHardLinks:
		return ErrHardLink
	}
	return nil
}
