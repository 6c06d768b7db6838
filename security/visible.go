package security

import (
	"errors"
	"io/fs"

	"github.com/packfs/packfs-mcp/fsroot"
)

// Visible is the one rule for what the tools can see of an entry found by a walk of root: what a
// listing shows, what the index holds (the engine is given it) and what doctor counts. It returns
// nil when the entry is visible, else why not:
//   - a name the policy blocks: its [ErrBlocked] error, so a listing never reveals a secret's name
//     (a file of a type the tools do not open is visible: listings name it, with what the tools
//     do with it, [Policy.Opens]);
//   - a file the tools could not open: [fsroot.Root.Refuses] (more than one hard link unless
//     allowed, a special file);
//   - a symbolic link: judged on what it reaches inside the root (the name and the target must
//     both pass); one leading out of the root, or to nothing, is refused with the error that says
//     so.
//
// An entry without a link count (Links 0, as from a walk that only knows names) is judged on its
// name and type; the hard-link check then happens when the file is opened, by the same
// [fsroot.Root.Refuses].
func Visible(policy *Policy, root *fsroot.Root, info fsroot.Info) error {
	switch info.Type {
	case fsroot.TypeDir:
		return policy.CheckName(info.Path, true)
	case fsroot.TypeFile:
		if err := named(policy.CheckName(info.Path, false)); err != nil {
			return err
		}
		return root.Refuses(info)
	case fsroot.TypeSymlink:
		errFile, errDir := named(policy.CheckName(info.Path, false)), policy.CheckName(info.Path, true)
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

// named is err, the policy's judgement of a file's name, less a refusal of its type: such a file
// is named in listings.
func named(err error) error {
	if errors.Is(err, ErrExtension) {
		return nil
	}
	return err
}

// HiddenReason returns the reason an answer's hidden counts an entry under, for err, what
// [Visible] said of it: [HiddenBlocked] for a name the policy blocks, which an answer never
// names, and [HiddenOther] for the rest.
func HiddenReason(err error) string {
	switch {
	case errors.Is(err, ErrBlocked):
		return HiddenBlocked
	}
	return HiddenOther
}

// IndexFS returns root as the index reads it: each name opened is judged by what it reached
// through symbolic links inside the root, as a tool's read is (see [fsroot.Root.JudgedFS]), so a
// note swapped for a link to a blocked file is neither indexed nor shown in a hit. [Indexed]
// judges the names themselves, before the index opens them.
func IndexFS(policy *Policy, root *fsroot.Root) fs.FS {
	return root.JudgedFS(func(name, reached string, isDir bool) error {
		if reached == name {
			return nil // judged by its name already
		}
		err := policy.CheckName(reached, isDir)
		if errors.Is(err, ErrExtension) && policy.Opens(reached) == OpensIfText {
			return nil // the index holds only what is text
		}
		return err
	})
}

// Indexed returns what the index of root may hold: the entries the tools can see ([Visible]) and
// open as text or a document ([Policy.Opens]) that are not noise to ig ([Ignore.Hidden]),
// judged by name and type as a walk finds them. The index keeps of them only what is text. An
// image or a binary type is left out by its name: the index never holds one, and every walk would
// otherwise read it again to find that out (a folder of photos, gigabytes a walk).
func Indexed(policy *Policy, root *fsroot.Root, ig *Ignore) func(name string, isDir bool) bool {
	return func(name string, isDir bool) bool {
		if isDir {
			return Visible(policy, root, fsroot.Info{Path: name, Type: fsroot.TypeDir}) == nil && ig.Hidden(name, true) == ""
		}
		// A file the tools open passed the name rules Visible asks (its extension aside, which
		// Visible lets through): judged once, as the walk judges every file of the tree.
		switch policy.Opens(name) {
		case OpensNot, OpensImage, OpensBinary:
			return false
		}
		return ig.Hidden(name, false) == ""
	}
}
