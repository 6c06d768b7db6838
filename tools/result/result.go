// Package result holds the answers the three tools return: the flat JSON a model reads, whose
// types declare the tools' output schemas, and [Rebase], which names every path in an answer as
// the caller does.
package result

import "github.com/packfs/packfs-mcp/extract"

// The result types declare the tools' output schemas (see intents.Schema): a `validate:"required"`
// tag marks a field the schema lists as required; results are never run through the validator.

// Status opens every result: whether the call succeeded and, when it did not, why and what to do next.
// It is embedded, so its fields sit at the top level of the flat result.
type Status struct {
	Success      bool   `json:"success" validate:"required" jsonschema:"true when the call did what was asked"`
	Error        string `json:"error,omitempty" jsonschema:"what went wrong and what to do instead (only when success is false)"`
	Code         string `json:"code,omitempty" jsonschema:"stable error code such as NOT_FOUND, PATH_OUTSIDE_ROOT, PATH_BLOCKED, EXTENSION_NOT_ALLOWED, PERMISSION_DENIED, RATE_LIMITED, INVALID_ARGUMENT"`
	Field        string `json:"field,omitempty" jsonschema:"the argument that was refused, as a JSON path such as target.path"`
	RetryAfterMs int64  `json:"retryAfterMs,omitempty" jsonschema:"with RATE_LIMITED, or while the search index is being built: milliseconds to wait before trying again"`
	// CurrentVersion is a field of Status because errs.Status, which maps every error, sets it.
	CurrentVersion string  `json:"currentVersion,omitempty" jsonschema:"with CONFLICT: the version the file holds now"`
	CurrentContent *string `json:"currentContent,omitempty" jsonschema:"with CONFLICT on update, append or edit of a small text file: its whole text now (of currentVersion), to merge your change into without reading it again"`
}

// Meta is the only nested object of a result: facts about the call rather than about the files.
// It holds only what the caller does not already know: the tool and the purpose are the ones it
// called, and every result names the paths it is about where they matter.
type Meta struct {
	ExecutionMs float64 `json:"executionMs" validate:"required" jsonschema:"milliseconds (not seconds) the call took inside the server, to 0.1 ms"`
}

// FileAttrs describe one file or directory, root-relative.
type FileAttrs struct {
	SizeBytes *int64 `json:"sizeBytes,omitempty" jsonschema:"size in bytes"`
	Modified  string `json:"modified,omitempty" jsonschema:"last modification time, RFC 3339"`
	Type      string `json:"type,omitempty" jsonschema:"file, directory, symlink or other"`
	Mode      string `json:"mode,omitempty" jsonschema:"permission bits in octal, such as 0644"`
	Lines     *int   `json:"lines,omitempty" jsonschema:"number of lines (text files only)"`
	// FinalNewline tells an agent about to append whether its text starts a line of its own.
	FinalNewline *bool  `json:"finalNewline,omitempty" jsonschema:"text files only: true when the file ends with a line break or is empty, so appended text starts a new line"`
	MediaType    string `json:"mediaType,omitempty" jsonschema:"media type, such as text/markdown or image/png"`
}

