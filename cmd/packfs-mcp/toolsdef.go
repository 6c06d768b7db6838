package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/internal/serving"
	"github.com/packfs/packfs-mcp/toolformat"
	"github.com/packfs/packfs-mcp/tools"
)

// toolsCmd prints the definitions of the tools a server would offer, in the shape a framework that
// registers tools itself expects. The definitions come from the same [tools.Server] the server
// registers, so the schemas printed are exactly the schemas served, and the permission flags (and a
// config file's permissions) leave out the same tools as for serve and call: by default the reader
// and the searcher, the writer only with --allow-write. It exits 0, or 2 on bad flags.
func toolsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(stdout)
	format := fs.String("format", string(toolformat.MCP), "the shape to print: "+formatNames())
	configFile := fs.String("config", "", "a JSON or YAML config `FILE`, as for serve: its permissions, readOnly and disabledTools apply")
	pf := addPermissionFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: packfs-mcp tools [--format FORMAT] [flags]

Print the definitions of packfs-mcp's tools (name, description, input and output JSON Schemas) for
agent frameworks that register tools themselves and run the calls elsewhere, for instance with
packfs-mcp call. They come from the same Go types the server uses, so they never drift from what
an MCP client sees in tools/list. No root is needed. The permission flags are serve's and call's,
with the same defaults: the reader and the searcher are printed, and the writer only with
--allow-write (or write in --permissions). Pass tools the flags you pass call, so the model is
offered exactly the tools call runs.

Formats:
  mcp               the "tools" array of an MCP tools/list answer, exactly as the server sends it
  openai            OpenAI Chat Completions tools: {"type": "function", "function": {name, description, parameters}}
  openai-responses  OpenAI Responses API tools: {"type": "function", name, description, parameters, "strict": false}
  anthropic         Anthropic Messages API tools: {name, description, input_schema}
  jsonschema        one object keyed by tool name: {"input": <JSON Schema>, "output": <JSON Schema>}

Examples:
  packfs-mcp tools --format openai > tools.json
  packfs-mcp tools --format anthropic --allow-write

Flags:
`)
		fs.PrintDefaults()
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "packfs-mcp tools: %v\n", err)
		return 2
	}
	if err := parseArgs(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return fail(err)
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q; see packfs-mcp tools --help", fs.Arg(0)))
	}
	var c serving.Config
	if *configFile != "" {
		var err error
		if c, err = loadConfig(*configFile); err != nil {
			return fail(err)
		}
	}
	pf.apply(&c, visited(fs))
	p, err := serving.PermissionsOf(c)
	if err != nil {
		return fail(err)
	}
	for _, name := range c.DisabledTools {
		if !slices.Contains(serving.ToolNames, name) {
			return fail(fmt.Errorf("unknown tool %q in --disable-tool: the tools are %s", name, strings.Join(serving.ToolNames, ", ")))
		}
	}
	var list []mcp.Tool
	for _, t := range tools.New(tools.Config{Permissions: p, Disabled: c.DisabledTools}).Tools() {
		list = append(list, t.Tool)
	}
	defs, err := toolformat.Definitions(list, toolformat.Format(*format))
	if err != nil {
		return fail(err)
	}
	out, err := json.MarshalIndent(defs, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "packfs-mcp tools: %v\n", err)
		return 1
	}
	stdout.Write(append(out, '\n'))
	return 0
}

// formatNames lists the formats the tools subcommand prints, for its help.
func formatNames() string {
	var names []string
	for _, f := range toolformat.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}
