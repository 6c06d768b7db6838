package tools

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/tools/errs"
	"github.com/packfs/packfs-mcp/tools/result"
)

// Refusal returns a stand-in for the tool named name, for a server that does not offer it (writing
// off, a permission missing, the tool disabled). The stand-in has the tool's definition, so a call's
// arguments decode as usual, and answers every call with a PERMISSION_DENIED error result in the
// tool's own result shape, whose error is why: what is off and how the user turns it on. A client
// that calls a tool it was not offered (a model that remembers the writer from another session, or a
// framework that registered it) so gets an answer to hand back to the model, where MCP's unknown-tool
// error says only "not found". The caller keeps the stand-in out of tools/list. Refusal reports false
// for a name that is not one of the three tools.
func (s *Server) Refusal(name, why string) (server.ServerTool, bool) {
	var t server.ServerTool
	switch name {
	case ReaderName:
		t.Tool = readerTool()
	case SearcherName:
		t.Tool = searcherTool()
	case WriterName:
		t.Tool = writerTool()
	default:
		return t, false
	}
	t.Handler = s.adapt(name, func(context.Context, *call) (any, error) {
		return nil, errs.New(errs.CodePermissionDenied, "%s", why)
	})
	return t, true
}

// UnknownTool returns the error result of a call to a tool that does not exist, with the code
// UNKNOWN_TOOL and the names of the three tools: what a one-shot call answers, in its caller's
// shape, so that a framework has a result to hand back to the model that asked for name.
func UnknownTool(name string) *mcp.CallToolResult {
	return shape(result.Status{Code: errs.CodeUnknownTool, Error: fmt.Sprintf("there is no tool %q: the tools are %s (read files), "+
		"%s (list and search) and %s (change files); call one of them", name, ReaderName, SearcherName, WriterName)}, true)
}