// FileContent is what a read returns of one file: its text (or bytes), which lines of it, and with
// preferences.includeMetadata its attributes.
type FileContent struct {
	Content    *string `json:"content,omitempty" jsonschema:"the file's text (or base64 bytes when encoding is base64)"`
	Encoding   string  `json:"encoding,omitempty" jsonschema:"utf-8, base64, or markdown (a web page converted: edits need its source)"`
	Binary     bool    `json:"binary,omitempty" jsonschema:"true when the file is not UTF-8 text; read it with target.encoding base64 to get its bytes"`
	TotalLines *int    `json:"totalLines,omitempty" jsonschema:"number of lines in the whole file"`
	Offset     *int    `json:"offset,omitempty" jsonschema:"the first line returned, 0-based"`
	NextOffset *int    `json:"nextOffset,omitempty" jsonschema:"when truncated: pass this as preferences.offset to read on"`
	Truncated  bool    `json:"truncated,omitempty" jsonschema:"true when content holds only part of the file"`
	WidthPx    int     `json:"widthPx,omitempty" jsonschema:"an image's width in pixels"`
	HeightPx   int     `json:"heightPx,omitempty" jsonschema:"an image's height in pixels"`
	ImageSent  string  `json:"imageSent,omitempty" jsonschema:"read of an image: how the image content of this answer holds it (scaled down if large), or why it is not there"`
	Document   bool    `json:"document,omitempty" jsonschema:"true for a document (PDF, Word, PowerPoint, Excel, OpenDocument, EPUB): content and lines are its text, extracted, with a line such as [page 3] where each page, slide, sheet or chapter begins"`
	Pages      *int    `json:"pages,omitempty" jsonschema:"a document's pages, slides, sheets or chapters"`
	Title      string  `json:"title,omitempty" jsonschema:"a document's own title"`
	Author     string  `json:"author,omitempty" jsonschema:"a document's own author"`
	Created    string  `json:"created,omitempty" jsonschema:"when a document says it was created, RFC 3339"`
	TextCut    string  `json:"textCut,omitempty" jsonschema:"a document whose text stops before its end, or cannot be read at all, and why"`
	// Image is the image content the answer carries beside its JSON (shape), never in it.
	Image   *extract.Image `json:"-"`
	Version string         `json:"version,omitempty" jsonschema:"read and metadata of a file: the version of its whole content, even when content holds part of it; pass it to packfs-file-writer as target.version so a write fails with CONFLICT if the file changed since"`
	FileAttrs
}

// Reader is what packfs-file-reader returns.
type Reader struct {
	Status
	Exists *bool `json:"exists,omitempty" jsonschema:"with purpose exists: whether an entry the tools can see is at the path"`
	FileContent
	Files    []ReadEntry    `json:"files,omitempty" jsonschema:"read with target.paths: one entry per path, in the order given, each with its own success or error"`
	History  []HistoryEntry `json:"history,omitempty" jsonschema:"with purpose history: the changes kept of the file, or below the folder, newest first"`
	Metadata Meta           `json:"metadata" validate:"required" jsonschema:"facts about the call"`
}

// HistoryEntry is one change the history keeps of a file: when, by which purpose, and the version
// it replaced, which restore brings back.
type HistoryEntry struct {
	Path      string `json:"path" validate:"required" jsonschema:"root-relative path"`
	MovedTo   string `json:"movedTo,omitempty" jsonschema:"a move: where it went"`
	Call      string `json:"call" validate:"required" jsonschema:"the call that made it: restore with target.call undoes all of it"`
	Time      string `json:"time" validate:"required" jsonschema:"when the change was made, RFC 3339"`
	Purpose   string `json:"purpose" validate:"required" jsonschema:"the writer purpose that made it"`
	Version   string `json:"version,omitempty" jsonschema:"the version it replaced, kept: restore it with target.version; empty when the change made the file"`
	SizeBytes *int64 `json:"sizeBytes,omitempty" jsonschema:"the size of that version"`
	Deleted   bool   `json:"deleted,omitempty" jsonschema:"true when the change removed the file"`
}

// ReadEntry is one file of a read of several: its path, whether it was read, and what was.
type ReadEntry struct {
	Path string `json:"path" validate:"required" jsonschema:"the path as given, cleaned to be root-relative; for a path outside the root, its place such as target.reads[2]"`
	Status
	FileContent
}

// Match is one matching line of a content search, with its context.
type Match struct {
	Line   int      `json:"line" validate:"required" jsonschema:"1-based line number"`
	Text   string   `json:"text" validate:"required" jsonschema:"the matching line"`
	Place  string   `json:"place,omitempty" jsonschema:"in a document, the page, slide, sheet or chapter of the line"`
	Before []string `json:"before,omitempty" jsonschema:"context lines before the match"`
	After  []string `json:"after,omitempty" jsonschema:"context lines after the match"`
}

