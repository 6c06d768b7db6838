package intents

import (
	"reflect"
	"slices"
	"strings"
	"time"
)

// Access is the reader tool's intent: read a file, fetch its metadata, or
// check that it exists.
type Access struct {
	Purpose     string            `json:"purpose" validate:"required,oneof=read metadata exists history"`
	Target      AccessTarget      `json:"target" validate:"required"`
	Preferences AccessPreferences `json:"preferences,omitzero" purposes:"read"`
}

// MaxReadPaths is the most files one read names in target.reads: enough to compare a few notes or
// read a page and what it links to, while one answer stays within the reader's size cap.
const MaxReadPaths = 20

// AccessTarget names the file an [Access] intent is about: Path, or for a read of several files
// Reads ([Decode] takes a list of paths sent as target.paths as Reads of them); [Decode] checks
// that exactly one is given.
type AccessTarget struct {
	Path     string      `json:"path,omitempty" validate:"max=4096"`
	Reads    []ReadRange `json:"reads,omitempty" validate:"max=20,unique,dive" purposes:"read" jsonschema:"Several files, instead of path."`
	Encoding string      `json:"encoding,omitempty" validate:"omitempty,oneof=utf-8 utf8 base64 markdown" purposes:"read"`
}

// ReadRange is one file of a read of several ([AccessTarget].Reads) and the lines to read of it:
// an offset or limit left out is the read's preferences.offset or preferences.limit. One file may
// be named twice, to read two of its sections.
type ReadRange struct {
	Path   string `json:"path" validate:"required,max=4096"`
	Offset int    `json:"offset,omitempty" validate:"min=0"`
	Limit  int    `json:"limit,omitempty" validate:"min=0,max=100000"`
}

// AccessPreferences tunes how an [Access] read returns content. The zero
// value reads the whole file as text, up to the server's size limit.
type AccessPreferences struct {
	IncludeMetadata bool  `json:"includeMetadata,omitempty"`
	MaxSizeBytes    int64 `json:"maxSizeBytes,omitempty" validate:"min=0"`
	ChunkIfLarge    bool  `json:"chunkIfLarge,omitempty"`
	Offset          int   `json:"offset,omitempty" validate:"min=0" jsonschema:"First line (0), or a nextOffset."`
	Limit           int   `json:"limit,omitempty" validate:"min=0,max=100000" jsonschema:"Lines."`
	Page            int   `json:"page,omitempty" validate:"min=0,max=100000" jsonschema:"Document page (slide, sheet) to start at."`
}

// Discover is the searcher tool's intent: list a directory or search file
// contents by text or by meaning.
type Discover struct {
	Purpose string          `json:"purpose" validate:"required,oneof=list search_content search_semantic relationships"`
	Target  DiscoverTarget  `json:"target"`
	Options DiscoverOptions `json:"options,omitzero" purposes:"list search_content search_semantic relationships"`
	Queries []string        `json:"queries,omitempty" validate:"max=8,dive,max=1000" purposes:"search_semantic" jsonschema:"Other phrasings in the documents' likely words (names, synonyms)."`
}

// DiscoverTarget says where a [Discover] intent looks and what it looks for.
// Query is required for search_content and search_semantic; [Decode] checks
// that.
type DiscoverTarget struct {
	Path     string    `json:"path" validate:"max=4096"`
	Paths    []string  `json:"paths,omitempty" validate:"max=20,unique,dive,required,max=4096" purposes:"relationships" jsonschema:"Several documents, instead of path."`
	Query    string    `json:"query,omitempty" validate:"max=1000" purposes:"search_content search_semantic" required:"send the text to search for"`
	Criteria *Criteria `json:"criteria,omitempty" purposes:"list search_content search_semantic"`
}

