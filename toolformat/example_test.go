package toolformat_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/toolformat"
)

// An agent framework that calls a model's API itself offers it an MCP server's tools in the
// vendor's shape; the input schema is the one the server declares, unchanged (indented here for
// reading).
func ExampleDefinitions() {
	tool := mcp.NewToolWithRawSchema("read_file", "Reads a text file of the root.",
		json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`))

	defs, err := toolformat.Definitions([]mcp.Tool{tool}, toolformat.Anthropic)
	if err != nil {
		log.Fatal(err)
	}
	out, err := json.MarshalIndent(defs, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// [
	//   {
	//     "name": "read_file",
	//     "description": "Reads a text file of the root.",
	//     "input_schema": {
	//       "type": "object",
	//       "properties": {
	//         "path": {
	//           "type": "string"
	//         }
	//       },
	//       "required": [
	//         "path"
	//       ]
	//     }
	//   }
	// ]
}

// The model's call comes back in the vendor's shape; ParseCall reads it, Request gives the MCP
// request a server would have decoded, and Answer shapes the result the way the call came.
func ExampleParseCall() {
	openAICall := []byte(`{"id": "call_1", "type": "function",
		"function": {"name": "read_file", "arguments": "{\"path\": \"notes/todo.md\"}"}}`)

	call, err := toolformat.ParseCall("example", openAICall)
	if err != nil {
		log.Fatal(err)
	}
	req, err := call.Request()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(call.Shape, req.Params.Name, req.GetString("path", ""))

	answer, err := json.Marshal(call.Answer(mcp.NewToolResultText("# To do")))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(answer))
	// Output:
	// OpenAI read_file notes/todo.md
	// {"role":"tool","tool_call_id":"call_1","content":"# To do"}
}