// FileEntry is one file in a listing or a search result.
type FileEntry struct {
	Path string `json:"path" validate:"required" jsonschema:"root-relative path"`
	FileAttrs
	Opens      string  `json:"opens,omitempty" jsonschema:"list: what the tools do with a file they do not open as text: image (read shows it, scaled down if large), binary (read answers its media type, base64 on request), if text (read and edited when its content is text; not created), no (named only: archives, programs, media, office files, dotfiles)"`
	Matches    []Match `json:"matches,omitempty" jsonschema:"search_content: the matching lines"`
	MatchCount int     `json:"matchCount,omitempty" jsonschema:"search_content: how many lines matched in this file (matches may hold fewer)"`
	Content    *string `json:"content,omitempty" jsonschema:"with options.includeContent: the file's text, capped"`
	Title      string  `json:"title,omitempty" jsonschema:"search_semantic: the document's title, when it is not just the file's name without its extension"`
	Score      float64 `json:"score,omitempty" jsonschema:"search_semantic: relevance relative to the best hit (1), to two decimals"`
	Heading    string  `json:"heading,omitempty" jsonschema:"search_semantic: heading of the best matching section"`
	Line       int     `json:"line,omitempty" jsonschema:"search_semantic: first line of the best matching section"`
	Snippet    string  `json:"snippet,omitempty" jsonschema:"search_semantic: the best passage, matched terms in **bold**"`
	Place      string  `json:"place,omitempty" jsonschema:"search_semantic: in a document, the page, slide, sheet or chapter of line"`
}

// RelatedEntry is a document reached through a link rather than through the search itself.
type RelatedEntry struct {
	Path  string `json:"path" validate:"required" jsonschema:"root-relative path"`
	Title string `json:"title,omitempty" jsonschema:"the document's title"`
	Via   string `json:"via" validate:"required" jsonschema:"how it was reached from the document in from: markdown, reference, wiki or embed (a link of that kind there), frontmatter:parent, frontmatter:children or frontmatter:related (that frontmatter field there), or backlink (it links there); both (wiki and backlink) when they link each other"`
	From  string `json:"from,omitempty" jsonschema:"search_semantic: the hit it was reached from (relationships leaves it out: it is target.path)"`
}

// HeadingEntry is one heading of a document's outline.
type HeadingEntry struct {
	Level  int    `json:"level" validate:"required" jsonschema:"1 to 6"`
	Text   string `json:"text" validate:"required" jsonschema:"the heading's text"`
	Anchor string `json:"anchor,omitempty" jsonschema:"the fragment that links to it, as in note.md#anchor"`
	Line   int    `json:"line" validate:"required" jsonschema:"1-based line of the heading"`
}

// LinkEntry is one link written in a document.
type LinkEntry struct {
	Target   string `json:"target" jsonschema:"the destination as written (without #fragment)"`
	Fragment string `json:"fragment,omitempty" jsonschema:"the heading or block after #"`
	Kind     string `json:"kind" validate:"required" jsonschema:"markdown, reference, autolink, wiki, embed or frontmatter"`
	Status   string `json:"status" validate:"required" jsonschema:"internal, external or broken; while the index is being built, unresolved: no file read so far answers to it, or provisional: it reached a document by name, and a nearer one of that name may not be indexed yet; with several roots, otherRoot: it climbs out of its root to the path in to, in another root, which relationships do not follow"`
	To       string `json:"to,omitempty" jsonschema:"internal and otherRoot links: the path of the target"`
	Line     int    `json:"line,omitempty" jsonschema:"1-based line of the link"`
	Text     string `json:"text,omitempty" jsonschema:"the link text or alias"`
}

// BacklinkEntry is a link to the document from another one.
type BacklinkEntry struct {
	Path   string `json:"path" validate:"required" jsonschema:"the document that links here"`
	Line   int    `json:"line,omitempty" jsonschema:"1-based line of the link in that document"`
	Kind   string `json:"kind,omitempty" jsonschema:"how the link is written"`
	Text   string `json:"text,omitempty" jsonschema:"the link text or alias"`
	Source string `json:"source,omitempty" jsonschema:"the line the link is on, as written (a long one cut around the link, marked with …); only on the first backlinks"`
}

