package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/search"
	"github.com/packfs/packfs-mcp/tools/text"
)

// admit runs the first two steps of the pipeline: the permission for the call's purpose, then the
// intent's decoding and validation. The permission is judged before the rest of the arguments so a
// server without write permission answers PERMISSION_DENIED whatever else the call got wrong.
func admit[T any](s *Server, c *call) (T, error) {
	var zero T
	if p, known := PurposeOf(c.tool, c.purpose); known {
		if err := s.cfg.Permissions.Check(p.Name, p.Permission); err != nil {
			return zero, err
		}
	}
	if in, ok := c.in.(T); ok {
		return in, nil
	}
	in, err := intents.Decode[T](c.raw)
	if err != nil {
		return zero, err
	}
	return in, nil
}

// PurposeIn reads the purpose from a call's arguments without judging the rest; "" when there is
// none.
func PurposeIn(raw []byte) string {
	var v struct {
		Purpose any `json:"purpose"`
	}
	if json.Unmarshal(raw, &v) != nil {
		var s string // arguments sent as a JSON-encoded string
		if json.Unmarshal(raw, &s) != nil || json.Unmarshal([]byte(s), &v) != nil {
			return ""
		}
	}
	p, _ := v.Purpose.(string)
	return p
}

// kind says how the policy judges a name: a file is held to the extension allowlist, a directory only
// to the blocked components.
type kind int

const (
	kindFile kind = iota
	kindDir
	kindAny // judged as a directory or a file by what is there
	// kindLookup is judged as a file by its name alone: the handler looks it up once and judges
	// what that lookup reached (Server.open), so the name is not resolved twice.
	kindLookup
	// kindName is judged by its components alone, as a folder's name is: what it names may be
	// gone (restore), and the handler judges each file it writes.
	kindName
)

// use is how a name of kind k is opened to be judged.
func (k kind) use() use {
	switch k {
	case kindDir:
		return useMkdir
	case kindAny:
		return useAny
	}
	return useRead
}

// resolvePath runs the path policy on a caller's path: it cleans it into a root-relative name,
// then, unless k is kindLookup, judges what the name reaches through one [Server.open] (as a file,
// a folder, or what is there) and lets go of it. It returns the cleaned name, which the handler
// opens for what it does.
func (s *Server) resolvePath(raw string, k kind) (string, error) {
	if k == kindName {
		name, err := s.cfg.Policy.Clean(raw)
		if err == nil {
			err = s.cfg.Policy.CheckName(name, true)
		}
		return name, err
	}
	if k == kindLookup {
		name, err := s.cfg.Policy.Clean(raw)
		if err == nil {
			err = s.cfg.Policy.CheckName(name, false)
		}
		if errors.Is(err, security.ErrExtension) && s.cfg.Policy.Opens(name) == security.OpensIfText {
			err = nil // the handler's lookup judges the content (Server.byContent)
		}
		return name, err
	}
	name, e, err := s.openRaw(raw, k.use())
	if e != nil {
		e.Close()
	}
	return name, err
}

// resolveReal runs the path policy on a path a copy writes, judged as a folder when isDir, and
// returns the cleaned name and the path it reaches through links inside the root.
func (s *Server) resolveReal(raw string, isDir bool) (name, real string, err error) {
	u := useRead
	if isDir {
		u = useMkdir
	}
	name, e, err := s.openRaw(raw, u)
	if err != nil {
		return name, "", err
	}
	defer e.Close()
	return name, e.Path(), nil
}

// lookup cleans a caller's path and opens it for whatever is there ([Server.open], useAny): the
// cleaned name and the entry, which the caller reads through and closes.
func (s *Server) lookup(raw string) (string, *fsroot.Entry, error) {
	return s.openRaw(raw, useAny)
}

// openRaw cleans a caller's path into a root-relative name and opens it for u.
func (s *Server) openRaw(raw string, u use) (string, *fsroot.Entry, error) {
	name, err := s.cfg.Policy.Clean(raw)
	if err != nil {
		return "", nil, err
	}
	e, err := s.open(name, u)
	return name, e, err
}

