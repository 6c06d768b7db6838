package serving

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
)

// doctorWalkBudget bounds the walk that counts what the tools can see, so doctor answers quickly
// on any tree.
const (
	doctorWalkBudget  = 5 * time.Second
	doctorWalkEntries = 500_000
)

// unrooted returns what cfg configures besides the roots (permissions, tools, policy, limits),
// for the report on a root that cannot be opened, bad; it serves no root.
func unrooted(cfg Config, bad string) (*app, error) {
	perms, err := PermissionsOf(cfg)
	if err != nil {
		return nil, err
	}
	specs, err := cfg.rootSpecs()
	if err != nil {
		return nil, err
	}
	a := &app{
		named: len(specs) != 1,
		cfg:   cfg,
		perms: perms,
		limiter: security.NewLimiter(security.LimitConfig{
			MaxRequests: cfg.Security.RateLimiting.MaxRequests,
			Window:      time.Duration(cfg.Security.RateLimiting.WindowMs) * time.Millisecond,
		}),
		tools: tools.NewRoots(tools.Config{Permissions: perms, Disabled: cfg.DisabledTools}, false),
		bad:   bad,
	}
	if a.policy, err = a.newPolicy(nil); err != nil {
		return nil, err
	}
	return a, nil
}

// describe prints the effective policy, one setting per line.
func (a *app) describe(w io.Writer) {
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "%-12s %s\n", k, fmt.Sprintf(format, args...)) }
	fmt.Fprintf(w, "packfs-mcp %s (%s, %s/%s)\n\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	mounts := a.mountList()
	if len(mounts) == 0 {
		specs, _ := a.cfg.rootSpecs()
		for _, s := range specs {
			note := ""
			if s.dir == a.bad {
				note = " (cannot be opened: see the checks)"
			}
			row("root", "%s%s%s", a.label(s.name), s.dir, note)
		}
	}
	for _, m := range mounts {
		if m.Root.ResolvedDir() != m.Root.Dir() {
			row("root", "%s%s (resolves to %s)", a.label(m.Name), m.Root.Dir(), m.Root.ResolvedDir())
		} else {
			row("root", "%s%s", a.label(m.Name), m.Root.Dir())
		}
	}
	perms := a.perms.String()
	switch {
	case a.cfg.ReadOnly:
		perms += " (read-only: --read-only)"
	case !a.perms.Has(security.PermWrite):
		perms += " (writing off: add --allow-write to allow it)"
	}
	row("permissions", "%s", perms)
	var names []string
	for _, t := range a.tools.Tools() {
		names = append(names, t.Tool.Name)
	}
	if len(names) == 0 {
		names = []string{"none: every tool is off"}
	}
	if len(a.cfg.DisabledTools) > 0 {
		names = append(names, "(disabled: "+strings.Join(a.cfg.DisabledTools, ", ")+")")
	}
	row("tools", "%s", strings.Join(names, ", "))
	row("extensions", "%s (%s)", strings.Join(a.policy.AllowedExtensions(), " "), extensionsSource(a.cfg.Security))
	row("names", "%s (allowed whatever their extension)", strings.Join(a.policy.AllowedNames(), " "))
	row("blocked", "%s", strings.Join(a.policy.BlockedPaths(), " "))
	row("caches", "%s (left out of listings, searches and the index unless options.includeIgnored)", strings.Join(a.policy.CachePaths(), " "))
	row("auto-run", "%d places where a write is refused because what is written runs by itself (--unblock PLACE allows one): %s", a.policy.AutoRunCount(), autoRuns(a.policy))
	if off := a.policy.DefaultsOff(); len(off) > 0 {
		row("NOT blocked", "%s (defaults taken off by unblock or noDefaultBlocked)", strings.Join(off, " "))
	}
	timeout := a.cfg.timeout()
	if timeout <= 0 {
		timeout = tools.DefaultTimeout
	}
	row("limits", "max file %d bytes; %s; call timeout %v", MaxFile(a.cfg), a.limiter.Summary(), timeout)
	if len(mounts) == 0 {
		row("index", "not opened: there is no root")
	}
	for _, m := range mounts {
		row("index", "%s%s", a.label(m.Name), m.indexState())
	}
	if len(mounts) > 0 && !a.cfg.Semantic.Disabled {
		row("outside", "%s", a.followsChanges())
	}
	switch {
	case !a.perms.Has(security.PermWrite):
		row("history", "off (writing is off)")
	case len(mounts) == 0:
		row("history", "not opened: there is no root")
	}
	for _, m := range mounts {
		if !a.perms.Has(security.PermWrite) {
			break
		}
		h := "off (--no-history): changes made through the tools are final"
		switch {
		case a.cfg.NoHistory:
		case m.historyAt.Dir == "":
			h = "OFF: no folder for it lies outside the root (set --history-dir): changes made through the tools are final"
		default:
			l := a.historyLimits()
			h = fmt.Sprintf("%s (what the tools' changes replace, kept %d days within %d MB so they can be undone): %s", m.historyAt.Dir, int(l.Keep.Hours()/24), l.MaxBytes>>20, historyUsage(m.historyAt.Dir))
		}
		row("history", "%s%s", a.label(m.Name), h)
	}
	journal := "off (--journal FILE keeps one)"
	if a.cfg.Journal.File != "" {
		journal = a.cfg.Journal.File
	}
	row("journal", "%s", journal)
}