// Searcher is what packfs-file-searcher returns.
type Searcher struct {
	Status
	Files         []FileEntry    `json:"files,omitempty" jsonschema:"the files found, sorted by path"`
	TotalFound    *int           `json:"totalFound,omitempty" jsonschema:"list: entries matching the criteria; search_content: files with a matching line; relationships of a folder or of target.paths: documents (of one document, none: its links and backlinks are listed whole); a lower bound when truncated (search_semantic gives none: its candidates are every document holding any one word)"`
	Truncated     bool           `json:"truncated,omitempty" jsonschema:"true when more results exist than were returned"`
	NextOffset    *int           `json:"nextOffset,omitempty" jsonschema:"when truncated: pass this as options.offset to get the next page"`
	FilesSearched int            `json:"filesSearched,omitempty" jsonschema:"search_content: how many text files under target.path (within the criteria) the search covered; the index rules out, without reading them, the files that lack the query's words; absent when the page filled before the search ended"`
	FilesExcluded int            `json:"filesExcluded,omitempty" jsonschema:"search_content with criteria: files below target.path that the criteria left out, unread (when the index narrowed the search, of the text files it holds); filesSearched plus filesExcluded is what lies below target.path; absent when the page filled before the search ended"`
	TimedOut      bool           `json:"timedOut,omitempty" jsonschema:"true when time ran out before the walk ended: files holds what it found; nextOffset goes on from where it stopped"`
	ExcludedFiles []string       `json:"excludedFiles,omitempty" jsonschema:"search_content: a few of the files counted in filesExcluded"`
	Hidden        map[string]int `json:"hidden,omitempty" jsonschema:"list and search_content: entries the walk left out, by reason: ignored, cache, blocked, other"`
	HiddenHint    string         `json:"hiddenHint,omitempty"`
	// search_semantic
	Related       []RelatedEntry `json:"related,omitempty" jsonschema:"search_semantic with options.followRelationships: documents one link away from the hits; relationships: documents related through frontmatter or links"`
	UnknownWords  []string       `json:"unknownWords,omitempty" jsonschema:"search_semantic: words of the query or its paraphrases that no indexed document contains; say them differently in queries, with the words the documents would use"`
	IndexComplete *bool          `json:"indexComplete,omitempty" jsonschema:"search_semantic and relationships: false while the index is still being built, so results may be missing files"`
	IndexedFiles  *int           `json:"indexedFiles,omitempty" jsonschema:"while the index is incomplete: files indexed so far"`
	TotalFiles    *int           `json:"totalFiles,omitempty" jsonschema:"while the index is incomplete: files to index (absent while they are still being counted)"`
	ScannedFiles  *int           `json:"scannedFiles,omitempty" jsonschema:"search_semantic while the index is incomplete: files not yet indexed that this search read directly (ranked roughly)"`
	Message       string         `json:"message,omitempty" jsonschema:"while the index is incomplete, when time ran out or nothing was found: what this answer covers, and what to call next"`
	// relationships
	Outline []HeadingEntry `json:"outline,omitempty" jsonschema:"relationships of one document: its headings"`
	DocumentLinks
	Documents []DocumentEntry `json:"documents,omitempty" jsonschema:"relationships of several documents (target.paths, or a folder at target.path): one entry per document, in order, each with its own success or error"`
	Metadata  Meta            `json:"metadata" validate:"required" jsonschema:"facts about the call"`
}

// DocumentLinks is what relationships tells of a document: its title, links and backlinks.
type DocumentLinks struct {
	Title     string          `json:"title,omitempty" jsonschema:"relationships: the document's title"`
	Links     []LinkEntry     `json:"links,omitzero" jsonschema:"relationships: every outgoing link, resolved inside the root; [] for none"`
	Backlinks []BacklinkEntry `json:"backlinks,omitzero" jsonschema:"relationships: the links to this document from others; [] for none"`
	Broken    []LinkEntry     `json:"broken,omitzero" jsonschema:"relationships: outgoing links whose target is missing or outside the root; [] for none, absent while the index is incomplete (not checked yet)"`
	Tags      []string        `json:"tags,omitempty" jsonschema:"relationships: the document's tags"`
	Aliases   []string        `json:"aliases,omitempty" jsonschema:"relationships: other names of the document"`
	Parent    []string        `json:"parent,omitempty" jsonschema:"relationships: parent documents (frontmatter parent, else links to a folder above)"`
	Children  []string        `json:"children,omitempty" jsonschema:"relationships: child documents (frontmatter children, else links into a folder below)"`
}

