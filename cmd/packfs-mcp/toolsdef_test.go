package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/packfs/packfs-mcp/toolformat"
)

// toolsOut runs the tools subcommand and returns its exit code, stdout and stderr.
func toolsOut(t *testing.T, args ...string) (int, []byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"tools"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.Bytes(), stderr.String()
}

// schemasByName returns each tool's schemas from one format's output: the input schema, and for
// the formats that carry it, the output schema.
func schemasByName(t *testing.T, format string, out []byte) (in, outSchemas map[string]any) {
	t.Helper()
	in, outSchemas = map[string]any{}, map[string]any{}
	if format == "jsonschema" {
		var m map[string]struct{ Input, Output any }
		must(t, json.Unmarshal(out, &m))
		for name, s := range m {
			in[name], outSchemas[name] = s.Input, s.Output
		}
		return in, outSchemas
	}
	var list []map[string]any
	must(t, json.Unmarshal(out, &list))
	for _, tool := range list {
		switch format {
		case "mcp":
			in[tool["name"].(string)], outSchemas[tool["name"].(string)] = tool["inputSchema"], tool["outputSchema"]
		case "openai":
			fn := tool["function"].(map[string]any)
			in[fn["name"].(string)] = fn["parameters"]
		case "openai-responses":
			in[tool["name"].(string)] = tool["parameters"]
		case "anthropic":
			in[tool["name"].(string)] = tool["input_schema"]
		}
	}
	return in, outSchemas
}