// historyUsage says what the history in dir holds, without changing it.
func historyUsage(dir string) string {
	if _, ok := fsroot.ResolveHost(dir); !ok {
		return "none yet"
	}
	r, err := fsroot.Open(dir, fsroot.Options{AllowHardLinks: true})
	if err != nil {
		return fmt.Sprintf("cannot be read (%v)", err)
	}
	defer r.Close()
	n, oldest, bytes, err := history.Open(r).Usage(context.Background())
	switch {
	case err != nil:
		return fmt.Sprintf("cannot be read (%v)", err)
	case n == 0:
		return "no change kept yet"
	}
	return fmt.Sprintf("%d changes since %s, %.1f MB", n, oldest.Local().Format(time.DateTime), float64(bytes)/(1<<20))
}

// label is what names the root called name in doctor's lines: nothing when the tools serve one.
func (a *app) label(name string) string {
	if !a.named {
		return ""
	}
	return name + ": "
}

// followsChanges says how soon the index sees what other programs change.
func (a *app) followsChanges() string {
	walk := walksEvery(defaultReconcile)
	if ms := a.cfg.Semantic.ReconcileMs; ms > 0 {
		return "changes by other programs reach the index by " + walksEvery(time.Duration(ms)*time.Millisecond) + " (reconcileMs)"
	}
	switch runtime.GOOS {
	case "linux":
		return "changes by other programs reach the index within seconds, from file events (past the system's limit of watched folders: " + walk + ")"
	case "windows":
		return "changes by other programs reach the index within seconds, from file events (should they stop: " + walk + ")"
	}
	return "changes by other programs reach the index by " + walk
}

// indexState says where m's index lives and what the next start does with it.
func (m *mount) indexState() string {
	if m.Engine == nil {
		return "off (--no-index): search_semantic and relationships are unavailable"
	}
	dir := m.indexPlace.Dir
	if dir == "" {
		return "in memory (no folder outside the root to keep it in; set --index-dir): built at every start"
	}
	v, ok := fulltext.PersistedFormat(filepath.Join(dir, "bleve"))
	switch {
	case !ok:
		return dir + " (none yet: built in the background at start)"
	case v != fulltext.IndexFormat:
		return fmt.Sprintf("%s (format %d, this version uses %d: rebuilt at start)", dir, v, fulltext.IndexFormat)
	}
	return fmt.Sprintf("%s (format %d: reused at start, only changed files read again)", dir, v)
}

type check struct {
	ok   bool
	text string
}

// checks runs the usability checks, each independent of the others, on every root.
func (a *app) checks() []check {
	out := []check{checkRuntime(runtime.Version())}
	if a.cfg.HTTP.Addr != "" {
		out = append(out, a.checkHTTP())
	}
	for _, m := range a.mountList() {
		checks := []check{m.checkRoot(), m.checkVisible()}
		if m.Engine != nil && m.indexPlace.Dir != "" {
			checks = append(checks, checkPlace("index", m.indexPlace, "kept in memory and built at every start"))
		}
		if a.perms.Has(security.PermWrite) {
			checks = append(checks, m.checkWrite())
			if m.historyAt.Dir != "" {
				checks = append(checks, checkPlace("history", m.historyAt, "off, and changes final"))
			}
		}
		for _, c := range checks {
			c.text = a.label(m.Name) + c.text
			out = append(out, c)
		}
	}
	return out
}

// checkRuntime reports whether the Go runtime has the os.Root fix of Go 1.26.5 (CVE-2026-39822).
func checkRuntime(v string) check {
	ok := atLeast(v, [3]int{1, 26, 5})
	if ok {
		return check{true, v + " has the os.Root fix (1.26.5 or later)"}
	}
	return check{false, v + " predates Go 1.26.5, whose os.Root fix (CVE-2026-39822) the sandbox needs: rebuild with a newer Go"}
}