// DocumentEntry is one document of a relationships call over several: its links and backlinks,
// without the outline and related list a call about it alone returns.
type DocumentEntry struct {
	Path string `json:"path" validate:"required" jsonschema:"the document, root-relative; for a path outside the root, its place such as target.paths[2]"`
	Status
	DocumentLinks
}

// LinkRewrite is one link a move rewrote, or would rewrite with dryRun.
type LinkRewrite struct {
	Path   string `json:"path" validate:"required" jsonschema:"the document the link is in, where it is after the move"`
	Line   int    `json:"line" validate:"required" jsonschema:"1-based line of the link's destination"`
	Before string `json:"before" validate:"required" jsonschema:"the link as written, or its destination alone when the link is long"`
	After  string `json:"after" validate:"required" jsonschema:"the same, rewritten"`
}

// LostLink is a link a move with preserveRelationships was to keep working and did not.
type LostLink struct {
	Path    string `json:"path" validate:"required" jsonschema:"the document the link is in, where it is after the move"`
	Line    int    `json:"line" validate:"required" jsonschema:"1-based line of the link"`
	Target  string `json:"target" validate:"required" jsonschema:"the link's destination as written before the move"`
	Reached string `json:"reached" validate:"required" jsonschema:"the document it reached before the move, at its path after the move"`
}

// Mention is a line of a text file other than markdown that names a moved path.
type Mention struct {
	Path string `json:"path" validate:"required" jsonschema:"the file, where it is after the move"`
	Line int    `json:"line" validate:"required" jsonschema:"1-based line"`
	Text string `json:"text" validate:"required" jsonschema:"the line, or the part of a long line around the path"`
}

// EditedFile is one file of an edit of several files.
type EditedFile struct {
	Path         string `json:"path" validate:"required" jsonschema:"root-relative path"`
	Version      string `json:"version" validate:"required" jsonschema:"its version after the write (with dryRun, now), for its next write"`
	SizeBytes    *int   `json:"sizeBytes,omitempty" jsonschema:"its size in bytes after the write"`
	Replacements int    `json:"replacements" validate:"required" jsonschema:"occurrences replaced in it"`
}

// MovedFile is one file or folder a move of several took, and where.
type MovedFile struct {
	Path        string `json:"path" validate:"required" jsonschema:"where it was"`
	Destination string `json:"destination" validate:"required" jsonschema:"where it is now (with dryRun, would be)"`
}

// CopySkip is an entry of a copied folder that was not copied.
type CopySkip struct {
	Path   string `json:"path" validate:"required" jsonschema:"root-relative path"`
	Reason string `json:"reason" validate:"required" jsonschema:"why it was not copied"`
}

