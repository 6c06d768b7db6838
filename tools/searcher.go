package tools

import (
	"context"
	"errors"
	"io/fs"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/progress"
	"github.com/packfs/packfs-mcp/tools/result"
	"github.com/packfs/packfs-mcp/tools/search"
)

func searcherTool() mcp.Tool {
	return mcp.NewTool(SearcherName,
		mcp.WithDescription("list: a folder's entries. "+
			"search_content: lines holding target.query (any case) below target.path. "+
			"search_semantic: documents ranked by BM25 (words, not meaning), with best section and snippet. "+
			"relationships: a document's outline, tags, links, broken links and backlinks (by name, alias, path, %20) with lines (no text search adds to them); for target.paths or a folder, links of each; it takes only target.path(s) and options.offset."),
		schemas[intents.Discover, result.Searcher](),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           "Find files",
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(false),
		}),
	)
}

func (s *Server) discover(ctx context.Context, c *call) (any, error) {
	in, err := admit[intents.Discover](s, c)
	if err != nil {
		return nil, err
	}
	if len(in.Target.Paths) > 0 {
		return s.pathsRelations(ctx, c, in)
	}
	name, info, infoErr, err := s.target(c, in)
	if err != nil {
		return nil, err
	}
	row, _ := PurposeOf(SearcherName, in.Purpose) // Decode admitted only the table's purposes
	return row.discover(s, ctx, c, in, name, info, infoErr)
}

// target looks up in's target.path, the root-relative name it returns, and charges the call. info
// is what the lookup found there (or infoErr why not), so the name is walked once.
func (s *Server) target(c *call, in intents.Discover) (name string, info fsroot.Info, infoErr, err error) {
	name, e, err := s.lookup(in.Target.Path)
	c.path = name
	if err != nil {
		return "", fsroot.Info{}, nil, err
	}
	info, infoErr = e.Info()
	e.Close()
	return name, info, infoErr, s.charge(c, in.Recursive())
}

// listFolder answers purpose list.
func (s *Server) listFolder(ctx context.Context, c *call, in intents.Discover, name string, info fsroot.Info, infoErr error) (any, error) {
	if infoErr != nil {
		return nil, infoErr
	}
	if info.Type != fsroot.TypeDir {
		return nil, fsroot.ErrNotDir
	}
	return s.walked(ctx, c, func(r *search.Report) (result.Searcher, error) { return s.walker().List(ctx, in, name, r) })
}

// searchFiles answers purpose search_content.
func (s *Server) searchFiles(ctx context.Context, c *call, in intents.Discover, name string, _ fsroot.Info, infoErr error) (any, error) {
	if infoErr != nil {
		return nil, infoErr
	}
	return s.walked(ctx, c, func(r *search.Report) (result.Searcher, error) { return s.walker().Content(ctx, in, name, r) })
}

// walked answers a list or search_content of call c with walk's answer, reporting its progress.
func (s *Server) walked(ctx context.Context, c *call, walk func(r *search.Report) (result.Searcher, error)) (any, error) {
	rep := s.newReporter(ctx, c)
	defer rep.Finish() // runs as discover returns, before the response is sent
	out, err := walk(&search.Report{Progress: rep})
	if err != nil {
		return nil, err
	}
	out.Metadata = c.meta()
	return out, nil
}

// walker walks this root for the searcher, through judged reads.
func (s *Server) walker() search.Walker {
	return search.Walker{Root: s.cfg.Root, Policy: s.cfg.Policy, Ignore: s.cfg.Ignore, Engine: s.cfg.Engine,
		MaxFileSize: s.cfg.MaxFileSize, ReadJudged: s.readJudged, Docs: s.docs(), BeforeSearch: s.beforeSearch,
		Resumes: &s.resumes, Budget: s.budget, Now: s.cfg.Now, Show: s.show, Log: s.cfg.Log}
}

// newReporter returns the progress reporter of call c.
func (s *Server) newReporter(ctx context.Context, c *call) *progress.Reporter {
	row, _ := PurposeOf(c.tool, c.purpose)
	return progress.New(ctx, c.tool, c.purpose, row.Progress, c.progressToken, s.cfg.Progress, s.cfg.Now)
}

// notifyIndexProgress tells the client (when it sent a progress token) and [Config.Progress] how far
// the index build has got, when it is still running.
func (s *Server) notifyIndexProgress(ctx context.Context, c *call) {
	s.newReporter(ctx, c).Index(s.cfg.Engine.Status())
}

// isNotExist reports whether err says a file is not there, or a file stands where a folder on its
// path should be.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fsroot.ErrNotDir)
}
