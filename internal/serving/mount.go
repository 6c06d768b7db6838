package serving

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/history"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools"
	"github.com/packfs/packfs-mcp/tools/docs"
)

// mount is one served folder: the folder as the tools serve it, and what the server keeps for it
// besides: the folders of its index and history (outside every root, see placeState), its loggers,
// and the background work on them (the sweep for leftover temporary files, the index build and its
// reconcile loop).
type mount struct {
	// Mount is the folder as the tools serve it: its root, policy, ignore rules, index (nil: off)
	// and history (nil: changes are final). Its Name is the one openMount gave; each client of the
	// pool serves it under a name of its own (see clientRoots.serve).
	tools.Mount

	historyDir *fsroot.Root // the history's folder, closed with m
	texts      *fsroot.Root // the documents' text beside the index, closed with m; nil: in memory
	// historyAt is where the history lives, or would (doctor makes no folder).
	historyAt statePlace
	locks     *fsroot.Root // the lock files shared with other servers; nil: writes lock within this one
	// indexPlace is where the index persists; its Dir is "" when it is kept in memory.
	indexPlace statePlace
	// log, warn and errs are the server's loggers, naming the root when the tools name roots.
	log, warn, errs *log.Logger
	// stop ends the background work, counted by work; nil before it starts. Set under app.mu.
	stop context.CancelFunc
	work sync.WaitGroup
	// refs counts the clients serving a folder they offered, busy the tool calls running on it,
	// and idle closes it once both are zero (see pool.go); all under app.mu.
	refs, busy int
	idle       *time.Timer
}

// openMount wires root r (which it owns from now on, and closes if it fails) as the root named
// name: its policy, history and index. others are the other roots' folders (resolved), which its
// index and history must lie outside too.
func (a *app) openMount(name string, r *fsroot.Root, others []string) (*mount, error) {
	m := &mount{Mount: tools.Mount{Name: name, Root: r}, log: a.log, warn: a.warn, errs: a.errs}
	if a.named {
		prefix := "root " + name + ": "
		m.log, m.warn, m.errs = prefixed(a.log, prefix), prefixed(a.warn, prefix), prefixed(a.errs, prefix)
	}
	var err error
	if m.Policy, err = a.newPolicy(r); err != nil {
		m.close()
		return nil, err
	}
	m.Ignore = security.NewIgnore(r, m.Policy, ignoreAbove(r.ResolvedDir(), security.IgnoreConfig{Global: a.globalIgnore}))
	if a.perms.Has(security.PermWrite) {

		if !a.cfg.NoHistory {
			if err := m.openHistory(a.stateDir(a.cfg.HistoryDir, r), others, a.cfg.inspect); err != nil {
				if a.cfg.HistoryDir != "" { // the operator's folder: refuse to start without it
					m.close()
					return nil, fmt.Errorf("history: %w", err)
				}
				m.warn.Printf("NO HISTORY: changes made through the tools cannot be undone (%v); set --history-dir to a folder outside the root", err)
			}
		}
		// doctor makes no folder: the locks folder is made at the first start that writes.
		if !a.cfg.inspect {
			if err := m.openLocks(others); err != nil {
				m.warn.Printf("writes of one file are serialised within this server only, not with other servers on the same folder: %v", err)
			}
		}
	}
	if !a.cfg.Semantic.Disabled {
		if err := m.openEngine(a.cfg.Semantic, a.stateDir(a.cfg.Semantic.IndexDir, r), others, a.cfg.inspect); err != nil {
			m.close()
			return nil, err
		}
	}
	return m, nil
}

// prefixed returns a logger writing through l's output with prefix before each line.
func prefixed(l *log.Logger, prefix string) *log.Logger {
	return log.New(l.Writer(), prefix, 0)
}

// stateDir is the folder the operator named for a kind of state (--index-dir, --backup-dir) as
// root r uses it: the folder itself for the one root, as always; with several, a folder of r's own
// inside it, so that no two roots share an index or a history.
func (a *app) stateDir(configured string, r *fsroot.Root) string {
	if configured == "" || !a.named {
		return configured
	}
	return filepath.Join(configured, stateKey(r))
}

