package fsroot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPrivateDir(t *testing.T) {
	parent := tempDir(t)
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
		{"a link to a folder", func(t *testing.T, p string) error { return symlink(t, tempDir(t), p) }, true},
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
