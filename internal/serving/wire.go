package serving

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// app is a configured server, ready to listen.
type app struct {
	cfg     Config
	perms   security.Permissions
	limiter *security.Limiter
	// policy is the policy every root is served under, without a root: what the banner and doctor
	// describe. Each mount has its own, for its folder.
	policy *security.Policy
	tools  *tools.Roots
	// named says the tools name each root (several roots, or the client's): log lines then name
	// the root they are about.
	named bool
	// mu guards mounts, bg and closed: the client's roots change them while the server serves.
	mu     sync.Mutex
	mounts []*mount // in name order
	// bg is the context of the mounts' background work once it has started (see background);
	// the work of a mount added later starts under it. work counts that work; closing counts the
	// removed mounts still to be closed.
	bg            context.Context
	work, closing sync.WaitGroup
	closed        bool
	// clientMode says the configuration names no folder: the server serves the folders each
	// client offers as MCP roots. clients holds each client's, by session (see clientroots.go),
	// under mu; openMu makes one client's folder open at a time (see acquire).
	clientMode bool
	clients    map[string]*clientRoots
	// codeDir is the folder of PDFium's compiled code, outside every root, "" when none is kept;
	// codePlaced says it was placed (see placeCode).
	codeDir    string
	codePlaced bool
	streams    map[string]server.ClientSession // the sessions registered, by id (see streamOpened)
	openMu     sync.Mutex
	// within are the folders (resolved) the clients' roots must lie in, if any (--client-roots-within).
	within []string
	// lingerTest, when set, replaces lingerFor in tests.
	lingerTest time.Duration
	journal    *journal
	mcp        *server.MCPServer
	// started is closed once the first client's initialize is answered.
	started chan struct{}
	// log, warn and errs log at info, warning and error (see logging.go); logs sends their lines
	// to the clients that ask for them.
	log, warn, errs *log.Logger
	logs            *clientLog
	// noticed logs once what the server does with the roots a client offers (see rootsNotice).
	noticed sync.Once
	// bad is the folder that could not be opened, in doctor's report on it (see unrooted).
	bad string
	// globalIgnore are the lines of the user's global git excludes file (see readGlobalIgnore).
	globalIgnore []string
}

// build opens the roots and wires the policy, the limiter and the tools from cfg. With no root
// configured, the folders come from the client (see clientRoots).
func build(cfg Config, logger *log.Logger) (*app, error) {
	a := &app{cfg: cfg, logs: newClientLog(logger), globalIgnore: readGlobalIgnore()}
	a.log = a.logs.at(mcp.LoggingLevelInfo)
	a.warn = a.logs.at(mcp.LoggingLevelWarning)
	a.errs = a.logs.at(mcp.LoggingLevelError)
	if cfg.BackupDir != "" {
		a.warn.Printf("--backup-dir (backupDir) is now --history-dir (historyDir): the history keeps what every change replaces, as options.backup did on request; its folder is %s", cfg.BackupDir)
		if a.cfg.HistoryDir == "" {
			a.cfg.HistoryDir = cfg.BackupDir
		}
	}
	var err error
	if a.perms, err = PermissionsOf(cfg); err != nil {
		return nil, err
	}
	specs, err := cfg.rootSpecs()
	if err != nil {
		return nil, err
	}
	if a.policy, err = a.newPolicy(nil); err != nil {
		return nil, err
	}
	a.limiter = security.NewLimiter(security.LimitConfig{
		MaxRequests: cfg.Security.RateLimiting.MaxRequests,
		Window:      time.Duration(cfg.Security.RateLimiting.WindowMs) * time.Millisecond,
	})
	a.named = len(specs) != 1
	a.tools = tools.NewRoots(tools.Config{
		RelevanceThreshold: cfg.Semantic.RelevanceThreshold,
		Limiter:            a.limiter,
		Permissions:        a.perms,
		MaxFileSize:        cfg.Security.MaxFileSize,
		Timeout:            cfg.timeout(),
		Disabled:           cfg.DisabledTools,
		Progress:           cfg.progress,
		Log:                a.warn,
		ErrorLog:           a.errs,
	}, a.named)
	if err := a.mountAll(specs); err != nil {
		a.close()
		return nil, err
	}
	if len(specs) == 0 {
		a.clientMode, a.clients, a.streams = true, map[string]*clientRoots{}, map[string]server.ClientSession{}
		if a.within, err = resolveWithin(cfg.ClientRootsWithin); err != nil {
			a.close()
			return nil, err
		}
	}
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
		server.WithInstructions(a.instructions()),
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(a.rootsMiddleware),
	}
	if a.clientMode {
		opts = append(opts, server.WithRoots())
	}
	if a.tools.OffersResources() {
		opts = append(opts, server.WithResourceCapabilities(false, false))
	}
	a.mcp = server.NewMCPServer("packfs-mcp", Version, opts...)
	a.registerTools()
	a.registerResources(hooks)
	a.followRoots(hooks)
	a.logs.attach(a.mcp, hooks, a.hostPaths()...)
	return a, nil
}