// openEngine wires the search index of m, in its folder outside every root (see placeState), and
// the name policy into it. With no folder outside the roots, the index is kept in memory and built
// afresh at every start.
func (m *mount) openEngine(cfg SemanticConfig, configured string, others []string, inspect bool) error {
	place, err := placeState(stateIndex, configured, m.Root, others...)
	if err != nil {
		return err
	}
	m.indexPlace = place
	dir := ""
	if inspect {
		// doctor: where the index would live, made at the first start.
	} else if err := place.make(m.Root, others...); err != nil {
		if place.chosen {
			return fmt.Errorf("search index: %w", err)
		}
		m.warn.Printf("the search index is kept in memory and built at every start: %v (set --index-dir to a folder outside the root to keep it)", err)
		m.indexPlace = statePlace{}
	} else {
		dir = filepath.Join(place.Dir, "bleve")
		if m.texts, err = m.openTexts(filepath.Join(place.Dir, "text")); err != nil {
			m.warn.Printf("the text of documents (PDF, Office) is kept in memory only, and extracted again after a restart: %v", err)
		}
	}
	// The index opens at the start of the background build, so even a large persisted index does not
	// delay the first answer.
	m.Engine = semantic.New(semantic.Options{
		Busy: func() {
			m.warn.Printf("the search index in %s is in use by another packfs-mcp on this root: this one keeps its own in memory", place.Dir)
		},
		FS:        security.IndexFS(m.Policy, m.Root),
		Allow:     security.Indexed(m.Policy, m.Root, m.Ignore),
		Refuse:    func(content []byte) bool { return security.PrivateKey(content) != "" },
		Document:  docs.IndexText(m.Policy),
		TextStore: m.texts,
		Index: fulltext.IndexOptions{
			Dir:         dir,
			ChunkSize:   cfg.ChunkSize,
			OverlapSize: cfg.OverlapSize,
		},
	})
	return nil
}

// openTexts opens (creating it) dir, the folder of the index's place where the text extracted
// from documents is kept (see semantic.Options.TextStore): outside every root, as the index is.
func (m *mount) openTexts(dir string) (*fsroot.Root, error) {
	if err := makeDirs(dir); err != nil {
		return nil, err
	}
	return fsroot.Open(dir, fsroot.Options{})
}

// openHistory opens (creating it) the history of m's root, outside every root (see placeState):
// what the tools' changes replace, kept so they can be undone. doctor makes no folder.
func (m *mount) openHistory(configured string, others []string, inspect bool) error {
	place, err := placeState(stateHistory, configured, m.Root, others...)
	m.historyAt = place
	if err != nil || inspect {
		return err
	}
	if place.Dir == "" {
		return errors.New("no folder for it lies outside the root")
	}
	r, err := m.openPlace(stateHistory, configured, others, "--history-dir")
	if err != nil {
		return err
	}
	m.historyDir = r
	m.History = history.Open(r)
	return nil
}

// openLocks opens (creating it) the folder of lock files that writes share with the other
// packfs-mcp processes of this user ([fsroot.Root.ShareLocks]), outside every root. Without it,
// writes of one file are serialised within this server only.
func (m *mount) openLocks(others []string) (err error) {
	if m.locks, err = m.openPlace(stateLocks, "", others, ""); err == nil {
		m.Root.ShareLocks(m.locks)
	}
	return err
}

// openPlace opens (creating it) the folder of a kind of state outside every root (see placeState);
// flag is the flag that names it, if any.
func (m *mount) openPlace(kind stateKind, configured string, others []string, flag string) (*fsroot.Root, error) {
	place, err := placeState(kind, configured, m.Root, others...)
	if err != nil {
		return nil, err
	}
	if err := place.make(m.Root, others...); err != nil {
		return nil, err
	}
	// The history's files are written as the tools' are, linked into place from a temporary
	// name: one a crash left linked twice is still the store's own, never an alias into a root.
	r, err := fsroot.Open(place.Dir, fsroot.Options{AllowHardLinks: kind == stateHistory})
	if err != nil {
		return nil, err
	}
	for _, dir := range append([]string{m.Root.ResolvedDir()}, others...) {
		if fsroot.HostWithin(r.ResolvedDir(), dir) {
			r.Close()
			if flag != "" {
				return nil, fmt.Errorf("the %s directory %s is inside a root: choose one outside every root with %s", flagKind(kind), place.Dir, flag)
			}
			return nil, fmt.Errorf("the %s directory %s is inside a root", flagKind(kind), place.Dir)
		}
	}
	return r, nil
}

// ownDirs are the folders the server keeps of m's, outside every root.
func (m *mount) ownDirs() []string {
	var dirs []string
	if m.indexPlace.Dir != "" {
		dirs = append(dirs, m.indexPlace.Dir)
	}
	for _, r := range []*fsroot.Root{m.historyDir, m.locks} {
		if r != nil {
			dirs = append(dirs, r.ResolvedDir())
		}
	}
	return dirs
}

// hostPaths are m's host paths, for the log to cut out of what clients receive.
func (m *mount) hostPaths() []string {
	paths := []string{m.Root.Dir(), m.Root.ResolvedDir(), m.indexPlace.Dir}
	for _, r := range []*fsroot.Root{m.historyDir, m.locks} {
		if r != nil {
			paths = append(paths, r.Dir(), r.ResolvedDir())
		}
	}
	return paths
}

