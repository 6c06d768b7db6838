package security

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/packfs/packfs-mcp/fsroot"
)

// Reasons an entry is left out of a listing, a search or the index (see [Ignore.Hidden] and
// [HiddenReason]), as answers count them in hidden.
const (
	HiddenBlocked = "blocked" // a protected name: version control, dependencies, secrets
	HiddenIgnored = "ignored" // .gitignore, .ignore, .git/info/exclude or the global excludes file
	HiddenCache   = "cache"   // a dependency or build cache (DefaultCachePaths)
	HiddenOther   = "other"   // a link leading out of the root or to nothing, a special file, a hard link
)

// ignoreFiles are the files whose patterns apply to the folder that holds them and below, in the
// order their patterns count (the last that matches decides): git's (.git/info/exclude, then
// .gitignore) only inside a git work tree, as git, ripgrep and fd read them; .ignore and .rgignore
// everywhere, as ripgrep reads them.
var ignoreFiles = []struct {
	name string
	git  bool
}{{".git/info/exclude", true}, {".gitignore", true}, {".ignore", false}, {".rgignore", false}}

// globalSource names git's global excludes file where an answer says which rule hid something.
const globalSource = "git's global excludes file"

// ignoreRule is one line of an ignore file: its pattern, and where it was written, so that an
// answer can say what left a folder out.
type ignoreRule struct {
	pattern gitignore.Pattern
	source  string // the root-relative file, or globalSource
	line    int
	text    string
	// outer says the pattern's folder is relative to the top of a work tree above the root
	// (IgnoreConfig.Within): it matches a path with the root's place in that tree before it.
	outer bool
}

// String says where the rule was written: `.gitignore line 159 "/*"`.
func (r *ignoreRule) String() string {
	return fmt.Sprintf("%s line %d %q", r.source, r.line, r.text)
}

// IgnoreConfig is what the runtime knows of a root's ignore rules that the root cannot show.
type IgnoreConfig struct {
	// Global are the lines of the user's global excludes file (git's core.excludesFile), applied
	// inside git work trees, or nil.
	Global []string
	// InRepository says that the root lies inside a git work tree whose top is above it (a served
	// subfolder of a repository): git's rules apply from the root down.
	InRepository bool
	// Within is, when InRepository, the root's folder relative to the top of its work tree, as
	// path components: the rules of Above and Global match the root's entries below it, as git
	// matches them from the top.
	Within []string
	// Above are the ignore files of the folders from the top of the root's work tree down to the
	// folder holding the root, in that order: their rules apply below the root as git applies
	// them to a subfolder.
	Above []IgnoreFile
}

// IgnoreFile is an ignore file of a folder above the root, read once at start.
type IgnoreFile struct {
	// Source names it in answers, relative to the root: "../.gitignore".
	Source string
	// Dir is its folder relative to the top of the work tree, as path components.
	Dir []string
	// Text is its content.
	Text string
}

// ignoreRecheck is how long a folder's ignore files are trusted before they are looked at again:
// a walk of a big tree stats each folder's files about once, and an edit to a .gitignore counts
// within seconds.
const ignoreRecheck = 2 * time.Second

// maxIgnoreFile bounds an ignore file read; a longer one is read up to it.
const maxIgnoreFile = 1 << 20

// maxIgnoreDepth is the deepest folder whose ignore files are read: the patterns of the folders
// above still apply below it. Each folder's files cost lookups as deep as the folder, so without
// a bound a tree 2,000 folders deep cost minutes; repositories keep their ignore files far higher.
const maxIgnoreDepth = 32

// Ignore decides which entries are noise to listings, searches and the index: what the ignore
// files of the folders above an entry ignore, and the dependency and build caches the policy
// knows. It reads ignore files through the root, whatever the policy says of their names (a
// .git/info/exclude is read, never shown), and caches them per folder. It is safe for concurrent
// use; one Ignore serves the tools and the index of a root.
type Ignore struct {
	root   *fsroot.Root
	policy *Policy
	global []string
	above  bool         // IgnoreConfig.InRepository
	within []string     // IgnoreConfig.Within
	outer  []ignoreRule // the global rules and those of IgnoreConfig.Above, when above
	now    func() time.Time

	mu   sync.Mutex
	dirs map[string]*ignoreDir // by root-relative folder, "." for the root
	// seen says some entry was found to be noise (by a walk, or the index's build).
	seen atomic.Bool
}

