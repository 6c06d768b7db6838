package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// serverFlags are the flags that configure a server, shared by serve, call and doctor so the three
// see the same files under the same policy.
type serverFlags struct {
	fs         *flag.FlagSet
	root       *string
	configFile *string
	perms      *string
	allowWrite *bool
	readOnly   *bool
	disable    *string
	maxSize    *int64
	exts       *string
	blocked    *string
	hardLinks  *bool
	rateMax    *int
	rateWindow *time.Duration
	backupDir  *string
	timeout    *time.Duration
	indexDir   *string
	noIndex    *bool
	journal    *string
	journalMax *int
}

// newServerFlags registers the server's flags on a new flag set named name.
func newServerFlags(name string, stderr io.Writer) *serverFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &serverFlags{
		fs:         fs,
		root:       fs.String("root", "", "the folder to serve, `DIR` (required; also rootPath in the config file)"),
		configFile: fs.String("config", "", "a JSON or YAML config `FILE` with PackFS setting names (rootPath, permissions, security.*, semantic.*)"),
		perms:      fs.String("permissions", "", "comma-separated `PERMISSIONS`: read, write, search, list (default read,search,list)"),
		allowWrite: fs.Bool("allow-write", false, "also allow writing (adds the write permission)"),
		readOnly:   fs.Bool("read-only", false, "never write, whatever the permissions or the config file say (removes the writer tool)"),
		disable:    fs.String("disable-tool", "", "comma-separated `TOOLS` not to offer: "+strings.Join(toolNames, ", ")),
		maxSize:    fs.Int64("max-file-size", 0, "largest file read or written, in `BYTES` (default 10485760)"),
		exts:       fs.String("allowed-extensions", "", "comma-separated `EXTENSIONS` that may be opened, such as .md,.txt; * allows any (default: common text, document, data and source types)"),
		blocked:    fs.String("blocked-paths", "", "comma-separated `PATTERNS`: path components never reached, such as .git,*.pem (default: version control, secrets and keys)"),
		hardLinks:  fs.Bool("allow-hard-links", false, "allow files with more than one hard link (they can alias files outside the root)"),
		rateMax:    fs.Int("rate-limit", 0, "`N` requests allowed per window, overall; each tool gets half (default 3000)"),
		rateWindow: fs.Duration("rate-window", 0, "the rate limit's window, a `DURATION` such as 1m (default 1m)"),
		backupDir:  fs.String("backup-dir", "", "the `DIR` where options.backup keeps previous versions; must be outside the root (default: the user cache directory)"),
		timeout:    fs.Duration("timeout", 0, "deadline of each tool call, a `DURATION` such as 30s (default 30s)"),
		indexDir:   fs.String("index-dir", "", "the `DIR` where the search index persists; must be outside the root (default: the user cache directory)"),
		noIndex:    fs.Bool("no-index", false, "do not build the search index (search_semantic and relationships are then unavailable)"),
		journal:    fs.String("journal", "", "append one JSON line per tool call to `FILE`, outside the root (an audit journal; read it with packfs-mcp journal FILE)"),
		journalMax: fs.Int("journal-max-content", 0, "record file contents in the journal only up to this many `BYTES` each (default 4096; -1 records none)"),
	}
}

// toolNames are the tools --disable-tool accepts.
var toolNames = []string{"packfs-file-reader", "packfs-file-searcher", "packfs-file-writer"}

// parse reads args, then builds the configuration: a flag that was set wins over the config file,
// and the file wins over the defaults. A single argument is the root.
func (f *serverFlags) parse(args []string) (Config, error) {
	if err := f.fs.Parse(args); err != nil {
		return Config{}, err
	}
	if f.fs.NArg() == 1 && *f.root == "" {
		*f.root = f.fs.Arg(0)
	} else if f.fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q: pass the folder with --root DIR", f.fs.Arg(0))
	}
	return f.config()
}

// config builds the configuration from the parsed flags over the config file.
func (f *serverFlags) config() (Config, error) {
	var c Config
	if *f.configFile != "" {
		var err error
		if c, err = loadConfig(*f.configFile); err != nil {
			return c, err
		}
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["root"] || *f.root != "" {
		c.RootPath = *f.root
	}
	if set["permissions"] {
		c.Permissions = splitList(*f.perms)
	}
	if *f.allowWrite {
		if len(c.Permissions) == 0 {
			c.Permissions = []string{"read", "search", "list"}
		}
		c.Permissions = append(c.Permissions, "write")
	}
	if set["read-only"] {
		c.ReadOnly = *f.readOnly
	}
	if set["disable-tool"] {
		c.DisabledTools = splitList(*f.disable)
	}
	if set["max-file-size"] {
		c.Security.MaxFileSize = *f.maxSize
	}
	if set["allowed-extensions"] {
		c.Security.AllowedExtensions = splitList(*f.exts)
	}
	if set["blocked-paths"] {
		c.Security.BlockedPaths = splitList(*f.blocked)
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
	return c, c.validate()
}

// parseServe reads serve's flags: the server's, plus the transport.
func parseServe(args []string, stderr io.Writer) (Config, error) {
	f := newServerFlags("serve", stderr)
	httpAddr := f.fs.String("http", "", "serve MCP over streamable HTTP at http://`ADDR`/mcp (such as 127.0.0.1:8080) instead of stdio; "+
		"a bearer token from $"+tokenEnv+" or --http-token-file is required unless ADDR is loopback")
	tokenFile := f.fs.String("http-token-file", "", "a `FILE` holding the bearer token HTTP clients must send (instead of $"+tokenEnv+"); at least 16 characters, surrounding whitespace ignored")
	origins := f.fs.String("http-allowed-origins", "", "comma-separated `ORIGINS` (scheme://host[:port]) of web pages allowed to call, besides loopback ones (default: none)")
	maxBody := f.fs.Int64("http-max-request-bytes", 0, "largest HTTP request body, in `BYTES` (default 4194304)")
	clientRate := f.fs.Int("http-client-rate-limit", 0, "`N` HTTP requests allowed per client (bearer token or address) per minute (default 600)")
	f.fs.Usage = func() {
		fmt.Fprint(f.fs.Output(), "Usage: packfs-mcp serve --root DIR [flags]\n\nServe DIR's files to an MCP client over stdin/stdout (or HTTP with --http). Flags override the config file.\n\n")
		f.fs.PrintDefaults()
	}
	c, err := f.parse(args)
	if err != nil {
		return c, err
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["http"] {
		c.HTTP.Addr = *httpAddr
	}
	if set["http-token-file"] {
		c.HTTP.TokenFile = *tokenFile
	}
	if set["http-allowed-origins"] {
		c.HTTP.AllowedOrigins = splitList(*origins)
	}
	if set["http-max-request-bytes"] {
		c.HTTP.MaxRequestBytes = *maxBody
	}
	if set["http-client-rate-limit"] {
		c.HTTP.ClientRateLimit = *clientRate
	}
	if err := c.validate(); err != nil || c.HTTP.Addr == "" {
		return c, err
	}
	return c, c.HTTP.check()
}

// tokenEnv is the environment variable that holds the HTTP bearer token.
const tokenEnv = "PACKFS_MCP_TOKEN"

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
