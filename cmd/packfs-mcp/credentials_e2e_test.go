package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/security"
)

// credentialSamples is where each credential store's secret lies under a home folder: a file each
// CredentialStores pattern blocks, as the tool that owns it writes it.
var credentialSamples = map[string]string{
	".config/gh":                           ".config/gh/hosts.yml",
	"GitHub CLI":                           "AppData/Roaming/GitHub CLI/hosts.yml",
	".config/glab-cli":                     ".config/glab-cli/config.yml",
	".config/hub":                          ".config/hub",
	".config/git/credentials":              ".config/git/credentials",
	"claude_desktop_config.json":           "Library/Application Support/Claude/claude_desktop_config.json",
	".claude.json":                         ".claude.json",
	".credentials.json":                    ".claude/.credentials.json",
	".cursor/mcp.json":                     ".cursor/mcp.json",
	".codeium/windsurf/mcp_config.json":    ".codeium/windsurf/mcp_config.json",
	"cline_mcp_settings.json":              ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
	"Code/User/mcp.json":                   ".config/Code/User/mcp.json",
	".config/gcloud":                       ".config/gcloud/credentials.db",
	"AppData/Roaming/gcloud":               "AppData/Roaming/gcloud/access_tokens.db",
	"application_default_credentials.json": "work/application_default_credentials.json",
	".boto":                                ".boto",
	".s3cfg":                               ".s3cfg",
	"rclone.conf":                          ".config/rclone/rclone.conf",
	".config/doctl":                        ".config/doctl/config.yaml",
	".oci":                                 ".oci/config",
	".databrickscfg":                       ".databrickscfg",
	".fly":                                 ".fly/config.yml",
	".wrangler":                            ".wrangler/config/default.toml",
	".terraform.d":                         ".terraform.d/credentials.tfrc.json",
	".terraformrc":                         ".terraformrc",
	"terraform.rc":                         "AppData/Roaming/terraform.rc",
	".cargo/credentials":                   ".cargo/credentials",
	".cargo/credentials.toml":              ".cargo/credentials.toml",
	".gem/credentials":                     ".gem/credentials",
	".m2/settings.xml":                     ".m2/settings.xml",
	"settings-security.xml":                ".m2/settings-security.xml",
	".gradle/gradle.properties":            ".gradle/gradle.properties",
	"nuget.config":                         ".nuget/NuGet/NuGet.Config",
	".composer/auth.json":                  ".composer/auth.json",
	".config/composer/auth.json":           ".config/composer/auth.json",
	"pip.conf":                             ".config/pip/pip.conf",
	"pip.ini":                              "AppData/Roaming/pip/pip.ini",
	".my.cnf":                              ".my.cnf",
	".local/share/keyrings":                ".local/share/keyrings/login.keyring",
	"kwalletd":                             ".local/share/kwalletd/kdewallet.kwl",
	"Library/Keychains":                    "Library/Keychains/login.keychain-db",
	"Microsoft/Credentials":                "AppData/Roaming/Microsoft/Credentials/DFBE70A7E5CC19A398EBF1B96859CE5D",
	"Microsoft/Protect":                    "AppData/Roaming/Microsoft/Protect/CREDHIST",
	"Microsoft/Vault":                      "AppData/Local/Microsoft/Vault/4BF4C442-9B8A-41A0-B380-DD4A704DDB28/Policy.vpol",
	".mozilla":                             ".mozilla/firefox/abc.default/logins.json",
	"Mozilla/Firefox":                      "AppData/Roaming/Mozilla/Firefox/Profiles/abc.default/logins.json",
	"Application Support/Firefox":          "Library/Application Support/Firefox/Profiles/abc.default/logins.json",
	".config/google-chrome":                ".config/google-chrome/Default/Login Data",
	"Google/Chrome":                        "Library/Application Support/Google/Chrome/Default/Cookies",
	".config/chromium":                     ".config/chromium/Default/Cookies",
	"Application Support/Chromium":         "Library/Application Support/Chromium/Default/Cookies",
	"Chromium/User Data":                   "AppData/Local/Chromium/User Data/Default/Cookies",
	".config/microsoft-edge":               ".config/microsoft-edge/Default/Cookies",
	"Application Support/Microsoft Edge":   "Library/Application Support/Microsoft Edge/Default/Cookies",
	"Microsoft/Edge":                       "AppData/Local/Microsoft/Edge/User Data/Default/Login Data",
	"BraveSoftware":                        ".config/BraveSoftware/Brave-Browser/Default/Cookies",
	"Library/Safari":                       "Library/Safari/History.db",
	"Library/Cookies":                      "Library/Cookies/Cookies.binarycookies",
	".config/op":                           ".config/op/config",
	"Bitwarden CLI":                        ".config/Bitwarden CLI/data.json",
	".*_history":                           ".bash_history",
	".history":                             ".history",
	"fish_history":                         ".local/share/fish/fish_history",
	"ConsoleHost_history.txt":              "AppData/Roaming/Microsoft/Windows/PowerShell/PSReadLine/ConsoleHost_history.txt",
	".lesshst":                             ".lesshst",
}

