package semantic

import (
	"bytes"
	"errors"
	"io"
	"io/fs"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/markdown"
)

// read reads and parses one file; the error says why it could not: the error of its open, stat or
// read (gone, special, a hard link, unreadable), or errNotText (too large or binary).
func (e *Engine) read(name string) (markdown.Doc, error) {
	e.reads.Add(1)
	d, err := e.parse(name)
	if err != nil {
		return markdown.Doc{}, err
	}
	e.mark(name, d.Frontmatter)
	return d, nil
}

// parse reads and parses one text file, or a document's text.
func (e *Engine) parse(name string) (markdown.Doc, error) {
	if e.opts.Document != nil {
		if ext := e.opts.Document(name); ext != "" {
			return e.parseDocument(name, ext)
		}
	}
	src, info, err := e.readText(name, nil)
	if err != nil {
		return markdown.Doc{}, err
	}
	d := markdown.Parse(name, src, info.ModTime())
	d.Size = int64(len(src))
	d.Frontmatter = hasFrontmatter(src)
	return d, nil
}

// source gives the index the document at name as it is now, for what a search shows of it (see
// [fulltext.Source]): parsed as the build parses it, and refused when the policy no longer allows it.
func (e *Engine) source(name string) (markdown.Doc, error) {
	if !e.opts.Allow(name, false) {
		return markdown.Doc{}, fs.ErrPermission
	}
	return e.parse(name)
}

// errNotText reports a file that is not text, or is larger than the engine reads.
var errNotText = errors.New("not a text file of at most the largest size indexed")

// countSkipped counts, by its cause, a file the build could not index; err nil, or a file gone
// since the walk found it, counts nothing.
func (e *Engine) countSkipped(err error) {
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errNotText):
		e.notText.Add(1)
	case errors.Is(err, fsroot.ErrHardLink):
		e.hardLinks.Add(1)
	default:
		e.unreadable.Add(1)
	}
}

// readText reads name when it is a regular text file of at most MaxFileBytes and keep, if set,
// accepts its information. The error says why it did not: the error of its open, stat or read, or
// errNotText (keep's refusal included).
func (e *Engine) readText(name string, keep func(fs.FileInfo) bool) ([]byte, fs.FileInfo, error) {
	f, err := e.opts.FS.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > e.opts.MaxFileBytes || keep != nil && !keep(info) {
		return nil, nil, errNotText
	}
	src, err := readSized(f, info.Size())
	if err != nil {
		return nil, nil, err
	}
	if !markdown.IsText(src) {
		return nil, nil, errNotText
	}
	if e.opts.Refuse != nil && e.opts.Refuse(src) {
		return nil, nil, fs.ErrPermission // counted as unreadable
	}
	return src, info, nil
}

// readSized reads the size bytes the stat of r's file gave, in one read for a file of a few pages:
// io.ReadAll starts at 512 bytes and reads until it meets the end, two or more system calls a file,
// which were a sizeable share of a cold build's CPU (dev/bench/README.md, Scale: big trees). A file that grew since the stat is
// read to the stat's size (its modification time then differs from its stamp, and the next look
// at it reads it again); one that shrank, to its end.
func readSized(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, size)
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return buf[:n], err
}

// admit judges one entry of a walk: a folder the policy refuses is skipped (err is fs.SkipDir),
// and ok reports a regular file the policy allows.
func (e *Engine) admit(p string, d fs.DirEntry) (ok bool, err error) {
	if d.IsDir() {
		if p != "." && !e.opts.Allow(p, true) {
			return false, fs.SkipDir
		}
		return false, nil
	}
	return d.Type().IsRegular() && e.opts.Allow(p, false), nil
}

// hasFrontmatter reports whether src may open with frontmatter (a first line of --- or +++).
func hasFrontmatter(src []byte) bool {
	return bytes.HasPrefix(src, []byte("---")) || bytes.HasPrefix(src, []byte("+++"))
}

// mark records whether a literal search must always read name.
func (e *Engine) mark(name string, always bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if always {
		e.scan[name] = true
	} else {
		delete(e.scan, name)
	}
}
