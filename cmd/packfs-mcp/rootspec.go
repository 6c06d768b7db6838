package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/packfs/packfs-mcp/fsroot"
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

// splitRoot reads a --root argument: NAME=DIR names the root, when NAME is a valid root name and
// the whole argument is not itself a path that exists (a folder whose name holds "="); anything
// else is the folder, which is then named after itself.
func splitRoot(arg string) RootConfig {
	if name, dir, ok := strings.Cut(arg, "="); ok && tools.ValidRootName(name) == nil {
		if _, exists := fsroot.ResolveHost(arg); !exists {
			return RootConfig{Name: name, Path: dir}
		}
	}
	return RootConfig{Path: arg}
}
