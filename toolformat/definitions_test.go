package toolformat_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/packfs/packfs-mcp/toolformat"
)

// vendorShapes are the required shapes of each format's output, written from the providers' API
// references: OpenAI's function tools (name ^[a-zA-Z0-9_-]{1,64}$, parameters an object schema, no
// strict in Chat Completions; strict false in the Responses API, which defaults it to true),
// Anthropic's tools (name ^[a-zA-Z0-9_-]{1,64}$, input_schema of type object), MCP's Tool
// (inputSchema and outputSchema of type object), and a map of name to input and output schemas.
var vendorShapes = map[toolformat.Format]string{
	toolformat.MCP: `{"type": "array", "minItems": 1, "items": {"type": "object", "required": ["name", "description", "inputSchema", "outputSchema", "annotations"],
		"properties": {"name": {"$ref": "#/$defs/name"}, "description": {"type": "string", "minLength": 1},
			"inputSchema": {"$ref": "#/$defs/object"}, "outputSchema": {"$ref": "#/$defs/object"},
			"annotations": {"type": "object", "required": ["readOnlyHint", "destructiveHint"]}}}, ` + shapeDefs + `}`,
	toolformat.OpenAI: `{"type": "array", "minItems": 1, "items": {"type": "object", "required": ["type", "function"], "additionalProperties": false,
		"properties": {"type": {"const": "function"},
			"function": {"type": "object", "required": ["name", "description", "parameters"], "additionalProperties": false,
				"properties": {"name": {"$ref": "#/$defs/name"}, "description": {"type": "string", "minLength": 1}, "parameters": {"$ref": "#/$defs/object"}}}}}, ` + shapeDefs + `}`,
	toolformat.OpenAIResponses: `{"type": "array", "minItems": 1, "items": {"type": "object", "required": ["type", "name", "description", "parameters", "strict"], "additionalProperties": false,
		"properties": {"type": {"const": "function"}, "name": {"$ref": "#/$defs/name"}, "description": {"type": "string", "minLength": 1},
			"parameters": {"$ref": "#/$defs/object"}, "strict": {"const": false}}}, ` + shapeDefs + `}`,
	toolformat.Anthropic: `{"type": "array", "minItems": 1, "items": {"type": "object", "required": ["name", "description", "input_schema"], "additionalProperties": false,
		"properties": {"name": {"$ref": "#/$defs/name"}, "description": {"type": "string", "minLength": 1}, "input_schema": {"$ref": "#/$defs/object"}}}, ` + shapeDefs + `}`,
	toolformat.JSONSchema: `{"type": "object", "minProperties": 1, "propertyNames": {"$ref": "#/$defs/name"},
		"additionalProperties": {"type": "object", "required": ["input", "output"], "additionalProperties": false,
			"properties": {"input": {"$ref": "#/$defs/object"}, "output": {"$ref": "#/$defs/object"}}}, ` + shapeDefs + `}`,
}

const shapeDefs = `"$defs": {
	"name": {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"},
	"object": {"type": "object", "required": ["type", "properties"], "properties": {"type": {"const": "object"}, "properties": {"type": "object"}}}}`

// rawIn and rawOut are declared raw, with spacing a re-encoding would lose, so a test can tell
// that they go out byte for byte.
var (
	rawIn  = json.RawMessage(`{"type": "object",  "properties": {"path": {"type": "string"}}, "required": ["path"]}`)
	rawOut = json.RawMessage(`{"type": "object",  "properties": {"success": {"type": "boolean"}}}`)
)

// fixtureTools are two tools as an MCP server declares them, deliberately out of name order: one
// with raw schemas (as packfs-mcp's tools declare theirs), one with structured schemas built by
// mcp-go's options.
func fixtureTools() []mcp.Tool {
	type out struct {
		Success bool `json:"success"`
	}
	reader := mcp.NewToolWithRawSchema("alpha_reader", "Reads a file.", rawIn)
	reader.RawOutputSchema = rawOut
	reader.Annotations = mcp.ToolAnnotation{ReadOnlyHint: mcp.ToBoolPtr(true), DestructiveHint: mcp.ToBoolPtr(false)}
	return []mcp.Tool{
		mcp.NewTool("zeta-writer", mcp.WithDescription("Writes a file."), mcp.WithString("path", mcp.Required()),
			mcp.WithOutputSchema[out](), mcp.WithDestructiveHintAnnotation(true)),
		reader,
	}
}

// diffJSON returns how got, encoded, differs from the JSON want, as values: "" when they are equal.
func diffJSON(t *testing.T, want string, got any) string {
	t.Helper()
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	return cmp.Diff(w, g)
}