// atLeast reports whether the Go version v (such as "go1.26.8" or "go1.27rc1") is at least want.
// An unparsable version (a development build) counts as new enough.
func atLeast(v string, want [3]int) bool {
	v = strings.TrimPrefix(v, "go")
	if i := strings.IndexAny(v, " -+rcbeta"); i >= 0 {
		v = v[:i]
	}
	var got [3]int
	for i, p := range strings.SplitN(v, ".", 3) {
		n, err := strconv.Atoi(p)
		if err != nil {
			return true
		}
		got[i] = n
	}
	for i := range got {
		if got[i] != want[i] {
			return got[i] > want[i]
		}
	}
	return true
}

func (m *mount) checkRoot() check {
	entries, _, err := m.Root.ReadDir(context.Background(), ".", 100_000)
	if err != nil {
		return check{false, fmt.Sprintf("the root cannot be listed: %v (check its permissions)", err)}
	}
	return check{true, fmt.Sprintf("the root is a folder that can be listed (%d entries at its top)", len(entries))}
}

// reasonHardLink is why doctor says a file is hidden when it has more than one hard link: fsroot
// refuses to read or write it, so the index and every tool pass it over.
const reasonHardLink = "having more than one hard link"

// hiddenReasons are the reasons doctor gives for entries [security.Visible] hides, each with the
// error that says it, in the order doctor reports them; an error of none of them is the last.
var hiddenReasons = []struct {
	err    error
	reason string
}{
	{security.ErrBlocked, "blocked"},
	{fsroot.ErrHardLink, reasonHardLink},
	{fsroot.ErrNotRegular, "not a regular file"},
	{nil, "a link leading out of the root or to nothing"},
}

// hiddenAs names the reason of an error of [security.Visible].
func hiddenAs(err error) string {
	for _, h := range hiddenReasons {
		if h.err == nil || errors.Is(err, h.err) {
			return h.reason
		}
	}
	return ""
}

