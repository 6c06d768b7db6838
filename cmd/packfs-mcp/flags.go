package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// parseServe reads serve's flags over the optional config file: a flag that was set wins over the
// file, and the file wins over the defaults.
func parseServe(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		root       = fs.String("root", "", "the folder to serve (required; also rootPath in the config file)")
		config     = fs.String("config", "", "a JSON or YAML config file with PackFS setting names (rootPath, permissions, security.*, semantic.*)")
		perms      = fs.String("permissions", "", "comma-separated permissions: read, write, search, list (default read,search,list)")
		allowWrite = fs.Bool("allow-write", false, "also allow writing (adds the write permission)")
		maxSize    = fs.Int64("max-file-size", 0, "largest file read or written, in bytes (default 10485760)")
		exts       = fs.String("allowed-extensions", "", "comma-separated extensions that may be opened, such as .md,.txt; * allows any (default: common text, document, data and source types)")
		blocked    = fs.String("blocked-paths", "", "comma-separated path components never reached, such as .git,*.pem (default: version control, secrets and keys)")
		hardLinks  = fs.Bool("allow-hard-links", false, "allow files with more than one hard link (they can alias files outside the root)")
		rateMax    = fs.Int("rate-limit", 0, "requests allowed per window, overall; each tool gets half (default 3000)")
		rateWindow = fs.Duration("rate-window", 0, "the rate limit's window (default 1m)")
		backupDir  = fs.String("backup-dir", "", "where options.backup keeps previous versions; must be outside the root (default: the user cache directory)")
		timeout    = fs.Duration("timeout", 0, "deadline of each tool call (default 30s)")
		indexDir   = fs.String("index-dir", "", "where the search index persists; must be outside the root (default: the user cache directory)")
		noIndex    = fs.Bool("no-index", false, "do not build the search index (search_semantic and relationships are then unavailable)")
	)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: packfs-mcp serve --root DIR [flags]\n\nServe DIR's files to an MCP client over stdin/stdout. Flags override the config file.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() == 1 && *root == "" {
		*root = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q: pass the folder with --root DIR", fs.Arg(0))
	}
	var c Config
	if *config != "" {
		var err error
		if c, err = loadConfig(*config); err != nil {
			return c, err
		}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["root"] || *root != "" {
		c.RootPath = *root
	}
	if set["permissions"] {
		c.Permissions = splitList(*perms)
	}
	if *allowWrite {
		if len(c.Permissions) == 0 {
			c.Permissions = []string{"read", "search", "list"}
		}
		c.Permissions = append(c.Permissions, "write")
	}
	if set["max-file-size"] {
		c.Security.MaxFileSize = *maxSize
	}
	if set["allowed-extensions"] {
		c.Security.AllowedExtensions = splitList(*exts)
	}
	if set["blocked-paths"] {
		c.Security.BlockedPaths = splitList(*blocked)
	}
	if set["allow-hard-links"] {
		c.Security.AllowHardLinks = *hardLinks
	}
	if set["rate-limit"] {
		c.Security.RateLimiting.MaxRequests = *rateMax
	}
	if set["rate-window"] {
		c.Security.RateLimiting.WindowMs = int(*rateWindow / time.Millisecond)
	}
	if set["backup-dir"] {
		c.BackupDir = *backupDir
	}
	if set["index-dir"] {
		c.Semantic.IndexDir = *indexDir
	}
	if set["no-index"] {
		c.Semantic.Disabled = *noIndex
	}
	if set["timeout"] {
		c.TimeoutMs = int(*timeout / time.Millisecond)
	}
	return c, c.validate()
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