// indexSummary says where m's index lives, for the banner.
func (m *mount) indexSummary() string {
	switch {
	case m.Engine == nil:
		return "index off"
	case m.indexPlace.Dir == "":
		return "index in memory"
	}
	return "index " + m.indexPlace.Dir
}

// historySummary says where m's history is kept, for the banner.
func (m *mount) historySummary() string {
	if m.History == nil {
		return "off"
	}
	return m.History.Dir()
}

// close closes m's index, history, locks and root.
func (m *mount) close() {
	if m.Engine != nil {
		m.Engine.Close()
	}
	if m.historyDir != nil {
		m.historyDir.Close()
	}
	if m.texts != nil {
		m.texts.Close()
	}
	if m.locks != nil {
		m.locks.Close()
	}
	if m.Root != nil {
		m.Root.Close()
	}
}

// buildIndex brings m's search index in step with the files, reporting its progress every
// interval, and logs how it ended. It reports whether the index is complete; a failure is logged,
// and the tools then answer as with an incomplete index.
func (m *mount) buildIndex(ctx context.Context, every time.Duration, report func(semantic.Progress)) bool {
	t0 := time.Now()
	done := make(chan error, 1)
	go func() { done <- m.Engine.Build(ctx) }()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if ctx.Err() == nil {
					m.errs.Printf("search index build failed: %v", err)
				}
				return false
			}
			st := m.Engine.Status()
			reused := ""
			if st.Reused > 0 {
				reused = fmt.Sprintf(" (%d unchanged, reused from disk)", st.Reused)
			}
			m.log.Printf("search index ready: %d files%s in %v%s", st.Total, reused, time.Since(t0).Round(time.Millisecond), notIndexed(st))
			return true
		case <-tick.C:
			if st := m.Engine.Status(); !st.Complete { // the end is logged once, above
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
// [SemanticConfig.ReconcileMs] is zero and the system's file events cannot be used: soon enough
// that a search finds an edit made in an editor a moment ago, rarely enough that the walk it takes
// costs little.
const defaultReconcile = 10 * time.Second

// A walk costs what it takes of a core (see [mount.pacedWalk]), and each walk waits long enough
// that the walks stay a small share of one core however big the tree: where there are no file
// events, at most one part in walkShare (a walk that costs 3 CPU seconds waits 450 s), so that with
// the collector's own rounds an idle server uses well under 1% of a core; beside file events, the
// walk that catches what events miss (a network file system, a folder renamed under a watch) runs
// every safetyWalk, or more rarely, at most one part in safetyShare.
// walksEvery says how soon walks every interval see other programs' changes: the words of the
// start-up line, the warnings and doctor.
func walksEvery(every time.Duration) string {
	return fmt.Sprintf("a walk every %v, or more rarely on a big tree (at most 1%% of a core)", every)
}

const (
	walkShare   = 150
	safetyWalk  = 10 * time.Minute
	safetyShare = 400
)

// indexInBackground builds m's index, logging progress to stderr every few seconds, then keeps it
// in step with changes made by other programs until ctx ends: from the system's file events where
// they can be used, else by reconciling every interval.
func (a *app) indexInBackground(ctx context.Context, m *mount) {
	if m.Engine == nil {
		return
	}
	logProgress := func(st semantic.Progress) { m.log.Print(st) }
	if !m.buildIndex(ctx, 2*time.Second, logProgress) {
		return
	}
	every := time.Duration(a.cfg.Semantic.ReconcileMs) * time.Millisecond
	if every <= 0 {
		every = defaultReconcile
		if w, err := m.watch(ctx); err == nil {
			m.follow(ctx, w)
			if ctx.Err() != nil {
				return
			}
			// The events ended with the server still up (the system's watch failed: the root's
			// network share went away, say): walks take over.
			m.warn.Printf("search index: file events stopped; changes by other programs are picked up by %s", walksEvery(every))
		}
	}
	m.walkPaced(ctx, every)
}

// walkPaced walks the tree for changes by other programs, where no file events tell of them: every
// interval, or more rarely on a tree whose walk costs much, at most one part in walkShare of a core.
func (m *mount) walkPaced(ctx context.Context, every time.Duration) {
	next := time.NewTimer(every)
	defer next.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-next.C:
			next.Reset(m.pacedWalk(ctx, every, walkShare))
		}
	}
}

