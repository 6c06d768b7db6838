package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/audit"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/internal/serving"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
)

// serverFlags are the flags that configure a server, shared by serve, call and doctor so the three
// see the same files under the same policy.
type serverFlags struct {
	fs         *flag.FlagSet
	root       *folderFlag
	configFile *string
	permissionFlags
	maxSize     *int64
	exts        *string
	addExts     *string
	blocked     *string
	unblock     *string
	noDefaults  *bool
	hardLinks   *bool
	rateMax     *int
	rateWindow  *time.Duration
	backupDir   *string
	historyDir  *string
	noHistory   *bool
	historyDays *int
	historyMax  *int64
	timeout     *time.Duration
	indexDir    *string
	noIndex     *bool
	journal     *string
	journalMax  *int
}

// newServerFlags registers the server's flags on a new flag set named name, whose help goes to
// stdout.
func newServerFlags(name string, stdout io.Writer) *serverFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	root := &folderFlag{name: "root"}
	fs.Var(root, "root", "a folder to serve, `DIR` or NAME=DIR; repeat it to serve several, whose paths then start with NAME "+
		"(by default the folder's name); overrides rootPath and roots in the config file")
	return &serverFlags{
		fs:              fs,
		root:            root,
		configFile:      fs.String("config", "", "a JSON or YAML config `FILE` with PackFS setting names (rootPath, permissions, security.*, semantic.*)"),
		permissionFlags: addPermissionFlags(fs),
		maxSize:         fs.Int64("max-file-size", fsroot.DefaultMaxFileSize, "largest file read or written, in `BYTES`"),
		exts:            fs.String("allowed-extensions", "", "comma-separated `EXTENSIONS` that may be opened, such as .md,.txt, in place of the defaults; * allows any (default: common text, document, data and source types)"),
		addExts:         fs.String("add-extensions", "", "comma-separated `EXTENSIONS` opened besides the allowed ones (the defaults, or --allowed-extensions), such as .txtar,.tmpl"),
		blocked:         fs.String("blocked-paths", "", "comma-separated `PATTERNS` of path components never reached, such as Downloads,*.bak, blocked besides the defaults (version control, dependencies, secrets and keys: doctor lists them)"),
		unblock:         fs.String("unblock", "", "comma-separated default blocked `PATTERNS` to reach after all, such as node_modules (the start-up line and doctor name them)"),
		noDefaults:      fs.Bool("no-default-blocked", false, "block none of the default patterns (secrets and keys included), only --blocked-paths"),
		hardLinks:       fs.Bool("allow-hard-links", false, "allow files with more than one hard link (they can alias files outside the root)"),
		rateMax:         fs.Int("rate-limit", security.DefaultMaxRequests, "`N` requests allowed per window, overall; each tool gets half"),
		rateWindow:      fs.Duration("rate-window", security.DefaultWindow, "the rate limit's window, a `DURATION` such as 10s"),
		backupDir:       fs.String("backup-dir", "", "the old name of --history-dir: `DIR`"),
		historyDir:      fs.String("history-dir", "", "the `DIR` where what the tools' changes replace is kept so they can be undone; must be outside the root (default: the user data folder, else /var/tmp or $TMPDIR, the first outside the root)"),
		noHistory:       fs.Bool("no-history", false, "keep no history: changes made through the tools are final"),
		historyDays:     fs.Int("history-days", 7, "how many `DAYS` of changes the history keeps"),
		historyMax:      fs.Int64("history-max-bytes", history.DefaultMaxBytes, "what one root's history may take, in `BYTES`: the oldest changes go first"),
		timeout:         fs.Duration("timeout", tools.DefaultTimeout, "deadline of each tool call, a `DURATION` such as 1m30s"),
		indexDir:        fs.String("index-dir", "", "the `DIR` where the search index persists; must be outside the root (default: the first of the user cache folder, /var/tmp and $TMPDIR that is outside the root)"),
		noIndex:         fs.Bool("no-index", false, "do not build the search index (search_semantic and relationships are then unavailable)"),
		journal:         fs.String("journal", "", "append one JSON line per tool call to `FILE`, outside the root (an audit journal; read it with packfs-mcp journal FILE)"),
		journalMax:      fs.Int("journal-max-content", audit.DefaultMaxContentBytes, "record file contents in the journal only up to this many `BYTES` each; -1 records none"),
	}
}

