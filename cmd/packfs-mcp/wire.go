package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
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
	engine  *semantic.Engine
	// indexPlace is where the index persists; its Dir is "" when it is kept in memory.
	indexPlace statePlace
	tools      *tools.Server
	journal    *journal
	mcp        *server.MCPServer
	// started is closed once the first client's initialize is answered.
	started chan struct{}
	// log, warn and errs log at info, warning and error (see logging.go); logs sends their lines
	// to the clients that ask for them.
	log, warn, errs *log.Logger
	logs            *clientLog
}

// build opens the root and wires the policy, the limiter and the tools from cfg.
func build(cfg Config, logger *log.Logger) (*app, error) {
	a := &app{cfg: cfg, logs: newClientLog(logger)}
	a.log = a.logs.at(mcp.LoggingLevelInfo)
	a.warn = a.logs.at(mcp.LoggingLevelWarning)
	a.errs = a.logs.at(mcp.LoggingLevelError)
	var err error
	if a.perms, err = permissionsOf(cfg); err != nil {
		return nil, err
	}
	a.root, err = fsroot.Open(cfg.RootPath, fsroot.Options{AllowHardLinks: cfg.Security.AllowHardLinks})
	if err != nil {
		return nil, rootError(cfg.RootPath, err)
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
		if err := a.openBackups(); err != nil {
			a.warn.Printf("backups are off (options.backup is refused): %v", err)
		}
	}
	if !cfg.Semantic.Disabled {
		if err = a.openEngine(); err != nil {
			a.close()
			return nil, err
		}
	}
	a.tools = tools.New(tools.Config{
		Engine:             a.engine,
		RelevanceThreshold: cfg.Semantic.RelevanceThreshold,
		Root:               a.root,
		Policy:             a.policy,
		Limiter:            a.limiter,
		Permissions:        a.perms,
		MaxFileSize:        cfg.Security.MaxFileSize,
		Timeout:            cfg.timeout(),
		Backups:            a.backups,
		Disabled:           cfg.DisabledTools,
		Progress:           cfg.progress,
		Log:                a.warn,
		ErrorLog:           a.errs,
	})
	if err := a.openJournal(); err != nil {
		a.close()
		return nil, err
	}
	hooks := a.hooks()
	a.started = make(chan struct{})
	var once sync.Once
	hooks.AddAfterInitialize(func(context.Context, any, *mcp.InitializeRequest, *mcp.InitializeResult) {
		once.Do(func() { close(a.started) })
	})
	opts := []server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithLogging(),
		server.WithInstructions(a.tools.Instructions()),
		server.WithHooks(hooks),
	}
	if a.tools.OffersResources() {
		opts = append(opts, server.WithResourceCapabilities(false, false))
	}
	a.mcp = server.NewMCPServer("packfs-mcp", version, opts...)
	a.tools.Register(a.mcp)
	a.tools.RegisterResources(a.mcp, hooks)
	a.logs.attach(a.mcp, hooks, a.hostPaths()...)
	return a, nil
}

// openEngine wires the search index of root, in its folder outside the root (see placeState), and
// the name policy into it. With no folder outside the root, the index is kept in memory and built
// afresh at every start.
func (a *app) openEngine() error {
	place, err := placeState(stateIndex, a.cfg.Semantic.IndexDir, a.root)
	if err != nil {
		return err
	}
	a.indexPlace = place
	dir := ""
	if err := place.make(a.root); err != nil {
		if place.chosen {
			return fmt.Errorf("search index: %w", err)
		}
		a.warn.Printf("the search index is kept in memory and built at every start: %v (set --index-dir to a folder outside the root to keep it)", err)
		a.indexPlace = statePlace{}
	} else {
		dir = filepath.Join(place.Dir, "bleve")
	}
	// The index opens at the start of the background build, so even a large persisted index does not
	// delay the first answer.
	a.engine = semantic.New(semantic.Options{
		Busy: func() {
			a.warn.Printf("the search index in %s is in use by another packfs-mcp on this root: this one keeps its own in memory", place.Dir)
		},
		FS: a.root.FS(),
		Allow: func(name string, isDir bool) bool {
			info := fsroot.Info{Path: name, Type: fsroot.TypeFile}
			if isDir {
				info.Type = fsroot.TypeDir
			}
			return tools.Visible(a.policy, a.root, info) == nil
		},
		Index: fulltext.IndexOptions{
			Dir:         dir,
			ChunkSize:   a.cfg.Semantic.ChunkSize,
			OverlapSize: a.cfg.Semantic.OverlapSize,
		},
	})
	return nil
}

// startGrace bounds how long background work waits for a client's initialize before it starts anyway.
const startGrace = time.Second

// afterStart waits until the first client has been answered its initialize, or startGrace has
// passed, so that background work does not slow the start. It reports false when ctx ended first.
func (a *app) afterStart(ctx context.Context) bool {
	t := time.NewTimer(startGrace)
	defer t.Stop()
	select {
	case <-a.started:
	case <-t.C:
	case <-ctx.Done():
		return false
	}
	return true
}

// buildIndex brings the search index in step with the files, reporting its progress every interval,
// and logs how it ended. It reports whether the index is complete; a failure is logged, and the tools
// then answer as with an incomplete index.
func (a *app) buildIndex(ctx context.Context, every time.Duration, report func(semantic.Progress)) bool {
	t0 := time.Now()
	done := make(chan error, 1)
	go func() { done <- a.engine.Build(ctx) }()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if ctx.Err() == nil {
					a.errs.Printf("search index build failed: %v", err)
				}
				return false
			}
			st := a.engine.Status()
			reused := ""
			if st.Reused > 0 {
				reused = fmt.Sprintf(" (%d unchanged, reused from disk)", st.Reused)
			}
			a.log.Printf("search index ready: %d files%s in %v%s", st.Total, reused, time.Since(t0).Round(time.Millisecond), notIndexed(st))
			return true
		case <-tick.C:
			if st := a.engine.Status(); !st.Complete { // the end is logged once, above
				report(st)
			}
		}
	}
}

