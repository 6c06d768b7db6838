package security

import (
	"fmt"
	"strings"
)

// AutoRun is a place where what is written runs by itself, later, without anyone running it:
// a file a shell or an editor reads at start-up, a folder on PATH, a service manager's or a
// scheduler's entries. Writing there is refused by default ([Policy.CheckWrite]); reading and
// deleting are not.
//
// Pattern is path components in [path.Match] syntax, matched case-insensitively as blocked
// patterns are. With Anywhere false it is matched from the root's first component, for the
// places a home folder holds at its top (~/.bashrc, ~/bin): served as the root, a home folder is
// where they count, and elsewhere (a project's bin) they are ordinary names. With Anywhere it
// is matched at any depth (.vscode/tasks.json runs in whatever folder an editor opens).
type AutoRun struct {
	Pattern  string
	Anywhere bool
	Runs     string
}

// AutoRuns lists the places that run code by themselves on Linux, macOS and Windows, with what
// runs them. Like [CredentialStores] it is not complete and not the sandbox: it keeps a model
// with write access from planting code that the user's own programs run later.
func AutoRuns() []AutoRun {
	return []AutoRun{
		// Shell start-up files.
		{".profile", false, "sh and bash login shells"},
		{".bashrc", false, "bash, at every interactive shell"},
		{".bash_profile", false, "bash login shells"},
		{".bash_login", false, "bash login shells"},
		{".bash_logout", false, "bash, when a login shell exits"},
		{".zshenv", false, "zsh, at every shell"},
		{".zprofile", false, "zsh login shells"},
		{".zshrc", false, "zsh, at every interactive shell"},
		{".zlogin", false, "zsh login shells"},
		{".zlogout", false, "zsh, when a login shell exits"},
		{".config/fish", false, "fish: config.fish, conf.d and autoloaded functions"},
		{".config/powershell", false, "PowerShell profiles on Linux and macOS"},
		{"PowerShell/*profile.ps1", true, "PowerShell profiles (Documents\\PowerShell on Windows)"},
		{"WindowsPowerShell/*profile.ps1", true, "Windows PowerShell profiles"},
		{".xprofile", false, "X display managers, at login"},
		{".xinitrc", false, "startx"},
		{".xsession", false, "X display managers, at login"},
		// Folders on PATH.
		{"bin", false, "~/bin, on PATH in the default profiles of Debian and Ubuntu"},
		{".local/bin", false, "~/.local/bin, on PATH (systemd's file-hierarchy, pip --user)"},
		{"go/bin", false, "go install's folder, commonly on PATH"},
		{".cargo/bin", false, "cargo install's folder, on PATH after rustup"},
		// Programs started at login or on a schedule.
		{".config/autostart", false, "XDG desktops: entries started at login"},
		{".config/systemd/user", false, "systemd user units"},
		{"Library/LaunchAgents", false, "macOS launchd: agents started at login"},
		{"Start Menu/Programs/Startup", true, "Windows: programs started at login"},
		{"cron/crontabs", true, "cron: users' tables (/var/spool/cron/crontabs)"},
		{"cron/tabs", true, "cron on macOS: users' tables (/usr/lib/cron/tabs)"},
		{"cron.d", true, "cron: system tables (/etc/cron.d)"},
		// Version control.
		{".gitconfig", false, "git: aliases and hooksPath run commands"},
		{".config/git/config", false, "git: aliases and hooksPath run commands"},
		{".hgrc", false, "Mercurial: hooks and aliases"},
		// Editors and tools that run what a folder holds.
		{".vscode/tasks.json", true, "VS Code: tasks, some run when the folder opens"},
		{".config/nvim", false, "Neovim: init.lua, init.vim and plugins"},
		{".vimrc", false, "Vim, at start-up"},
		{".vim", false, "Vim: plugins and ftplugins"},
		{".emacs", false, "Emacs, at start-up"},
		{".emacs.d", false, "Emacs: init.el and packages"},
		{".config/emacs", false, "Emacs: init.el and packages"},
		{".envrc", true, "direnv, on entering the folder (once allowed)"},
	}
}

// autoRuns is the policy's table of auto-run places.
type autoRuns struct {
	top      [][]string // folded components of the patterns matched from the root
	anywhere patternSet // the patterns matched at any depth
	runs     map[string]string
	count    int
}

