package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestRefusedToolEndToEnd drives the binary over stdio: a tool the flags do not offer stays out of
// tools/list, yet a call to it gets a PERMISSION_DENIED error result that says what is off and how
// to turn it on (not the protocol's "tool not found"), and nothing is done.
func TestRefusedToolEndToEnd(t *testing.T) {
	create := map[string]any{"purpose": "create", "target": map[string]any{"path": "made.md"}, "content": "x\n"}
	tests := []struct {
		name     string
		flags    []string
		tool     string
		args     map[string]any
		errorHas []string
	}{
		{name: "writing off", tool: writer, args: create, errorHas: []string{"writing is off", "--allow-write"}},
		{name: "read-only", flags: []string{"--allow-write", "--read-only"}, tool: writer, args: create, errorHas: []string{"writing is off", "--read-only"}},
		{name: "disabled", flags: []string{"--disable-tool", reader}, tool: reader, args: access("read", "notes/a.md"), errorHas: []string{"is disabled", "--disable-tool"}},
	}
	for _, era := range eras {
		for _, tt := range tests {
			t.Run(era.name+"/"+tt.name, func(t *testing.T) {
				f := newFixture(t)
				s := start(t, f, era.opts, append([]string{"--no-index"}, tt.flags...)...)
				if _, listed := s.schemas[tt.tool]; listed {
					t.Errorf("%s is listed although it is not offered", tt.tool)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				req := mcp.CallToolRequest{}
				req.Params.Name = tt.tool
				req.Params.Arguments = tt.args
				res, err := s.c.CallTool(ctx, req)
				if err != nil {
					t.Fatalf("call: %v, want an error result", err)
				}
				var out map[string]any
				must(t, json.Unmarshal(res.RawStructuredContent, &out))
				if !res.IsError || out["success"] != false || out["code"] != "PERMISSION_DENIED" {
					t.Errorf("result = %v (isError %v), want PERMISSION_DENIED", out, res.IsError)
				}
				msg, _ := out["error"].(string)
				for _, want := range tt.errorHas {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q lacks %q", msg, want)
					}
				}
				if strings.Contains(msg, f.dir) {
					t.Errorf("error names a host path: %q", msg)
				}
				if _, err := os.Stat(filepath.Join(f.root, "made.md")); err == nil {
					t.Errorf("a refused create made the file")
				}
			})
		}
	}
}
