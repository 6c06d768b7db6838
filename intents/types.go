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
	Purpose     string            `json:"purpose" validate:"required,oneof=read metadata exists" jsonschema:"What to do: read returns the file's content, metadata returns its size, times and type without the content, exists reports whether the path exists."`
	Target      AccessTarget      `json:"target" validate:"required" jsonschema:"The file to access: target.path, or for a read of several files target.paths."`
	Preferences AccessPreferences `json:"preferences,omitzero" purposes:"read" jsonschema:"Optional settings for reading the content."`
}

// MaxReadPaths is the most files one read names in target.paths: enough to compare a few notes or
// read a page and what it links to, while one answer stays within the reader's size cap.
const MaxReadPaths = 20

// AccessTarget names the file an [Access] intent is about: Path, or for a read of several files
// Paths; [Decode] checks that exactly one is given.
type AccessTarget struct {
	Path     string   `json:"path,omitempty" validate:"max=4096" jsonschema:"Path of the file, relative to the sandbox root, e.g. docs/readme.md. Required, unless target.paths names the files to read."`
	Paths    []string `json:"paths,omitempty" validate:"max=20,unique,dive,required,max=4096" purposes:"read" jsonschema:"Up to 20 files to read in one call, instead of target.path; the answer's files hold one entry per path, in this order, each with its own success or error, read under the same rules and preferences as a single read."`
	Encoding string   `json:"encoding,omitempty" validate:"omitempty,oneof=utf-8 utf8 base64" purposes:"read" jsonschema:"How to return the content: utf-8 (the default) returns text, base64 returns the raw bytes base64-encoded, for binary files."`
}

// AccessPreferences tunes how an [Access] read returns content. The zero
// value reads the whole file as text, up to the server's size limit.
type AccessPreferences struct {
	IncludeMetadata bool  `json:"includeMetadata,omitempty" jsonschema:"Also return the file's size, modification time and type with the content. Default false."`
	MaxSizeBytes    int64 `json:"maxSizeBytes,omitempty" validate:"min=0" jsonschema:"Refuse files larger than this many bytes with the error code TOO_LARGE. Default 0 means the server's limit."`
	ChunkIfLarge    bool  `json:"chunkIfLarge,omitempty" jsonschema:"Return a large text file in smaller parts; the result carries nextOffset to pass as offset in the next call. Not with target.encoding base64. Default false."`
	Offset          int   `json:"offset,omitempty" validate:"min=0" jsonschema:"First line to return, counting from 0. Not with target.encoding base64. Default 0."`
	Limit           int   `json:"limit,omitempty" validate:"min=0,max=100000" jsonschema:"Number of lines to return. Not with target.encoding base64. Default 0 means all lines, up to the size of one answer (smaller with chunkIfLarge)."`
}

// Discover is the searcher tool's intent: list a directory or search file
// contents by text or by meaning.
type Discover struct {
	Purpose string          `json:"purpose" validate:"required,oneof=list search_content search_semantic relationships" jsonschema:"What to do: list lists the files under target.path; search_content finds the lines containing target.query (literal or regex); search_semantic ranks documents under target.path for target.query with full-text search (BM25) over sections, titles, headings, tags and aliases, without neural embeddings; relationships describes the document at target.path: its outline, links, backlinks, broken links, tags and frontmatter relations; for the documents in target.paths, or in a folder at target.path, each one's links, backlinks and broken links."`
	Target  DiscoverTarget  `json:"target" jsonschema:"Where to look and what to look for."`
	Options DiscoverOptions `json:"options,omitzero" purposes:"list search_content search_semantic relationships" jsonschema:"Optional settings for the listing or search."`
	Queries []string        `json:"queries,omitempty" validate:"max=8,dive,max=1000" purposes:"search_semantic" jsonschema:"Up to 8 other phrasings of target.query, searched too and fused by rank. The search matches words, not meaning: use the words the documents themselves would likely use (names of features or commands, technical terms, synonyms of the asker's words). Default none."`
}

// DiscoverTarget says where a [Discover] intent looks and what it looks for.
// Query is required for search_content and search_semantic; [Decode] checks
// that.
type DiscoverTarget struct {
	Path     string    `json:"path" validate:"max=4096" jsonschema:"Directory to list or search, relative to the sandbox root. Default empty, which (like \".\") means the root."`
	Paths    []string  `json:"paths,omitempty" validate:"max=20,unique,dive,required,max=4096" purposes:"relationships" jsonschema:"Up to 20 documents to describe in one call, instead of target.path; the answer's documents hold one entry per path, in this order, each with its own success or error. Default none."`
	Query    string    `json:"query,omitempty" validate:"max=1000" purposes:"search_content search_semantic" required:"send the text to search for" jsonschema:"Text to search for; required."`
	Criteria *Criteria `json:"criteria,omitempty" purposes:"list search_content search_semantic" jsonschema:"Optional filters; only files matching all of them are returned."`
}