// permissionFlags are the flags that decide which tools are offered. serve, call, doctor and tools
// share them, so that tools prints the tools the others offer under the same flags.
type permissionFlags struct {
	perms      *string
	allowWrite *bool
	readOnly   *bool
	disable    *string
}

// addPermissionFlags registers the permission flags on fs.
func addPermissionFlags(fs *flag.FlagSet) permissionFlags {
	return permissionFlags{
		perms:      fs.String("permissions", security.DefaultPermissions().String(), "comma-separated `PERMISSIONS`: "+security.AllPermissions().String()),
		allowWrite: fs.Bool("allow-write", false, "also allow writing (adds the write permission and the writer tool)"),
		readOnly:   fs.Bool("read-only", false, "never write, whatever the permissions or the config file say (removes the writer tool)"),
		disable:    fs.String("disable-tool", "", "comma-separated `TOOLS` not to offer: "+strings.Join(serving.ToolNames, ", ")),
	}
}

// apply sets c's permissions, read-only switch and disabled tools from the flags that were set (set
// holds their names), over what the config file said.
func (p permissionFlags) apply(c *serving.Config, set map[string]bool) {
	if set["permissions"] {
		c.Permissions = splitList(*p.perms)
	}
	if *p.allowWrite {
		if len(c.Permissions) == 0 {
			for _, q := range security.DefaultPermissions().List() {
				c.Permissions = append(c.Permissions, string(q))
			}
		}
		c.Permissions = append(c.Permissions, "write")
	}
	if set["read-only"] {
		c.ReadOnly = *p.readOnly
	}
	if set["disable-tool"] {
		c.DisabledTools = splitList(*p.disable)
	}
}

