package fsroot

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/packfs/packfs-mcp/internal/testfs"
)

func TestPrivateDir(t *testing.T) {
	parent := testfs.TempDir(t)
	tests := []struct {
		name    string
		setup   func(t *testing.T, p string) error
		wantErr bool
	}{
		{"missing: created", func(*testing.T, string) error { return nil }, false},
		{"ours, 0700", func(t *testing.T, p string) error { return os.Mkdir(p, 0o700) }, false},
		{"writable by others", func(t *testing.T, p string) error {
			if !modeBitsMean {
				t.Skip("mode bits say nothing on Windows: the profile's ACL keeps others out")
			}
			if err := os.Mkdir(p, 0o700); err != nil {
				return err
			}
			return os.Chmod(p, 0o777)
		}, true},
		{"a link to a folder", func(t *testing.T, p string) error { return testfs.Symlink(t, testfs.TempDir(t), p) }, true},
		{"a file", func(t *testing.T, p string) error { return os.WriteFile(p, nil, 0o600) }, true},
		{"another user's", func(t *testing.T, p string) error {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a folder away")
			}
			if err := os.Mkdir(p, 0o700); err != nil {
				return err
			}
			return os.Chown(p, 65534, 65534)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(parent, filepath.Base(t.Name()))
			if err := tc.setup(t, p); err != nil {
				t.Fatal(err)
			}
			err := PrivateDir(p)
			if tc.wantErr != errors.Is(err, ErrNotPrivate) {
				t.Fatalf("PrivateDir: %v; want ErrNotPrivate: %v", err, tc.wantErr)
			}
			if err == nil {
				fi, err := os.Lstat(p)
				if err != nil || !fi.IsDir() || modeBitsMean && fi.Mode().Perm()&0o077 != 0 {
					t.Errorf("after PrivateDir: %v, %v", fi.Mode(), err)
				}
			}
		})
	}
}

func TestHostRel(t *testing.T) {
	tests := []struct {
		p, dir, rel string
		ok          bool
	}{
		{"/a/b", "/a", "b", true},
		{"/a", "/a", ".", true},
		{"/ab", "/a", "", false},
		{"/a/b", "/", "a/b", true},
		{"/", "/", ".", true},
		{"/a", "/a/b", "", false},
		{"/a/b/c", "/a/", "b/c", true},
	}
	if runtime.GOOS == "windows" {
		tests = []struct {
			p, dir, rel string
			ok          bool
		}{
			{`C:\Users\you\Notes\a.md`, `C:\Users\you\Notes`, "a.md", true},
			{`C:\users\YOU\notes\sub\a.md`, `C:\Users\you\Notes`, "sub/a.md", true}, // NTFS ignores case
			{`C:\Users\you\AppData\Local\packfs-mcp`, `c:\users\you`, "AppData/Local/packfs-mcp", true},
			{`C:\Users\you\Notes`, `C:\Users\you\Notes\`, ".", true},
			{`C:\Users\you\Notesx`, `C:\Users\you\Notes`, "", false},
			{`D:\Users\you\Notes`, `C:\Users\you\Notes`, "", false},
			{`C:\x`, `C:\`, "x", true},
		}
	}
	for _, tt := range tests {
		if rel, ok := HostRel(tt.p, tt.dir); rel != tt.rel || ok != tt.ok {
			t.Errorf("HostRel(%q, %q) = %q, %v; want %q, %v", tt.p, tt.dir, rel, ok, tt.rel, tt.ok)
		}
	}
}