// Criteria filters the files a [Discover] intent returns. A zero field does
// not filter.
type Criteria struct {
	Content   string     `json:"content,omitempty" validate:"max=1000" purposes:"list search_content" jsonschema:"Keep only files containing this text, ignoring case."`
	Extension []string   `json:"extension,omitempty" validate:"max=50,dive,max=32" jsonschema:"Keep only files with one of these extensions, e.g. [\"md\", \"txt\"]."`
	Name      string     `json:"name,omitempty" validate:"max=256" jsonschema:"Keep only files whose base name matches this glob, ignoring case: * and ? wildcards, {a,b} alternatives, e.g. *.md or {tar,zip,7z}.md for several names in one call."`
	Modified  *TimeRange `json:"modified,omitempty" jsonschema:"Keep only files last modified within this time range."`
	SizeBytes *SizeRange `json:"sizeBytes,omitempty" jsonschema:"Keep only files whose size in bytes is within this range."`
	Tags      []string   `json:"tags,omitempty" validate:"max=20,dive,max=100" purposes:"search_semantic" jsonschema:"Keep only documents carrying every one of these frontmatter tags."`
}

// TimeRange is a range of modification times. A nil bound is open.
type TimeRange struct {
	After  *time.Time `json:"after,omitempty" jsonschema:"Keep only files modified after this time, in RFC 3339 form such as 2025-01-31T00:00:00Z."`
	Before *time.Time `json:"before,omitempty" jsonschema:"Keep only files modified before this time, in RFC 3339 form such as 2025-01-31T00:00:00Z."`
}

// SizeRange is a range of file sizes in bytes. A nil bound is open.
type SizeRange struct {
	Min *int64 `json:"min,omitempty" validate:"omitempty,min=0" jsonschema:"Keep only files of at least this many bytes."`
	Max *int64 `json:"max,omitempty" validate:"omitempty,min=0" jsonschema:"Keep only files of at most this many bytes."`
}

// DiscoverOptions tunes a [Discover] intent. The zero value lists
// target.path itself, not its subdirectories, searches the whole tree below
// it (see [Discover.Depth]), and returns the server's default number of
// results.
type DiscoverOptions struct {
	// Recursive is a pointer so that an explicit false, which narrows a search, differs from
	// leaving it out.
	Recursive           *bool `json:"recursive,omitempty" purposes:"list search_content search_semantic" trueFor:"search_content search_semantic" jsonschema:"Whether to look inside subdirectories. For list the default is false: only the entries directly in target.path. For search_content and search_semantic the default is true: the whole tree below target.path; false searches only the files directly in it."`
	MaxDepth            int   `json:"maxDepth,omitempty" validate:"min=0,max=1000" purposes:"list search_content search_semantic" jsonschema:"How many directory levels below target.path a recursive listing or search goes; 1 means only the entries directly in it. Refused when the call is not recursive (for list, unless recursive is true). Default 0 means no limit."`
	MaxResults          int   `json:"maxResults,omitempty" validate:"min=0,max=10000" purposes:"list search_content search_semantic" jsonschema:"Most results to return. Default 0 means the server's default."`
	Offset              int   `json:"offset,omitempty" validate:"min=0" jsonschema:"Skip this many results (for relationships, documents of target.paths or of a folder); to get the next page, pass the nextOffset of the previous result. Default 0."`
	IncludeModified     bool  `json:"includeModified,omitempty" purposes:"list search_content" jsonschema:"Also return each entry's last modification time, modified. Default false: list returns path, type and sizeBytes, search_content the path and its matching lines."`
	IncludeContent      bool  `json:"includeContent,omitempty" purposes:"search_content search_semantic" jsonschema:"Include each file's text, capped, in the results. Default false."`
	FollowRelationships bool  `json:"followRelationships,omitempty" purposes:"search_semantic" jsonschema:"Also return, in related, the documents one link away from the hits (links, backlinks, frontmatter relations). Default false."`
	FilesOnly           bool  `json:"filesOnly,omitempty" purposes:"search_content" jsonschema:"Return each matching file's path and matchCount without its lines, as grep -c does: to count or list the files that mention something. Default false."`
	Regex               bool  `json:"regex,omitempty" purposes:"search_content" jsonschema:"Treat target.query as an RE2 regular expression instead of plain text. Default false."`
	CaseSensitive       bool  `json:"caseSensitive,omitempty" purposes:"search_content" jsonschema:"Match target.query's letter case exactly. Default false."`
	ContextLines        int   `json:"contextLines,omitempty" validate:"min=0,max=10" purposes:"search_content" jsonschema:"How many lines around each match to return. Default 0."`
	IncludeIgnored      bool  `json:"includeIgnored,omitempty" purposes:"list search_content" jsonschema:"Also walk what .gitignore and .ignore files ignore and the dependency and build caches (hidden counts them as ignored and cache). Default false."`
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
	Purpose string        `json:"purpose" validate:"required,oneof=create update append delete edit move copy mkdir" jsonschema:"What to do: create a new file, update (replace) a file's content, append to a file, delete a file or directory, edit a file by exact text replacements, move it to target.destination, copy it there, or mkdir (make) a directory."`
	Target  UpdateTarget  `json:"target" jsonschema:"The file or directory to change."`
	Content *string       `json:"content,omitempty" purposes:"create update append" required:"send the text to write (it may be empty)" jsonschema:"The text to write; required, and it may be empty."`
	Edits   []Edit        `json:"edits,omitempty" validate:"max=100,dive" purposes:"edit" required:"send at least one {\"oldText\": ..., \"newText\": ...}" jsonschema:"Replacements to apply in order, 1 to 100 of them, in up to 20 files; required. If one fails, no file is written."`
	Options UpdateOptions `json:"options,omitzero" jsonschema:"Optional settings for the change."`
}

