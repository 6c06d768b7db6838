package security

// CachePath is a folder where a tool keeps downloads or build output it can make again: noise to
// a search, and to an index most of its cost. Pattern is as a [CredentialStore]'s.
type CachePath struct {
	Pattern string
	Why     string
}

// DefaultCachePaths lists the dependency and build caches that listings, searches and the index
// leave out unless a call asks for them (options.includeIgnored), with why. A repository's own
// build output is left out by its .gitignore instead.
func DefaultCachePaths() []CachePath {
	return []CachePath{
		{".cache", "the XDG cache folder (Linux): go-build, pip, browsers' and other programs' caches"},
		{"Library/Caches", "macOS's cache folder"},
		{"AppData/Local/Temp", "Windows's temporary folder"},
		{"go/pkg/mod", "the Go module cache: every module downloaded, read-only"},
		{".cargo/registry", "Cargo's downloaded crates"},
		{".cargo/git", "Cargo's git checkouts of dependencies"},
		{".rustup", "Rust toolchains"},
		{".m2/repository", "Maven's downloaded artifacts"},
		{".gradle/caches", "Gradle's caches"},
		{".gradle/wrapper", "Gradle's downloaded distributions"},
		{".npm", "npm's cache"},
		{"npm-cache", "npm's cache on Windows"},
		{".pnpm-store", "pnpm's content-addressed store"},
		{".nuget/packages", "NuGet's downloaded packages"},
		{".nvm", "Node.js versions installed by nvm"},
		{".pyenv", "Python versions installed by pyenv"},
		{".rbenv", "Ruby versions installed by rbenv"},
		{".sdkman", "JDKs and tools installed by SDKMAN!"},
		{".conda", "conda's packages and environments"},
		{".venv", "a Python virtual environment"},
		{".virtualenvs", "virtualenvwrapper's environments"},
		{"site-packages", "installed Python packages"},
		{"__pycache__", "Python bytecode"},
		{".tox", "tox's environments"},
		{".mypy_cache", "mypy's cache"},
		{".pytest_cache", "pytest's cache"},
		{".ruff_cache", "ruff's cache"},
		{"Library/Developer/Xcode/DerivedData", "Xcode's build output"},
		{".Trash", "macOS's trash"},
		{".local/share/Trash", "the desktop trash (Linux)"},
	}
}
