package fsroot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// BenchmarkRead4K reads a 4 KiB file at depth 1 and depth 8 the way the reader tool does: "before"
// is the path of a62985c, kept below (resolve the name with one Lstat per component, each from the
// root, then stat it, then stat, open and fstat it again to read it: os.Root three times, the
// resolution quadratic in the depth); "after" is one [Root.Lookup], which walks the name once
// relative to the directory handles it opens, then [Entry.ReadFile], which opens the file relative
// to its parent's handle. Run it with -benchtime 3000x -count 3 and compare the pairs.
func BenchmarkRead4K(b *testing.B) {
	dir := b.TempDir()
	content := []byte(strings.Repeat("0123456789abcde\n", 256))
	names := map[string]string{"depth1": "4k.md", "depth8": "a/b/c/d/e/f/g/4k.md"}
	for _, name := range names {
		if err := os.MkdirAll(filepath.Join(dir, path.Dir(name)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	r, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	for _, depth := range []string{"depth1", "depth8"} {
		name := names[depth]
		b.Run(depth+"/before", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.resolveBefore(name); err != nil {
					b.Fatal(err)
				}
				if _, err := r.root.Stat(name); err != nil {
					b.Fatal(err)
				}
				data, err := r.readFileBefore(ctx, name, DefaultMaxFileSize)
				if err != nil || len(data) != len(content) {
					b.Fatal(len(data), err)
				}
			}
		})
		b.Run(depth+"/after", func(b *testing.B) {
			for b.Loop() {
				e, err := r.Lookup(name)
				if err != nil {
					b.Fatal(err)
				}
				data, _, err := e.ReadFile(ctx, DefaultMaxFileSize)
				e.Close()
				if err != nil || len(data) != len(content) {
					b.Fatal(len(data), err)
				}
			}
		})
	}
}

// resolveBefore is Resolve as of a62985c, for BenchmarkRead4K only: one os.Root Lstat per
// component, each resolved again from the root.
func (r *Root) resolveBefore(name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	var done []string
	var todo []string
	for elem := range strings.SplitSeq(name, "/") {
		todo = append(todo, elem)
	}
	links := 0
	for len(todo) > 0 {
		elem := todo[0]
		todo = todo[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", ErrEscapes
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(done, elem)...)
		fi, err := r.root.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return path.Join(append(append(done, elem), todo...)...), nil
		}
		if err != nil {
			return "", err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxSymlinks {
				return "", errLoop
			}
			target, err := r.root.Readlink(cur)
			if err != nil {
				return "", err
			}
			if target == "" || strings.HasPrefix(target, "/") {
				return "", ErrEscapes
			}
			todo = append(strings.Split(target, "/"), todo...)
		case fi.IsDir():
			done = append(done, elem)
		default:
			if len(todo) > 0 {
				return "", ErrNotDir
			}
			done = append(done, elem)
		}
	}
	return path.Join(done...), nil
}

// readFileBefore is ReadFile as of a62985c, for BenchmarkRead4K only: a Stat through os.Root, then
// an open through os.Root and an fstat of the handle.
func (r *Root) readFileBefore(ctx context.Context, name string, max int64) ([]byte, error) {
	fi, err := r.root.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := r.Refuses(newInfo(name, fi)); err != nil {
		return nil, err
	}
	f, err := r.root.OpenFile(name, readFlags, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			return nil, ErrNotRegular
		}
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err == nil {
		err = r.Refuses(newInfo(name, fi))
	}
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, ErrTooLarge
	}
	return readBounded(ctx, f, fi.Size(), max)
}

// BenchmarkLockedAppend appends a line the way the writer tool does, under the file's lock from the
// read to the rename (Lock, ReadFile, AppendFile), from b.RunParallel's goroutines: "one file" has
// them all append to one file, which the lock makes one at a time; "distinct files" gives each its
// own, which must stay parallel: eight goroutines a core, since an append mostly waits for its two
// fsyncs, and calls on distinct files overlap them. A file is emptied past 64 KiB, so an append
// costs the same throughout.
func BenchmarkLockedAppend(b *testing.B) {
	for _, shared := range []bool{true, false} {
		name := "distinct files"
		if shared {
			name = "one file"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			r, err := Open(dir, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			ctx := context.Background()
			var next atomic.Int64
			line := []byte(strings.Repeat("x", 63) + "\n")
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				file := "log.md"
				if !shared {
					file = fmt.Sprintf("log%d.md", next.Add(1))
				}
				if err := r.WriteFile(ctx, file, nil); err != nil && !errors.Is(err, fs.ErrExist) {
					b.Error(err)
					return
				}
				for pb.Next() {
					unlock, err := r.Lock(ctx, file)
					if err != nil {
						b.Error(err)
						return
					}
					old, _, err := r.ReadFile(ctx, file, 0)
					if err == nil && len(old) > 64<<10 {
						err = r.WriteFile(ctx, file, nil)
					}
					if err == nil {
						err = r.AppendFile(ctx, file, line, 0)
					}
					unlock()
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