// UpdateTarget names what an [Update] intent changes. Destination is
// required for move and copy; [Decode] checks that.
type UpdateTarget struct {
	Path        string `json:"path" validate:"required,max=4096" jsonschema:"Path of the file or directory, relative to the sandbox root."`
	Destination string `json:"destination,omitempty" validate:"max=4096" purposes:"move copy" required:"send the new path" jsonschema:"The new path, relative to the sandbox root; required."`
	Version     string `json:"version,omitempty" validate:"max=16" purposes:"update append edit delete move" jsonschema:"The version a read of this file returned (16 hex digits). The write then fails with the code CONFLICT, changing nothing, if the file changed since; a file deleted since gives NOT_FOUND. Not for directories; create needs none, since it fails if the file exists. Default empty: no check."`
}

// MaxEditFiles is the most files one edit changes: as many as one read returns ([MaxReadPaths]),
// so that the files a read compared can be edited together, while the answer's diffs stay readable.
const MaxEditFiles = MaxReadPaths

// Edit is one exact-text replacement of an [Update] edit, in target.path or in the file Path names.
type Edit struct {
	OldText    string `json:"oldText" validate:"required" jsonschema:"Exact text to replace, including whitespace; it must occur exactly once unless replaceAll is set."`
	NewText    string `json:"newText" jsonschema:"Text to put in its place. Default empty, which deletes oldText."`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"Replace every occurrence of oldText. Default false."`
	Path       string `json:"path,omitempty" validate:"max=4096" jsonschema:"Another file to apply this edit to, relative to the sandbox root. Default: target.path."`
	Version    string `json:"version,omitempty" validate:"max=16" jsonschema:"As target.version, for this edit's file: the version its read returned; CONFLICT, nothing written, if it changed since. Default: no check."`
}

// UpdateOptions tunes an [Update] intent. The zero value writes atomically,
// refuses to create missing parent directories, to delete or copy non-empty
// directories and to overwrite on move or copy, and keeps no backup.
type UpdateOptions struct {
	CreatePath            bool  `json:"createPath,omitempty" purposes:"create append move copy" jsonschema:"Create missing parent directories (for move and copy, those of target.destination); mkdir always does. Default false."`
	Backup                bool  `json:"backup,omitempty" purposes:"update append edit delete" jsonschema:"Keep the previous version of the file, outside the sandbox root; refused when deleting a directory or a link. Default false."`
	Atomic                *bool `json:"atomic,omitempty" jsonschema:"Writes are always atomic, so omit this; true is accepted and false is refused."`
	PreserveRelationships bool  `json:"preserveRelationships,omitempty" purposes:"move" jsonschema:"Rewrite the markdown and wiki links in other documents (and the moved file's own relative links) so they keep pointing at it; the result lists every file changed, every link rewritten (line, before, after) and the lines of other text files (JSON, YAML, configuration) that name the old path, which it leaves for you to change. After the move it resolves again every link in what moved and in the documents linking to it and reports linksChecked and any linksLost, so no relationships call is needed to check it. With dryRun, what it would do. Refused (NOT_AVAILABLE, nothing moved, with retryAfterMs) while the search index is being built. Default false."`
	Recursive             bool  `json:"recursive,omitempty" purposes:"delete copy" jsonschema:"Allow deleting a directory that is not empty, or copying a directory. Default false."`
	Overwrite             bool  `json:"overwrite,omitempty" purposes:"move copy" jsonschema:"Replace a file that already exists at target.destination (copy of a directory: merge into one there). Default false."`
	DryRun                bool  `json:"dryRun,omitempty" purposes:"edit move copy" jsonschema:"For edit, return a unified diff of the change and write nothing; for move, report what would move and which links would be rewritten, and change nothing; for copy, report what would be copied. Default false."`

	// LinkText "" is "keep"; Decode refuses it without PreserveRelationships.
	LinkText string `json:"linkText,omitempty" validate:"omitempty,oneof=keep target" purposes:"move" jsonschema:"With preserveRelationships: what a rewritten wiki link shows when the note's name changes. keep (the default) keeps what the reader sees: [[Old]] becomes [[New|Old]]; target shows the new name: [[New]], as Obsidian does. Display text of the link's own, and embeds, are left as they are either way."`
}