// newPolicy returns the configured policy for the folder r, or without a folder when r is nil.
func (a *app) newPolicy(r *fsroot.Root) (*security.Policy, error) {
	pc := security.PolicyConfig{
		AllowedExtensions: a.cfg.Security.AllowedExtensions,
		AddExtensions:     a.cfg.Security.AddExtensions,
		BlockedPaths:      a.cfg.Security.BlockedPaths,
		Unblock:           a.cfg.Security.Unblock,
		NoDefaultBlocked:  a.cfg.Security.NoDefaultBlocked,
		WindowsNames:      runtime.GOOS == "windows",
	}
	if r != nil {
		pc.RootDir, pc.RootResolved = r.Dir(), r.ResolvedDir()
	}
	p, err := security.NewPolicy(pc)
	if err != nil {
		return nil, fmt.Errorf("setting security: %w", err)
	}
	return p, nil
}

// mountAll opens and serves the configured folders. Each file belongs to one root, so folders
// that hold one another are refused, before anything is made for them.
func (a *app) mountAll(specs []rootSpec) error {
	roots := make([]*fsroot.Root, 0, len(specs))
	closeFrom := func(i int) {
		for _, r := range roots[i:] {
			r.Close()
		}
	}
	for _, s := range specs {
		r, err := fsroot.Open(s.dir, fsroot.Options{AllowHardLinks: a.cfg.Security.AllowHardLinks})
		if err != nil {
			closeFrom(0)
			return rootError(s.dir, err)
		}
		for j, o := range roots {
			if overlap(r.ResolvedDir(), o.ResolvedDir()) {
				roots = append(roots, r)
				closeFrom(0)
				return fmt.Errorf("roots %s and %s overlap, and each file must belong to one root: "+
					"serve the outer folder alone, or folders that do not hold one another", specs[j].dir, s.dir)
			}
		}
		roots = append(roots, r)
	}
	for i, s := range specs {
		var others []string
		for j, o := range roots {
			if j != i {
				others = append(others, o.ResolvedDir())
			}
		}
		m, err := a.openMount(s.name, roots[i], others)
		if err != nil {
			closeFrom(i + 1)
			return err
		}
		if err := a.addMount(m); err != nil {
			closeFrom(i + 1)
			return err
		}
	}
	return nil
}

// overlap reports whether the folders a and b (resolved) are one, or one holds the other.
func overlap(a, b string) bool { return fsroot.HostWithin(a, b) || fsroot.HostWithin(b, a) }

// addMount serves m: the tools answer on it at once, and its background work starts if the
// server's has. It closes m when it cannot be served.
func (a *app) addMount(m *mount) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		m.close()
		return errors.New("the server is stopping")
	}
	if !a.clientMode {
		if err := a.tools.Add(m.Mount); err != nil {
			m.close()
			return err
		}
	}
	a.placeCode(m)
	i, _ := slices.BinarySearchFunc(a.mounts, m.Name, func(o *mount, name string) int { return strings.Compare(o.Name, name) })
	a.mounts = slices.Insert(a.mounts, i, m)
	a.logs.remember(m.hostPaths()...)
	if a.bg != nil {
		a.startWork(m, false)
	}
	return nil
}