// ignoreDir is what one folder's ignore files say, and whether the folder itself is ignored.
type ignoreDir struct {
	// all are the rules that apply in this folder: the global ones, then those of the folders
	// above and its own, in git's order (the last that matches decides); shared with the folder
	// above when it has no ignore file of its own.
	all []ignoreRule
	// git says the folder lies in a git work tree: a folder above it or itself holds .git, or
	// the root lies in one (IgnoreConfig.InRepository).
	git     bool
	stamp   string // the ignore files' and .git's sizes and times when read
	checked time.Time
	hidden  string      // why the folder itself is left out, "" if it is not; set once known
	rule    *ignoreRule // the rule that left it (or the folder above it that hid it) out
	known   bool        // hidden is set
}

// NewIgnore returns the Ignore of root under policy, with what cfg says of the rules the root
// cannot show.
func NewIgnore(root *fsroot.Root, policy *Policy, cfg IgnoreConfig) *Ignore {
	ig := &Ignore{root: root, policy: policy, global: cfg.Global, above: cfg.InRepository, now: time.Now, dirs: map[string]*ignoreDir{}}
	if ig.above {
		ig.within = slices.Clip(cfg.Within)
		ig.outer = parseIgnore(strings.Join(cfg.Global, "\n"), nil, globalSource)
		for _, f := range cfg.Above {
			ig.outer = append(ig.outer, parseIgnore(f.Text, f.Dir, f.Source)...)
		}
		for i := range ig.outer {
			ig.outer[i].outer = true
		}
	}
	return ig
}

// Hidden returns why the entry name (root-relative; isDir for a folder) is noise: [HiddenCache],
// [HiddenIgnored], or "" when it is not. A folder that is noise makes everything in it noise.
func (ig *Ignore) Hidden(name string, isDir bool) string {
	why := ig.hidden(name, isDir)
	if why != "" {
		ig.seen.Store(true)
	}
	return why
}

// Seen reports whether any entry was found to be noise so far: after the index's build, whether
// the tree holds any.
func (ig *Ignore) Seen() bool { return ig.seen.Load() }

