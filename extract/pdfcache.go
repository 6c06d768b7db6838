package extract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// sharedCacheDir makes the user's shared cache folder in the temporary folder, "" when it cannot
// or when what is there is not a private folder (another user's code would run as ours).
func sharedCacheDir() string {
	uid := "user"
	if id := os.Getuid(); id >= 0 {
		uid = strconv.Itoa(id)
	}
	dir := filepath.Join(os.TempDir(), "packfs-mcp-wazero-"+uid)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return ""
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return ""
	}
	// Windows reports no Unix permissions; its temporary folder is the user's own.
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return ""
	}
	return dir
}
