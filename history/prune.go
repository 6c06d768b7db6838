package history

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
)

// Default bounds of a store ([Limits]): a week of changes, within a gibibyte.
const (
	DefaultKeep     = 7 * 24 * time.Hour
	DefaultMaxBytes = 1 << 30
)

// unreferencedGrace is how old a content no record names must be before Prune removes it: a call
// keeps what it replaces before its record is committed, and a content kept a moment ago may be
// the one a call in flight is about to name.
const unreferencedGrace = 10 * time.Minute

// Limits bound a store: records older than Keep go, then the oldest until the contents the rest
// name take at most MaxBytes. Zero fields take the defaults.
type Limits struct {
	Keep     time.Duration
	MaxBytes int64
}

// Pruned is what [Store.Prune] removed and what the store holds after it.
type Pruned struct {
	Records, Contents int   // removed
	KeptRecords       int   // left
	Bytes             int64 // the contents left take
	Oldest            time.Time
}

// Prune removes the records past l and the contents no record left names (a content that was just
// kept is spared: see unreferencedGrace), and reports what it removed and what is left.
func (s *Store) Prune(ctx context.Context, l Limits) (Pruned, error) {
	if l.Keep <= 0 {
		l.Keep = DefaultKeep
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	records, _, err := s.Records(ctx, nil)
	if err != nil {
		return Pruned{}, err
	}
	slices.Reverse(records) // oldest first
	sizes, err := s.contents(ctx)
	if err != nil {
		return Pruned{}, err
	}
	// refs counts, per content, the records left that name it; bytes is what those contents take.
	refs := map[string]int{}
	var bytes int64
	name := func(r *Record, n int) {
		for _, c := range r.Changes {
			if c.Before == nil {
				continue
			}
			sum := c.Before.SHA256
			if refs[sum] == 0 && n > 0 {
				bytes += sizes[sum].size
			}
			if refs[sum] += n; refs[sum] == 0 {
				bytes -= sizes[sum].size
			}
		}
	}
	for _, r := range records {
		name(r, 1)
	}
	var out Pruned
	cut := s.now().Add(-l.Keep)
	for len(records) > 0 && (records[0].Time.Before(cut) || bytes > l.MaxBytes) {
		if err := s.dir.Remove(path.Join("calls", records[0].ID+".json"), false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
		name(records[0], -1)
		records = records[1:]
		out.Records++
	}
	grace := s.now().Add(-unreferencedGrace)
	for sum, c := range sizes {
		if refs[sum] > 0 || c.mod.After(grace) {
			continue
		}
		if err := s.dir.Remove(objectName(sum), false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
		out.Contents++
	}
	out.KeptRecords, out.Bytes = len(records), bytes
	if len(records) > 0 {
		out.Oldest = records[0].Time
	}
	return out, nil
}

// content is what Prune knows of one kept content.
type content struct {
	size int64
	mod  time.Time
}

// contents lists the kept contents by name.
func (s *Store) contents(ctx context.Context) (map[string]content, error) {
	out := map[string]content{}
	err := s.dir.Walk(ctx, "objects", 2, func(info fsroot.Info, err error) error {
		if err != nil {
			return err
		}
		if sum := path.Base(info.Path); info.Type == fsroot.TypeFile && isSum(sum) && strings.HasPrefix(info.Path, "objects/"+sum[:2]+"/") {
			out[sum] = content{size: info.Size, mod: info.ModTime}
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil // nothing kept yet
	}
	return out, err
}

// Usage is what the store holds: how many call records, the oldest's time, and the bytes its kept
// contents take.
func (s *Store) Usage(ctx context.Context) (records int, oldest time.Time, bytes int64, err error) {
	all, _, err := s.Records(ctx, nil)
	if err != nil {
		return 0, time.Time{}, 0, err
	}
	if len(all) > 0 {
		oldest = all[len(all)-1].Time
	}
	sizes, err := s.contents(ctx)
	for _, c := range sizes {
		bytes += c.size
	}
	return len(all), oldest, bytes, err
}

// Forget removes from the records the changes of name (a file, or with dir everything below a
// folder; "." with dir is the whole history), a record left with none going whole, and then the
// contents no record names, at once: what a person asks to forget is not kept a moment longer. It
// returns how many changes it forgot.
func (s *Store) Forget(ctx context.Context, name string, dir bool) (int, error) {
	match := Touching(name, dir)
	records, _, err := s.Records(ctx, match)
	if err != nil {
		return 0, err
	}
	forgot := 0
	for _, r := range records {
		rest := slices.DeleteFunc(slices.Clone(r.Changes), func(c Change) bool {
			return match(&Record{Changes: []Change{c}})
		})
		forgot += len(r.Changes) - len(rest)
		file := path.Join("calls", r.ID+".json")
		if len(rest) == 0 {
			err = s.dir.Remove(file, false)
		} else {
			r.Changes = rest
			var data []byte
			if data, err = json.Marshal(r); err == nil {
				err = s.dir.WriteFile(ctx, file, data)
			}
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return forgot, err
		}
	}
	left, _, err := s.Records(ctx, nil)
	if err != nil {
		return forgot, err
	}
	named := map[string]bool{}
	for _, r := range left {
		for _, c := range r.Changes {
			if c.Before != nil {
				named[c.Before.SHA256] = true
			}
		}
	}
	sizes, err := s.contents(ctx)
	if err != nil {
		return forgot, err
	}
	for sum := range sizes {
		if !named[sum] {
			if err := s.dir.Remove(objectName(sum), false); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return forgot, err
			}
		}
	}
	return forgot, nil
}