// Writer is what packfs-file-writer returns.
type Writer struct {
	Status
	Path          string      `json:"path,omitempty" jsonschema:"root-relative path that was written, deleted or created"`
	Destination   string      `json:"destination,omitempty" jsonschema:"move: the root-relative path the entry now has (of target.paths: the folder they went to); copy: the copy's"`
	Moved         []MovedFile `json:"moved,omitempty" jsonschema:"move of target.paths: each file, in order, and where it went"`
	Created       bool        `json:"created,omitempty" jsonschema:"true when a new file or directory was created (with dryRun, would be)"`
	Deleted       bool        `json:"deleted,omitempty" jsonschema:"true when the entry was removed"`
	SizeBytes     *int        `json:"sizeBytes,omitempty" jsonschema:"the file's size in bytes after the write (with dryRun, would be)"`
	Lines         *int        `json:"lines,omitempty" jsonschema:"create, update: the file's lines after the write"`
	BytesAppended *int        `json:"bytesAppended,omitempty" jsonschema:"append: the bytes added to the end"`
	Version       string      `json:"version,omitempty" jsonschema:"create, update, append, edit of one file, copy of a file: the file's version after the write (with dryRun, its version now), for target.version of the next write"`
	Replacements  *int        `json:"replacements,omitempty" jsonschema:"edit: how many occurrences were replaced, in all files"`
	Diff          string      `json:"diff,omitempty" jsonschema:"edit, and a small append: unified diff of the change, with the lines around it, one per file (with options.dryRun nothing was written)"`
	DryRun        bool        `json:"dryRun,omitempty" jsonschema:"true when nothing was written"`
	NotKept       string      `json:"notKept,omitempty" jsonschema:"why this change cannot be undone: what it replaced was not kept in the history"`
	LinkedFrom    []string    `json:"linkedFrom,omitempty" jsonschema:"delete: documents that linked to what was deleted (their links are now broken)"`
	UpdatedFiles  []string    `json:"updatedFiles,omitempty" jsonschema:"move with preserveRelationships: documents whose links were rewritten (or would be, with dryRun)"`
	// edit of several files
	Files []EditedFile `json:"files,omitempty" jsonschema:"edit of several files: each file, target.path's first"`
	// copy of a folder
	FilesCopied   *int       `json:"filesCopied,omitempty" jsonschema:"copy of a folder: files copied (with dryRun, that would be)"`
	FilesReplaced int        `json:"filesReplaced,omitempty" jsonschema:"copy with overwrite: of filesCopied, those that replaced a file"`
	FoldersCopied *int       `json:"foldersCopied,omitempty" jsonschema:"copy of a folder: folders copied, target.path included"`
	BytesCopied   *int64     `json:"bytesCopied,omitempty" jsonschema:"copy of a folder: bytes in the files copied"`
	Skipped       []CopySkip `json:"skipped,omitempty" jsonschema:"copy of a folder: entries not copied, and why; capped (skippedTotal says when)"`
	SkippedTotal  int        `json:"skippedTotal,omitempty" jsonschema:"only when skipped was cut: entries skipped in all"`
	HiddenEntries int        `json:"hiddenEntries,omitempty" jsonschema:"copy of a folder: entries the listing hides (blocked names, hard links, links out of the root), not copied"`
	WouldCopy     []string   `json:"wouldCopy,omitempty" jsonschema:"copy of a folder with dryRun: the first paths it would write"`
	// move with preserveRelationships
	Rewrites           []LinkRewrite `json:"rewrites,omitempty" jsonschema:"move with preserveRelationships: each link rewritten (or that would be, with dryRun), by path and line, capped (rewritesTotal says when)"`
	RewritesTotal      int           `json:"rewritesTotal,omitempty" jsonschema:"only when rewrites was cut: how many links were rewritten (or would be) in all"`
	Mentions           []Mention     `json:"mentions,omitzero" jsonschema:"move with preserveRelationships: lines of text files other than markdown (JSON, YAML, configuration) that name the old path, by path and line; they are left as they are, edit them if they should follow; [] when none does; capped (mentionsTotal says when)"`
	MentionsTotal      int           `json:"mentionsTotal,omitempty" jsonschema:"only when mentions was cut: how many lines were found in all"`
	MentionsIncomplete string        `json:"mentionsIncomplete,omitempty" jsonschema:"only when the search for mentions stopped before it had read every text file: why, and how to look further; files it did not read may name the old path too"`
	LinksChecked       *int          `json:"linksChecked,omitempty" jsonschema:"move with preserveRelationships, after the move (a dry run: as they would resolve after it): how many links in what moved and in the documents linking to it, each reaching a document before the move, were resolved again after it; every one not in linksLost reaches the same document at its new path"`
	LinksLost          []LostLink    `json:"linksLost,omitzero" jsonschema:"move with preserveRelationships, after the move: the checked links that no longer reach the document they reached before (fix them with edit); [] when the move kept every link; capped (linksLostTotal says when)"`
	LinksLostTotal     int           `json:"linksLostTotal,omitempty" jsonschema:"only when linksLost was cut: how many links were lost in all"`
	Metadata           Meta          `json:"metadata" validate:"required" jsonschema:"facts about the call"`
}
