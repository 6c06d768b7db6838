package tools

import (
	"errors"
	"io/fs"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
)

// Visible is the one rule for what the tools can see of an entry found by a walk of root: what a
// listing shows, what the index holds (the engine is given it) and what doctor counts. It returns
// nil when the entry is visible, else why not:
//   - a name the policy refuses: its [security.ErrBlocked] or [security.ErrExtension] error, so a
//     listing never reveals a secret's name;
//   - a file the tools could not open: [fsroot.Root.Refuses] (more than one hard link unless
//     allowed, a special file);
//   - a symbolic link: judged on what it reaches inside the root (the name and the target must
//     both pass); one leading out of the root, or to nothing, is refused with the error that says
//     so.
//
// An entry without a link count (Links 0, as from a walk that only knows names) is judged on its
// name and type; the hard-link check then happens when the file is opened, by the same
// [fsroot.Root.Refuses].
func Visible(policy *security.Policy, root *fsroot.Root, info fsroot.Info) error {
	switch info.Type {
	case fsroot.TypeDir:
		return policy.CheckName(info.Path, true)
	case fsroot.TypeFile:
		if err := policy.CheckName(info.Path, false); err != nil {
			return err
		}
		return root.Refuses(info)
	case fsroot.TypeSymlink:
		errFile, errDir := policy.CheckName(info.Path, false), policy.CheckName(info.Path, true)
		if errFile != nil && errDir != nil {
			return errFile
		}
		e, err := root.Lookup(info.Path)
		if err != nil {
			return err
		}
		defer e.Close()
		st, err := e.Info()
		if err != nil {
			return err
		}
		st.Path = e.Path()
		return Visible(policy, root, st)
	}
	return root.Refuses(info)
}

// hiddenReason is the reason an answer's hidden counts an entry under, for err, what [Visible]
// said of it.
func hiddenReason(err error) string {
	switch {
	case errors.Is(err, security.ErrBlocked):
		return HiddenBlocked
	case errors.Is(err, security.ErrExtension):
		return HiddenType
	}
	return HiddenOther
}

// IndexFS is root as the index reads it: each name opened is judged by what it reached through
// symbolic links inside the root, as a tool's read is (see [fsroot.Root.JudgedFS]), so a note
// swapped for a link to a blocked file is neither indexed nor shown in a hit. [Indexed] judges the
// names themselves, before the index opens them.
func IndexFS(policy *security.Policy, root *fsroot.Root) fs.FS {
	return root.JudgedFS(func(name, reached string, isDir bool) error {
		if reached == name {
			return nil // judged by its name already
		}
		return policy.CheckName(reached, isDir)
	})
}

// Indexed returns what the index of root holds: the entries the tools can see ([Visible]) that
// are not noise to ig ([Ignore.Hidden]), judged by name and type as a walk finds them.
func Indexed(policy *security.Policy, root *fsroot.Root, ig *Ignore) func(name string, isDir bool) bool {
	return func(name string, isDir bool) bool {
		info := fsroot.Info{Path: name, Type: fsroot.TypeFile}
		if isDir {
			info.Type = fsroot.TypeDir
		}
		return Visible(policy, root, info) == nil && ig.Hidden(name, isDir) == ""
	}
}
