package fulltext

import (
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// Field names of the indexed records. A document is stored as one meta record (id "path#meta")
// with its stamp, its outline and the words used by [Index.Candidates], plus one unit record per
// chunk of a section (id "path#n"), which stores nothing.
const (
	fieldKind    = "kind"    // "meta" on meta records
	fieldStamp   = "stamp"   // meta: "size:unixnano:units", stored only
	fieldOutline = "outline" // meta: the document without its sections' text (see markdown.EncodeOutline), stored only
	fieldWords   = "words"   // meta: all the document's text, lower-cased, never stemmed
	fieldPath    = "path"    // meta: stored only
	fieldDir     = "dir"     // unit: the ancestor folders the folder filter matches as terms, one a line (see folderTerms)
	fieldFolder  = "folder"  // unit: the document's folder with a final slash ("a/b/"), for the filter below them
	fieldExt     = "ext"     // unit: lower-case extension with dot
	fieldTitle   = "title"   // unit
	fieldHeading = "heading" // unit: the section's heading
	fieldTags    = "tags"    // unit: the document's tags, lower-cased, one a line (at most MaxTagCopies over its units)
	fieldAliases = "aliases" // unit
	fieldNames   = "names"   // unit: the keys of the document's names, one a line (see NameKeys)
	fieldText    = "text"    // unit: title, aliases, heading path and body, searched as one
	fieldLead    = "lead"    // unit: the document's first paragraph, which usually says what it is about

	kindMeta = "meta"
	metaID   = "meta"

	// wordsAnalyzer splits a query into words: like the unicode tokenizer, lower-cased, neither
	// stemmed nor stopped.
	wordsAnalyzer = "packfs_words"
	// literalAnalyzer makes the terms of the words field, which search_content's candidates
	// match (see [Index.Candidates]).
	literalAnalyzer = "packfs_literal"
	// linesAnalyzer makes a term of each line of a field of lines (tags, name keys, folders), unchanged (see linesTokenizer).
	linesAnalyzer = "packfs_lines"
)

// textAnalyzer analyses title, heading, aliases, lead and the combined text.
const textAnalyzer = en.AnalyzerName

// scoringModel is the bleve scoring model of new indexes; see [Ranking.BM25B] for the
// measurement that chose it.
const scoringModel = bindex.BM25Scoring

// indexMapping is the mapping of every index, built once: it holds no state of an index, and the
// analyzers of queries and of files not indexed yet are its own.
var indexMapping = sync.OnceValue(func() *mapping.IndexMappingImpl {
	m, err := newMapping()
	if err != nil {
		panic("fulltext: the index mapping is invalid: " + err.Error()) // a bug, not input
	}
	return m
})

// newMapping describes the records: nothing is indexed dynamically, and only what search
// results show is stored.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	im.ScoringModel = scoringModel
	im.DefaultAnalyzer = textAnalyzer
	// The words analyzer splits queries like the unicode tokenizer and lower-cases, without
	// stemming or stop words; the literal analyzer splits the words field into runs of letters
	// and digits, so that every literal run of letters and digits lies inside some term.
	if err := im.AddCustomAnalyzer(wordsAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	if err := im.AddCustomAnalyzer(literalAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     alnumTokenizer,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	if err := im.AddCustomAnalyzer(linesAnalyzer, map[string]any{
		"type":      custom.Name,
		"tokenizer": linesTokenizer,
	}); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}

	text := func() *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = textAnalyzer
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	kw := func(store bool) *mapping.FieldMapping {
		f := mapping.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	words := text()
	words.Analyzer = literalAnalyzer
	words.SkipFreqNorm = true
	// Stored only, on the meta records: what a restart reads back, never searched. Units store
	// nothing: their text is the file's, read again for the few a search shows (see source.go).
	storedKw := kw(true)
	storedKw.Index = false
	// The tags, the name keys and the folders, one a line, each a term as the keyword analyzer would make it
	// (see linesTokenizer).
	lines := kw(false)
	lines.Analyzer = linesAnalyzer

	dm := mapping.NewDocumentStaticMapping()
	for name, f := range map[string]*mapping.FieldMapping{
		fieldKind:    kw(false),
		fieldStamp:   storedKw,
		fieldOutline: storedKw,
		fieldWords:   words,
		fieldPath:    storedKw,
		fieldDir:     lines,
		fieldFolder:  kw(false),
		fieldExt:     kw(false),
		fieldTitle:   text(),
		fieldHeading: text(),
		fieldTags:    lines,
		fieldAliases: text(),
		fieldNames:   lines,
		fieldText:    text(),
		fieldLead:    text(),
	} {
		dm.AddFieldMappingsAt(name, f)
	}
	// No composite _all field: every field is searched by name.
	dm.AddSubDocumentMapping("_all", mapping.NewDocumentDisabledMapping())
	im.DefaultMapping = dm
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	if err := im.Validate(); err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	return im, nil
}
