package serving

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"

	"github.com/packfs/packfs-mcp/fsroot"
)

// The server keeps two things of its own beside a root: the search index and the history. Both
// must lie outside the root, where no tool can list, read, search, change or index them: the
// root's os.Root is the one boundary the tools cannot cross, by any name, link or rename. When the
// user's cache (or data) folder is inside the root (a home folder served as the root), they go to the first
// of the fallback folders that is outside it; when every candidate is inside (the root is /), the
// index stays in memory and the history is off.

// stateKind names what a state folder holds.
type stateKind string

const (
	stateIndex stateKind = "index"
	// stateLocks is one folder for every root and every server of this user (not one a root):
	// servers on one folder, or on folders one inside the other, take their file locks there.
	stateLocks stateKind = "locks"
	// stateHistory is what the tools' changes replaced (package history): data, not cache, so it
	// is kept in the user's data folder first.
	stateHistory stateKind = "history"
	// stateCode is PDFium's compiled code (wazero's compilation cache, package extract): one folder
	// for every root and server of this user. The server runs what it holds as native code, so it
	// lies outside every root, where no tool can write it.
	stateCode stateKind = "pdfium"
)

// stateBase is a folder packfs-mcp may keep state under.
type stateBase struct {
	dir string
	// shared says the parent folder is writable by every user (/var/tmp, /tmp), so dir must be
	// made, or found, private to this user before anything is kept in it.
	shared bool
	// data says dir is in the user's data folder, whose parent is made when missing.
	data bool
}

// stateBases lists, in order of preference, the folders where packfs-mcp keeps state: the user's
// cache folder, then /var/tmp (on disk and kept across reboots, unlike a /tmp that is often in
// memory), then the temporary folder. A candidate whose parent does not exist is left out.
func stateBases() []stateBase {
	var out []stateBase
	if cache, err := os.UserCacheDir(); err == nil && filepath.IsAbs(cache) {
		out = append(out, stateBase{dir: filepath.Join(cache, "packfs-mcp")})
	}
	user := "packfs-mcp-" + strconv.Itoa(os.Geteuid())
	for _, tmp := range []string{"/var/tmp", os.TempDir()} {
		if filepath.IsAbs(tmp) {
			out = append(out, stateBase{dir: filepath.Join(tmp, user), shared: true})
		}
	}
	return out
}

// userDataDir is where the user's programs keep data that is not a cache: $XDG_DATA_HOME or
// ~/.local/share, ~/Library/Application Support on macOS, %LocalAppData% on Windows; "" when there
// is none.
func userDataDir() string {
	home, _ := os.UserHomeDir()
	switch runtime.GOOS {
	case "windows":
		return os.Getenv("LocalAppData")
	case "darwin", "ios":
		if home == "" {
			return ""
		}
		return filepath.Join(home, "Library", "Application Support")
	}
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return x
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "share")
}

// statePlace is where one kind of state lives for a root.
type statePlace struct {
	// Dir is the folder, or "" when no candidate lies outside the root.
	Dir    string
	base   stateBase
	chosen bool // the operator named Dir (--index-dir, --history-dir)
}

// placeState decides where kind lives for root: configured (the operator's folder, which must be
// outside the root), or the first base outside the root, in a folder keyed by the root's resolved
// path so two roots never share one. others are the other roots' folders (resolved) when the server
// serves several: the place must lie outside them too, where none of their tools could reach it.
// It creates nothing.
func placeState(kind stateKind, configured string, root *fsroot.Root, others ...string) (statePlace, error) {
	roots := append([]string{root.ResolvedDir()}, others...)
	if configured != "" {
		// The folder is kept by where it lands, its links resolved: what is judged outside the
		// root is what is used.
		dir := resolveHost(configured)
		if fsroot.HostWithin(dir, root.ResolvedDir()) {
			return statePlace{}, fmt.Errorf("the %s directory %s is inside the root, where the tools could reach it: choose one outside it with --%s-dir, or leave the flag out", kind, configured, flagKind(kind))
		}
		if insideAny(dir, others) {
			return statePlace{}, fmt.Errorf("the %s directory %s is inside another root, where the tools could reach it: choose one outside every root with --%s-dir, or leave the flag out", kind, configured, flagKind(kind))
		}
		return statePlace{Dir: dir, chosen: true}, nil
	}
	bases := stateBases()
	if kind == stateHistory {
		// Data, not cache: the user's data folder (made when missing, as XDG's programs do), then
		// the shared fallbacks.
		shared := slices.DeleteFunc(bases, func(b stateBase) bool { return !b.shared })
		bases = append([]stateBase{{dir: filepath.Join(userDataDir(), "packfs-mcp"), data: true}}, shared...)
	}
	for _, b := range bases {
		if !filepath.IsAbs(b.dir) {
			continue
		}
		if _, ok := fsroot.ResolveHost(filepath.Dir(b.dir)); !ok && !b.data {
			continue
		}
		dir := filepath.Join(b.dir, string(kind), stateKey(root))
		if kind == stateLocks || kind == stateCode {
			dir = filepath.Join(b.dir, string(kind))
		}
		if !insideAny(resolveHost(dir), roots) {
			return statePlace{Dir: dir, base: b}, nil
		}
	}
	return statePlace{}, nil
}

// stateKey names the state folders of root: a hash of its resolved path, so that two roots never
// share one and a root finds its own again at the next start.
func stateKey(root *fsroot.Root) string {
	sum := sha256.Sum256([]byte(root.ResolvedDir()))
	return hex.EncodeToString(sum[:8])
}

// insideAny reports whether the host path p lies in one of the folders dirs.
func insideAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if fsroot.HostWithin(p, d) {
			return true
		}
	}
	return false
}

func flagKind(kind stateKind) string { return string(kind) }

// make creates the place's folder and its missing parents (mode 0700), making a shared base private
// first, and checks again, with every link now resolved, that it is outside the root and the
// others (resolved folders of the other roots).
func (p statePlace) make(root *fsroot.Root, others ...string) error {
	if p.Dir == "" {
		return errors.New("no folder outside the root")
	}
	if p.base.shared {
		if err := fsroot.PrivateDir(p.base.dir); err != nil {
			return err
		}
	}
	if err := makeDirs(p.Dir); err != nil {
		return err
	}
	if insideAny(resolveHost(p.Dir), append([]string{root.ResolvedDir()}, others...)) {
		return fmt.Errorf("%s is inside the root, where the tools could reach it", p.Dir)
	}
	return nil
}

// resolveHost is [fsroot.ResolveHost] without the existence.
func resolveHost(p string) string {
	r, _ := fsroot.ResolveHost(p)
	return r
}

// makeDirs creates dir and its missing parents, each with mode 0700 as os.MkdirAll(dir, 0o700)
// would, through fsroot's host-path functions (only fsroot touches the filesystem), and checks that
// dir is a folder that opens. The folders it creates are private to this user
// ([fsroot.PrivateDir]); those that exist are left as they are.
func makeDirs(dir string) error {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, ok := fsroot.ResolveHost(p); ok {
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for _, p := range slices.Backward(missing) {
		if err := fsroot.PrivateDir(p); err != nil {
			return err
		}
	}
	r, err := fsroot.Open(dir, fsroot.Options{})
	if err != nil {
		return err
	}
	return r.Close()
}
