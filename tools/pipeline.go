package tools

import (
	"context"
	"encoding/json"
	"errors"
	"path"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/security"
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
	// what that lookup reached (Server.writeEntry), so the name is not resolved twice.
	kindLookup
)

// resolvePath runs the path policy on a caller's path: it cleans it into a root-relative name, then
// judges both the name and what it reaches through symbolic links inside the root. It returns the
// cleaned name (the one the caller used, which the filesystem layer resolves again, safely). A caller
// that reads what the name reaches uses lookup instead, which resolves it once.
func (s *Server) resolvePath(raw string, k kind) (string, error) {
	if k == kindLookup {
		name, err := s.cfg.Policy.Clean(raw)
		if err == nil {
			err = s.cfg.Policy.CheckName(name, false)
		}
		return name, err
	}
	if k == kindAny {
		name, e, err := s.lookup(raw)
		if e != nil {
			e.Close()
		}
		return name, err
	}
	name, _, err := s.resolveReal(raw, k == kindDir)
	return name, err
}

// resolveReal runs the path policy on a path a write creates or replaces, judged as a directory
// when isDir, and returns the cleaned name and the path it reaches through links inside the root.
func (s *Server) resolveReal(raw string, isDir bool) (name, real string, err error) {
	name, err = s.cfg.Policy.Clean(raw)
	if err != nil {
		return "", "", err
	}
	real, err = s.cfg.Root.Resolve(name)
	if err != nil {
		return name, "", s.policyFirst(name, isDir, err)
	}
	return name, real, s.judge(name, real, isDir)
}

// lookup runs the path policy on a caller's path as resolvePath does for kindAny, and returns the
// cleaned name and the entry it reached: the name is looked up once, following symbolic links inside
// the root, and judged (with the path it reached) as a directory if a directory is there, else as a
// file. The caller closes the entry and reads through it, so what it reads is what was judged, not
// whatever the name leads to by then.
func (s *Server) lookup(raw string) (string, *fsroot.Entry, error) {
	name, err := s.cfg.Policy.Clean(raw)
	if err != nil {
		return "", nil, err
	}
	e, err := s.cfg.Root.Lookup(name)
	if err != nil {
		return name, nil, s.policyFirst(name, false, err)
	}
	info, err := e.Info()
	if err := s.judge(name, e.Path(), err == nil && info.Type == fsroot.TypeDir); err != nil {
		e.Close()
		return name, nil, err
	}
	return name, e, nil
}

// entry looks up name, a name the policy cleaned, for a write of a file: the entry it reaches,
// judged as a file by the path it reached (and by its own name), which the caller writes through
// and closes. What is written is then what was judged, whatever the name leads to by then.
func (s *Server) entry(name string) (*fsroot.Entry, error) {
	e, err := s.cfg.Root.Lookup(name)
	if err != nil {
		return nil, s.policyFirst(name, false, err)
	}
	if err := s.judge(name, e.Path(), false); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// writeEntry is [Server.entry] for a write that creates or replaces the file name: the entry is
// also judged writable ([Server.writable]) by its name and the path it reached.
func (s *Server) writeEntry(name string) (*fsroot.Entry, error) {
	e, err := s.entry(name)
	if err != nil {
		return nil, err
	}
	if err := s.writable(name, e.Path()); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// destEntry looks up name, a name the policy cleaned that a copy makes or replaces (a file, or a
// folder when isDir), without following a final link (a copy replaces a link, never writes
// through it): the entry, judged by the path it reached and writable, which the caller writes
// through and closes.
func (s *Server) destEntry(name string, isDir bool) (*fsroot.Entry, error) {
	e, err := s.cfg.Root.LookupLink(name)
	if err != nil {
		return nil, s.policyFirst(name, isDir, err)
	}
	if err := s.judge(name, e.Path(), isDir); err != nil {
		e.Close()
		return nil, err
	}
	if err := s.writable(name, e.Path()); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// dirEntry looks up name, a folder the policy cleaned that a write makes (mkdir, createPath),
// following links inside the root: the entry, judged as a folder by the path it reached, which the
// caller makes the folder through (Entry.MkdirAll) and closes.
func (s *Server) dirEntry(name string) (*fsroot.Entry, error) {
	e, err := s.cfg.Root.Lookup(name)
	if err != nil {
		return nil, s.policyFirst(name, true, err)
	}
	if err := s.judge(name, e.Path(), true); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
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

// readJudged reads the file name, a name the policy cleaned (one a walk, the index or the graph
// gave), through one lookup judged by what it reached, as [Server.entry] judges it: a name that
// leads to a blocked file by now is refused, never read.
func (s *Server) readJudged(ctx context.Context, name string, max int64) ([]byte, fsroot.Info, error) {
	e, err := s.entry(name)
	if err != nil {
		return nil, fsroot.Info{}, err
	}
	defer e.Close()
	return e.ReadFile(ctx, max)
}

// linkEntry looks up name, a name the policy cleaned, for a removal or a move: the entry it names
// (a final link itself, not followed), judged by the path it reached, which the caller acts on and
// closes. A folder, or a link (whose name was judged with what it reaches by the lookup of the
// name that followed it), is judged as a folder, by its blocked components alone.
func (s *Server) linkEntry(name string) (*fsroot.Entry, fsroot.Info, error) {
	e, err := s.cfg.Root.LookupLink(name)
	if err != nil {
		return nil, fsroot.Info{}, s.policyFirst(name, false, err)
	}
	info, err := e.Info()
	if err == nil {
		err = s.judge(name, e.Path(), info.Type != fsroot.TypeFile)
	}
	if err != nil {
		e.Close()
		return nil, fsroot.Info{}, err
	}
	return e, info, nil
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
// links, so a link is judged by its own name and by what it reaches.
func (s *Server) judge(name, real string, isDir bool) error {
	if err := s.cfg.Policy.CheckName(name, isDir); err != nil {
		return err
	}
	if real != name {
		return s.cfg.Policy.CheckName(real, isDir)
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

// visible reports whether an entry found by a walk may be shown (see [Visible]).
func (s *Server) visible(info fsroot.Info) bool {
	return Visible(s.cfg.Policy, s.cfg.Root, info) == nil
}

// listed reports whether a listing that takes no options (resources/list) shows info: visible,
// and not noise ([Ignore]).
func (s *Server) listed(info fsroot.Info) bool {
	return s.visible(info) && s.cfg.Ignore.Hidden(info.Path, info.Type == fsroot.TypeDir) == ""
}
