package fsroot

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestJudgedFS checks that JudgedFS hands its judge the name and what it reached, and opens
// nothing the judge refuses: a link to a refused file or folder, and what lies below one.
func TestJudgedFS(t *testing.T) {
	_, r := newTree(t, Options{},
		"a.md=allowed",
		"secret/x.md=refused",
		"alias.md => secret/x.md",
		"door => secret",
		"d/",
	)
	errRefused := errors.New("refused")
	type seen struct {
		name, reached string
		isDir         bool
	}
	var got []seen
	fsys := r.JudgedFS(func(name, reached string, isDir bool) error {
		got = append(got, seen{name, reached, isDir})
		if strings.HasPrefix(reached, "secret") {
			return errRefused
		}
		return nil
	})
	tests := []struct {
		name string
		want seen
		err  error
	}{
		{"a.md", seen{"a.md", "a.md", false}, nil},
		{"d", seen{"d", "d", true}, nil},
		{"alias.md", seen{"alias.md", "secret/x.md", false}, errRefused},
		{"door", seen{"door", "secret", true}, errRefused},
		{"door/x.md", seen{"door/x.md", "secret/x.md", false}, errRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			f, err := fsys.Open(tt.name)
			if f != nil {
				f.Close()
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("Open(%q) = %v, want %v", tt.name, err, tt.err)
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("judged %v, want [%v]", got, tt.want)
			}
		})
	}
	if _, err := fs.ReadFile(fsys, "missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing.md) = %v, want not exist", err)
	}
}
