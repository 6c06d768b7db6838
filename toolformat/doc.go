// Package toolformat translates between MCP tools and the tool formats of model vendors, for agent
// frameworks that register tools themselves and run the calls elsewhere.
//
// One way, [Definitions] shapes an MCP server's tool list as OpenAI Chat Completions, OpenAI
// Responses or Anthropic Messages tool definitions, as MCP's own tools/list array, or as plain JSON
// Schemas by tool name (see [Format]). The schemas go out byte for byte as the server declares
// them, so what a model is offered never drifts from what the server checks.
//
// The other way, [ParseCall] reads one tool call in any of the shapes a model or client produces
// it in (see [Shape]): MCP's tools/call params, a whole JSON-RPC tools/call request, an OpenAI
// Chat Completions tool call, an OpenAI Responses function_call item or an Anthropic tool_use
// block. [Call.Request] turns it into the [mcp.CallToolRequest] an MCP server would have decoded,
// and [Call.Answer] shapes the [mcp.CallToolResult] back the way the call came, with its id.
//
// The package is pure: it touches no file and no network and holds no state, and of mcp-go it
// uses only the protocol types of package mcp. Every error wraps one of its sentinels
// ([ErrUnknownFormat], [ErrNoCall], [ErrNotJSON], [ErrNotOneCall], [ErrNotToolCall],
// [ErrInvalidCall]), so a caller tells the cases apart with [errors.Is]; messages name the
// offending field in the input's own words ("function.arguments") and say what is expected.
package toolformat