// placeCode keeps PDFium's compiled code (see stateCode) outside every root as m joins them,
// under a.mu: placed with the first root, outside it and the others served then, and made when
// PDFium first starts (a server that reads no PDF makes no folder); given up (no cache: PDFium is
// compiled at each start, which takes seconds) when a root added later holds it, or when no folder
// outside the roots can be made. doctor places nothing.
func (a *app) placeCode(m *mount) {
	if a.cfg.inspect {
		return
	}
	if a.codeDir != "" {
		if fsroot.HostWithin(a.codeDir, m.Root.ResolvedDir()) {
			a.codeDir = ""
			extract.SetCacheDir(nil)
			m.warn.Printf("PDFium's compiled code was to be kept inside this root: it is compiled anew at each start now")
		}
		return
	}
	if a.codePlaced {
		return
	}
	a.codePlaced = true
	var others []string
	for _, o := range a.mounts {
		others = append(others, o.Root.ResolvedDir())
	}
	place, err := placeState(stateCode, "", m.Root, others...)
	if err == nil && place.Dir == "" {
		err = errors.New("no folder for it lies outside the roots")
	}
	if err != nil {
		extract.SetCacheDir(nil)
		m.warn.Printf("PDFium's compiled code is not kept (%v): reading the first PDF after each start takes a few seconds more", err)
		return
	}
	a.codeDir = resolveHost(place.Dir)
	root, warn := m.Root, m.warn
	var once sync.Once
	dir := ""
	extract.SetCacheDir(func() string {
		once.Do(func() {
			if err := place.make(root, others...); err != nil {
				warn.Printf("PDFium's compiled code is not kept (%v): reading the first PDF after each start takes a few seconds more", err)
				return
			}
			dir = resolveHost(place.Dir)
		})
		return dir
	})
}

// mountList returns the mounts served now, in name order.
func (a *app) mountList() []*mount {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.mounts)
}

// instructions are the tools' instructions, and what the server does with the client's roots.
func (a *app) instructions() string {
	if a.clientMode {
		return a.tools.Instructions() + " The roots are the folders your client offers (MCP roots), and they follow its changes: list \".\" to see them now."
	}
	return a.tools.Instructions() + " The server was started with its folders (--root), which win over the roots your client offers: those are not served."
}

// background starts each mount's background work under ctx, and from now on that of each mount
// added; wait waits for it all to end once ctx has ended.
func (a *app) background(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bg = ctx
	for _, m := range a.mounts {
		a.startWork(m, true)
	}
}

// startWork starts m's background work: the sweep for leftover temporary files, the index, and the
// pruning of the history.
// Called with a.mu held.
func (a *app) startWork(m *mount, atStart bool) {
	ctx, stop := context.WithCancel(a.bg)
	m.stop = stop
	for _, f := range []func(){
		func() {
			// The sweep walks the whole tree: at the start, it waits for the first client to be
			// answered, so it does not compete with the start for the CPU.
			if !atStart || a.afterStart(ctx) {
				m.cleanTemp(ctx)
			}
		},
		// The index opens at once, so that after a restart the persisted index answers the first
		// search.
		func() { a.indexInBackground(ctx, m) },
		func() {
			if a.afterStart(ctx) {
				m.pruneHistory(ctx, a.historyLimits())
			}
		},
	} {
		a.work.Add(1)
		m.work.Add(1)
		go func() {
			defer a.work.Done()
			defer m.work.Done()
			f()
		}()
	}
}

// historyLimits are the bounds of every root's history, as configured.
func (a *app) historyLimits() history.Limits {
	l := history.Limits{Keep: time.Duration(a.cfg.HistoryDays) * 24 * time.Hour, MaxBytes: a.cfg.HistoryMaxBytes}
	if l.Keep == 0 {
		l.Keep = history.DefaultKeep
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = history.DefaultMaxBytes
	}
	return l
}

// wait waits for the background work to end, after the context given to background has.
func (a *app) wait() { a.work.Wait() }

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

// hostPaths are the host paths the server uses, for the log to cut out of what clients receive.
func (a *app) hostPaths() []string {
	paths := append([]string{a.cfg.HistoryDir, a.cfg.Semantic.IndexDir, a.cfg.Journal.File}, a.cfg.ClientRootsWithin...)
	paths = append(paths, a.within...)
	for _, m := range a.mountList() {
		paths = append(paths, m.hostPaths()...)
	}
	return paths
}

