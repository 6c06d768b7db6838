package semantic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fsroot"
)

// textStore keeps the text extracted from documents (package extract) in a folder beside the
// index, so that a restart neither extracts a document again nor keeps its text in memory: one
// file per document, named by the SHA-256 of its path, holding the SHA-256 of the bytes it was
// extracted from. A changed document's text replaces its file; a document gone takes its file
// with it ([textStore.drop]); files of documents no longer indexed are pruned after a build.
type textStore struct {
	root *fsroot.Root
}

// maxStoredBytes bounds one file of the store read back: a document's text is at most
// extract.MaxTextBytes, with its marks and properties.
const maxStoredBytes = extract.MaxTextBytes + 4<<20

// stored is one file of the store.
type stored struct {
	Path string             `json:"path"`
	Sum  string             `json:"sum"`
	Ext  string             `json:"ext"`
	Text *extract.Extracted `json:"text"`
}

// fileOf names the file of the document at path p.
func fileOf(p string) string {
	h := sha256.Sum256([]byte(p))
	return hex.EncodeToString(h[:]) + ".json"
}

// Load returns the text kept for the document name, if it was extracted from bytes of SHA-256 sum.
func (s textStore) Load(name string, sum [sha256.Size]byte, ext string) (*extract.Extracted, bool) {
	data, _, err := s.root.ReadFile(context.Background(), fileOf(name), maxStoredBytes)
	if err != nil {
		return nil, false
	}
	var st stored
	if json.Unmarshal(data, &st) != nil || st.Path != name || st.Ext != ext || st.Sum != hex.EncodeToString(sum[:]) || st.Text == nil {
		return nil, false
	}
	return st.Text, true
}

// Save keeps x as the text of the document name, extracted from bytes of SHA-256 sum. A failure
// costs only a later extraction: it is not reported.
func (s textStore) Save(name string, sum [sha256.Size]byte, ext string, x *extract.Extracted) {
	data, err := json.Marshal(stored{Path: name, Sum: hex.EncodeToString(sum[:]), Ext: ext, Text: x})
	if err == nil {
		_ = s.root.WriteFile(context.Background(), fileOf(name), data)
	}
}

// drop forgets the texts of the documents at paths.
func (s textStore) drop(paths ...string) {
	for _, p := range paths {
		_ = s.root.Remove(fileOf(p), false) // a document never extracted has none
	}
}

// maxStoreFiles bounds the listing a prune reads: more documents than a tree of a million files
// holds.
const maxStoreFiles = 1 << 20

// prune removes the files of the store that are not of the documents at paths, those the index
// holds: the texts of documents gone, or no longer indexed, while the server was not running.
func (s textStore) prune(ctx context.Context, paths []string) {
	keep := make(map[string]bool, len(paths))
	for _, p := range paths {
		keep[fileOf(p)] = true
	}
	entries, _, err := s.root.ReadDir(ctx, ".", maxStoreFiles)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !keep[e.Name] {
			_ = s.root.Remove(e.Name, false)
		}
	}
}