// visited returns the names of the flags of fs that were set.
func visited(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

// parse reads args, then builds the configuration: a flag that was set wins over the config file,
// and the file wins over the defaults. A single argument is the root.
func (f *serverFlags) parse(args []string) (serving.Config, error) {
	if err := parseArgs(f.fs, args); err != nil {
		return serving.Config{}, err
	}
	if f.fs.NArg() == 1 && len(f.root.args) == 0 {
		f.root.args = []string{f.fs.Arg(0)}
	} else if f.fs.NArg() > 0 {
		return serving.Config{}, fmt.Errorf("unexpected argument %q: pass the folder with --root DIR", f.fs.Arg(0))
	}
	return f.config()
}

// config builds the configuration from the parsed flags over the config file.
func (f *serverFlags) config() (serving.Config, error) {
	var c serving.Config
	if *f.configFile != "" {
		var err error
		if c, err = loadConfig(*f.configFile); err != nil {
			return c, err
		}
	}
	set := visited(f.fs)
	if len(f.root.args) > 0 {
		roots, err := f.root.roots()
		if err != nil {
			return c, err
		}
		c.RootPath, c.Roots = "", roots
		if len(roots) == 1 && roots[0].Name == "" {
			c.RootPath, c.Roots = roots[0].Path, nil
		}
	}
	f.apply(&c, set)
	if set["max-file-size"] {
		c.Security.MaxFileSize = *f.maxSize
	}
	if set["allowed-extensions"] {
		c.Security.AllowedExtensions = splitList(*f.exts)
	}
	if set["add-extensions"] {
		c.Security.AddExtensions = splitList(*f.addExts)
	}
	if set["blocked-paths"] {
		c.Security.BlockedPaths = splitList(*f.blocked)
	}
	if set["unblock"] {
		c.Security.Unblock = splitList(*f.unblock)
	}
	if set["no-default-blocked"] {
		c.Security.NoDefaultBlocked = *f.noDefaults
	}
	if set["allow-hard-links"] {
		c.Security.AllowHardLinks = *f.hardLinks
	}
	if set["rate-limit"] {
		c.Security.RateLimiting.MaxRequests = *f.rateMax
	}
	if set["rate-window"] {
		c.Security.RateLimiting.WindowMs = int(*f.rateWindow / time.Millisecond)
	}
	if set["backup-dir"] {
		c.BackupDir = *f.backupDir
	}
	if set["history-dir"] {
		c.HistoryDir = *f.historyDir
	}
	if set["no-history"] {
		c.NoHistory = *f.noHistory
	}
	if set["history-days"] {
		c.HistoryDays = *f.historyDays
	}
	if set["history-max-bytes"] {
		c.HistoryMaxBytes = *f.historyMax
	}
	if set["index-dir"] {
		c.Semantic.IndexDir = *f.indexDir
	}
	if set["no-index"] {
		c.Semantic.Disabled = *f.noIndex
	}
	if set["timeout"] {
		c.TimeoutMs = int(*f.timeout / time.Millisecond)
	}
	if set["journal"] {
		c.Journal.File = *f.journal
	}
	if set["journal-max-content"] {
		c.Journal.MaxContentBytes = *f.journalMax
	}
	return c, c.Validate()
}

// folderFlag is a flag naming a folder that may be repeated (--root, --client-roots-within), its
// values in the order given.
type folderFlag struct {
	name string // the flag's, for its errors
	args []string
}

func (f *folderFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(f.args, " ")
}

func (f *folderFlag) Set(v string) error {
	if v == "" {
		return fmt.Errorf("empty folder: pass --%s DIR", f.name)
	}
	f.args = append(f.args, v)
	return nil
}

// roots reads the --root arguments (see [splitRoot]).
func (f *folderFlag) roots() ([]serving.RootConfig, error) {
	var out []serving.RootConfig
	for _, arg := range f.args {
		rc := splitRoot(arg)
		if rc.Path == "" {
			return nil, fmt.Errorf("--root %s names a root but no folder: pass --root %sDIR", arg, arg)
		}
		out = append(out, rc)
	}
	return out, nil
}

// serveFlags are serve's flags: the server's, plus the transport's.
type serveFlags struct {
	*serverFlags
	httpAddr, tokenFile, origins *string
	maxRequest                   *int64
	clientRate                   *int
	within                       *folderFlag
}

// newServeFlags registers serve's flags on a new flag set, whose help goes to stdout.
func newServeFlags(stdout io.Writer) *serveFlags { return newTransportFlags("serve", stdout) }

// newTransportFlags registers serve's flags on a new flag set for the command name (serve, or
// doctor, which checks what serve would do), whose help goes to stdout.
func newTransportFlags(name string, stdout io.Writer) *serveFlags {
	f := &serveFlags{serverFlags: newServerFlags(name, stdout), within: &folderFlag{name: "client-roots-within"}}
	f.fs.Var(f.within, "client-roots-within", "serve only the clients' MCP roots that lie in `DIR` (repeat it for several); "+
		"needed to serve them over HTTP, whose clients name folders on this machine")
	f.httpAddr = f.fs.String("http", "", "serve MCP over streamable HTTP at http://`ADDR`/mcp (such as 127.0.0.1:8080) instead of stdio; "+
		"a bearer token from $"+serving.TokenEnv+" or --http-token-file is required unless ADDR is loopback")
	f.tokenFile = f.fs.String("http-token-file", "", fmt.Sprintf("a `FILE` holding the bearer token HTTP clients must send (instead of $%s); at least %d characters, surrounding whitespace ignored", serving.TokenEnv, serving.MinTokenLen))
	f.origins = f.fs.String("http-allowed-origins", "", "comma-separated `ORIGINS` (scheme://host[:port]) of web pages allowed to call, besides loopback ones (default: none)")
	f.maxRequest = f.fs.Int64("max-request-bytes", serving.DefaultMaxRequestBytes, "largest message a client may send, a line on stdio or an HTTP request body, in `BYTES`; a longer one is refused")
	f.clientRate = f.fs.Int("http-client-rate-limit", security.DefaultClientRequests, "`N` HTTP requests allowed per client (bearer token or address) per minute")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), "Usage: packfs-mcp serve --root DIR [--root NAME=DIR ...] [flags]\n\n"+
			"Serve DIR's files to an MCP client over stdin/stdout (or HTTP with --http). Flags override the config file.\n"+
			"Without --root (and no rootPath or roots in the config file), serve the folders the client offers as\n"+
			"MCP roots, following their changes; over HTTP, each client's own, inside --client-roots-within.\n\n")
		f.fs.PrintDefaults()
	}
	return f
}

