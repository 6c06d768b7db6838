package serving

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the state of the servers the tests build (indexes, backups, history) in a
// temporary folder, never in the user's cache and data folders.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "packfs-server-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for env, d := range map[string]string{"XDG_CACHE_HOME": "cache", "XDG_DATA_HOME": "data"} {
		os.Setenv(env, filepath.Join(dir, d))
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
