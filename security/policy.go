package security

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/packfs/packfs-mcp/fsroot"
)

// TempFilePattern matches the temporary files fsroot writes before an atomic
// rename: [fsroot.TempPrefix] followed by anything. It is always blocked,
// whatever [PolicyConfig.BlockedPaths] says, so a half-written file is never
// readable or writable through the tools.
const TempFilePattern = fsroot.TempPrefix + "*"

// anyExtension in [PolicyConfig.AllowedExtensions] allows every extension.
const anyExtension = "*"

// PolicyConfig configures a [Policy]. Nil slices get the documented
// defaults; an empty but non-nil slice means "none".
type PolicyConfig struct {
	// RootDir is the absolute root as the user gave it, such as "/srv/data".
	// It is cleaned with [path.Clean]. If empty, every absolute path is
	// outside the root and only relative paths are accepted.
	RootDir string
	// RootResolved is RootDir with symlinks resolved, such as
	// "/mnt/disk/data", so absolute paths a caller learned through either
	// spelling are accepted. If empty, defaults to RootDir.
	RootResolved string
	// AllowedExtensions are the file extensions that may be reached, written
	// ".md" or "md" and matched case-insensitively; "*" allows any
	// extension. If nil, defaults to [DefaultAllowedExtensions].
	AllowedExtensions []string
	// AddExtensions are opened besides AllowedExtensions (or the defaults, when it is nil),
	// written as AllowedExtensions are: the way to add a type without restating the list.
	AddExtensions []string
	// AllowedNames are whole base names allowed whatever their extension,
	// mainly extensionless files such as "Makefile" or ".gitignore",
	// matched case-insensitively. If nil, defaults to [DefaultAllowedNames].
	AllowedNames []string
	// BlockedPaths are patterns in [path.Match] syntax, matched
	// case-insensitively against the path's components: one component
	// ("*.pem"), or several in a row (".config/gh", the first a plain
	// name). They are blocked besides [DefaultBlockedPaths]:
	// hiding one more folder never unblocks a secret. [TempFilePattern] is
	// always blocked.
	BlockedPaths []string
	// Unblock names default patterns not to block, each as
	// [DefaultBlockedPaths] spells it (case-insensitively); a name that is
	// not a default pattern is refused.
	Unblock []string
	// NoDefaultBlocked blocks none of [DefaultBlockedPaths]: only
	// BlockedPaths and [TempFilePattern].
	NoDefaultBlocked bool
	// WindowsNames refuses, with [RuleWindowsName], the names Windows
	// gives another meaning than a file of that name: device names
	// ("CON", "NUL.md", "COM1.txt", "CONIN$"), a ":" (an alternate data
	// stream), the characters <>"|?* and 8.3 short names ("PROGRA~1").
	// Set it where the server runs on Windows; elsewhere these are
	// ordinary names.
	WindowsNames bool
}

// DefaultAllowedExtensions returns the extensions allowed when
// [PolicyConfig.AllowedExtensions] is nil: text and documents (md, txt,
// rst, org, tex, ...), data and configuration (csv, json, yaml, toml, xml,
// ini, ...), web and source code in common languages, shell scripts, logs
// and patches, notebooks and bibliographies, documents whose text the tools
// read ([DocumentTypes]) and images they hand a model as images. It has no
// executables or archives, and no ".env" in any form.
func DefaultAllowedExtensions() []string {
	return append([]string{
		// Prose and documents.
		".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org", ".tex", ".bib", ".canvas",
		// Data and configuration.
		".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml", ".toml", ".xml",
		".ini", ".cfg", ".conf", ".properties", ".ipynb", ".graphql", ".proto", ".sql",
		// Web.
		".html", ".htm", ".css", ".scss", ".less", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".vue", ".svelte", ".svg",
		// Source code.
		".go", ".mod", ".sum", ".py", ".rb", ".rs", ".java", ".kt", ".kts", ".scala",
		".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".fs", ".swift", ".m", ".mm",
		".php", ".pl", ".lua", ".r", ".jl",
		// Shell.
		".sh", ".bash", ".zsh", ".fish", ".ps1",
		// Logs and changes.
		".log", ".diff", ".patch",
	}, slices.Concat(imageExts, DocumentTypes)...) // images as images, documents as their text
}

