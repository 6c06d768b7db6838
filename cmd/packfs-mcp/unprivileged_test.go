//go:build unix

package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
)

// Root reads everything, so a server run as root cannot show how it reports files it may not
// read (security case D31), and CI runs as root. There the permission cases start the server as
// the user nobody, serving a fixture handed over to nobody, as a user serves their own folder.

// nobodyUID and nobodyGID are the user and group a server runs as for the permission cases when
// the tests run as root.
const nobodyUID, nobodyGID = 65534, 65534

// startUnprivileged starts the server on f as a user that permissions apply to: the user running
// the tests, or nobody when that is root. In that case the whole fixture is given to nobody first
// (call it before making entries unreadable) and the server runs from a copy of the binary inside
// it, since the one TestMain built is in a folder only root may enter. Where root cannot start a
// process as nobody (a container without CAP_SETUID), the test skips, unless
// PACKFS_REQUIRE_UNPRIVILEGED=1 (as in CI), where it fails.
func startUnprivileged(t *testing.T, f *fixture, args ...string) *session {
	t.Helper()
	env := []string{"HOME=" + f.dir, "XDG_CACHE_HOME=" + filepath.Join(f.dir, "cache")}
	args = append([]string{"serve", "--root", f.root, "--history-dir", filepath.Join(f.dir, "history")}, args...)
	if os.Geteuid() != 0 {
		return startTransport(t, f, transport.NewStdio(binPath, env, args...), nil)
	}
	bin := filepath.Join(f.dir, "packfs-mcp")
	must(t, copyFile(binPath, bin, 0o755))
	must(t, filepath.WalkDir(f.dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobodyUID, nobodyGID)
	}))
	// t.TempDir's parent is root's, mode 0700: let nobody through to the fixture.
	must(t, os.Chmod(filepath.Dir(f.dir), 0o711))
	cred := &syscall.Credential{Uid: nobodyUID, Gid: nobodyGID}
	probe := exec.Command(bin, "version")
	probe.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := probe.CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("%s version as uid %d: %v\n%s", bin, nobodyUID, err, out)
		}
		if os.Getenv("PACKFS_REQUIRE_UNPRIVILEGED") == "1" {
			t.Fatalf("PACKFS_REQUIRE_UNPRIVILEGED=1 but the server cannot run as uid %d: %v", nobodyUID, err)
		}
		t.Skipf("running as root, and the server cannot run as uid %d (%v): permission cases need another user", nobodyUID, err)
	}
	asNobody := func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return cmd, nil
	}
	return startTransport(t, f, transport.NewStdioWithOptions(bin, env, args, transport.WithCommandFunc(asNobody)), nil)
}

// copyFile copies the file src to a new file dst with mode perm.
func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
