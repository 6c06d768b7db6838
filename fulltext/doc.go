// Package fulltext is the ranked search over documents: a bleve index of their sections (BM25 over
// title, headings, body, tags and folder, with highlights and filters), persisted by bleve's
// scorch (zap segments under a bbolt root) in a folder outside the served root ([OpenIndex]), the ranker that fuses a query with
// its paraphrases and a feedback round ([Index.Search]), the candidate files a literal search must
// read ([Index.Candidates]), and the rough scorer of files not yet indexed ([ScanQuery]). It takes
// documents parsed by package markdown and never reads the files under the root itself; bleve
// types stay out of its API.
package fulltext
