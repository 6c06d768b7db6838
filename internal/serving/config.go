package serving

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/packfs/packfs-mcp/fulltext"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/progress"
)

// Config is the server's configuration, with the names of the PackFS PackfsToolConfig. It is read
// from an optional JSON or YAML file; flags override it.
type Config struct {
	// RootPath is a folder to serve. With Roots, it is served beside them, named after its folder.
	// If it and Roots are empty, serve serves the folders its client offers as MCP roots.
	RootPath string `json:"rootPath,omitempty" yaml:"rootPath"`
	// Roots are folders to serve, each under its name (see [RootConfig]).
	Roots []RootConfig `json:"roots,omitempty" yaml:"roots" validate:"omitempty,dive"`
	// ClientRootsWithin, when set, are the folders the clients' MCP roots must lie in; a root
	// outside them is refused. Serving the clients' roots over HTTP needs it: an HTTP client
	// names folders on this machine, not its own.
	ClientRootsWithin []string `json:"clientRootsWithin,omitempty" yaml:"clientRootsWithin"`

	Permissions []string       `json:"permissions,omitempty" yaml:"permissions" validate:"omitempty,dive,oneof=read write search list"`
	Security    SecurityConfig `json:"security" yaml:"security"`
	Semantic    SemanticConfig `json:"semantic" yaml:"semantic"`
	// BackupDir is the old name of HistoryDir, read when HistoryDir is empty: the history does
	// what options.backup did, for every change.
	BackupDir string `json:"backupDir,omitempty" yaml:"backupDir"`
	// HistoryDir is where what the tools' changes replace is kept, so they can be undone; it must
	// lie outside the root. If empty, a folder in the user's data directory keyed by the root.
	HistoryDir string `json:"historyDir,omitempty" yaml:"historyDir"`
	// NoHistory keeps no history: changes made through the tools are final.
	NoHistory bool `json:"noHistory,omitempty" yaml:"noHistory"`
	// HistoryDays is how many days of changes the history keeps. If zero, 7.
	HistoryDays int `json:"historyDays,omitempty" yaml:"historyDays" validate:"min=0,max=3650"`
	// HistoryMaxBytes bounds what the history of one root takes, the oldest changes going first.
	// If zero, 1 GiB.
	HistoryMaxBytes int64 `json:"historyMaxBytes,omitempty" yaml:"historyMaxBytes" validate:"min=0"`
	// TimeoutMs bounds each tool call. If zero, tools.DefaultTimeout.
	TimeoutMs int `json:"timeoutMs,omitempty" yaml:"timeoutMs" validate:"min=0,max=3600000"`
	// ReadOnly removes the write permission whatever Permissions says.
	ReadOnly bool `json:"readOnly,omitempty" yaml:"readOnly"`
	// DisabledTools names tools not to offer.
	DisabledTools []string      `json:"disabledTools,omitempty" yaml:"disabledTools" validate:"omitempty,dive,oneof=packfs-file-reader packfs-file-searcher packfs-file-writer"`
	Journal       JournalConfig `json:"journal" yaml:"journal"`
	HTTP          HTTPConfig    `json:"http" yaml:"http"`

	// progress, when set, receives the progress of long tool calls (the call subcommand prints it).
	progress func(progress.Report)
	// inspect says the server is built to be described (doctor): it makes no folder of its own.
	inspect bool
}

// RootConfig is one folder to serve. With several roots, a path's first element is the name of
// its root ("notes/todo.md"); with one, paths are relative to it and the name is not used.
type RootConfig struct {
	// Name is the root's name. If empty, its folder's name, made valid (tools.ValidRootName).
	Name string `json:"name,omitempty" yaml:"name"`
	// Path is the folder.
	Path string `json:"path" yaml:"path" validate:"required"`
}

// JournalConfig sets the audit journal: one JSON line per tool call, appended to a file outside the root.
type JournalConfig struct {
	// File is the journal's path. If empty, no journal is kept.
	File string `json:"file,omitempty" yaml:"file"`
	// MaxContentBytes caps each file content recorded in the journal. If zero,
	// [audit.DefaultMaxContentBytes]; -1 records none.
	MaxContentBytes int `json:"maxContentBytes,omitempty" yaml:"maxContentBytes" validate:"min=-1,max=104857600"`
}

// HTTPConfig sets the streamable HTTP transport, used instead of stdio when Addr is set.
type HTTPConfig struct {
	// Addr is the address to listen on, such as 127.0.0.1:8080.
	Addr string `json:"addr,omitempty" yaml:"addr"`
	// TokenFile holds the bearer token clients must send; if empty, the PACKFS_MCP_TOKEN environment
	// variable does. A token is required unless Addr is a loopback address.
	TokenFile string `json:"tokenFile,omitempty" yaml:"tokenFile"`
	// AllowedOrigins are the Origin header values accepted besides loopback ones.
	AllowedOrigins []string `json:"allowedOrigins,omitempty" yaml:"allowedOrigins" validate:"omitempty,dive,min=1,max=255"`
	// ClientRateLimit is how many HTTP requests one client (token or address) may make per minute.
	// If zero, [security.DefaultClientRequests].
	ClientRateLimit int `json:"clientRateLimit,omitempty" yaml:"clientRateLimit" validate:"min=0,max=1000000"`
}

