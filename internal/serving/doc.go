// Package serving is packfs-mcp's runtime, the serving of its roots (named apart from mcp-go's
// package server, which it imports): the roots it serves and their state (index, history,
// locks), the roots clients offer and the pool that holds them, the stdio and HTTP transports with
// their bounds on a message, the log, the audit journal, and the reports of doctor and the
// refusals of call. The command, cmd/packfs-mcp, parses the flags into a [Config] and runs it.
package serving

// Version is the version the server reports to clients and in its banner: the command sets it
// from its own, which a release build stamps.
var Version = "0.1.0-dev"
