package fsroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrNotPrivate is returned by [PrivateDir] when the folder exists but another user could have put
// it there or can change it.
var ErrNotPrivate = errors.New("not a private folder of this user")

// PrivateDir makes sure dir is a folder that only this process's user controls, creating it with
// mode 0700 if it is missing (its parent must exist). An existing dir must be a directory, not a
// symbolic link, owned by this process's effective user and writable by no one else; otherwise
// the error matches [ErrNotPrivate]. It is for folders named in a parent every user can write,
// such as /var/tmp, where another user could plant a folder or a link under a predictable name.
// On Windows, where a folder's mode bits say nothing (Go reports 0777 for every folder) and
// access is an ACL, only the link check applies: the folders the server makes by default live
// in the user's profile (%LocalAppData%), which other users cannot write.
// Unlike the methods of [Root], it takes a host path, since the operator's environment names it.
func PrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %w (it is not a directory)", dir, ErrNotPrivate)
	}
	if modeBitsMean && fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s: %w (others can write to it: mode %v)", dir, ErrNotPrivate, fi.Mode().Perm())
	}
	if uid, ok := infoOwner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s: %w (it belongs to user %d)", dir, ErrNotPrivate, uid)
	}
	return nil
}

// ResolveHost returns the absolute host path p with the symbolic links of its longest existing
// prefix resolved, so a folder not made yet is judged by where it would land, and reports whether
// p exists. Like [PrivateDir], it is for folders the operator's environment names, outside any
// root.
func ResolveHost(p string) (string, bool) {
	p, err := filepath.Abs(p)
	if err != nil {
		return p, false
	}
	rest := ""
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(r, rest), rest == ""
		}
		parent := filepath.Dir(p)
		if !errors.Is(err, fs.ErrNotExist) || parent == p {
			return filepath.Join(p, rest), false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// HostRel returns the host path p relative to the host folder dir, with "/" between its names ("."
// for dir itself), and whether p is dir or lies below it. Both are compared cleaned, with the
// system's separator, and, on Windows and macOS, whose filesystems ignore case by default, without
// regard to case: a false "inside" only keeps the server's own folders further away. Like
// [ResolveHost], it is for paths the operator or a client names, outside any root; it reads nothing.
func HostRel(p, dir string) (string, bool) {
	p, dir = filepath.Clean(p), filepath.Clean(dir)
	same := func(a, b string) bool { return a == b || foldHostCase && strings.EqualFold(a, b) }
	if same(p, dir) {
		return ".", true
	}
	prefix := strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator)
	if len(p) <= len(prefix) || !same(p[:len(prefix)], prefix) {
		return "", false
	}
	return filepath.ToSlash(p[len(prefix):]), true
}

// HostWithin reports whether the host path p is the host folder dir or lies below it, compared as
// [HostRel] compares them.
func HostWithin(p, dir string) bool {
	_, ok := HostRel(p, dir)
	return ok
}

// foldHostCase reports that host paths are compared without regard to case.
const foldHostCase = runtime.GOOS == "windows" || runtime.GOOS == "darwin"