// fakeToken is the secret every sample holds; no answer may carry it.
const fakeToken = "gho_FAKEtoken0123456789abcdefCREDENTIAL"

// TestCredentialStores serves a home folder holding a fake secret in every credential store the
// defaults block, with the default flags and --allow-extensions * (so that no file is kept out by
// its type alone), through the binary: no store is read, listed, found by a content search or
// offered as a resource, while a note beside them is.
func TestCredentialStores(t *testing.T) {
	f := newFixture(t)
	home := filepath.Join(f.dir, "home")
	for _, c := range security.CredentialStores() {
		sample, ok := credentialSamples[c.Pattern]
		if !ok {
			t.Errorf("credential store %q (%s) has no sample path in credentialSamples", c.Pattern, c.Protects)
			continue
		}
		p := filepath.Join(home, filepath.FromSlash(sample))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("token: "+fakeToken+"\n"), 0o600))
	}
	must(t, os.WriteFile(filepath.Join(home, "note.md"), []byte("# Note\n"+strings.Repeat("plain words ", 3)+"\n"), 0o644))
	f.root = home
	s := start(t, f, nil, "--allowed-extensions", "*", "--no-index")
	for pattern, sample := range credentialSamples {
		if res, _ := s.call(reader, access("read", sample)); res["code"] != "PATH_BLOCKED" {
			t.Errorf("read %s (%s): %v, want PATH_BLOCKED", sample, pattern, res)
		}
	}
	if res, _ := s.call(reader, access("read", "note.md")); res["success"] != true {
		t.Errorf("read note.md: %v", res)
	}
	list, _ := s.call(searcher, intent("list", ".", map[string]any{"options": map[string]any{"recursive": true, "maxResults": 1000}}))
	found, _ := s.call(searcher, intent("search_content", ".", map[string]any{"query": "gho_FAKE"}))
	for what, res := range map[string]map[string]any{"list": list, "search_content": found} {
		if res["success"] != true {
			t.Fatalf("%s: %v", what, res)
		}
	}
	if n, _ := found["totalFound"].(float64); n != 0 {
		t.Errorf("search_content found the fake secret %v times: %v", n, found)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resources, err := s.c.ListResources(ctx, mcp.ListResourcesRequest{})
	must(t, err)
	var offered []string
	for _, r := range resources.Resources {
		u, err := url.PathUnescape(r.URI)
		must(t, err)
		offered = append(offered, u)
	}
	answers, err := json.Marshal([]any{list, found})
	must(t, err)
	listed := string(answers) + strings.Join(offered, "\n")
	for pattern, sample := range credentialSamples {
		if strings.Contains(listed, sample) {
			t.Errorf("%s (%s) is listed or offered as a resource", sample, pattern)
		}
	}
	if strings.Contains(strings.Join(s.seen, "\n"), fakeToken) {
		t.Error("an answer carries the fake secret")
	}
	if !strings.Contains(listed, "note.md") {
		t.Errorf("note.md is not listed:\n%v", list)
	}
}