// notIndexed says which of the files a build read it could not index, and why, or "" when it
// indexed them all: a tree of hard links would otherwise look indexed and find nothing.
func notIndexed(st semantic.Progress) string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{
		{st.HardLinks, "with more than one hard link (refused unless --allow-hard-links)"},
		{st.Unreadable, "that could not be opened"},
		{st.NotText, "not text"},
	} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; not indexed: " + strings.Join(parts, ", ")
}

// defaultReconcile is how often the index picks up changes made by other programs when
// [SemanticConfig.ReconcileMs] is zero: soon enough that a search finds an edit made in an editor a
// moment ago, rarely enough that the walk it takes costs little.
const defaultReconcile = 10 * time.Second

// indexInBackground builds the index, logging progress to stderr every few seconds, then keeps it in
// step with changes made by other programs by reconciling every interval, until ctx ends.
func (a *app) indexInBackground(ctx context.Context) {
	if a.engine == nil {
		return
	}
	logProgress := func(st semantic.Progress) { a.log.Print(st) }
	if !a.buildIndex(ctx, 2*time.Second, logProgress) {
		return
	}
	every := time.Duration(a.cfg.Semantic.ReconcileMs) * time.Millisecond
	if every <= 0 {
		every = defaultReconcile
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if n, err := a.engine.Reconcile(ctx); err != nil && ctx.Err() == nil {
				a.warn.Printf("reconciling the search index: %v", err)
			} else if n > 0 {
				a.log.Printf("search index: %d files changed outside the tools", n)
			}
		}
	}
}

// cleanTemp removes temporary files a crashed write left behind, in the root and in the backup store,
// in the background so a large tree does not delay the first answer.
func (a *app) cleanTemp() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, r := range []*fsroot.Root{a.root, a.backups} {
		if r == nil {
			continue
		}
		if n, err := r.CleanTemp(ctx); err != nil {
			a.warn.Printf("removing leftover temporary files: %v", err)
		} else if n > 0 {
			a.log.Printf("removed %d leftover temporary files", n)
		}
	}
}

// openBackups opens (creating it) the backup store, outside the root (see placeState). With no
// folder outside the root, backups are off and options.backup is refused.
func (a *app) openBackups() error {
	place, err := placeState(stateBackups, a.cfg.BackupDir, a.root)
	if err != nil {
		return err
	}
	if err := place.make(a.root); err != nil {
		return err
	}
	b, err := fsroot.Open(place.Dir, fsroot.Options{})
	if err != nil {
		return err
	}
	if within(b.ResolvedDir(), a.root.ResolvedDir()) {
		b.Close()
		return fmt.Errorf("the backup directory %s is inside the root: choose one outside it with --backup-dir", place.Dir)
	}
	a.backups = b
	return nil
}

// hostPaths are the host paths the server uses, for the log to cut out of what clients receive.
func (a *app) hostPaths() []string {
	paths := []string{a.root.Dir(), a.root.ResolvedDir(), a.indexPlace.Dir, a.cfg.BackupDir, a.cfg.Journal.File}
	if a.backups != nil {
		paths = append(paths, a.backups.Dir(), a.backups.ResolvedDir())
	}
	return paths
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func (a *app) banner() string {
	index := "index off"
	if a.engine != nil {
		index = "index in memory"
		if a.indexPlace.Dir != "" {
			index = "index " + a.indexPlace.Dir
		}
	}
	backups := "off"
	if a.backups != nil {
		backups = a.backups.Dir()
	}
	return fmt.Sprintf("%s serving %s; permissions %s; %s; max file %d bytes; %s; %s; backups %s",
		version, a.root.Dir(), a.perms, a.policy.Summary(), maxFile(a.cfg), a.limiter.Summary(), index, backups)
}

func maxFile(c Config) int64 {
	if c.Security.MaxFileSize > 0 {
		return c.Security.MaxFileSize
	}
	return fsroot.DefaultMaxFileSize
}

// listen serves MCP on in and out until the client closes in or ctx ends. Requests read before
// the end of input are answered before it returns. A line longer than the message bound is
// answered with the TOO_LARGE refusal HTTP sends, and dropped; the lines after it are served.
func (a *app) listen(ctx context.Context, in io.Reader, out io.Writer) error {
	s := server.NewStdioServer(a.mcp)
	s.SetErrorLogger(a.logs.stderr())
	l := newLedger()
	grace := a.cfg.timeout()
	if grace <= 0 {
		grace = tools.DefaultTimeout
	}
	w := &outputWriter{w: out, l: l}
	limit := maxRequest(a.cfg)
	r := &inputReader{r: bufio.NewReaderSize(in, 64<<10), l: l, grace: grace + 5*time.Second, max: limit,
		refuse: func(id json.RawMessage) {
			a.warn.Printf("refused a message of more than %d bytes on stdin (--max-request-bytes)", limit)
			if err := w.answer(refusal(id, "TOO_LARGE", tooLarge(limit), 0)); err != nil {
				a.errs.Printf("answering it: %v", err)
			}
		}}
	return s.Listen(ctx, r, w)
}

func (a *app) close() {
	a.closeJournal()
	if a.engine != nil {
		a.engine.Close()
	}
	if a.backups != nil {
		a.backups.Close()
	}
	if a.root != nil {
		a.root.Close()
	}
}
