package fsroot

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// Resolve returns the root-relative path that name reaches after following
// every symbolic link inside the root, component by component, as the
// kernel would. A link that is absolute, or whose target leads above the
// root, gives [ErrEscapes]; more than 40 links (a loop) give [ErrInvalid].
// A non-directory followed by more components gives [ErrNotDir].
//
// If the final component, or a trailing part, does not exist, the result is
// the resolved existing prefix joined with the rest, so a caller can judge
// the name a create would produce. Resolve only reads (os.Root's Lstat and
// Readlink); the answer can be stale by the time it is used, so it serves
// policy decisions, while the operations themselves stay confined by the
// root.
func (r *Root) Resolve(name string) (string, error) {
	res, err := r.resolve(name)
	if err != nil {
		return "", r.pathErr("resolve", name, err)
	}
	return res.path, nil
}

// resolved is the outcome of resolve.
type resolved struct {
	path string
	// exists reports whether path existed when it was resolved.
	exists bool
	// dangling reports that path is missing and a symbolic link led to it,
	// so creating path would write through a dangling link.
	dangling bool
}

// pending is a path component still to resolve; viaLink marks those that
// came from a link's target rather than from the name itself.
type pending struct {
	elem    string
	viaLink bool
}

// resolve implements Resolve, returning a cause for pathErr on failure.
func (r *Root) resolve(name string) (resolved, error) {
	if err := checkName(name); err != nil {
		return resolved{}, err
	}
	var done []string // resolved components of an existing directory
	var todo []pending
	for elem := range strings.SplitSeq(name, "/") {
		todo = append(todo, pending{elem: elem})
	}
	links := 0
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		switch p.elem {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return resolved{}, ErrEscapes
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(done, p.elem)...)
		fi, err := r.root.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return missing(done, p, todo)
		}
		if err != nil {
			return resolved{}, err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			links++
			if links > maxSymlinks {
				return resolved{}, errLoop
			}
			target, err := r.root.Readlink(cur)
			if errors.Is(err, syscall.EINVAL) {
				// cur was replaced by a non-link after the Lstat: look at
				// it again. links, already counted, bounds the retries.
				todo = append([]pending{p}, todo...)
				continue
			}
			if err != nil {
				return resolved{}, err
			}
			if target == "" || strings.HasPrefix(target, "/") {
				return resolved{}, ErrEscapes
			}
			var expanded []pending
			for elem := range strings.SplitSeq(target, "/") {
				expanded = append(expanded, pending{elem: elem, viaLink: true})
			}
			todo = append(expanded, todo...)
		case fi.IsDir():
			done = append(done, p.elem)
		default:
			// The kernel refuses anything after a non-directory, even a
			// trailing "/" or "/." from a link's text.
			if len(todo) > 0 {
				return resolved{}, ErrNotDir
			}
			done = append(done, p.elem)
		}
	}
	if len(done) == 0 {
		return resolved{path: ".", exists: true}, nil
	}
	return resolved{path: path.Join(done...), exists: true}, nil
}

// missing builds the result when component p of the resolved directory
// done does not exist: done joined with p and the rest. A rest with ".."
// is refused: as an escape if it climbs above the root, otherwise as
// missing, because the kernel cannot pass through a missing directory.
func missing(done []string, p pending, todo []pending) (resolved, error) {
	elems := append(append([]string(nil), done...), p.elem)
	dangling := p.viaLink
	dotdot := false
	for _, t := range todo {
		dangling = dangling || t.viaLink
		dotdot = dotdot || t.elem == ".."
		elems = append(elems, t.elem)
	}
	joined := path.Join(elems...)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return resolved{}, ErrEscapes
	}
	if dotdot {
		return resolved{}, fs.ErrNotExist
	}
	return resolved{path: joined, dangling: dangling}, nil
}
