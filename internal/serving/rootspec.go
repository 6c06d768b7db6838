package serving

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
)

// The folders to serve come from --root (repeated, each DIR or NAME=DIR) or, when no --root is
// given, from the config file's rootPath and roots (rootPath first). With one folder, paths are
// relative to it, as they always were, and its name is not used. With several, a path's first
// element is its root's name: the name given, or the folder's own name made valid.

// rootSpec is one folder to serve and the name its paths start with when there are several.
type rootSpec struct {
	name, dir string
}

// rootSpecs returns the folders c serves, named, in the order given: rootPath, then roots. It
// refuses a name that is not valid, and two roots of one name, saying what to pass instead.
func (c Config) rootSpecs() ([]rootSpec, error) {
	var specs []rootSpec
	if c.RootPath != "" {
		specs = append(specs, rootSpec{name: rootNameOf(c.RootPath), dir: c.RootPath})
	}
	for i, r := range c.Roots {
		name := r.Name
		if name == "" {
			name = rootNameOf(r.Path)
		} else if err := tools.ValidRootName(name); err != nil {
			return nil, fmt.Errorf("setting roots[%d].name: %w", i, err)
		}
		specs = append(specs, rootSpec{name: name, dir: r.Path})
	}
	if len(specs) < 2 {
		return specs, nil
	}
	for i, s := range specs {
		if j := slices.IndexFunc(specs[:i], func(o rootSpec) bool { return o.name == s.name }); j >= 0 {
			return nil, fmt.Errorf("two roots are named %q (%s and %s), and a path starts with its root's name: "+
				"name them apart with --root NAME=DIR, such as --root %s=%s (or name in the config file's roots)",
				s.name, specs[j].dir, s.dir, freeName(s.name, specs), s.dir)
		}
	}
	return specs, nil
}

// freeName returns name with the first suffix -2, -3, ... that no spec's name has.
func freeName(name string, specs []rootSpec) string {
	for n := 2; ; n++ {
		try := fmt.Sprintf("%s-%d", strings.TrimRight(name[:min(len(name), 60)], "-"), n)
		if !slices.ContainsFunc(specs, func(s rootSpec) bool { return s.name == try }) {
			return try
		}
	}
}

// rootNameOf is the name of a root that was not given one: its folder's name, with each character
// a root's name cannot hold made a hyphen and what cannot start one left out ("My Notes" is
// "My-Notes"), or "root" when nothing is left (the folder /).
func rootNameOf(dir string) string {
	base := filepath.Base(filepath.Clean(dir))
	name := []byte(base)
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			name[i] = '-'
		}
	}
	s := strings.TrimLeft(string(name), "._-")
	s = s[:min(len(s), 64)]
	if tools.ValidRootName(s) != nil {
		return "root"
	}
	return s
}

// PermissionsOf returns the permissions a server on c works with: c's, or read, search and list when
// it names none, without write when c is read-only. build and the tools subcommand, which opens no
// root, both take them from here.
func PermissionsOf(c Config) (security.Permissions, error) {
	p := security.DefaultPermissions()
	if len(c.Permissions) > 0 {
		var err error
		if p, err = security.ParsePermissions(c.Permissions); err != nil {
			return p, fmt.Errorf("setting permissions: %w", err)
		}
	}
	if c.ReadOnly {
		p = p.Without(security.PermWrite)
	}
	return p, nil
}

// ToolNames are the tools --disable-tool accepts.
var ToolNames = []string{"packfs-file-reader", "packfs-file-searcher", "packfs-file-writer"}

// CheckRoots opens each folder of c as its root would be opened, and closes it, for call, which
// must say that a root is wrong before it waits for a tool call on stdin. Its error is
// [rootError]'s.
func CheckRoots(c Config) error {
	specs, err := c.rootSpecs()
	if err != nil {
		return err
	}
	for _, s := range specs {
		r, err := fsroot.Open(s.dir, fsroot.Options{})
		if err != nil {
			return rootError(s.dir, err)
		}
		r.Close()
	}
	return nil
}

// badRoot is the error of a root that cannot be served; doctor reports it as a failed check.
type badRoot struct {
	error
	dir string // the folder, as given
}

// rootError explains err, the failure to open dir as the root: why dir cannot be served and what
// to pass instead, naming dir only as it was given: a relative root is found from the folder
// packfs-mcp was started in, which an MCP client chooses (Claude Desktop starts servers in /), so
// the folder it looked in is the client's business, not the user's, and is not printed.
func rootError(dir string, err error) error {
	return badRoot{explainRoot(dir, err), dir}
}

func explainRoot(dir string, err error) error {
	notExist := errors.Is(err, fs.ErrNotExist)
	switch {
	case notExist && strings.HasPrefix(dir, "~"):
		return fmt.Errorf("root %q does not exist: ~ is expanded only by a shell, and MCP clients pass arguments as they are: "+
			"write the folder's full path (what `echo %s` prints in a terminal)", dir, dir)
	case notExist && !filepath.IsAbs(dir):
		return fmt.Errorf("root %q does not exist: it is a relative path, found from the folder packfs-mcp was started in, "+
			"which MCP clients choose (Claude Desktop starts servers in /): pass the folder's absolute path "+
			"(what `cd %s && pwd` prints in a terminal)", dir, dir)
	case notExist:
		return fmt.Errorf("root %s does not exist: pass an existing folder with --root (or rootPath in the config file)", dir)
	case errors.Is(err, fsroot.ErrNotDir) || errors.Is(err, syscall.ENOTDIR) || notFolder(dir):
		return fmt.Errorf("root %s is not a folder: pass the folder that holds the files to serve", dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("root %s cannot be opened: permission denied; give the user that runs packfs-mcp access to it, or choose another folder", dir)
	}
	return fmt.Errorf("cannot serve %s: %w", dir, err)
}

// notFolder reports whether dir names something other than a folder, asked of its parent folder:
// os.OpenRoot says so of a file only in words, with no error value to test.
func notFolder(dir string) bool {
	parent, err := fsroot.Open(filepath.Dir(dir), fsroot.Options{})
	if err != nil {
		return false
	}
	defer parent.Close()
	info, err := parent.Stat(filepath.Base(dir))
	return err == nil && info.Type != fsroot.TypeDir
}

// TokenEnv is the environment variable that holds the HTTP bearer token.
const TokenEnv = "PACKFS_MCP_TOKEN"