// pacedWalk walks the tree once and returns how long to wait before the next walk: at least least,
// and share times what the walk cost. Its cost is the process's CPU time while it ran, which counts
// the collection its garbage causes on the other cores (on a big tree, a large part of it:
// dev/bench/README.md, An idle server), or its wall time where that is more (a walk that waits on
// a slow disk) or the system gives no CPU time.
func (m *mount) pacedWalk(ctx context.Context, least time.Duration, share int) time.Duration {
	start, cpu := time.Now(), processCPU()
	m.reconcile(ctx)
	cost := max(time.Since(start), processCPU()-cpu)
	return max(least, time.Duration(share)*cost)
}

// watch starts watching m's folders for changes, and says on stderr how changes made by other
// programs are picked up.
func (m *mount) watch(ctx context.Context) (*fsroot.Watcher, error) {
	allow := security.Indexed(m.Policy, m.Root, m.Ignore)
	w, err := m.Root.Watch(ctx, func(dir string) bool { return !allow(dir, true) })
	switch {
	case err == nil:
		m.log.Printf("search index: following changes by other programs through file events (%s)", watched(w.Folders()))
	case ctx.Err() != nil, errors.Is(err, fsroot.ErrWatchUnsupported): // shutting down, or walks as before
	case errors.Is(err, fsroot.ErrWatchLimit):
		m.log.Printf("search index: the tree has more folders than the system lets one program watch (on Linux, raise fs.inotify.max_user_watches); changes by other programs are picked up by %s", walksEvery(defaultReconcile))
	default:
		m.warn.Printf("search index: file events unavailable (%v); changes by other programs are picked up by %s", err, walksEvery(defaultReconcile))
	}
	return w, err
}

// watched says what a Watcher watches: one watch of the whole tree (Windows), or n folders.
func watched(n int) string {
	if n == 1 {
		return "one watch of the whole tree"
	}
	return fmt.Sprintf("%d folders watched", n)
}

// follow keeps the index in step from w's batches, with a walk first (for changes made while the
// index was built, before the watch began) and now and then after (see safetyWalk), until ctx
// ends or w does.
func (m *mount) follow(ctx context.Context, w *fsroot.Watcher) {
	defer w.Close()
	walk := func() time.Duration { return m.pacedWalk(ctx, safetyWalk, safetyShare) }
	next := time.NewTimer(walk())
	defer next.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-next.C:
			next.Reset(walk())
		case paths, ok := <-w.Changes():
			if !ok {
				return
			}
			if slices.Contains(paths, fsroot.All) {
				m.log.Printf("search index: file events were lost; walking the tree")
				m.reconcile(ctx)
				continue
			}
			n, err := m.Engine.Changed(ctx, paths)
			m.logChanges(ctx, "updating the search index from file events", n, err)
		}
	}
}

// reconcile walks the tree once to bring the index in step with it.
func (m *mount) reconcile(ctx context.Context) {
	n, err := m.Engine.Reconcile(ctx)
	m.logChanges(ctx, "reconciling the search index", n, err)
}

// logChanges says on stderr how many files other programs changed, or why doing failed.
func (m *mount) logChanges(ctx context.Context, doing string, n int, err error) {
	if err != nil && ctx.Err() == nil {
		m.warn.Printf("%s: %v", doing, err)
	} else if n > 0 {
		m.log.Printf("search index: %d files changed outside the tools", n)
	}
}

// pruneEvery is how often a running server prunes its history: servers stay up for days.
const pruneEvery = 6 * time.Hour

// pruneHistory prunes m's history to l at once, then every pruneEvery until ctx ends.
func (m *mount) pruneHistory(ctx context.Context, l history.Limits) {
	if m.History == nil {
		return
	}
	for {
		if p, err := m.History.Prune(ctx, l); err != nil && ctx.Err() == nil {
			m.warn.Printf("history: pruning: %v", err)
		} else if p.Records > 0 {
			m.log.Printf("history: removed %d changes older than %d days or past %d MB; %d kept (%d MB, since %s)", p.Records, int(l.Keep.Hours()/24), l.MaxBytes>>20, p.KeptRecords, p.Bytes>>20, p.Oldest.Format(time.DateOnly))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pruneEvery):
		}
	}
}

// cleanTempBudget bounds the sweep for leftover temporary files of one root.
const cleanTempBudget = 5 * time.Minute

// cleanTemp removes temporary files a crashed write left behind, in the root and the history; it runs in the background so a large tree does not delay the first answer.
func (m *mount) cleanTemp(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, cleanTempBudget)
	defer cancel()
	for _, r := range []*fsroot.Root{m.Root, m.historyDir} {
		if r == nil {
			continue
		}
		if n, err := r.CleanTemp(ctx); err != nil && ctx.Err() == nil {
			m.warn.Printf("removing leftover temporary files: %v", err)
		} else if n > 0 {
			m.log.Printf("removed %d leftover temporary files", n)
		}
	}
}