// banner is the line the server logs when it starts: its version, what it serves and how.
func (a *app) banner() string {
	mounts := a.mountList()
	if len(mounts) == 1 && !a.named {
		m := mounts[0]
		return fmt.Sprintf("%s serving %s; permissions %s; %s; max file %d bytes; %s; %s; history %s",
			Version, m.Root.Dir(), a.perms, m.Policy.Summary(), MaxFile(a.cfg), a.limiter.Summary(), m.indexSummary(), m.historySummary())
	}
	serving := "the folders the client offers as MCP roots (none yet)"
	if len(a.within) > 0 {
		serving = fmt.Sprintf("the folders the clients offer as MCP roots inside %s (none yet)", strings.Join(a.within, ", "))
	}
	if !a.clientMode {
		var parts []string
		for _, m := range mounts {
			parts = append(parts, fmt.Sprintf("%s=%s (%s; history %s)", m.Name, m.Root.Dir(), m.indexSummary(), m.historySummary()))
		}
		serving = fmt.Sprintf("%d roots: %s", len(mounts), strings.Join(parts, ", "))
	}
	return fmt.Sprintf("%s serving %s; permissions %s; %s; max file %d bytes; %s",
		Version, serving, a.perms, a.policy.Summary(), MaxFile(a.cfg), a.limiter.Summary())
}

// MaxFile is the largest file c lets a tool read or write, in bytes.
func MaxFile(c Config) int64 {
	if c.Security.MaxFileSize > 0 {
		return c.Security.MaxFileSize
	}
	return fsroot.DefaultMaxFileSize
}

// listen serves MCP on in and out until the client closes in or ctx ends. Requests read before
// the end of input are answered before it returns. A line longer than the message bound is
// answered with the TOO_LARGE refusal HTTP sends, and dropped, as is one of more than
// [MaxMessageValues] JSON values; the lines after it are served.
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
		refuse: func(id json.RawMessage, over overLimit) {
			msg := tooLarge(limit)
			if over == overValues {
				msg = tooManyValues()
				a.warn.Printf("refused a message of more than %d JSON values on stdin", MaxMessageValues)
			} else {
				a.warn.Printf("refused a message of more than %d bytes on stdin (--max-request-bytes)", limit)
			}
			if err := w.answer(refusal(id, errs.CodeTooLarge, msg, 0)); err != nil {
				a.errs.Printf("answering it: %v", err)
			}
		}}
	return s.Listen(ctx, r, w)
}

// close closes the journal and every root, once those closing already are closed.
func (a *app) close() {
	a.mu.Lock()
	a.closed = true
	mounts := a.mounts
	a.mounts = nil
	for _, m := range mounts {
		if m.idle != nil {
			m.idle.Stop()
		}
	}
	a.mu.Unlock()
	a.closing.Wait()
	a.closeJournal()
	for _, m := range mounts {
		if m.stop != nil {
			m.stop()
		}
		m.work.Wait()
		m.close()
	}
}

// refuseUnoffered registers, for each tool a's configuration does not offer, the stand-in of
// [tools.Server.Refusal], and keeps the stand-ins out of tools/list. A client is offered only what it
// may use, and a call to anything else (the writer, with writing off) gets an error result saying
// what is off and how to turn it on, instead of mcp-go's "tool not found", which a model cannot act
// on. A name that is none of the tools still gets that protocol error.
func (a *app) refuseUnoffered() {
	hooks := a.mcp.GetHooks()
	if hooks == nil {
		return // build always sets hooks; without them a stand-in could not be hidden
	}
	offered := map[string]bool{}
	for _, t := range a.tools.Tools() {
		offered[t.Tool.Name] = true
	}
	hidden := map[string]bool{}
	for _, name := range ToolNames {
		if offered[name] {
			continue
		}
		if t, ok := a.tools.Refusal(name, notOffered(a, name)); ok {
			a.mcp.AddTool(t.Tool, t.Handler)
			hidden[name] = true
		}
	}
	if len(hidden) == 0 {
		return
	}
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		listed := make([]mcp.Tool, 0, len(res.Tools))
		for _, t := range res.Tools {
			if !hidden[t.Name] {
				listed = append(listed, t)
			}
		}
		res.Tools = listed
	})
}
