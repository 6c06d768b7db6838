package fsroot

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

func TestOpenAppend(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		setup   func(t *testing.T, base string)
		target  string
		want    error
		// check is the host file under root/ that must hold want content
		// after two appends; absent, it must not exist (nothing created).
		check       string
		wantContent string
	}{
		{name: "new file", target: "j.log", check: "j.log", wantContent: "one\ntwo\n"},
		{name: "existing file", entries: []string{"j.log=old\n"}, target: "j.log", check: "j.log", wantContent: "old\none\ntwo\n"},
		{name: "in a folder", entries: []string{"d/"}, target: "d/j.log", check: "d/j.log", wantContent: "one\ntwo\n"},
		{name: "through a linked folder", entries: []string{"d/", "ld => d"}, target: "ld/j.log", check: "d/j.log", wantContent: "one\ntwo\n"},
		{name: "link to a file inside", entries: []string{"t.log=old\n", "l => t.log"}, target: "l", want: ErrNotRegular, check: "t.log", wantContent: "old\n"},
		{name: "dangling link inside", entries: []string{"l => missing.log"}, target: "l", want: ErrNotRegular, check: "missing.log"},
		{name: "link outside", entries: []string{"l => ../outside/secret.txt"}, target: "l", want: ErrNotRegular},
		{name: "absolute link outside", entries: []string{"l => {base}/outside/secret.txt"}, target: "l", want: ErrNotRegular},
		{name: "dangling link outside", entries: []string{"l => {base}/outside/new.log"}, target: "l", want: ErrNotRegular},
		{name: "folder link outside", entries: []string{"lo => ../outside"}, target: "lo/new.log", want: ErrEscapes},
		{name: "dot-dot", target: "../outside/new.log", want: ErrEscapes},
		{name: "absolute name", target: "/tmp/j.log", want: ErrInvalid},
		{name: "root", target: ".", want: ErrIsRoot},
		{name: "directory", entries: []string{"d/"}, target: "d", want: ErrIsDir},
		{name: "missing parent", target: "nope/j.log", want: fs.ErrNotExist},
		{name: "file as parent", entries: []string{"f"}, target: "f/j.log", want: ErrNotDir},
		{
			name: "fifo", target: "fifo", want: ErrNotRegular,
			setup: func(t *testing.T, base string) {
				testfs.Mkfifo(t, filepath.Join(base, "root", "fifo"))
			},
		},
		{
			name: "hard link", target: "hard", want: ErrHardLink, check: "hard", wantContent: "old\n",
			entries: []string{"first=old\n"},
			setup: func(t *testing.T, base string) {
				if err := os.Link(filepath.Join(base, "root", "first"), filepath.Join(base, "root", "hard")); err != nil {
					t.Skipf("no hard links here: %v", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, r := newTree(t, Options{}, tt.entries...)
			if tt.setup != nil {
				tt.setup(t, base)
			}
			before := snapshot(t, base)
			var a *Appender
			err := noHang(t, func() error {
				var err error
				a, err = r.OpenAppend(tt.target)
				return err
			})
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("OpenAppend(%q) = %v, want %v", tt.target, err, tt.want)
				}
				if strings.Contains(err.Error(), base) {
					t.Errorf("error %q shows a host path", err)
				}
			} else {
				if err != nil {
					t.Fatalf("OpenAppend(%q): %v", tt.target, err)
				}
				for _, line := range []string{"one\n", "two\n"} {
					if _, err := a.Write([]byte(line)); err != nil {
						t.Fatal(err)
					}
				}
				if err := a.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
				t.Errorf("outside the root changed (-before +after):\n%s", diff)
			}
			if tt.check == "" {
				return
			}
			p := filepath.Join(base, "root", filepath.FromSlash(tt.check))
			fi, err := os.Lstat(p)
			if tt.wantContent == "" {
				if err == nil {
					t.Errorf("%s was created", tt.check)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readHost(t, p); got != tt.wantContent {
				t.Errorf("%s = %q, want %q", tt.check, got, tt.wantContent)
			}
			if tt.want == nil && len(tt.entries) == 0 && !sameMode(fi.Mode().Perm(), appendPerm) {
				t.Errorf("new file mode %v, want %v", fi.Mode().Perm(), appendPerm)
			}
		})
	}
}

// TestAppendConcurrent appends from many goroutines at once, through two
// Appenders on the same file as two servers would: every line must come
// out whole.
func TestAppendConcurrent(t *testing.T) {
	if testfs.UnderWine {
		t.Skip("Wine's appends through two handles are not atomic (it seeks, then writes): this case needs a Windows machine")
	}
	base, r := newTree(t, Options{})
	const writers, lines = 16, 200
	var apps [2]*Appender
	for i := range apps {
		a, err := r.OpenAppend("j.log")
		if err != nil {
			t.Fatal(err)
		}
		apps[i] = a
	}
	// Lines longer than a pipe buffer, so a torn write would show.
	pad := strings.Repeat("x", 8<<10)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				line := fmt.Sprintf("%d %d %s end\n", w, i, pad)
				if _, err := apps[w%2].Write([]byte(line)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, a := range apps {
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(filepath.Join(base, "root", "j.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var w, i int
		var body, end string
		if n, _ := fmt.Sscanf(sc.Text(), "%d %d %s %s", &w, &i, &body, &end); n != 4 || body != pad || end != "end" {
			t.Fatalf("torn line: %.80q", sc.Text())
		}
		seen[fmt.Sprint(w, i)] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != writers*lines {
		t.Errorf("%d distinct lines, want %d", len(seen), writers*lines)
	}
}

func TestAppendAfterClose(t *testing.T) {
	_, r := newTree(t, Options{})
	a, err := r.OpenAppend("j.log")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() != "j.log" {
		t.Errorf("Name() = %q", a.Name())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := a.Write([]byte("x\n")); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Write after Close = %v, want fs.ErrClosed", err)
	}
	if err := a.Sync(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Sync after Close = %v, want fs.ErrClosed", err)
	}
}
