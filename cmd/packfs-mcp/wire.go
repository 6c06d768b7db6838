package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
)

// app is a configured server, ready to listen.
type app struct {
	cfg     Config
	root    *fsroot.Root
	backups *fsroot.Root
	policy  *security.Policy
	perms   security.Permissions
	limiter *security.Limiter
	tools   *tools.Server
	mcp     *server.MCPServer
	log     *log.Logger
}

// build opens the root and wires the policy, the limiter and the tools from cfg.
func build(cfg Config, logger *log.Logger) (*app, error) {
	a := &app{cfg: cfg, log: logger}
	var err error
	a.perms = security.DefaultPermissions()
	if len(cfg.Permissions) > 0 {
		if a.perms, err = security.ParsePermissions(cfg.Permissions); err != nil {
			return nil, fmt.Errorf("setting permissions: %w", err)
		}
	}
	a.root, err = fsroot.Open(cfg.RootPath, fsroot.Options{AllowHardLinks: cfg.Security.AllowHardLinks})
	if err != nil {
		return nil, fmt.Errorf("cannot serve %s: %w", cfg.RootPath, err)
	}
	a.policy, err = security.NewPolicy(security.PolicyConfig{
		RootDir:           a.root.Dir(),
		RootResolved:      a.root.ResolvedDir(),
		AllowedExtensions: cfg.Security.AllowedExtensions,
		BlockedPaths:      cfg.Security.BlockedPaths,
	})
	if err != nil {
		a.close()
		return nil, fmt.Errorf("setting security: %w", err)
	}
	a.limiter = security.NewLimiter(security.LimitConfig{
		MaxRequests: cfg.Security.RateLimiting.MaxRequests,
		Window:      time.Duration(cfg.Security.RateLimiting.WindowMs) * time.Millisecond,
	})
	if a.perms.Has(security.PermWrite) {
		if a.backups, err = openBackups(cfg.BackupDir, a.root); err != nil {
			logger.Printf("backups are off: %v", err)
		}
	}
	a.tools = tools.New(tools.Config{
		Root:        a.root,
		Policy:      a.policy,
		Limiter:     a.limiter,
		Permissions: a.perms,
		MaxFileSize: cfg.Security.MaxFileSize,
		Timeout:     cfg.timeout(),
		Backups:     a.backups,
		Log:         logger,
	})
	a.mcp = server.NewMCPServer("packfs-mcp", version,
		server.WithToolCapabilities(false),
		server.WithInstructions(a.tools.Instructions()),
	)
	a.tools.Register(a.mcp)
	go a.cleanTemp()
	return a, nil
}

// cleanTemp removes temporary files a crashed write left behind, in the background so a large tree
// does not delay the first answer.
func (a *app) cleanTemp() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if n, err := a.root.CleanTemp(ctx); err != nil {
		a.log.Printf("removing leftover temporary files: %v", err)
	} else if n > 0 {
		a.log.Printf("removed %d leftover temporary files", n)
	}
}

// openBackups opens (creating it) the backup store: dir, or a folder in the user's cache directory
// named after the root. It must not lie inside the root, where the tools could reach it.
func openBackups(dir string, root *fsroot.Root) (*fsroot.Root, error) {
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no user cache directory: set --backup-dir")
		}
		sum := sha256.Sum256([]byte(root.ResolvedDir()))
		dir = filepath.Join(cache, "packfs-mcp", "backups", hex.EncodeToString(sum[:8]))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	b, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		return nil, err
	}
	if within(b.ResolvedDir(), root.ResolvedDir()) {
		b.Close()
		return nil, fmt.Errorf("the backup directory %s is inside the root: choose one outside it with --backup-dir", dir)
	}
	return b, nil
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func (a *app) banner() string {
	backups := "off"
	if a.backups != nil {
		backups = a.backups.Dir()
	}
	return fmt.Sprintf("%s serving %s; permissions %s; %s; max file %d bytes; %s; backups %s",
		version, a.root.Dir(), a.perms, a.policy.Summary(), maxFile(a.cfg), a.limiter.Summary(), backups)
}

func maxFile(c Config) int64 {
	if c.Security.MaxFileSize > 0 {
		return c.Security.MaxFileSize
	}
	return tools.DefaultMaxFileSize
}

// listen serves MCP on in and out until the client closes in or ctx ends. Requests read before
// the end of input are answered before it returns.
func (a *app) listen(ctx context.Context, in io.Reader, out io.Writer) error {
	s := server.NewStdioServer(a.mcp)
	s.SetErrorLogger(a.log)
	l := newLedger()
	grace := a.cfg.timeout()
	if grace <= 0 {
		grace = tools.DefaultTimeout
	}
	r := &inputReader{r: bufio.NewReaderSize(in, 64<<10), l: l, grace: grace + 5*time.Second}
	return s.Listen(ctx, r, &outputWriter{w: out, l: l})
}

func (a *app) close() {
	if a.backups != nil {
		a.backups.Close()
	}
	if a.root != nil {
		a.root.Close()
	}
}