// use is what a call does with a name it looks up: it says whether the lookup follows a final
// link, and how the policy judges what it reached.
type use int

const (
	useAny        use = iota // read or list what is there: judged as a folder or a file by what it is
	useRead                  // read a file (a caller's, or one a walk, the index or the graph named)
	useWrite                 // create or replace a file: judged as a file, and writable
	useMkdir                 // make a folder (mkdir, createPath): judged as a folder
	useReplace               // a copy's or a move's file: a final link not followed (replaced, never written through); writable
	useReplaceDir            // a copy's or a move's folder: likewise, judged as a folder
	useRemove                // delete, or move away: a final link not followed; a folder or a link judged as a folder
)

// open looks name, a name the policy cleaned, up once for u, and judges by its name and by the
// path the lookup reached through links inside the root what u does there. Every purpose acts
// through the Entry it returns (reads, writes, folders made, copies, removals, renames), which
// the caller closes: what is acted on is what was judged, whatever the name leads to by then.
func (s *Server) open(name string, u use) (*fsroot.Entry, error) {
	find := s.cfg.Root.Lookup
	if u == useReplace || u == useReplaceDir || u == useRemove {
		find = s.cfg.Root.LookupLink
	}
	asDir := u == useMkdir || u == useReplaceDir
	e, err := find(name)
	if err != nil {
		return nil, s.policyFirst(name, asDir, err)
	}
	info, statErr := e.Info()
	if u == useAny && errors.Is(statErr, fs.ErrNotExist) {
		return nil, s.absent(name, e, statErr)
	}
	switch u {
	case useAny:
		asDir = statErr == nil && info.Type == fsroot.TypeDir
	case useRemove:
		err = statErr
		asDir = info.Type != fsroot.TypeFile
	}
	if err == nil {
		var byContent bool
		if byContent, err = s.judge(name, e.Path(), asDir); byContent {
			err = s.byContent(u, name, e, info, statErr, err)
		}
	}
	if err == nil && (u == useWrite || u == useReplace || u == useReplaceDir) {
		err = s.writable(name, e.Path())
	}
	if err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// absent answers a lookup for whatever is there that found nothing at name: a blocked name is
// refused as ever, whether or not it exists, and any other is not found. Judged as a file, a
// misspelt folder (no extension) was refused as a file of a type the server does not open, which
// tells a model nothing of the typo; the types files may have are no secret, since listings name
// every file. It closes e: nothing that appears at name later is acted on.
func (s *Server) absent(name string, e *fsroot.Entry, notExist error) error {
	defer e.Close()
	if _, err := s.judge(name, e.Path(), true); err != nil {
		return err
	}
	return notExist
}

// writable judges a name that a write creates or replaces, and real, the path it reaches through
// links: neither may lie where what is written runs by itself ([security.Policy.CheckWrite]).
func (s *Server) writable(name, real string) error {
	if err := s.cfg.Policy.CheckWrite(name); err != nil {
		return err
	}
	if real != name {
		return s.cfg.Policy.CheckWrite(real)
	}
	return nil
}

// noKey refuses data, the content of the file name, when it begins with a private key
// ([security.PrivateKey]): a key is refused like a blocked name, whatever the file is called.
func noKey(name string, data []byte) error {
	if kind := security.PrivateKey(data); kind != "" {
		return security.KeyRefusal(name, kind)
	}
	return nil
}

// readJudged reads the file name, a name the policy cleaned (one a walk, the index or the graph
// gave), through one lookup judged by what it reached ([Server.open], useRead): a name that leads
// to a blocked file by now is refused, never read.
func (s *Server) readJudged(ctx context.Context, name string, max int64) ([]byte, fsroot.Info, error) {
	e, err := s.open(name, useRead)
	if err != nil {
		return nil, fsroot.Info{}, err
	}
	defer e.Close()
	data, info, err := e.ReadFile(ctx, max)
	if err == nil {
		err = noKey(name, data)
	}
	if err != nil {
		return nil, fsroot.Info{}, err
	}
	return data, info, nil
}

// policyFirst returns the policy's refusal of name, if it has one, in place of err, the filesystem
// layer's failure to resolve it: a name the system cannot open (on Windows, "NUL.md" or "a:b.md")
// is refused with the policy's reason, not as an unresolvable path.
func (s *Server) policyFirst(name string, isDir bool, err error) error {
	if !errors.Is(err, fsroot.ErrInvalid) {
		return err
	}
	if perr := s.cfg.Policy.CheckName(name, isDir); perr != nil {
		return perr
	}
	return err
}

// judge runs the name policy on a cleaned name and on real, the path it reaches through symbolic
// links, so a link is judged by its own name and by what it reaches. When the only refusal is of
// a file's type and both names open by content ([security.OpensIfText]), byContent is true and err
// is that refusal, which the file's content may lift ([Server.byContent]).
func (s *Server) judge(name, real string, isDir bool) (byContent bool, err error) {
	names := []string{name, real}
	if real == name {
		names = names[:1]
	}
	var refusal, closed error // a type refusal content may lift; one it may not
	for _, n := range names {
		err := s.cfg.Policy.CheckName(n, isDir)
		switch {
		case !errors.Is(err, security.ErrExtension):
			if err != nil {
				return false, err // blocked, or invalid: whatever the other name is
			}
		case s.cfg.Policy.Opens(n) == security.OpensIfText:
			refusal = err
		default:
			closed = err
		}
	}
	if closed != nil {
		return false, closed
	}
	return refusal != nil, refusal
}

// contentSniffLen is how much of a file of a type not on the list decides whether it opens as
// text: git judges a file binary by its first 8,000 bytes.
const contentSniffLen = 8 << 10

// byContent lifts refusal, a file type's, for a use that reads, writes or removes an existing
// regular file e whose first bytes are text: such a file is read and edited like any text file,
// while a name that is not there cannot be created, and a copy or a move cannot make one. A file
// whose content is not text is refused with [security.NotText].
func (s *Server) byContent(u use, name string, e *fsroot.Entry, info fsroot.Info, statErr error, refusal error) error {
	switch {
	case u == useMkdir || u == useReplace || u == useReplaceDir:
		return refusal
	case statErr != nil || info.Type != fsroot.TypeFile:
		return refusal
	}
	head, err := e.Head(contentSniffLen)
	if err != nil {
		return err
	}
	if !text.HeadIsText(head, len(head) == contentSniffLen) {
		return security.NotText(name)
	}
	return nil
}

// checkParents judges every directory above name, for writes that create them.
func (s *Server) checkParents(name string) error {
	dir := path.Dir(name)
	if dir == "." {
		return nil
	}
	return s.cfg.Policy.CheckName(dir, true)
}

// charge runs the rate limiter for the call; heavier purposes cost more.
func (s *Server) charge(c *call, recursive bool) error {
	if c.free {
		return nil
	}
	cost := security.CostHeavy // a made-up purpose is never the cheap way in
	if p, ok := PurposeOf(c.tool, c.purpose); ok {
		cost = p.cost(recursive)
	}
	return s.cfg.Limiter.Allow(c.tool, cost, s.cfg.Now())
}

// visible reports whether an entry found by a walk may be shown (see [security.Visible]).
func (s *Server) visible(info fsroot.Info) bool {
	return security.Visible(s.cfg.Policy, s.cfg.Root, info) == nil
}

// listed reports whether a listing that takes no options (resources/list) shows info: visible,
// and not noise ([security.Ignore]).
func (s *Server) listed(info fsroot.Info) bool {
	return s.visible(info) && search.Opens(s.cfg.Policy, info) != security.OpensNot.String() &&
		s.cfg.Ignore.Hidden(info.Path, info.Type == fsroot.TypeDir) == ""
}