// SecurityConfig is the policy part of [Config].
type SecurityConfig struct {
	// MaxFileSize is the largest file read or written, in bytes. If zero, [fsroot.DefaultMaxFileSize].
	MaxFileSize int64 `json:"maxFileSize,omitempty" yaml:"maxFileSize" validate:"min=0,max=1073741824"`
	// MaxRequestBytes caps a message a client sends, a line on stdio or a request body over HTTP.
	// If zero, [DefaultMaxRequestBytes].
	MaxRequestBytes int64 `json:"maxRequestBytes,omitempty" yaml:"maxRequestBytes" validate:"min=0,max=1073741824"`
	// AllowedExtensions replaces the default list; AddExtensions adds to it (or to the defaults).
	AllowedExtensions []string `json:"allowedExtensions,omitempty" yaml:"allowedExtensions" validate:"omitempty,dive,min=1,max=32"`
	AddExtensions     []string `json:"addExtensions,omitempty" yaml:"addExtensions" validate:"omitempty,dive,min=1,max=32"`
	// BlockedPaths are blocked besides the defaults; Unblock and NoDefaultBlocked take defaults off.
	BlockedPaths     []string        `json:"blockedPaths,omitempty" yaml:"blockedPaths" validate:"omitempty,dive,min=1,max=255"`
	Unblock          []string        `json:"unblock,omitempty" yaml:"unblock" validate:"omitempty,dive,min=1,max=255"`
	NoDefaultBlocked bool            `json:"noDefaultBlocked,omitempty" yaml:"noDefaultBlocked"`
	AllowHardLinks   bool            `json:"allowHardLinks,omitempty" yaml:"allowHardLinks"`
	RateLimiting     RateLimitConfig `json:"rateLimiting" yaml:"rateLimiting"`
}

// RateLimitConfig sets the rate limiter: MaxRequests per WindowMs overall, half that per tool.
type RateLimitConfig struct {
	MaxRequests int `json:"maxRequests,omitempty" yaml:"maxRequests" validate:"min=0,max=1000000"`
	WindowMs    int `json:"windowMs,omitempty" yaml:"windowMs" validate:"min=0,max=86400000"`
}

// SemanticConfig sets the search index, as in the PackFS configuration.
type SemanticConfig struct {
	// ChunkSize is the most characters of one indexed unit; longer sections are split. If zero, 2000.
	ChunkSize int `json:"chunkSize,omitempty" yaml:"chunkSize" validate:"min=0,max=100000"`
	// OverlapSize is how many characters consecutive chunks share. If zero, 200.
	OverlapSize int `json:"overlapSize,omitempty" yaml:"overlapSize" validate:"min=0,max=100000"`
	// RelevanceThreshold drops hits scoring below it, the best hit scoring 1. If zero, none are dropped.
	RelevanceThreshold float64 `json:"relevanceThreshold,omitempty" yaml:"relevanceThreshold" validate:"min=0,max=1"`
	// IndexDir is where the index persists. If empty, a folder in the user's cache directory keyed by
	// the root. It must lie outside the root.
	IndexDir string `json:"indexDir,omitempty" yaml:"indexDir"`
	// Disabled turns the index off: search_semantic and relationships answer NOT_AVAILABLE.
	Disabled bool `json:"disabled,omitempty" yaml:"disabled"`
	// ReconcileMs is how often changes made by other programs are picked up. If zero,
	// [defaultReconcile].
	ReconcileMs int `json:"reconcileMs,omitempty" yaml:"reconcileMs" validate:"min=0,max=86400000"`
}

// Validate checks c and names the setting and the rule of the first problem, in the config file's
// own names (security.rateLimiting.maxRequests).
func (c Config) Validate() error {
	err := intents.Validate(&c)
	var fe *intents.FieldError
	if err != nil && !errors.As(err, &fe) {
		return err
	}
	if err != nil {
		return fmt.Errorf("setting %s", fe.Message)
	}
	if chunk, overlap := cmp.Or(c.Semantic.ChunkSize, fulltext.DefaultChunkSize), cmp.Or(c.Semantic.OverlapSize, fulltext.DefaultOverlapSize); overlap >= chunk {
		return fmt.Errorf("setting semantic.overlapSize (%d) must be smaller than semantic.chunkSize (%d): consecutive chunks share the overlap, so it cannot fill one; with these the index cannot be built and ranked search is off", overlap, chunk)
	}
	if len(c.ClientRootsWithin) > 0 && c.RequireRoot() == nil {
		return errors.New("--client-roots-within (clientRootsWithin) bounds the folders clients offer as MCP roots, " +
			"which are not served when the server has folders of its own (--root, rootPath or roots): leave one or the other out")
	}
	_, err = c.rootSpecs()
	return err
}

// RequireRoot reports the error of a configuration that names no folder, for the commands that
// have no client to offer one (call, doctor).
func (c Config) RequireRoot() error {
	if c.RootPath == "" && len(c.Roots) == 0 {
		return errors.New("no root: pass --root DIR, or set rootPath in the config file")
	}
	return nil
}

func (c Config) timeout() time.Duration { return time.Duration(c.TimeoutMs) * time.Millisecond }
