// Package semantic is the engine that keeps the documents under the root understood: it reads
// files only through the fs.FS that fsroot provides, parses them with package markdown, keeps
// their relationship graph in memory and their text in a package fulltext index, both in step
// with the files, and answers searches and relationships, including while the index is still
// being built (then marked partial, see [Coverage]).
package semantic