// newAutoRuns folds the table, leaving out the patterns in off (folded).
func newAutoRuns(off map[string]bool) (autoRuns, error) {
	a := autoRuns{runs: map[string]string{}}
	var anywhere []string
	for _, r := range AutoRuns() {
		f := fold(r.Pattern)
		if off[f] {
			continue
		}
		a.runs[f] = r.Runs
		a.count++
		if r.Anywhere {
			anywhere = append(anywhere, r.Pattern)
		} else {
			a.top = append(a.top, strings.Split(f, "/"))
		}
	}
	var err error
	a.anywhere, err = newPatternSet("auto-run pattern", anywhere)
	return a, err
}

// match returns the pattern a root-relative name falls under, or "": the name is the place or
// lies below it.
func (a *autoRuns) match(seq []string) string {
	for _, pat := range a.top {
		if len(pat) <= len(seq) && matchAll(pat, seq[:len(pat)]) {
			return strings.Join(pat, "/")
		}
	}
	for i := range seq {
		for _, rest := range a.anywhere.seqs[seq[i]] {
			if i+len(rest) < len(seq) && matchAll(rest, seq[i+1:i+1+len(rest)]) {
				return seq[i] + "/" + strings.Join(rest, "/")
			}
		}
		if a.anywhere.one(seq[i]) {
			return a.anywhereOne(seq[i])
		}
	}
	return ""
}

// anywhereOne returns the one-component pattern of the table that c matches.
func (a *autoRuns) anywhereOne(c string) string {
	for _, p := range a.anywhere.patterns {
		if !strings.Contains(p, "/") && matchAll([]string{p}, []string{c}) {
			return p
		}
	}
	return c
}

// below reports whether a folder written at the folded components seq may put a file in a place
// of the table that seq itself is not in: a pattern matched from the root that goes on below seq
// (a folder moved to .config puts files in .config/fish), or a pattern of several components
// matched anywhere whose first components end seq (a folder moved to .vscode puts its tasks.json
// in .vscode/tasks.json).
func (a *autoRuns) below(seq []string) bool {
	for _, pat := range a.top {
		if len(pat) > len(seq) && matchAll(pat[:len(seq)], seq) {
			return true
		}
	}
	for _, p := range a.anywhere.patterns {
		pat := strings.Split(p, "/")
		for k := 1; k < len(pat) && k <= len(seq); k++ {
			if matchAll(pat[:k], seq[len(seq)-k:]) {
				return true
			}
		}
	}
	return false
}

// CheckWrite judges a root-relative name that a write creates or replaces (create, update,
// append, edit, or the destination of a move or copy): it refuses, with [ErrAutoRun], a name that
// is or lies in an auto-run place ([AutoRuns]) the policy protects. Reads and deletes are not
// judged by it. The name is judged as it is; a caller that reached it through links judges the
// path it reached too.
func (p *Policy) CheckWrite(name string) error {
	seq := foldedSeq(name)
	if at := p.autoRuns.match(seq); at != "" {
		err := newPathError(name, RuleAutoRun, ErrAutoRun, at)
		err.reason = p.autoRuns.runs[at]
		return err
	}
	return nil
}

// HoldsAutoRun reports whether a folder written at the root-relative name dir (a folder moved or
// copied there) may put files in an auto-run place below it, so that its files must be judged
// one by one with [Policy.CheckWrite].
func (p *Policy) HoldsAutoRun(dir string) bool {
	return p.autoRuns.below(foldedSeq(dir))
}

// AutoRunCount returns how many auto-run places the policy protects from writes.
func (p *Policy) AutoRunCount() int { return p.autoRuns.count }

// foldedSeq returns the folded components of a root-relative name, without "." and empty ones.
func foldedSeq(name string) []string {
	var seq []string
	for c := range strings.SplitSeq(name, "/") {
		if c != "" && c != "." {
			seq = append(seq, fold(c))
		}
	}
	return seq
}

// autoRunMessage is the sentence of a refused write to an auto-run place.
func autoRunMessage(p, at, runs string) string {
	return fmt.Sprintf(`%s is in %q, where what is written runs by itself (%s): writing it is refused so that no call plants code the user's programs run later. Write elsewhere; the operator can allow it with --unblock %q`, p, at, runs, at)
}