// DefaultAllowedNames returns the base names allowed when
// [PolicyConfig.AllowedNames] is nil: the usual extensionless build,
// project and repository files.
func DefaultAllowedNames() []string {
	return []string{
		"Makefile", "GNUmakefile", "Dockerfile", "Containerfile", "Justfile", "Procfile",
		"Gemfile", "Rakefile", "Vagrantfile", "Jenkinsfile",
		"README", "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CONTRIBUTORS",
		"CHANGELOG", "CHANGES", "CONTRIBUTING", "CODEOWNERS", "TODO",
		".gitignore", ".gitattributes", ".gitmodules", ".mailmap",
		".editorconfig", ".dockerignore", ".prettierrc", ".eslintrc",
	}
}

// DefaultBlockedPaths returns the patterns blocked unless
// [PolicyConfig.Unblock] or [PolicyConfig.NoDefaultBlocked] says
// otherwise: version-control metadata (which holds
// history and sometimes credentials), dependency trees, environment files,
// credential directories and files of common tools, private keys and
// keystores, the [CredentialStores] of common tools under a home folder,
// and [TempFilePattern].
func DefaultBlockedPaths() []string {
	out := []string{
		// Version control.
		".git", ".hg", ".svn", ".bzr",
		// Dependency trees: huge, generated, not the user's content.
		"node_modules",
		// Environment files, which hold secrets by convention.
		".env", ".env.*",
		// Credential directories.
		".ssh", ".aws", ".azure", ".gnupg", ".kube", ".docker", ".password-store",
		// Credential files.
		".npmrc", ".pypirc", ".netrc", ".git-credentials", ".htpasswd", ".pgpass", ".vault-token",
		"credentials.json", "secrets.*", "*.tfstate", "*.tfstate.*",
		// Private keys and keystores.
		"*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks", "*.kdbx",
		"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	}
	// The credential stores of common tools under a home folder.
	for _, c := range CredentialStores() {
		out = append(out, c.Pattern)
	}
	// Half-written files from fsroot.
	return append(out, TempFilePattern)
}

// Policy decides which names may be reached: where a path lands
// ([Policy.Clean]) and whether its components and extension are allowed
// ([Policy.CheckName]). A Policy is immutable and safe for concurrent use.
type Policy struct {
	roots    []string            // clean absolute roots, deduplicated
	anyExt   bool                // "*" was allowed
	exts     map[string]struct{} // folded, with leading dot
	examples []string            // the first few of exts, as configured, for messages
	names    map[string]struct{} // folded base names
	blocks   patternSet          // the blocked patterns
	off      []string            // the default patterns not blocked, as DefaultBlockedPaths spells them
	caches   patternSet          // DefaultCachePaths
	autoRuns autoRuns            // AutoRuns, less those unblocked
	windows  bool                // PolicyConfig.WindowsNames
	// byContent opens files of types not on the list when their content is text ([OpensIfText]):
	// only under the default list, so a strict list never widens.
	byContent bool
}

// NewPolicy validates cfg and returns a Policy. It fails if a root is not
// absolute, an extension is empty or contains "/", "\" or an inner dot
// (only the last extension of a name is ever compared), or a blocked
// pattern is empty, contains "/" or is malformed ([path.ErrBadPattern]);
// the error names the offending value.
func NewPolicy(cfg PolicyConfig) (*Policy, error) {
	p := &Policy{
		exts:      make(map[string]struct{}),
		names:     make(map[string]struct{}),
		windows:   cfg.WindowsNames,
		byContent: cfg.AllowedExtensions == nil,
	}
	if cfg.RootResolved == "" {
		cfg.RootResolved = cfg.RootDir
	}
	for _, r := range []string{cfg.RootDir, cfg.RootResolved} {
		if r == "" {
			continue
		}
		if !path.IsAbs(r) && !isWindowsAbs(r) {
			return nil, fmt.Errorf("root %q is not an absolute path", r)
		}
		if !path.IsAbs(r) {
			// A Windows root (C:\Users\you\Notes): callers' absolute
			// paths are Windows forms there, which Clean refuses anyway.
			continue
		}
		if r = path.Clean(r); !slices.Contains(p.roots, r) {
			p.roots = append(p.roots, r)
		}
	}

	exts := cfg.AllowedExtensions
	if exts == nil {
		exts = DefaultAllowedExtensions()
	}
	exts = append(slices.Clip(exts), cfg.AddExtensions...)
	for _, e := range exts {
		e = fold(strings.TrimSpace(e))
		if e == anyExtension {
			p.anyExt = true
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		if e == "." || strings.ContainsAny(e, `/\`) || strings.Contains(e[1:], ".") {
			return nil, fmt.Errorf("allowed extension %q is not a single extension such as \".md\"", e)
		}
		p.exts[e] = struct{}{}
	}
	p.examples = examples(p.exts, exts)

	names := cfg.AllowedNames
	if names == nil {
		names = DefaultAllowedNames()
	}
	for _, n := range names {
		n = fold(strings.TrimSpace(n))
		if n == "" || strings.Contains(n, "/") {
			return nil, fmt.Errorf("allowed name %q is not a single file name", n)
		}
		p.names[n] = struct{}{}
	}

	blocked, err := p.defaults(cfg)
	if err != nil {
		return nil, err
	}
	off := map[string]bool{}
	for _, o := range p.off {
		off[fold(o)] = true
	}
	if p.autoRuns, err = newAutoRuns(off); err != nil {
		return nil, err
	}
	if p.blocks, err = newPatternSet("blocked pattern", append(append(blocked, cfg.BlockedPaths...), TempFilePattern)); err != nil {
		return nil, err
	}
	var caches []string
	for _, c := range DefaultCachePaths() {
		caches = append(caches, c.Pattern)
	}
	if p.caches, err = newPatternSet("cache pattern", caches); err != nil {
		return nil, err
	}
	return p, nil
}

// fold normalises s for comparison: NFKC (so fullwidth letters, the
// fullwidth dot U+FF0E and other compatibility forms become plain ones),
// then lower case, then NFKC again in case lowering produced a
// non-normalised sequence.
func fold(s string) string {
	return norm.NFKC.String(strings.ToLower(norm.NFKC.String(s)))
}

// CheckName judges a root-relative name: the output of [Policy.Clean], or a
// name the caller resolved through symlinks inside the root, so a link is
// judged by what it reaches. isDir says whether the name is a directory,
// whose extension is not judged. It returns nil or a *[PathError].
//
// The name first gets the same character and length checks as Clean; an
// absolute name or a ".." component is [ErrOutsideRoot], since the caller
// broke the contract; "." components and empty ones are ignored. Each
// component is then folded with NFKC and lower-cased, so case games and
// look-alikes such as "x．exe" or "ｎｏｄｅ_ｍｏｄｕｌｅｓ" are seen through,
// and:
//
//   - a component matching a blocked pattern is [ErrBlocked] (Detail is the
//     component); every component is checked for this first;
//   - a component ending in '.' or ' ' is [ErrInvalidPath]
//     ([RuleTrailingDotOrSpace]), since Windows and some network
//     filesystems drop those characters and so open a different file;
//   - with [PolicyConfig.WindowsNames], a component Windows gives another
//     meaning (a device name, a ':', an 8.3 short name) is
//     [ErrInvalidPath] ([RuleWindowsName]);
//   - for a file, the base name is allowed if it is one of the allowed
//     names, or if its extension is allowed. The extension is the text
//     from the last dot of the folded base name, when the name has a dot
//     that is not its first character. So "x.md.exe" is ".exe" (refused),
//     "x.exe.md" is ".md", ".gitignore" has no extension and is allowed
//     only by name, and "Makefile" likewise. Otherwise it is
//     [ErrExtension] (Detail is the extension, "" when there is none).
//
// The root "." always passes.
func (p *Policy) CheckName(name string, isDir bool) error {
	if name == "" {
		return newPathError(name, RuleEmpty, ErrInvalidPath, "")
	}
	if err := lexical(name); err != nil {
		return err
	}
	if strings.HasPrefix(name, "/") {
		return newPathError(name, RuleOutsideRoot, ErrOutsideRoot, "")
	}
	// Room for the pieces of a name of a few folders on the stack: grown one append at a time,
	// they were a fifth of what a walk of a big tree allocated.
	comps := make([]string, 0, 8)   // folded pieces, each distinct component once
	seq := make([]string, 0, 8)     // folded pieces in order, for patterns of several components
	base := ""                      // folded last piece of the last component
	last := make(map[string]string) // raw component -> its folded last piece
	span := map[string][2]int{}     // raw component -> where its folded pieces first are in seq
	for c := range strings.SplitSeq(name, "/") {
		if c == ".." {
			return newPathError(name, RuleOutsideRoot, ErrOutsideRoot, "")
		}
		if c == "" || c == "." {
			continue
		}
		if b, ok := last[c]; ok {
			base = b // a deep path of repeated names is judged once per name
			sp := span[c]
			seq = append(seq, seq[sp[0]:sp[1]]...)
			continue
		}
		// A fullwidth solidus folds to "/": judge each piece it makes. A
		// piece that folds to "." or ".." is a look-alike, refused below
		// for its trailing dot; a name of slashes alone is judged whole.
		f, from := fold(c), len(seq)
		if strings.Contains(f, "/") {
			for piece := range strings.SplitSeq(f, "/") {
				if piece != "" {
					seq = append(seq, piece)
				}
			}
		}
		if len(seq) == from {
			seq = append(seq, f)
		}
		comps = append(comps, seq[from:]...)
		base = seq[len(seq)-1]
		last[c], span[c] = base, [2]int{from, len(seq)}
	}
	if len(comps) == 0 {
		return nil // the root
	}
	if at := p.blocks.match(comps, seq); at != "" {
		return newPathError(name, RuleBlocked, ErrBlocked, at)
	}
	for _, c := range comps {
		if strings.HasSuffix(c, ".") || strings.HasSuffix(c, " ") {
			return newPathError(name, RuleTrailingDotOrSpace, ErrInvalidPath, c)
		}
	}
	if p.windows {
		for raw := range strings.SplitSeq(name, "/") {
			if why := windowsName(raw); why != "" {
				err := newPathError(name, RuleWindowsName, ErrInvalidPath, raw)
				err.reason = why
				return err
			}
		}
	}
	if isDir || p.anyExt {
		return nil
	}
	if _, ok := p.names[base]; ok {
		return nil
	}
	ext := ""
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		ext = base[i:]
		if _, ok := p.exts[ext]; ok {
			return nil
		}
	}
	err := newPathError(name, RuleExtension, ErrExtension, ext)
	err.Allowed = p.examples
	return err
}

// examples picks up to four of the allowed extensions to name in a refusal: the familiar ones
// among them first, then the others in the order configured.
func examples(allowed map[string]struct{}, configured []string) []string {
	var out []string
	for _, e := range append([]string{".md", ".txt", ".json", ".csv"}, configured...) {
		e = fold(strings.TrimSpace(e))
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		if _, ok := allowed[e]; ok && !slices.Contains(out, e) && len(out) < 4 {
			out = append(out, e)
		}
	}
	return out
}

// Summary returns a one-line description for the startup log, such as
// "79 extensions, 30 file names, 37 blocked patterns" for the defaults,
// naming any default pattern left unblocked.
func (p *Policy) Summary() string {
	exts := fmt.Sprintf("%d extensions", len(p.exts))
	if p.anyExt {
		exts = "any extension"
	}
	out := fmt.Sprintf("%s, %d file names, %d blocked patterns, %d auto-run places write-protected", exts, len(p.names), len(p.blocks.patterns), p.autoRuns.count)
	if len(p.off) > 0 {
		out += " (defaults NOT blocked: " + strings.Join(p.off, " ") + ")"
	}
	return out
}

// AllowedExtensions returns the allowed extensions, folded, with a leading
// dot and sorted, for documentation and server instructions. It includes
// "*" when any extension is allowed.
func (p *Policy) AllowedExtensions() []string {
	out := make([]string, 0, len(p.exts)+1)
	if p.anyExt {
		out = append(out, anyExtension)
	}
	for e := range p.exts {
		out = append(out, e)
	}
	slices.Sort(out)
	return out
}

// AllowedNames returns the base names allowed whatever their extension,
// folded and sorted.
func (p *Policy) AllowedNames() []string {
	out := make([]string, 0, len(p.names))
	for n := range p.names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// CachePaths returns the cache patterns ([DefaultCachePaths]), folded and
// sorted.
func (p *Policy) CachePaths() []string {
	return slices.Clone(p.caches.patterns)
}

// defaults returns the default patterns cfg keeps, and records in p.off
// those it leaves out.
func (p *Policy) defaults(cfg PolicyConfig) ([]string, error) {
	defaults := DefaultBlockedPaths()
	if cfg.NoDefaultBlocked {
		p.off = slices.DeleteFunc(defaults, func(d string) bool { return d == TempFilePattern })
		for _, r := range AutoRuns() {
			p.off = append(p.off, r.Pattern)
		}
		return nil, nil
	}
	off := map[string]bool{}
	for _, u := range cfg.Unblock {
		u = fold(strings.TrimSpace(u))
		if u == fold(TempFilePattern) {
			return nil, fmt.Errorf("the pattern %q cannot be unblocked: it hides half-written files", u)
		}
		if !slices.ContainsFunc(defaults, func(d string) bool { return fold(d) == u }) && !isAutoRun(u) {
			listed := slices.DeleteFunc(slices.Clone(defaults), func(d string) bool { return d == TempFilePattern })
			return nil, fmt.Errorf("unblock %q: not a default blocked pattern (they are %s) nor an auto-run place (packfs-mcp doctor lists them); a pattern you added is removed by leaving it out", u, strings.Join(listed, " "))
		}
		off[u] = true
	}
	var keep []string
	for _, d := range defaults {
		if off[fold(d)] {
			p.off = append(p.off, d)
		} else {
			keep = append(keep, d)
		}
	}
	for _, r := range AutoRuns() {
		if off[fold(r.Pattern)] {
			p.off = append(p.off, r.Pattern)
		}
	}
	return keep, nil
}

// isAutoRun reports whether the folded u is a pattern of [AutoRuns].
func isAutoRun(u string) bool {
	return slices.ContainsFunc(AutoRuns(), func(r AutoRun) bool { return fold(r.Pattern) == u })
}

// DefaultsOff returns the default blocked patterns this policy does not
// block ([PolicyConfig.Unblock], [PolicyConfig.NoDefaultBlocked]), as
// [DefaultBlockedPaths] spells them, for the start-up line and doctor.
func (p *Policy) DefaultsOff() []string {
	return slices.Clone(p.off)
}

// BlockedPaths returns the blocked patterns, folded and sorted, including
// [TempFilePattern].
func (p *Policy) BlockedPaths() []string {
	return slices.Clone(p.blocks.patterns)
}

// Cache returns the components of the root-relative name that lie in a
// dependency or build cache ([DefaultCachePaths]), joined by "/", or ""
// when it lies in none. Caches are noise, not secrets: listings, searches
// and the index leave them out unless asked, and a read names them freely.
func (p *Policy) Cache(name string) string {
	var seq []string
	for c := range strings.SplitSeq(name, "/") {
		if c != "" && c != "." {
			seq = append(seq, fold(c))
		}
	}
	return p.caches.match(seq, seq)
}
