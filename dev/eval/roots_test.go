package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

func TestSplitRoots(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  map[string][]string
	}{
		{"top-level entries alternate in sorted order", []string{"b/x.md", "a/y.md", "a/z/w.md", "c.md", "d/v.md"},
			map[string][]string{"a": {"a/y.md", "a/z/w.md", "c.md"}, "b": {"b/x.md", "d/v.md"}}},
		// "x y/a.md" sorts before "x/b.md" as a path, but the entry "x y" after "x".
		{"entries sorted by name, not by path", []string{"x y/a.md", "x.md", "x/b.md"},
			map[string][]string{"a": {"x.md", "x/b.md"}, "b": {"x y/a.md"}}},
		{"one entry", []string{"only/a.md", "only/b.md"}, map[string][]string{"a": {"only/a.md", "only/b.md"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := gocmp.Diff(tt.want, splitRoots(tt.files)); diff != "" {
				t.Errorf("splitRoots(%q) mismatch (-want +got):\n%s", tt.files, diff)
			}
		})
	}
}

// TestToolsRankers checks that both tools rankers answer through the searcher tool with the
// corpus's paths, from both roots when split (alpha/ goes to root a, beta/ to b), and that Close
// removes the copies. It does not hold them to an order: that is what the evaluation measures.
func TestToolsRankers(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"alpha/tar.md":   "# tar\n\nArchive files with tar: create and extract archives.\n",
		"beta/ssh.md":    "# ssh\n\nConnect to a remote host over a secure shell.\n",
		"beta/deep/x.md": "# x\n\nExtract a zip archive with unzip.\n",
		"gamma.md":       "# gamma\n\nNothing about archives here, only shells.\n",
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names, err := listMarkdown(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		paras []string
		want  []string // among the results, in any order
	}{
		{"secure shell remote host", nil, []string{"beta/ssh.md"}},
		{"extract archive", []string{"unzip a zip"}, []string{"alpha/tar.md", "beta/deep/x.md"}},
	}
	for _, f := range rootRankers {
		t.Run(f.name, func(t *testing.T) {
			r, err := f.build(root, names)
			if err != nil {
				t.Fatal(err)
			}
			tmp := r.(*toolsRanker).tmp
			for _, tt := range tests {
				got := r.Rank(tt.query, tt.paras, 10)
				for _, p := range tt.want {
					if !slices.Contains(got, p) {
						t.Errorf("Rank(%q) = %q, want %s among them", tt.query, got, p)
					}
				}
				for _, p := range got {
					if _, ok := files[p]; !ok {
						t.Errorf("Rank(%q) returned %q, not a path of the corpus", tt.query, p)
					}
				}
			}
			if err := r.(io.Closer).Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after Close, the copies in %s remain (%v)", tmp, err)
			}
		})
	}
}

func TestTiming(t *testing.T) {
	e := evaluation{took: map[string]time.Duration{}}
	var ids []string
	for i := 1; i <= 20; i++ {
		id := string(rune('a' + i))
		ids = append(ids, id)
		e.took[id] = time.Duration(i) * time.Millisecond
	}
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"twenty queries: the 19th is the 95th percentile", ids, "10.5\t19.0"},
		{"one query", ids[:1], "1.0\t1.0"},
		{"none", nil, "-\t-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.timing(tt.ids); got != tt.want {
				t.Errorf("timing = %q, want %q", got, tt.want)
			}
		})
	}
}