// checkVisible walks the tree, within a budget, counting the files the tools may open, those they
// name but do not open ([security.Policy.Opens]) and those they cannot see ([security.Visible]),
// with an example of each kind hidden.
func (m *mount) checkVisible() check {
	ctx, cancel := context.WithTimeout(context.Background(), doctorWalkBudget)
	defer cancel()
	var files, visible, closed, noise, entries int
	closedEx := ""                // an example of a file of a type the tools do not open
	hidden := map[string]string{} // reason -> example path
	noisy := ""                   // an example of noise, with what makes it so
	err := m.Root.Walk(ctx, ".", -1, func(info fsroot.Info, err error) error {
		if err != nil || info.Path == "." {
			return nil
		}
		if entries++; entries > doctorWalkEntries {
			return fs.SkipAll
		}
		isDir := info.Type == fsroot.TypeDir
		if !isDir {
			files++
		}
		if err := security.Visible(m.Policy, m.Root, info); err != nil {
			if reason := hiddenAs(err); hidden[reason] == "" {
				hidden[reason] = info.Path
			}
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if !isDir && m.Policy.Opens(info.Path) == security.OpensNot {
			if closed++; closedEx == "" {
				closedEx = info.Path
			}
		} else if !isDir {
			visible++
			if m.Ignore.Hidden(info.Path, false) != "" { // listings and the index leave it out
				noise++
				if noisy == "" {
					noisy = info.Path + ", by " + m.Ignore.Why(info.Path, false)
				}
			}
		}
		return nil
	})
	partial := ""
	if ctx.Err() != nil || entries > doctorWalkEntries {
		partial = " (stopped early: the tree is large)"
	} else if err != nil {
		return check{false, fmt.Sprintf("walking the root failed: %v", err)}
	}
	text := fmt.Sprintf("%d files seen%s: %d open to the tools", files, partial, visible)
	if noise > 0 {
		text += fmt.Sprintf(", %d of them in listings, searches and the index (%d ignored or in caches, such as %s: options.includeIgnored reaches them)", visible-noise, noise, noisy)
	}
	if closed > 0 {
		text += fmt.Sprintf("; %d named in listings but not opened (a type the tools do not open, such as %s)", closed, closedEx)
	}
	for _, h := range hiddenReasons {
		reason := h.reason
		if ex, ok := hidden[reason]; ok {
			hint := ""
			if reason == reasonHardLink {
				hint = "; --allow-hard-links lets them in"
			}
			text += fmt.Sprintf("; some hidden as %s (such as %s%s)", reason, ex, hint)
		}
	}
	if visible == 0 {
		return check{false, text + "; nothing to serve: check --root and --allowed-extensions"}
	}
	return check{true, text}
}

// checkPlace checks that a server can keep its what (index, history) in place: in the folder, or
// the nearest folder above it that exists, a folder can be made (and is removed at once), as the
// server makes its own there and writes in it. A folder the operator chose (--index-dir,
// --history-dir) that cannot be used fails the start; one by default leaves the server instead.
func checkPlace(what string, place statePlace, instead string) check {
	near := filepath.Clean(place.Dir)
	for {
		if _, ok := fsroot.ResolveHost(near); ok || filepath.Dir(near) == near {
			break
		}
		near = filepath.Dir(near)
	}
	err := tryMkdir(near)
	switch {
	case err == nil && near == filepath.Clean(place.Dir):
		return check{true, fmt.Sprintf("the %s folder %s can be written", what, place.Dir)}
	case err == nil:
		return check{true, fmt.Sprintf("the %s folder %s can be made (in %s)", what, place.Dir, near)}
	case place.chosen:
		return check{false, fmt.Sprintf("the %s folder %s cannot be made or written in %s (%v): the server would not start; choose another with --%s-dir", what, place.Dir, near, err, what)}
	}
	return check{true, fmt.Sprintf("the %s folder %s cannot be made or written in %s (%v): the %s would be %s; set --%s-dir to a folder outside the root", what, place.Dir, near, err, what, instead, what)}
}

// checkHTTP checks what serving over HTTP needs at start: the address, the token and the allowed
// origins as configured, and a listener on the address (closed at once).
func (a *app) checkHTTP() check {
	h := a.cfg.HTTP
	acc, err := h.access()
	if err != nil {
		return check{false, err.Error()}
	}
	ln, err := net.Listen("tcp", h.Addr)
	if err != nil {
		return check{false, fmt.Sprintf("HTTP address %s cannot be listened on (%v): is another server on it? choose another port", h.Addr, err)}
	}
	defer ln.Close()
	bound, _ := ln.Addr().(*net.TCPAddr)
	auth := "no token: only this machine can connect"
	switch {
	case acc.token != "":
		auth = "clients authenticate with the bearer token from " + acc.source
	case bound == nil || !bound.IP.IsLoopback():
		return check{false, fmt.Sprintf("HTTP address %s resolved to %s, which is not a loopback address, so clients must authenticate: put a bearer token in $%s or in a file named by --http-token-file", h.Addr, ln.Addr(), TokenEnv)}
	}
	return check{true, fmt.Sprintf("HTTP address %s can be listened on (%s)", h.Addr, auth)}
}

// tryMkdir makes a folder in the host folder dir and removes it.
func tryMkdir(dir string) error {
	r, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	name := fmt.Sprintf(".packfs-doctor-%d", time.Now().UnixNano())
	if err := r.Mkdir(name); err != nil {
		return err
	}
	return r.Remove(name, false)
}

// checkWrite creates and removes a small file at the root, as the writer would.
func (m *mount) checkWrite() check {
	ctx := context.Background()
	name := fmt.Sprintf(".packfs-doctor-%d.txt", time.Now().UnixNano())
	if err := m.Root.CreateFile(ctx, name, []byte("packfs-mcp doctor\n"), 0o600); err != nil {
		return check{false, fmt.Sprintf("writing is allowed but a file cannot be created at the root: %v", err)}
	}
	if err := m.Root.Remove(name, false); err != nil {
		return check{false, fmt.Sprintf("a test file %s was created but cannot be removed: %v", name, err)}
	}
	return check{true, "writing works (created and removed a test file at the root)"}
}

// report prints the checks and reports whether every one passed.
func report(w io.Writer, checks []check) bool {
	fmt.Fprintln(w, "\nchecks")
	passed := true
	for _, c := range checks {
		mark := "ok  "
		if !c.ok {
			mark, passed = "FAIL", false
		}
		fmt.Fprintf(w, "  %s  %s\n", mark, c.text)
	}
	return passed
}

// autoRuns lists the auto-run places policy protects, each with what runs it, as doctor shows
// them: "bin (~/bin, on PATH ...); ...". A place matched at any depth says so.
func autoRuns(policy *security.Policy) string {
	off := map[string]bool{}
	for _, o := range policy.DefaultsOff() {
		off[o] = true
	}
	var out []string
	for _, r := range security.AutoRuns() {
		if off[r.Pattern] {
			continue
		}
		where := ""
		if r.Anywhere {
			where = ", in any folder"
		}
		out = append(out, fmt.Sprintf("%s (%s%s)", r.Pattern, r.Runs, where))
	}
	return strings.Join(out, "; ")
}

// extensionsSource says where the list of extensions comes from, for doctor: the defaults, the
// operator's strict list, and what was added to either.
func extensionsSource(c SecurityConfig) string {
	out := "the defaults"
	if c.AllowedExtensions != nil {
		out = "only allowedExtensions, in place of the defaults"
	}
	if len(c.AddExtensions) > 0 {
		out += ", and added: " + strings.Join(c.AddExtensions, " ")
	}
	return out
}
