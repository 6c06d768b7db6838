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

	"github.com/packfs/packfs-mcp/tools"
)

// toolFormats are the shapes the tools subcommand prints, in the order its help lists them.
var toolFormats = []string{"mcp", "openai", "openai-responses", "anthropic", "jsonschema"}

// toolsCmd prints the definitions of the tools a server would offer, in the shape a framework that
// registers tools itself expects. The definitions come from the same [tools.Server] the server
// registers, so the schemas printed are exactly the schemas served, and the permission flags (and a
// config file's permissions) leave out the same tools as for serve and call: by default the reader
// and the searcher, the writer only with --allow-write. It exits 0, or 2 on bad flags.
func toolsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(stdout)
	format := fs.String("format", "mcp", "the shape to print: "+strings.Join(toolFormats, ", "))
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
	var c Config
	if *configFile != "" {
		var err error
		if c, err = loadConfig(*configFile); err != nil {
			return fail(err)
		}
	}
	pf.apply(&c, visited(fs))
	p, err := permissionsOf(c)
	if err != nil {
		return fail(err)
	}
	for _, name := range c.DisabledTools {
		if !slices.Contains(toolNames, name) {
			return fail(fmt.Errorf("unknown tool %q in --disable-tool: the tools are %s", name, strings.Join(toolNames, ", ")))
		}
	}
	defs, err := toolDefinitions(tools.New(tools.Config{Permissions: p, Disabled: c.DisabledTools}), *format)
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

// openAITool is a function tool of the OpenAI Chat Completions API.
type openAITool struct {
	Type     string         `json:"type"` // always "function"
	Function openAIFunction `json:"function"`
}

// openAIFunction is the function of an [openAITool]. Strict is left unset (false): strict mode
// requires every property to be required and every object closed, and the intents have optional
// fields.
type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// openAIResponsesTool is a function tool of the OpenAI Responses API. Strict is always written,
// false, because that API defaults it to true and the schemas do not meet strict mode's rules.
type openAIResponsesTool struct {
	Type        string          `json:"type"` // always "function"
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// anthropicTool is a client tool of the Anthropic Messages API.
type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// toolSchemas are one tool's schemas in the jsonschema format.
type toolSchemas struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

// toolDefinitions returns the tools s offers, in the order tools/list sends them (by name), shaped
// for format.
func toolDefinitions(s *tools.Server, format string) (any, error) {
	var list []mcp.Tool
	for _, t := range s.Tools() {
		list = append(list, t.Tool)
	}
	slices.SortFunc(list, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	switch format {
	case "mcp":
		if list == nil {
			list = []mcp.Tool{}
		}
		return list, nil
	case "openai":
		out := []openAITool{}
		for _, t := range list {
			out = append(out, openAITool{Type: "function", Function: openAIFunction{Name: t.Name, Description: t.Description, Parameters: inputSchema(t)}})
		}
		return out, nil
	case "openai-responses":
		out := []openAIResponsesTool{}
		for _, t := range list {
			out = append(out, openAIResponsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: inputSchema(t)})
		}
		return out, nil
	case "anthropic":
		out := []anthropicTool{}
		for _, t := range list {
			out = append(out, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: inputSchema(t)})
		}
		return out, nil
	case "jsonschema":
		out := map[string]toolSchemas{}
		for _, t := range list {
			out[t.Name] = toolSchemas{Input: inputSchema(t), Output: outputSchema(t)}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown format %q: choose one of %s", format, strings.Join(toolFormats, ", "))
}

// inputSchema returns t's input schema as the server sends it. The tools declare it raw, generated
// from their intent types; the structured form is a fallback that keeps this right should one not.
func inputSchema(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema
	}
	return mustMarshal(t.Name, t.InputSchema)
}

// outputSchema returns t's output schema as the server sends it, or null when it declares none.
func outputSchema(t mcp.Tool) json.RawMessage {
	if len(t.RawOutputSchema) > 0 {
		return t.RawOutputSchema
	}
	if t.OutputSchema.Type == "" {
		return json.RawMessage("null")
	}
	return mustMarshal(t.Name, t.OutputSchema)
}

// mustMarshal encodes a declared schema. One that does not encode is a bug in a tool definition,
// which panics as mcp-go's AddTool does, never a problem of the input.
func mustMarshal(tool string, schema any) json.RawMessage {
	b, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", tool, err))
	}
	return b
}
