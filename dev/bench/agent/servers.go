package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The servers a session can run, each as its users would: ours from this repository with writing
// allowed and its index in the session's own state folder (outside the root), the peers as
// dev/bench/install-peers.sh installed them, given the root as their one allowed folder, or a task's
// folders as their allowed folders.
var serverNames = []string{"ours", "official", "mark3labs"}

// servedRoot is one folder a server is given: ours names it Name when it has one (--root
// NAME=DIR), as it must when it serves several; the peers take the folder alone.
type servedRoot struct {
	Name, Dir string
}

// serverCommand returns the command line that serves roots for server name; state is a folder
// outside every root for the server's own files.
func serverCommand(name string, roots []servedRoot, state string, o options) (command string, args []string, indexed bool, err error) {
	var dirs []string
	for _, r := range roots {
		dirs = append(dirs, r.Dir)
	}
	switch name {
	case "ours":
		bin := o.ours
		if bin == "" {
			if bin, err = buildOurs(o); err != nil {
				return "", nil, false, err
			}
		}
		args = []string{"serve"}
		for _, r := range roots {
			if r.Name == "" {
				args = append(args, "--root", r.Dir)
			} else {
				args = append(args, "--root", r.Name+"="+r.Dir)
			}
		}
		// With several roots, each keeps its index and history in a folder of its own below these.
		return bin, append(args, "--allow-write",
			"--index-dir", filepath.Join(state, "index"), "--backup-dir", filepath.Join(state, "backups"), "--history-dir", filepath.Join(state, "history")), true, nil
	case "official":
		node, err := exec.LookPath("node")
		if err != nil {
			return "", nil, false, fmt.Errorf("node not found: %w", err)
		}
		pkg := filepath.Join(o.peers, "node_modules", "@modelcontextprotocol", "server-filesystem")
		data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
		if err != nil {
			return "", nil, false, fmt.Errorf("the official server is not installed under %s (run bash dev/bench/install-peers.sh, or pass --peers-dir)", o.peers)
		}
		var meta struct {
			Bin map[string]string `json:"bin"`
		}
		if err := json.Unmarshal(data, &meta); err != nil || len(meta.Bin) == 0 {
			return "", nil, false, fmt.Errorf("%s/package.json has no bin entry", pkg)
		}
		script := ""
		for _, rel := range meta.Bin {
			script = filepath.Join(pkg, rel)
		}
		return node, append([]string{script}, dirs...), false, nil
	case "mark3labs":
		bin := filepath.Join(o.peers, "bin", "mcp-filesystem-server")
		if _, err := os.Stat(bin); err != nil {
			return "", nil, false, fmt.Errorf("mcp-filesystem-server is not installed at %s (run bash dev/bench/install-peers.sh, or pass --peers-dir)", bin)
		}
		return bin, dirs, false, nil
	}
	return "", nil, false, fmt.Errorf("no server %q: the servers are ours, official and mark3labs", name)
}

// buildOurs builds packfs-mcp from the repository into the sessions' folder and returns its path.
// It builds every time (the build cache makes that quick) so that a session never runs a binary
// older than the code; the binary is written under a temporary name and renamed, so that two
// starts at once do not run a half-written file.
func buildOurs(o options) (string, error) {
	dir := filepath.Join(o.base, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "packfs-mcp.building-")
	if err != nil {
		return "", err
	}
	tmp.Close()
	cmd := exec.Command("go", "build", "-o", tmp.Name(), "./cmd/packfs-mcp")
	cmd.Dir = o.repo
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("go build ./cmd/packfs-mcp in %s: %w", o.repo, err)
	}
	bin := filepath.Join(dir, "packfs-mcp")
	return bin, os.Rename(tmp.Name(), bin)
}