// parseServe reads serve's flags, whose help goes to stdout, into the configuration.
func parseServe(args []string, stdout io.Writer) (serving.Config, error) {
	return newServeFlags(stdout).parseServe(args)
}

// parseServe reads args, serve's flags, into the configuration.
func (f *serveFlags) parseServe(args []string) (serving.Config, error) {
	c, err := f.parse(args)
	if err != nil {
		return c, err
	}
	set := visited(f.fs)
	if set["http"] {
		c.HTTP.Addr = *f.httpAddr
	}
	if set["http-token-file"] {
		c.HTTP.TokenFile = *f.tokenFile
	}
	if set["http-allowed-origins"] {
		c.HTTP.AllowedOrigins = splitList(*f.origins)
	}
	if set["max-request-bytes"] {
		c.Security.MaxRequestBytes = *f.maxRequest
	}
	if set["client-roots-within"] {
		c.ClientRootsWithin = f.within.args
	}
	if set["http-client-rate-limit"] {
		c.HTTP.ClientRateLimit = *f.clientRate
	}
	if err := c.Validate(); err != nil || c.HTTP.Addr == "" {
		return c, err
	}
	if c.RequireRoot() != nil && len(c.ClientRootsWithin) == 0 {
		return c, errors.New("no root: serving over HTTP takes its folders from --root DIR (or rootPath or roots in the config file), " +
			"or serves the folders each client offers as MCP roots inside --client-roots-within DIR, since an HTTP client names folders on this machine")
	}
	return c, c.HTTP.Check()
}

// parseArgs parses args into fs. Asked for help (-h, --help), it prints fs's usage on fs's output
// (stdout) and returns [flag.ErrHelp]. On a mistake it prints nothing and returns one line that names
// the mistake, the nearest flag when one is close to a mistyped name, and where the flags are listed,
// for the caller to print on stderr: not the whole usage, which would bury the mistake.
func parseArgs(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		if usage == nil {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		} else {
			usage()
		}
		return err
	case err == nil:
		return nil
	}
	msg := err.Error()
	if bad := badValue(fs, msg); bad != "" {
		msg = bad
	}
	if name, ok := strings.CutPrefix(msg, undefinedFlag); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := intents.Nearest(strings.TrimLeft(name, "-"), names); near != "" {
			msg += ": did you mean --" + near + "?"
		}
	}
	return fmt.Errorf("%s (packfs-mcp %s --help lists the flags)", msg, fs.Name())
}

// badValue rewrites the flag package's error for a value a flag could not parse ("invalid value
// "10MB" for flag -max-file-size: parse error") to say what the flag takes; "" for another error.
func badValue(fs *flag.FlagSet, msg string) string {
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	value, name, found := strings.Cut(rest, " for flag -")
	if !ok || !found {
		return ""
	}
	name, _, _ = strings.Cut(name, ":")
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	_, usage := flag.UnquoteUsage(f)
	takes := "a value of its kind"
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			takes = "a whole number, without a unit"
		case time.Duration:
			takes = "a number with its unit: 30s, 1m30s, 2h"
		case float64:
			takes = "a number"
		case bool:
			takes = "true or false"
		}
	}
	return fmt.Sprintf("invalid value %s for --%s (%s): give %s", value, name, usage, takes)
}

// undefinedFlag begins the flag package's error for a flag the set does not define; the name follows.
const undefinedFlag = "flag provided but not defined: -"

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// splitRoot reads a --root argument: NAME=DIR names the root, when NAME is a valid root name and
// the whole argument is not itself a path that exists (a folder whose name holds "="); anything
// else is the folder, which is then named after itself.
func splitRoot(arg string) serving.RootConfig {
	if name, dir, ok := strings.Cut(arg, "="); ok && tools.ValidRootName(name) == nil {
		if _, exists := fsroot.ResolveHost(arg); !exists {
			return serving.RootConfig{Name: name, Path: dir}
		}
	}
	return serving.RootConfig{Path: arg}
}
