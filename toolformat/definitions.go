package toolformat

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// Format names a shape of tool definitions.
type Format string

// The formats [Definitions] knows.
const (
	// MCP is the "tools" array of an MCP tools/list answer, exactly as a server sends it.
	MCP Format = "mcp"
	// OpenAI is OpenAI Chat Completions tools: a list of [OpenAITool].
	OpenAI Format = "openai"
	// OpenAIResponses is OpenAI Responses API tools: a list of [OpenAIResponsesTool].
	OpenAIResponses Format = "openai-responses"
	// Anthropic is Anthropic Messages API tools: a list of [AnthropicTool].
	Anthropic Format = "anthropic"
	// JSONSchema is one object keyed by tool name: a map of [Schemas].
	JSONSchema Format = "jsonschema"
)

// Formats returns every [Format], in the order a help text lists them.
func Formats() []Format {
	return []Format{MCP, OpenAI, OpenAIResponses, Anthropic, JSONSchema}
}

// ErrUnknownFormat reports a format [Definitions] does not know.
var ErrUnknownFormat = errors.New("unknown format")

// OpenAITool is a function tool of the OpenAI Chat Completions API.
type OpenAITool struct {
	Type     string         `json:"type"` // always "function"
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function of an [OpenAITool]. Strict is left unset (false): strict mode
// requires every property to be required and every object closed, which tool schemas with
// optional fields do not meet.
type OpenAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// OpenAIResponsesTool is a function tool of the OpenAI Responses API. Strict is always written,
// false, because that API defaults it to true and tool schemas with optional fields do not meet
// strict mode's rules.
type OpenAIResponsesTool struct {
	Type        string          `json:"type"` // always "function"
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// AnthropicTool is a client tool of the Anthropic Messages API.
type AnthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Schemas are one tool's schemas in the [JSONSchema] format. Output is null when the tool declares
// no output schema.
type Schemas struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

// Definitions returns tools shaped for format, in the order tools/list sends them (by name): a
// []mcp.Tool for [MCP], []OpenAITool for [OpenAI], []OpenAIResponsesTool for [OpenAIResponses],
// []AnthropicTool for [Anthropic] and map[string]Schemas for [JSONSchema], never nil, ready for
// [json.Marshal]. An unknown format gives an error matching [ErrUnknownFormat] that lists the
// formats. It panics if a tool's structured schema does not encode, a bug in the tool's
// definition, as mcp-go's AddTool does.
func Definitions(tools []mcp.Tool, format Format) (any, error) {
	list := slices.SortedFunc(slices.Values(tools), func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	switch format {
	case MCP:
		if list == nil {
			list = []mcp.Tool{}
		}
		return list, nil
	case OpenAI:
		out := []OpenAITool{}
		for _, t := range list {
			out = append(out, OpenAITool{Type: "function", Function: OpenAIFunction{Name: t.Name, Description: t.Description, Parameters: InputSchema(t)}})
		}
		return out, nil
	case OpenAIResponses:
		out := []OpenAIResponsesTool{}
		for _, t := range list {
			out = append(out, OpenAIResponsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: InputSchema(t)})
		}
		return out, nil
	case Anthropic:
		out := []AnthropicTool{}
		for _, t := range list {
			out = append(out, AnthropicTool{Name: t.Name, Description: t.Description, InputSchema: InputSchema(t)})
		}
		return out, nil
	case JSONSchema:
		out := map[string]Schemas{}
		for _, t := range list {
			out[t.Name] = Schemas{Input: InputSchema(t), Output: OutputSchema(t)}
		}
		return out, nil
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return nil, fmt.Errorf("%w %q: choose one of %s", ErrUnknownFormat, format, strings.Join(names, ", "))
}

// InputSchema returns t's input schema as an MCP server sends it: the raw schema when t declares
// one, else the structured one encoded. It panics if the structured schema does not encode.
func InputSchema(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema
	}
	return mustMarshal(t.Name, t.InputSchema)
}

// OutputSchema returns t's output schema as an MCP server sends it, or null when t declares none.
// It panics if the structured schema does not encode.
func OutputSchema(t mcp.Tool) json.RawMessage {
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