// vendorName is the tool names OpenAI and Anthropic accept.
var vendorName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// TestToolsCmdFormats checks that our tools, in every format, are what the vendors accept: names
// they take, and schemas that are valid JSON Schemas and describe the intents. That each format has
// its vendor's shape is toolformat's TestDefinitionsVendorShapes.
func TestToolsCmdFormats(t *testing.T) {
	for _, format := range toolformat.Formats() {
		t.Run(string(format), func(t *testing.T) {
			code, out, stderr := toolsOut(t, "--format", string(format), "--allow-write")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			in, outSchemas := schemasByName(t, string(format), out)
			if format == toolformat.MCP {
				var list []struct {
					Name, Description string
					Annotations       map[string]any
				}
				must(t, json.Unmarshal(out, &list))
				for _, tool := range list {
					if tool.Description == "" || tool.Annotations["readOnlyHint"] == nil || tool.Annotations["destructiveHint"] == nil {
						t.Errorf("%s: description %q, annotations %v: want a description and both hints", tool.Name, tool.Description, tool.Annotations)
					}
				}
			}
			if got := len(in); got != 3 {
				t.Errorf("%d tools, want all 3", got)
			}
			for name, s := range in {
				if !vendorName.MatchString(name) {
					t.Errorf("tool name %q is not one the vendors accept (%s)", name, vendorName)
				}
				raw, _ := json.Marshal(s)
				compileSchema(t, raw) // a valid JSON Schema, or the test fails
				if name == reader {
					sample, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"purpose": "read", "target": {"path": "notes/a.md"}, "preferences": {"offset": 0, "limit": 50}}`))
					must(t, err)
					if err := compileSchema(t, raw).Validate(sample); err != nil {
						t.Errorf("a read intent does not validate against the reader's input schema: %v", err)
					}
				}
			}
			for _, s := range outSchemas {
				raw, _ := json.Marshal(s)
				compileSchema(t, raw)
			}
		})
	}
}

// listTools asks a server started with args for tools/list and returns its tools.
func listTools(t *testing.T, args ...string) []any {
	t.Helper()
	in := initializeLine + `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}` + "\n"
	var stdout, stderr bytes.Buffer
	args = append([]string{"serve", "--root", t.TempDir(), "--no-index", "--history-dir", t.TempDir()}, args...)
	errw := &gatedWriter{w: &stderr} // the server's background cleanup may log after it returns
	code := run(args, strings.NewReader(in), &stdout, errw)
	errw.close()
	if code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Tools []any `json:"tools"`
			} `json:"result"`
		}
		must(t, json.Unmarshal(sc.Bytes(), &msg))
		if msg.ID == 2 {
			return msg.Result.Tools
		}
	}
	t.Fatalf("no answer to tools/list:\n%s", stdout.String())
	return nil
}

// TestToolsCmdMatchesServer checks that every format carries exactly the schemas a running server
// returns in tools/list under the same flags, and that the mcp format is that tools array.
func TestToolsCmdMatchesServer(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "packfs.json")
	must(t, os.WriteFile(cfg, []byte(`{"rootPath": "/unused", "permissions": ["read", "write"], "disabledTools": ["packfs-file-reader"]}`), 0o644))
	tests := []struct {
		name        string
		serve, tool []string
	}{
		{name: "defaults", serve: nil, tool: nil},
		{name: "all tools", serve: []string{"--allow-write"}, tool: []string{"--allow-write"}},
		{name: "read-only", serve: []string{"--allow-write", "--read-only"}, tool: []string{"--read-only"}},
		{name: "permissions", serve: []string{"--permissions", "read,write"}, tool: []string{"--permissions", "read,write"}},
		{name: "config file", serve: []string{"--config", cfg}, tool: []string{"--config", cfg}},
		{name: "disabled tool", serve: []string{"--disable-tool", "packfs-file-reader"}, tool: []string{"--allow-write", "--read-only", "--disable-tool", "packfs-file-reader"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			served := listTools(t, tt.serve...)
			wantIn, wantOut := map[string]any{}, map[string]any{}
			for _, tool := range served {
				m := tool.(map[string]any)
				wantIn[m["name"].(string)], wantOut[m["name"].(string)] = m["inputSchema"], m["outputSchema"]
			}
			for _, f := range toolformat.Formats() {
				format := string(f)
				code, out, stderr := toolsOut(t, append(tt.tool, "--format", format)...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", format, code, stderr)
				}
				if format == "mcp" {
					var got []any
					must(t, json.Unmarshal(out, &got))
					if d := cmp.Diff(served, got); d != "" {
						t.Errorf("mcp format differs from tools/list (-served +printed):\n%s", d)
					}
				}
				in, outSchemas := schemasByName(t, format, out)
				if d := cmp.Diff(wantIn, in); d != "" {
					t.Errorf("%s: input schemas differ from tools/list (-served +printed):\n%s", format, d)
				}
				if format == "mcp" || format == "jsonschema" {
					if d := cmp.Diff(wantOut, outSchemas); d != "" {
						t.Errorf("%s: output schemas differ from tools/list (-served +printed):\n%s", format, d)
					}
				}
			}
		})
	}
}

func TestToolsCmdFlags(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		code      int
		tools     []string
		stderrHas string
	}{
		{name: "default is serve's", code: 0, tools: []string{reader, searcher}},
		{name: "allow write", args: []string{"--allow-write"}, tools: []string{reader, searcher, writer}},
		{name: "read only", args: []string{"--read-only"}, tools: []string{reader, searcher}},
		{name: "read permission", args: []string{"--permissions", "read"}, tools: []string{reader}},
		{name: "list permission", args: []string{"--permissions", "list"}, tools: []string{searcher}},
		{name: "allow write adds to permissions", args: []string{"--permissions", "read", "--allow-write"}, tools: []string{reader, writer}},
		{name: "read only wins", args: []string{"--permissions", "write", "--read-only"}, tools: []string{}},
		{name: "disable two", args: []string{"--disable-tool", "packfs-file-reader, packfs-file-writer"}, tools: []string{searcher}},
		{name: "unknown format", args: []string{"--format", "yaml"}, code: 2, stderrHas: `unknown format "yaml": choose one of mcp, openai`},
		{name: "unknown permission", args: []string{"--permissions", "read,admin"}, code: 2, stderrHas: `unknown permission "admin"`},
		{name: "unknown tool", args: []string{"--disable-tool", "packfs-file-deleter"}, code: 2, stderrHas: `unknown tool "packfs-file-deleter"`},
		{name: "stray argument", args: []string{"openai"}, code: 2, stderrHas: `unexpected argument "openai"`},
		{name: "unknown flag", args: []string{"--root", "/tmp"}, code: 2, stderrHas: "flag provided but not defined: -root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := toolsOut(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, stderr)
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.stderrHas)
			}
			if tt.tools == nil {
				if tt.code != 0 && len(out) > 0 {
					t.Errorf("stdout on failure: %s", out)
				}
				return
			}
			var list []struct{ Name string }
			must(t, json.Unmarshal(out, &list))
			got := []string{}
			for _, tool := range list {
				got = append(got, tool.Name)
			}
			if d := cmp.Diff(tt.tools, got); d != "" {
				t.Errorf("tools (-want +got):\n%s", d)
			}
		})
	}
}

// TestToolsCmdHelp checks that the help names every format and shows an example.
func TestToolsCmdHelp(t *testing.T) {
	code, out, stderr := toolsOut(t, "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q: help goes to stdout", code, stderr)
	}
	want := []string{"Usage: packfs-mcp tools", "Examples:", "packfs-mcp tools --format openai", "-disable-tool", "-allow-write", "-config"}
	for _, f := range toolformat.Formats() {
		want = append(want, "  "+string(f)+" ") // each format is explained
	}
	for _, want := range want {
		if !strings.Contains(string(out), want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}
