// Package history keeps what the tools' changes replace, so that every change can be undone: the
// content a call is about to replace, truncate or delete is kept before the change, named by the
// full SHA-256 of its bytes (so each content is kept once, whatever name or call it came from),
// and a record of the call is committed after it (its time, its purpose, and each file with its
// state before and after). A crash between the two leaves the old content kept and no record: no
// change is applied without its content kept, and a record never names content that is not there.
//
// A [Store] lives in a folder of its own outside every root (an [fsroot.Root]), so no tool can
// read or change it. It holds:
//
//	objects/ab/ab12...   the kept contents, by SHA-256, written once (atomic and synced)
//	calls/<id>.json      one record per call, named so that names sort in time order
//
// A Store is safe for concurrent use, and by several processes on one folder: contents are
// written once under names no two contents share, and each record under a name of its own. Its
// folder's root should allow hard links: a write a crash cut short leaves its file linked twice
// until the next start's sweep.
package history

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
)

// MaxRecords bounds how many call records one look back reads; a store holding more has some of
// them read, not necessarily the newest. Pruning keeps far fewer; the bound keeps a store that
// grew without it from costing a read per record ever written.
const MaxRecords = 10_000

// maxRecordBytes bounds one record read: a call's record names at most a few hundred files.
const maxRecordBytes = 4 << 20

// commits counts the records this process committed, to order those of one clock tick.
var commits atomic.Uint64

// ErrNotKept is a content or a record the store does not hold.
var ErrNotKept = errors.New("not kept in the history")

// State is a file's state on one side of a change.
type State struct {
	// SHA256 names its content in the store (hex), kept when this is the state before a change.
	SHA256 string `json:"sha256"`
	// Version is the file's version as the tools answer it ([fsroot.Version]).
	Version string `json:"version"`
	// Size is its size in bytes.
	Size int64 `json:"size"`
	// Mode is its permission bits.
	Mode fs.FileMode `json:"mode"`
}

// Change is what one call did to one file: Before is nil for a file it created, After nil for a
// file it deleted. A move of a file or a folder is a change of its own, with To set and neither
// state: the content moved unchanged.
type Change struct {
	Path   string `json:"path"`
	To     string `json:"to,omitempty"`
	Before *State `json:"before,omitempty"`
	After  *State `json:"after,omitempty"`
}

// Record is one call's changes, which undo together.
type Record struct {
	// ID names the record; IDs sort in the order the calls were committed.
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Purpose string    `json:"purpose"`
	Changes []Change  `json:"changes"`
}

// Store is the history of one root, in its folder.
type Store struct {
	dir *fsroot.Root
	now func() time.Time
}

// Open returns the store kept in dir, a folder outside every root that only this user can read.
func Open(dir *fsroot.Root) *Store {
	return &Store{dir: dir, now: time.Now}
}

// Dir is the host folder the store lives in.
func (s *Store) Dir() string { return s.dir.Dir() }

// Sum is the name content is kept under: the hex SHA-256 of its bytes.
func Sum(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:])
}

// Keep keeps content, the bytes a change is about to replace, and returns its state as the file
// holds it (mode is its permission bits). When Keep returns, the content is on disk (written to a
// temporary file, synced, then renamed into place); content kept before is not written again.
func (s *Store) Keep(ctx context.Context, content []byte, mode fs.FileMode) (State, error) {
	st := State{SHA256: Sum(content), Version: fsroot.Version(content), Size: int64(len(content)), Mode: mode.Perm()}
	name := objectName(st.SHA256)
	if info, err := s.dir.Stat(name); err == nil && info.Size == st.Size {
		return st, nil
	}
	if err := s.dir.MkdirAll(path.Dir(name)); err != nil {
		return State{}, fmt.Errorf("history: %w", err)
	}
	if err := s.dir.CreateFile(ctx, name, content, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return State{}, fmt.Errorf("history: %w", err)
	}
	return st, nil
}

// Content returns the kept content named sum, checked against its name.
func (s *Store) Content(ctx context.Context, sum string) ([]byte, error) {
	if !isSum(sum) {
		return nil, ErrNotKept
	}
	data, _, err := s.dir.ReadFile(ctx, objectName(sum), 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotKept
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if Sum(data) != sum {
		return nil, fmt.Errorf("history: the kept content %s is damaged", sum[:12])
	}
	return data, nil
}

// Commit records r, the changes of one call, after they were applied: it sets r.ID and r.Time.
// Every Before state it names must have been kept first.
func (s *Store) Commit(ctx context.Context, r *Record) error {
	r.Time = s.now().UTC()
	// The sequence orders the calls of one process committed in one clock tick; the random part
	// keeps two processes' names apart.
	r.ID = fmt.Sprintf("%s-%06d%s", r.Time.Format("20060102T150405.000000000Z"), commits.Add(1)%1_000_000, strings.ToLower(rand.Text()[:4]))
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := s.dir.MkdirAll("calls"); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := s.dir.CreateFile(ctx, path.Join("calls", r.ID+".json"), data, 0o600); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Records returns the records that keep returns true for, newest first, reading at most
// MaxRecords; truncated says some were not read.
func (s *Store) Records(ctx context.Context, keep func(*Record) bool) (out []*Record, truncated bool, err error) {
	entries, truncated, err := s.dir.ReadDir(ctx, "calls", MaxRecords)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("history: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if strings.HasSuffix(e.Name, ".json") && e.Type == fsroot.TypeFile {
			names = append(names, e.Name)
		}
	}
	slices.Sort(names)
	for _, n := range slices.Backward(names) {
		data, _, err := s.dir.ReadFile(ctx, path.Join("calls", n), maxRecordBytes)
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		if err != nil {
			continue // gone since the listing (pruned), or unreadable: not one to undo by
		}
		r := new(Record)
		if json.Unmarshal(data, r) != nil {
			continue // a record another version wrote, or damaged: not one to undo by
		}
		if keep == nil || keep(r) {
			out = append(out, r)
		}
	}
	return out, truncated, nil
}

// Touching returns a filter for [Store.Records] of the records that changed name, or, when dir is
// true, anything at or below it: a move touches where it moved from and where to.
func Touching(name string, dir bool) func(*Record) bool {
	return func(r *Record) bool {
		for _, c := range r.Changes {
			for _, p := range []string{c.Path, c.To} {
				if p != "" && (p == name || dir && fsroot.Within(p, name)) {
					return true
				}
			}
		}
		return false
	}
}

func objectName(sum string) string { return path.Join("objects", sum[:2], sum) }

func isSum(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}