// Criteria filters the files a [Discover] intent returns. A zero field does
// not filter.
type Criteria struct {
	Content   string     `json:"content,omitempty" validate:"max=1000" purposes:"list search_content"`
	Extension []string   `json:"extension,omitempty" validate:"max=50,dive,max=32"`
	Name      string     `json:"name,omitempty" validate:"max=256" jsonschema:"Base-name glob; {tar,zip}.md for several, {*.go,!*_test.go} to leave some out."`
	Modified  *TimeRange `json:"modified,omitempty"`
	SizeBytes *SizeRange `json:"sizeBytes,omitempty"`
	Tags      []string   `json:"tags,omitempty" validate:"max=20,dive,max=100" purposes:"search_semantic" jsonschema:"Frontmatter tags."`
}

// TimeRange is a range of modification times. A nil bound is open.
type TimeRange struct {
	After  *time.Time `json:"after,omitempty"`
	Before *time.Time `json:"before,omitempty"`
}

// SizeRange is a range of file sizes in bytes. A nil bound is open.
type SizeRange struct {
	Min *int64 `json:"min,omitempty" validate:"omitempty,min=0"`
	Max *int64 `json:"max,omitempty" validate:"omitempty,min=0"`
}

// MaxResults is the most results one list or search may ask for (options.maxResults), which bounds
// the work of one call; a call across roots asks each root for at most this many, so that each
// root's own call is valid too.
const MaxResults = 10_000

// DiscoverOptions tunes a [Discover] intent. The zero value lists
// target.path itself, not its subdirectories, searches the whole tree below
// it (see [Discover.Depth]), and returns the server's default number of
// results.
type DiscoverOptions struct {
	// Recursive is a pointer so that an explicit false, which narrows a search, differs from
	// leaving it out.
	Recursive           *bool `json:"recursive,omitempty" purposes:"list search_content search_semantic" trueFor:"search_content search_semantic" jsonschema:"Default: true for searches, false for list."`
	MaxDepth            int   `json:"maxDepth,omitempty" validate:"min=0,max=1000" purposes:"list search_content search_semantic"`
	MaxResults          int   `json:"maxResults,omitempty" validate:"min=0,max=10000" purposes:"list search_content search_semantic"`
	Offset              int   `json:"offset,omitempty" validate:"min=0"`
	IncludeModified     bool  `json:"includeModified,omitempty" purposes:"list search_content"`
	IncludeContent      bool  `json:"includeContent,omitempty" purposes:"search_content search_semantic"`
	FollowRelationships bool  `json:"followRelationships,omitempty" purposes:"search_semantic" jsonschema:"Adds documents one link away."`
	FilesOnly           bool  `json:"filesOnly,omitempty" purposes:"search_content" jsonschema:"Paths and matchCount only."`
	Regex               bool  `json:"regex,omitempty" purposes:"search_content" jsonschema:"RE2 on each line (^ $: its ends), any case unless caseSensitive."`
	CaseSensitive       bool  `json:"caseSensitive,omitempty" purposes:"search_content"`
	ContextLines        int   `json:"contextLines,omitempty" validate:"min=0,max=10" purposes:"search_content"`
	IncludeIgnored      bool  `json:"includeIgnored,omitempty" purposes:"list search_content" jsonschema:"Also .gitignored files and caches."`
}

// Recursive reports whether d looks below the entries directly in target.path: options.recursive
// when it is set, else true for the purposes its trueFor tag names (search_content and
// search_semantic, which have always searched the whole tree) and false for list.
func (d *Discover) Recursive() bool {
	if r := d.Options.Recursive; r != nil {
		return *r
	}
	return slices.Contains(recursiveFor, d.Purpose)
}

// recursiveFor is the purposes for which options.recursive left out means true: its trueFor tag.
var recursiveFor = func() []string {
	f, _ := reflect.TypeFor[DiscoverOptions]().FieldByName("Recursive")
	return strings.Fields(f.Tag.Get("trueFor"))
}()

// Depth is how many directory levels below target.path d looks at: 1 for the entries directly in
// it, options.maxDepth for a recursive call, where 0 means no limit.
func (d *Discover) Depth() int {
	if !d.Recursive() {
		return 1
	}
	return d.Options.MaxDepth
}

