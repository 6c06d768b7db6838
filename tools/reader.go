package tools

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/extract"
	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/markdown"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/tools/docs"
	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/text"
)

// Read limits. A model's context is the scarce resource: one answer never carries more than this.
const (
	// MaxContentBytes caps the text one read returns; the rest is reached with nextOffset.
	MaxContentBytes = 256 << 10
	// ChunkBytes is the size of one chunk when preferences.chunkIfLarge is set.
	ChunkBytes = 64 << 10
)

func readerTool() mcp.Tool {
	return mcp.NewTool(ReaderName,
		mcp.WithDescription("read: content, byte for byte, in parts when long (nextOffset); a document (PDF, Office, EPUB) gives its text, an image an image, other files text.MediaType, or base64 with target.encoding (markdown: a web page as Markdown). "+
			"metadata: size, modified, lines, pages. "+
			"Both give version (a hash) for writes."),
		schemas[intents.Access, result.Reader](),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Read files",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}

func (s *Server) read(ctx context.Context, c *call) (any, error) {
	in, err := admit[intents.Access](s, c)
	if err != nil {
		return nil, err
	}
	row, _ := PurposeOf(ReaderName, in.Purpose) // Decode admitted only the table's purposes
	return row.access(s, ctx, c, in)
}

// readFiles answers purpose read: of target.path, or of each of target.paths.
func (s *Server) readFiles(ctx context.Context, c *call, in intents.Access) (any, error) {
	if len(in.Target.Reads) > 0 {
		return s.readMany(ctx, c, in)
	}
	name, e, err := s.readTarget(c, in)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	fc, err := s.readEntry(ctx, name, e, in, MaxContentBytes, true)
	if err != nil {
		return nil, err
	}
	return result.Reader{Status: result.Status{Success: true}, FileContent: fc, Metadata: c.meta()}, nil
}

// readMetadata answers purpose metadata.
func (s *Server) readMetadata(ctx context.Context, c *call, in intents.Access) (any, error) {
	name, e, err := s.readTarget(c, in)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return s.metadata(ctx, c, name, e)
}

// readTarget looks up and judges target.path for a read, and charges the call: the caller closes
// the entry.
func (s *Server) readTarget(c *call, in intents.Access) (string, *fsroot.Entry, error) {
	name, e, err := s.lookup(in.Target.Path)
	c.path = name
	if err != nil {
		return name, nil, err
	}
	if err := s.charge(c, false); err != nil {
		e.Close()
		return name, nil, err
	}
	return name, e, nil
}

// readMany reads each of target.reads, with its own lines, as a read of that path alone would,
// within one answer's
// budget: each file's lines are cut to what the files before it left, so the answer stays within
// MaxContentBytes, and a file cut short says so with nextOffset. Only while the answer holds no
// text yet does a file get its first line whatever its length, as a read of it alone would: a
// line longer than what is left waits for the next call, so twenty names of one long line cost
// one line, not twenty. A file that cannot be read gets
// its own error; the others are read all the same. Files read in other roots before these (see
// [Roots.several]) have spent part of the budget already.
func (s *Server) readMany(ctx context.Context, c *call, in intents.Access) (any, error) {
	out := result.Reader{Status: result.Status{Success: true}}
	budget := max(0, MaxContentBytes-c.spent)
	for i, r := range in.Target.Reads {
		one := in
		one.Preferences.Offset = cmp.Or(r.Offset, in.Preferences.Offset)
		one.Preferences.Limit = cmp.Or(r.Limit, in.Preferences.Limit)
		name, fc, err := s.readPath(ctx, c, r.Path, one, budget, budget == MaxContentBytes)
		// A path the policy could not clean is named by its place, never echoed: it may be a
		// host path outside the root.
		if fc.Image != nil { // one answer carries at most one image: the file read alone
			fc.Image, fc.ImageSent = nil, "not sent in a read of several files: read it alone to see it"
		}
		entry := result.ReadEntry{Path: cmp.Or(name, fmt.Sprintf("target.reads[%d]", i)), Status: result.Status{Success: true}, FileContent: fc}
		if err != nil {
			entry.Status = errs.Status(err, name, s.show)
			if entry.Code == errs.CodeInternal {
				s.cfg.Log.Printf("%s read %q: %v", c.tool, name, err)
			}
		} else if fc.Content != nil {
			budget = max(0, budget-len(*fc.Content))
		}
		out.Files = append(out.Files, entry)
	}
	out.Metadata = c.meta()
	return out, nil
}

// readPath reads one of several paths: the policy, the rate limiter and the read, as for one
// (see readEntry for budget and first).
func (s *Server) readPath(ctx context.Context, c *call, raw string, in intents.Access, budget int, first bool) (string, result.FileContent, error) {
	name, e, err := s.lookup(raw)
	if err != nil {
		return name, result.FileContent{}, err
	}
	defer e.Close()
	if err := s.charge(c, false); err != nil {
		return name, result.FileContent{}, err
	}
	fc, err := s.readEntry(ctx, name, e, in, budget, first)
	return name, fc, err
}

// readEntry reads the file e that name reached, as in's target.encoding and preferences ask,
// returning at most budget bytes of text, and when first (nothing is in the answer yet) at least
// one line, so that a read always makes progress.
func (s *Server) readEntry(ctx context.Context, name string, e *fsroot.Entry, in intents.Access, budget int, first bool) (result.FileContent, error) {
	max := s.cfg.MaxFileSize
	if p := in.Preferences.MaxSizeBytes; p > 0 && p < max {
		max = p
	}
	data, info, err := e.ReadFile(ctx, max)
	if err == nil {
		err = noKey(name, data)
	}
	if err != nil {
		return result.FileContent{}, err
	}
	out := result.FileContent{Version: fsroot.Version(data)}
	if ext := s.documentExt(name); ext != "" && in.Target.Encoding != "base64" {
		out.MediaType = text.MediaType(name, data, false)
		if in.Preferences.IncludeMetadata {
			out.FileAttrs = attrs(info)
		}
		if in.Preferences.ChunkIfLarge {
			budget = min(budget, ChunkBytes)
		}
		return out, s.docs().Read(ctx, name, ext, data, in.Preferences, budget, first, &out)
	}
	if in.Target.Encoding == "markdown" {
		return out, s.docs().Markdown(ctx, name, data, in.Preferences, budget, first, &out)
	}
	if in.Preferences.Page > 0 {
		return result.FileContent{}, &errs.Error{Code: errs.CodeInvalidArgument, Field: "preferences.page", Msg: "preferences.page: " + s.show(name) + " is not a document (PDF, Word, PowerPoint, Excel, OpenDocument, EPUB): read text by lines with preferences.offset"}
	}
	isText := markdown.IsText(data)
	if in.Preferences.IncludeMetadata {
		out.FileAttrs = attrs(info)
		if isText {
			out.Lines = ptr(text.LineCount(data))
			out.FinalNewline = ptr(len(data) == 0 || data[len(data)-1] == '\n')
		}
	}
	out.MediaType = text.MediaType(name, data, isText)
	switch {
	case in.Target.Encoding == "base64":
		if n := base64.StdEncoding.EncodedLen(len(data)); n > budget {
			return result.FileContent{}, errs.New(errs.CodeTooLarge, "%q is too large to return as base64 in this answer (%d bytes encoded; %d left of %d): read it alone, or read less with it", s.show(name), n, budget, MaxContentBytes)
		}
		b64 := base64.StdEncoding.EncodeToString(data)
		out.Content, out.Encoding, out.Binary = &b64, "base64", !isText
	case !isText:
		out.Binary = true
		s.attachImage(&out, data)
	default:
		if in.Preferences.ChunkIfLarge {
			budget = min(budget, ChunkBytes)
		}
		text.Window(&out, data, in.Preferences, budget, first)
		out.Encoding = "utf-8"
	}
	return out, nil
}

func (s *Server) exists(c *call, in intents.Access) (any, error) {
	name, err := s.resolvePath(in.Target.Path, kindAny)
	c.path = name
	if err != nil && !errors.Is(err, security.ErrExtension) && !isNotExist(err) {
		return nil, err // a file of a type the tools do not open is named, as listings name it
	}
	if err := s.charge(c, false); err != nil {
		return nil, err
	}
	out := result.Reader{Status: result.Status{Success: true}, Exists: ptr(false)}
	if info, err := s.cfg.Root.Lstat(name); err == nil {
		out.Exists = ptr(true)
		out.Type = string(info.Type)
	} else if !isNotExist(err) {
		return nil, err
	}
	out.Metadata = c.meta()
	return out, nil
}

// metadata describes the entry e that name reached: what the lookup found there, and for a
// regular file what its content is, judged while it streams by, so a file up to the size limit
// costs a bounded buffer, not its size in memory.
func (s *Server) metadata(ctx context.Context, c *call, name string, e *fsroot.Entry) (any, error) {
	info, err := e.Info()
	if err != nil {
		return nil, err
	}
	out := result.Reader{Status: result.Status{Success: true}, FileContent: result.FileContent{FileAttrs: attrs(info)}}
	if ext := s.documentExt(name); ext != "" && info.Type == fsroot.TypeFile {
		if err := s.docs().Metadata(ctx, name, ext, e, &out.FileContent); err != nil {
			return nil, err
		}
	} else if info.Type == fsroot.TypeFile {
		var t text.Scan
		var v fsroot.VersionHash
		if _, err := e.Scan(ctx, s.cfg.MaxFileSize, func(p []byte) error { t.Add(p); v.Write(p); return nil }); err == nil {
			out.Version = v.Version()
			isText := t.Text()
			out.MediaType = text.MediaType(name, t.Head(), isText)
			out.Binary = !isText
			if isText {
				out.Lines = ptr(t.Lines())
				out.FinalNewline = ptr(t.EndsLine())
			}
		} else {
			out.MediaType = text.MediaType(name, nil, false)
		}
	}
	out.Metadata = c.meta()
	return out, nil
}

func attrs(info fsroot.Info) result.FileAttrs {
	return result.FileAttrs{
		SizeBytes: ptr(info.Size),
		Modified:  info.ModTime.UTC().Format("2006-01-02T15:04:05Z07:00"),
		Type:      string(info.Type),
		Mode:      fmt.Sprintf("%04o", info.Mode.Perm()),
	}
}

func ptr[T any](v T) *T { return &v }

// docs reads the documents of this root's calls.
func (s *Server) docs() docs.Reader {
	return docs.Reader{Policy: s.cfg.Policy, Engine: s.cfg.Engine, MaxFileSize: s.cfg.MaxFileSize, Show: s.show}
}

// documentExt is the extension (lower case, no dot) of name when the tools read it as a
// document's text, else "" ([docs.Ext]).
func (s *Server) documentExt(name string) string { return docs.Ext(s.cfg.Policy, name) }

// attachImage gives out, the read of the binary file data, the image a model receives, when data
// is an image extract reads (by its bytes, not its name): the answer then carries it as image
// content, scaled to the model's bounds, and says how in imageSent.
func (s *Server) attachImage(out *result.FileContent, data []byte) {
	kind := strings.Split(http.DetectContentType(data[:min(len(data), text.SniffLen)]), ";")[0]
	if !extract.Supported(kind) {
		return
	}
	img, err := extract.ImageFor(data, kind)
	out.WidthPx, out.HeightPx = img.Width, img.Height
	switch {
	case errors.Is(err, extract.ErrTooManyPixels):
		out.ImageSent = fmt.Sprintf("not sent: %dx%d is more than %d megapixels, more than the server decodes", img.Width, img.Height, extract.MaxPixels/1_000_000)
		return
	case err != nil:
		out.ImageSent = "not sent: " + err.Error()
		return
	}
	out.Image = &img
	out.ImageSent = fmt.Sprintf("%dx%d %s, %s", img.SentWidth, img.SentHeight, strings.TrimPrefix(img.MediaType, "image/"), text.Size(int64(len(img.Data))))
	if img.SentWidth != img.Width || img.SentHeight != img.Height {
		out.ImageSent += " (scaled down)"
	}
}