func (ig *Ignore) hidden(name string, isDir bool) string {
	if name == "." || name == "" {
		return ""
	}
	if why := ig.policy.Cache(name); why != "" {
		return HiddenCache
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	// match looks at the ignore files of every folder above name first, so a verdict on a
	// folder drawn from files changed since is dropped before dirHidden reads it.
	if ig.match(name, isDir) != nil || ig.dirHidden(path.Dir(name)) != "" {
		return HiddenIgnored
	}
	return ""
}

// Why says what makes the entry name noise, for an answer: the ignore rule and where it is written
// (`.gitignore line 159 "/*"`, the rule of the folder above that hid it), or the cache it lies
// in; "" when it is not noise.
func (ig *Ignore) Why(name string, isDir bool) string {
	if name == "." || name == "" {
		return ""
	}
	if c := ig.policy.Cache(name); c != "" {
		return fmt.Sprintf("a cache (%s)", c)
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	r := ig.match(name, isDir)
	if r == nil && ig.dirHidden(path.Dir(name)) != "" {
		r = ig.dir(path.Dir(name)).rule
	}
	if r == nil {
		return ""
	}
	return r.String()
}

// dirHidden returns why the folder dir is noise, "" if it is not, from the folders above it. The
// caller holds ig.mu.
func (ig *Ignore) dirHidden(dir string) string {
	if dir == "." {
		return ""
	}
	d := ig.dir(dir)
	if !d.known {
		if d.hidden = ig.dirHidden(path.Dir(dir)); d.hidden != "" {
			d.rule = ig.dir(path.Dir(dir)).rule
		} else if d.rule = ig.match(dir, true); d.rule != nil {
			d.hidden = HiddenIgnored
		}
		d.known = true
	}
	return d.hidden
}

// match returns the rule of the folders above name that ignores it, or nil. It looks at those
// folders from the root down, so that a change to one is found before the folders below it are
// trusted. The caller holds ig.mu.
func (ig *Ignore) match(name string, isDir bool) *ignoreRule {
	elems := strings.Split(name, "/")
	var d *ignoreDir
	end := -1 // name[:end] is the folder of the level
	for level := range min(len(elems)-1, maxIgnoreDepth) + 1 {
		dir := "."
		if level > 0 {
			end += 1 + strings.IndexByte(name[end+1:], '/')
			dir = name[:end]
		}
		d = ig.dir(dir)
	}
	// full is name from the top of the work tree above the root, for outer rules.
	var full []string
	for i := len(d.all) - 1; i >= 0; i-- { // the last rule that matches decides
		p := elems
		if d.all[i].outer {
			if full == nil {
				full = append(slices.Clip(ig.within), elems...)
			}
			p = full
		}
		switch d.all[i].pattern.Match(p, isDir) {
		case gitignore.Exclude:
			return &d.all[i]
		case gitignore.Include:
			return nil
		}
	}
	return nil
}

// dir returns what the ignore files of dir and of the folders above it say, read the first time
// and looked at again once they are ignoreRecheck old: when they changed, every folder is
// forgotten, since what the folders below hold, and the verdicts on them, were drawn from them.
// The caller holds ig.mu.
func (ig *Ignore) dir(dir string) *ignoreDir {
	now := ig.now()
	if d, ok := ig.dirs[dir]; ok {
		if tooDeep(dir) || now.Sub(d.checked) < ignoreRecheck {
			return d
		}
		if ig.stamp(dir) == d.stamp {
			d.checked = now
			return d
		}
		clear(ig.dirs)
	}
	d := &ignoreDir{checked: now}
	if dir != "." {
		up := ig.dir(path.Dir(dir))
		d.all, d.git = up.all, up.git
	}
	if !tooDeep(dir) {
		d.stamp = ig.stamp(dir)
		var domain []string
		if dir != "." {
			domain = strings.Split(dir, "/")
		}
		switch {
		case d.git:
		case dir == "." && ig.above:
			// The root, inside a work tree: git's global excludes and the ignore files of the
			// folders above apply from here down, as from the top of the tree.
			d.git = true
			d.all = ig.outer
		case ig.hasGit(dir):
			// The top of a work tree: git's global excludes apply from here down.
			d.git = true
			d.all = append(slices.Clip(d.all), parseIgnore(strings.Join(ig.global, "\n"), domain, globalSource)...)
		}
		for _, f := range ignoreFiles {
			if f.git && !d.git {
				continue
			}
			name := path.Join(dir, f.name)
			if data, err := ig.read(name); err == nil {
				d.all = append(slices.Clip(d.all), parseIgnore(string(data), domain, name)...)
			}
		}
	}
	ig.dirs[dir] = d
	return d
}

// hasGit reports whether the folder dir holds .git, a folder or (in a worktree or a submodule) a
// file: it is the top of a git work tree.
func (ig *Ignore) hasGit(dir string) bool {
	_, err := ig.root.Lstat(path.Join(dir, ".git"))
	return err == nil
}

// read reads the ignore file name through one lookup, judged by the policy by the path it
// reached: an ignore file swapped for a link to a blocked file is not read.
func (ig *Ignore) read(name string) ([]byte, error) {
	e, err := ig.root.Lookup(name)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if e.Path() != name {
		if err := ig.policy.CheckName(e.Path(), false); err != nil {
			return nil, err
		}
	}
	data, _, err := e.ReadFile(context.Background(), maxIgnoreFile)
	return data, err
}

// stamp identifies the state of dir's ignore files and of its .git: their sizes and modification
// times, and whether .git is there.
func (ig *Ignore) stamp(dir string) string {
	var b strings.Builder
	for _, f := range ignoreFiles {
		if info, err := ig.root.Stat(path.Join(dir, f.name)); err == nil {
			fmt.Fprintf(&b, "%d %d", info.ModTime.UnixNano(), info.Size)
		}
		b.WriteByte('|')
	}
	if ig.hasGit(dir) {
		b.WriteString("git")
	}
	return b.String()
}

// parseIgnore parses the lines of an ignore file, source, whose folder is domain.
func parseIgnore(text string, domain []string, source string) []ignoreRule {
	var out []ignoreRule
	n := 0
	for line := range strings.SplitSeq(text, "\n") {
		n++
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, ignoreRule{pattern: gitignore.ParsePattern(line, domain), source: source, line: n, text: line})
	}
	return out
}

// tooDeep reports whether the folder dir lies below maxIgnoreDepth, where no ignore file is read.
func tooDeep(dir string) bool {
	return dir != "." && strings.Count(dir, "/") >= maxIgnoreDepth
}
