//go:build unix

package fsroot

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// Root reads and writes everything, so the permission cases (security case D31, and refused
// writes) prove nothing when the tests run as root, as CI does. There, TestUnprivileged runs them
// again in a copy of this test binary as the user nobody, and fails if any of them fails or skips.
// Run as any other user, they run directly.

// unprivilegedUID and unprivilegedGID are nobody's, the user the permission cases run as when the
// tests run as root.
const unprivilegedUID, unprivilegedGID = 65534, 65534

// unprivilegedCases are the tests and subtests that call skipIfRoot, by their full names.
var unprivilegedCases = []string{
	"TestReadDir/unreadable",
	"TestReadFilePermission",
	"TestWalk/unreadable_dir_reported",
	"TestWriteFileFailureLeavesOld/read-only_directory",
}

// skipIfRoot skips a permission case when the tests run as root: TestUnprivileged runs it as
// nobody instead. It fails a case missing from unprivilegedCases, which would then run nowhere.
func skipIfRoot(t *testing.T) {
	t.Helper()
	if !slices.Contains(unprivilegedCases, t.Name()) {
		t.Fatalf("%s calls skipIfRoot but is not in unprivilegedCases, so TestUnprivileged would not run it", t.Name())
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root, which passes every permission check: TestUnprivileged runs this case as nobody")
	}
}

// TestUnprivileged runs unprivilegedCases as nobody when the tests run as root. Where root cannot
// start a process as another user (a container without CAP_SETUID), it skips, unless
// PACKFS_REQUIRE_UNPRIVILEGED=1 (as in CI), where it fails.
func TestUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not running as root: the permission cases run directly")
	}
	out, err := runAsNobody(t, unprivilegedCases)
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			if os.Getenv("PACKFS_REQUIRE_UNPRIVILEGED") == "1" {
				t.Fatalf("PACKFS_REQUIRE_UNPRIVILEGED=1 but the test binary cannot run as uid %d: %v", unprivilegedUID, err)
			}
			t.Skipf("cannot run the test binary as uid %d (%v): the permission cases did not run", unprivilegedUID, err)
		}
		t.Errorf("the permission cases failed as uid %d: %v", unprivilegedUID, err)
	}
	for _, name := range unprivilegedCases {
		if !strings.Contains(out, "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass as uid %d", name, unprivilegedUID)
		}
	}
	if t.Failed() {
		t.Logf("output as uid %d:\n%s", unprivilegedUID, out)
	}
}

// runAsNobody runs the tests holding cases in a copy of this test binary as nobody, with a
// temporary folder of nobody's own, and returns their verbose output.
func runAsNobody(t *testing.T, cases []string) (string, error) {
	t.Helper()
	// The test binary sits in go test's private build folder: nobody gets a copy in a folder of
	// its own, which is also its temporary folder.
	dir, err := os.MkdirTemp("", "packfs-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "fsroot.test")
	if err := copyExecutable(exe, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, unprivilegedUID, unprivilegedGID); err != nil {
		t.Fatal(err)
	}
	var tops []string
	for _, c := range cases {
		top, _, _ := strings.Cut(c, "/")
		if top = regexp.QuoteMeta(top); !slices.Contains(tops, top) {
			tops = append(tops, top)
		}
	}
	cmd := exec.Command(bin, "-test.run", "^("+strings.Join(tops, "|")+")$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir, "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: unprivilegedUID, Gid: unprivilegedGID}}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	return buf.String(), err
}

// copyExecutable copies the file src to a new file dst that every user may run.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