// Update is the writer tool's intent: create, change, delete, move or copy
// a file or directory. Which fields are required depends on Purpose; [Decode]
// checks that.
type Update struct {
	Purpose string        `json:"purpose" validate:"required,oneof=create update append delete edit move copy mkdir restore"`
	Target  UpdateTarget  `json:"target" validate:"required"`
	Content *string       `json:"content,omitempty" purposes:"create update append" required:"send the text to write (it may be empty)"`
	Edits   []Edit        `json:"edits,omitempty" validate:"max=100,dive" purposes:"edit" required:"send at least one {\"oldText\": ..., \"newText\": ...}" jsonschema:"In order, all or none; an edit's path names another file."`
	Options UpdateOptions `json:"options,omitzero"`
}

// UpdateTarget names what an [Update] intent changes: Path, or for a move of several files Paths,
// [Decode] checks that exactly one is given. Destination is required for move and copy.
type UpdateTarget struct {
	Path        string     `json:"path,omitempty" validate:"max=4096"`
	Paths       []string   `json:"paths,omitempty" validate:"max=20,unique,dive,required,max=4096" purposes:"move" jsonschema:"Instead of path: into the folder destination."`
	Moves       []MovePair `json:"moves,omitempty" validate:"max=20,dive" purposes:"move" jsonschema:"Instead of path: each to its destination."`
	Destination string     `json:"destination,omitempty" validate:"max=4096" purposes:"move copy" jsonschema:"Required, unless moves."`
	Call        string     `json:"call,omitempty" validate:"max=64" purposes:"restore" jsonschema:"Undoes a call history listed, instead of path."`
	Version     string     `json:"version,omitempty" validate:"max=16" purposes:"update append edit delete move restore" jsonschema:"From a read: CONFLICT if the file changed since. restore: one history lists (default: last)."`
}

// MovePair is one file or folder of a move of several to new paths ([UpdateTarget].Moves), and
// where it goes.
type MovePair struct {
	Path        string `json:"path" validate:"required,max=4096"`
	Destination string `json:"destination" validate:"required,max=4096"`
}

// MaxEdits is the most replacements one edit makes (content's edits): a model that has more to
// change in a file rewrites it with update.
const MaxEdits = 100

// MaxEditFiles is the most files one edit changes: as many as one read returns ([MaxReadPaths]),
// so that the files a read compared can be edited together, while the answer's diffs stay readable.
const MaxEditFiles = MaxReadPaths

// Edit is one exact-text replacement of an [Update] edit, in target.path or in the file Path names.
type Edit struct {
	OldText    string `json:"oldText" validate:"required" jsonschema:"Exact; once unless replaceAll."`
	NewText    string `json:"newText"`
	ReplaceAll bool   `json:"replaceAll,omitempty"`
	Path       string `json:"path,omitempty" validate:"max=4096"`
	Version    string `json:"version,omitempty" validate:"max=16"`
}

// UpdateOptions tunes an [Update] intent. The zero value writes atomically,
// refuses to create missing parent directories, to delete or copy non-empty
// directories and to overwrite on move or copy.
type UpdateOptions struct {
	CreatePath            bool  `json:"createPath,omitempty" purposes:"create append move copy restore" jsonschema:"Makes parents."`
	Atomic                *bool `json:"atomic,omitempty" schema:"-"`
	PreserveRelationships bool  `json:"preserveRelationships,omitempty" purposes:"move" jsonschema:"Rewrites links to what moves and checks them, in a dry run too."`
	Recursive             bool  `json:"recursive,omitempty" purposes:"delete copy" jsonschema:"A full folder."`
	Overwrite             bool  `json:"overwrite,omitempty" purposes:"move copy restore"`
	DryRun                bool  `json:"dryRun,omitempty" purposes:"edit move copy" jsonschema:"Answers what would change."`

	// LinkText "" is "keep"; Decode refuses it without PreserveRelationships.
	LinkText string `json:"linkText,omitempty" validate:"omitempty,oneof=keep target" purposes:"move" jsonschema:"A renamed note's wiki link: keep [[New|Old]], target [[New]]."`
}
