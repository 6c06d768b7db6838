package serving

import (
	"slices"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
)

// The pool of the clients' folders. A folder offered as an MCP root is opened once, as a mount
// of the server's (its policy, index and history), whichever clients offer it: each client that
// serves it holds a reference, and each tool call on a client's roots pins them while it runs. A
// mount no client holds and no call pins is closed after lingerFor, so that a client that offers
// it again soon (a reconnecting HTTP client, a stateless client's next call, a root removed and
// added back) finds its index open and built.

// lingerFor is how long a folder no client serves stays open before it is closed.
const lingerFor = 2 * time.Minute

// acquire returns the mount of the folder fr holds, taking a reference on it: the mount served
// already, when a client offers the folder too (fr is then closed), or else a new one named name,
// or the first free name after it among the mounts (see freeName), whose index and background
// work start.
func (a *app) acquire(name string, fr *fsroot.Root) (*mount, error) {
	a.openMu.Lock() // one folder opened at a time, so two clients do not open one twice
	defer a.openMu.Unlock()
	a.mu.Lock()
	var others []string
	var specs []rootSpec
	for _, m := range a.mounts {
		if m.Root.ResolvedDir() == fr.ResolvedDir() {
			a.hold(m, 1)
			a.mu.Unlock()
			fr.Close()
			return m, nil
		}
		others = append(others, m.Root.ResolvedDir())
		specs = append(specs, rootSpec{name: m.Name})
	}
	a.mu.Unlock()
	if slices.ContainsFunc(specs, func(s rootSpec) bool { return s.name == name }) {
		name = freeName(name, specs)
	}
	m, err := a.openMount(name, fr, others)
	if err != nil {
		return nil, err
	}
	m.refs = 1
	if err := a.addMount(m); err != nil {
		return nil, err
	}
	return m, nil
}

// release gives back a reference acquire took on m.
func (a *app) release(m *mount) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hold(m, -1)
}

// pin counts a tool call as running on each of ms until the returned func is called: none of
// them is closed meanwhile.
func (a *app) pin(ms []*mount) func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range ms {
		m.busy++
		a.linger(m)
	}
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, m := range ms {
			m.busy--
			a.linger(m)
		}
	}
}

// hold adds n to m's references. Called with a.mu held.
func (a *app) hold(m *mount, n int) {
	m.refs += n
	a.linger(m)
}

// linger sets m's closing in lingerFor when no client holds it and no call pins it, and calls
// it off when one does. Called with a.mu held.
func (a *app) linger(m *mount) {
	idle := m.refs == 0 && m.busy == 0
	switch {
	case idle && m.idle == nil && !a.closed:
		m.idle = time.AfterFunc(a.lingerFor(), func() { a.expire(m) })
	case !idle && m.idle != nil:
		m.idle.Stop()
		m.idle = nil
	}
}

// lingerFor is [lingerFor], or the test's. Called with a.mu held.
func (a *app) lingerFor() time.Duration {
	if a.lingerTest > 0 {
		return a.lingerTest
	}
	return lingerFor
}

// expire closes m if it is still unheld and unpinned: it leaves the pool, its background work
// stops, and it closes once that work has ended.
func (a *app) expire(m *mount) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m.refs > 0 || m.busy > 0 || a.closed || !slices.Contains(a.mounts, m) {
		return
	}
	m.idle = nil
	a.mounts = slices.DeleteFunc(a.mounts, func(o *mount) bool { return o == m })
	stop, after := m.stop, a.lingerFor()
	a.closing.Add(1)
	go func() {
		defer a.closing.Done()
		if stop != nil {
			stop()
		}
		m.work.Wait()
		m.close()
		m.log.Printf("closed: no client has offered it for %v", after)
	}()
}
