package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/packfs/packfs-mcp/toolformat"
)

// ListingBudget is the most bytes the three tools may cost a model with writing on: what a host
// puts in front of it on every turn, each tool's name, description and input schema as compact
// JSON, measured from tools/list.
const ListingBudget = 6500

// TestListingBudget checks that the tools listing, as the built binary answers tools/list and a
// host shows it to a model, stays within ListingBudget.
func TestListingBudget(t *testing.T) {
	s := start(t, newFixture(t), nil, "--allow-write")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	must(t, err)
	if len(list.Tools) != 3 {
		t.Fatalf("tools = %d, want 3", len(list.Tools))
	}
	total, sizes := 0, []string{}
	for _, tool := range list.Tools {
		n := shownBytes(t, tool)
		total += n
		sizes = append(sizes, fmt.Sprintf("%s %d B", tool.Name, n))
	}
	t.Logf("listing: %d B (%s)", total, strings.Join(sizes, ", "))
	if total > ListingBudget {
		t.Errorf("the tools listing is %d bytes (%s), over the budget of %d: say each rule once, in the field or the tool, and cut what no task needs",
			total, strings.Join(sizes, ", "), ListingBudget)
	}
}

// shownBytes is the size of tool as a host shows it to a model: its name, description and input
// schema, compact JSON as `packfs-mcp tools --format anthropic` prints it (clients pass no output
// schema or annotations to the model).
func shownBytes(t *testing.T, tool mcp.Tool) int {
	t.Helper()
	b, err := json.Marshal(toolformat.AnthropicTool{Name: tool.Name, Description: tool.Description, InputSchema: toolformat.InputSchema(tool)})
	must(t, err)
	return len(b)
}
