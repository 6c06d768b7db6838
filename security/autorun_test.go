package security_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/security"
)

// TestCheckWrite checks which names a write may create or replace: the auto-run places of a home
// folder at its top, the others at any depth, case folded; and that --unblock lifts one place
// and --no-default-blocked all of them.
func TestCheckWrite(t *testing.T) {
	def := mustPolicy(t, security.PolicyConfig{})
	unblocked := mustPolicy(t, security.PolicyConfig{Unblock: []string{".BASHRC", "bin"}})
	none := mustPolicy(t, security.PolicyConfig{NoDefaultBlocked: true})
	tests := []struct {
		name      string
		at        string // the place refused by the defaults, or "" when allowed
		unblocked bool   // allowed with .bashrc and bin unblocked
	}{
		{".bashrc", ".bashrc", true},
		{".BashRC", ".bashrc", true},
		{"notes/.bashrc", "", true},
		{".zshrc", ".zshrc", false},
		{"bin/tool", "bin", true},
		{"proj/bin/tool", "", true},
		{".local/bin/tool", ".local/bin", false},
		{"go/bin/x", "go/bin", false},
		{"go/src/x.go", "", true},
		{".config/fish/config.fish", ".config/fish", false},
		{".config/fish/conf.d/x.fish", ".config/fish", false},
		{".config/nvim/init.lua", ".config/nvim", false},
		{".config/other/x.toml", "", true},
		{".config/systemd/user/x.service", ".config/systemd/user", false},
		{"Library/LaunchAgents/com.x.plist", "library/launchagents", false},
		{"AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/x.cmd", "start menu/programs/startup", false},
		{"Documents/PowerShell/Microsoft.PowerShell_profile.ps1", "powershell/*profile.ps1", false},
		{"OneDrive/Documents/WindowsPowerShell/profile.ps1", "windowspowershell/*profile.ps1", false},
		{"Documents/PowerShell/script.ps1", "", true},
		{"src/.vscode/tasks.json", ".vscode/tasks.json", false},
		{".vscode/settings.json", "", true},
		{"proj/.envrc", ".envrc", false},
		{".gitconfig", ".gitconfig", false},
		{"src/hooks/useThing.ts", "", true},
		{"notes/bin.md", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := def.CheckWrite(tt.name)
			if tt.at == "" {
				if err != nil {
					t.Fatalf("CheckWrite = %v, want nil", err)
				}
			} else {
				var pe *security.PathError
				if !errors.As(err, &pe) || !errors.Is(err, security.ErrAutoRun) || pe.Rule != security.RuleAutoRun || pe.Detail != tt.at {
					t.Fatalf("CheckWrite = %#v, want an auto-run refusal at %q", err, tt.at)
				}
				for _, want := range []string{"runs by itself (", "--unblock \"" + tt.at + "\""} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q lacks %q", err, want)
					}
				}
			}
			if err := unblocked.CheckWrite(tt.name); (err == nil) != (tt.unblocked || tt.at == "") {
				t.Errorf("with .bashrc and bin unblocked: CheckWrite = %v", err)
			}
			if err := none.CheckWrite(tt.name); err != nil {
				t.Errorf("with no default blocked: CheckWrite = %v", err)
			}
			if err := def.CheckName(tt.name, false); errors.Is(err, security.ErrAutoRun) {
				t.Errorf("CheckName = %v: reads are not judged for auto-run", err)
			}
		})
	}
}

// TestHoldsAutoRun checks which folders a move or copy must judge file by file: those a place of
// the table goes on below.
func TestHoldsAutoRun(t *testing.T) {
	p := mustPolicy(t, security.PolicyConfig{})
	for dir, want := range map[string]bool{
		".config": true, "go": true, ".local": true, "Library": true, ".vscode": true, "proj/.vscode": true,
		"Documents/PowerShell": true, "notes": false, "proj/src": false, "proj/.config": false,
	} {
		if got := p.HoldsAutoRun(dir); got != want {
			t.Errorf("HoldsAutoRun(%q) = %v, want %v", dir, got, want)
		}
	}
}

// TestAutoRunsTable checks that every place says what runs it, once, and that the policy
// protects them all.
func TestAutoRunsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range security.AutoRuns() {
		if r.Runs == "" || seen[strings.ToLower(r.Pattern)] {
			t.Errorf("%q: empty Runs or listed twice", r.Pattern)
		}
		seen[strings.ToLower(r.Pattern)] = true
	}
	if got := mustPolicy(t, security.PolicyConfig{}).AutoRunCount(); got != len(seen) {
		t.Errorf("AutoRunCount = %d, want %d", got, len(seen))
	}
}

func mustPolicy(t *testing.T, cfg security.PolicyConfig) *security.Policy {
	t.Helper()
	p, err := security.NewPolicy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