func compile(t *testing.T, raw string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDefinitionsVendorShapes checks that every format's output has the shape its vendor requires.
func TestDefinitionsVendorShapes(t *testing.T) {
	for _, format := range toolformat.Formats() {
		t.Run(string(format), func(t *testing.T) {
			defs, err := toolformat.Definitions(fixtureTools(), format)
			if err != nil {
				t.Fatal(err)
			}
			out, err := json.Marshal(defs)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			shape, ok := vendorShapes[format]
			if !ok {
				t.Fatalf("no vendor shape for %s: add one", format)
			}
			if err := compile(t, shape).Validate(inst); err != nil {
				t.Fatalf("output does not have the %s shape: %v\n%s", format, err, out)
			}
		})
	}
}

// TestDefinitionsCarrySchemas checks that every format carries each tool's schemas as the server
// declares them (raw ones byte for byte), in the order tools/list sends the tools (by name).
func TestDefinitionsCarrySchemas(t *testing.T) {
	list := fixtureTools()
	structuredIn, err := json.Marshal(list[0].InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	structuredOut, err := json.Marshal(list[0].OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	type schemas struct{ Name, In, Out string }
	want := []schemas{
		{Name: "alpha_reader", In: string(rawIn), Out: string(rawOut)},
		{Name: "zeta-writer", In: string(structuredIn), Out: string(structuredOut)},
	}
	tests := []struct {
		format toolformat.Format
		got    func(defs any) []schemas
	}{
		{toolformat.MCP, func(defs any) (out []schemas) {
			for _, tool := range defs.([]mcp.Tool) {
				out = append(out, schemas{tool.Name, string(toolformat.InputSchema(tool)), string(toolformat.OutputSchema(tool))})
			}
			return out
		}},
		{toolformat.OpenAI, func(defs any) (out []schemas) {
			for _, tool := range defs.([]toolformat.OpenAITool) {
				out = append(out, schemas{Name: tool.Function.Name, In: string(tool.Function.Parameters)})
			}
			return out
		}},
		{toolformat.OpenAIResponses, func(defs any) (out []schemas) {
			for _, tool := range defs.([]toolformat.OpenAIResponsesTool) {
				out = append(out, schemas{Name: tool.Name, In: string(tool.Parameters)})
			}
			return out
		}},
		{toolformat.Anthropic, func(defs any) (out []schemas) {
			for _, tool := range defs.([]toolformat.AnthropicTool) {
				out = append(out, schemas{Name: tool.Name, In: string(tool.InputSchema)})
			}
			return out
		}},
		{toolformat.JSONSchema, func(defs any) (out []schemas) {
			m := defs.(map[string]toolformat.Schemas)
			for _, name := range []string{"alpha_reader", "zeta-writer"} {
				out = append(out, schemas{name, string(m[name].Input), string(m[name].Output)})
			}
			if len(m) != 2 {
				out = append(out, schemas{Name: "an extra tool"})
			}
			return out
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			defs, err := toolformat.Definitions(list, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			w := want
			if tt.format != toolformat.MCP && tt.format != toolformat.JSONSchema {
				w = []schemas{{Name: want[0].Name, In: want[0].In}, {Name: want[1].Name, In: want[1].In}}
			}
			if d := cmp.Diff(w, tt.got(defs)); d != "" {
				t.Errorf("schemas (-want +got):\n%s", d)
			}
		})
	}
	if list[0].Name != "zeta-writer" {
		t.Error("Definitions sorted the caller's slice")
	}
}

// TestDefinitionsEdges checks what no test of the vendors' shapes reaches: no tools at all, and a
// tool without an output schema.
func TestDefinitionsEdges(t *testing.T) {
	noOutput := mcp.NewTool("plain", mcp.WithDescription("No output schema."))
	tests := []struct {
		name   string
		tools  []mcp.Tool
		format toolformat.Format
		want   string
	}{
		{name: "no tools, mcp", format: toolformat.MCP, want: `[]`},
		{name: "no tools, openai", format: toolformat.OpenAI, want: `[]`},
		{name: "no tools, responses", format: toolformat.OpenAIResponses, want: `[]`},
		{name: "no tools, anthropic", format: toolformat.Anthropic, want: `[]`},
		{name: "no tools, jsonschema", format: toolformat.JSONSchema, want: `{}`},
		{name: "no output schema", tools: []mcp.Tool{noOutput}, format: toolformat.JSONSchema,
			want: `{"plain": {"input": {"type": "object", "properties": {}, "required": []}, "output": null}}`},
		{name: "responses strict false", tools: []mcp.Tool{noOutput}, format: toolformat.OpenAIResponses,
			want: `[{"type": "function", "name": "plain", "description": "No output schema.", "parameters": {"type": "object", "properties": {}, "required": []}, "strict": false}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := toolformat.Definitions(tt.tools, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffJSON(t, tt.want, defs); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestDefinitionsUnknownFormat(t *testing.T) {
	for _, format := range []toolformat.Format{"yaml", "", "OpenAI"} {
		t.Run(string(format), func(t *testing.T) {
			defs, err := toolformat.Definitions(fixtureTools(), format)
			if !errors.Is(err, toolformat.ErrUnknownFormat) || defs != nil {
				t.Fatalf("Definitions(%q) = %v, %v; want ErrUnknownFormat", format, defs, err)
			}
			for _, want := range []string{`"` + string(format) + `"`, "mcp, openai, openai-responses, anthropic, jsonschema"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}
