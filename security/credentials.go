package security

// CredentialStore is a file or folder where a common tool keeps credentials under a home folder,
// blocked by default ([DefaultBlockedPaths]). Pattern is a blocked pattern: path components in
// [path.Match] syntax, several of them matching consecutive components (".config/gh").
type CredentialStore struct {
	Pattern  string
	Protects string
}

// CredentialStores lists the credential stores of common tools on Linux, macOS and Windows, with
// what each protects, as the tools document where they keep them. It names what an agent should
// never see under a served home folder; it is not complete, and it is not the sandbox (os.Root
// is): it keeps known secrets out of the answers of a root that holds them.
func CredentialStores() []CredentialStore {
	return []CredentialStore{
		// Source hosting and git.
		{".config/gh", "GitHub CLI: the OAuth token in hosts.yml (Linux, macOS)"},
		{"GitHub CLI", "GitHub CLI on Windows: %AppData%\\GitHub CLI\\hosts.yml"},
		{".config/glab-cli", "GitLab CLI: the token in config.yml"},
		{".config/hub", "hub: the GitHub token"},
		{".config/git/credentials", "git's credential store in the XDG folder (beside ~/.git-credentials)"},
		// MCP hosts and AI tools, whose configs hold other servers' API keys in env.
		{"claude_desktop_config.json", "Claude Desktop: MCP servers and their env (Library/Application Support/Claude, %AppData%\\Claude, ~/.config/Claude)"},
		{".claude.json", "Claude Code: settings, MCP servers and their env"},
		{".credentials.json", "Claude Code: the login token in ~/.claude/.credentials.json (Linux, Windows)"},
		{".cursor/mcp.json", "Cursor: MCP servers and their env"},
		{".codeium/windsurf/mcp_config.json", "Windsurf: MCP servers and their env"},
		{"cline_mcp_settings.json", "Cline: MCP servers and their env"},
		{"Code/User/mcp.json", "VS Code: the user's MCP servers and their env"},
		// Cloud CLIs (~/.aws, ~/.azure, ~/.kube, ~/.docker are blocked as credential folders).
		{".config/gcloud", "Google Cloud CLI: credentials.db, access_tokens.db, application default credentials (Linux, macOS)"},
		{"AppData/Roaming/gcloud", "Google Cloud CLI on Windows"},
		{"application_default_credentials.json", "Google application default credentials, wherever they are kept"},
		{".boto", "gsutil: OAuth refresh token or HMAC keys"},
		{".s3cfg", "s3cmd: access and secret keys"},
		{"rclone.conf", "rclone: the tokens and keys of every remote"},
		{".config/doctl", "DigitalOcean CLI: the access token"},
		{".oci", "Oracle Cloud CLI: config and API signing keys"},
		{".databrickscfg", "Databricks CLI: tokens"},
		{".fly", "fly.io CLI: the access token in config.yml"},
		{".wrangler", "Cloudflare wrangler: the OAuth token"},
		// Infrastructure and packages.
		{".terraform.d", "Terraform: credentials.tfrc.json (Terraform Cloud tokens)"},
		{".terraformrc", "Terraform CLI config: credentials blocks (Linux, macOS)"},
		{"terraform.rc", "Terraform CLI config on Windows: credentials blocks"},
		{".cargo/credentials", "Cargo: crates.io token (before Rust 1.39's credentials.toml)"},
		{".cargo/credentials.toml", "Cargo: registry tokens"},
		{".gem/credentials", "RubyGems: the API key"},
		{".m2/settings.xml", "Maven: server passwords"},
		{"settings-security.xml", "Maven: the master password"},
		{".gradle/gradle.properties", "Gradle: repository and signing credentials"},
		{"nuget.config", "NuGet: feed passwords (ClearTextPassword)"},
		{".composer/auth.json", "Composer: repository tokens"},
		{".config/composer/auth.json", "Composer: repository tokens (XDG)"},
		{"pip.conf", "pip: index URLs with credentials (Linux, macOS)"},
		{"pip.ini", "pip on Windows: index URLs with credentials"},
		{".my.cnf", "MySQL client: the password"},
		// OS keyrings and keychains.
		{".local/share/keyrings", "GNOME Keyring"},
		{"kwalletd", "KDE Wallet"},
		{"Library/Keychains", "macOS Keychain"},
		{"Microsoft/Credentials", "Windows Credential Manager"},
		{"Microsoft/Protect", "Windows DPAPI master keys"},
		{"Microsoft/Vault", "Windows Vault"},
		// Browser profiles: saved passwords, cookies, sessions.
		{".mozilla", "Firefox and Thunderbird profiles (Linux)"},
		{"Mozilla/Firefox", "Firefox profiles (Windows)"},
		{"Application Support/Firefox", "Firefox profiles (macOS)"},
		{".config/google-chrome", "Chrome profile (Linux)"},
		{"Google/Chrome", "Chrome profile (macOS Application Support, Windows AppData\\Local)"},
		{".config/chromium", "Chromium profile (Linux)"},
		{"Application Support/Chromium", "Chromium profile (macOS)"},
		{"Chromium/User Data", "Chromium profile (Windows)"},
		{".config/microsoft-edge", "Edge profile (Linux)"},
		{"Application Support/Microsoft Edge", "Edge profile (macOS)"},
		{"Microsoft/Edge", "Edge profile (Windows)"},
		{"BraveSoftware", "Brave profile"},
		{"Library/Safari", "Safari history and data"},
		{"Library/Cookies", "macOS cookies"},
		// Password managers (~/.password-store and *.kdbx are blocked too).
		{".config/op", "1Password CLI"},
		{"Bitwarden CLI", "Bitwarden CLI data"},
		// Shell and REPL histories: commands typed with secrets in them.
		{".*_history", "bash, zsh, sh, Python, Node.js, psql, MySQL, SQLite, redis-cli and irb histories"},
		{".history", "a shell's history"},
		{"fish_history", "fish's history"},
		{"ConsoleHost_history.txt", "PowerShell's history (PSReadLine)"},
		{".lesshst", "less's search history"},
	}
}
