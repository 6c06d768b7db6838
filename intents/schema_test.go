package intents

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// walkSchema calls visit for s and every schema below it through
// "properties" and "items", with a path such as "target.criteria" or
// "edits[]".
func walkSchema(path string, s map[string]any, visit func(path string, s map[string]any)) {
	visit(path, s)
	props, _ := s["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if p, ok := props[name].(map[string]any); ok {
			walkSchema(join(path, name), p, visit)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		walkSchema(path+"[]", items, visit)
	}
}

// resolve compiles an encoded schema with jsonschema-go.
func resolve(t *testing.T, b []byte) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("schema does not unmarshal: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema does not resolve: %v", err)
	}
	return rs
}

func TestSchema(t *testing.T) {
	for _, tc := range []struct {
		name     string
		schema   json.RawMessage
		purposes []string
		// required maps the path of every object schema that requires
		// something to what it requires.
		required map[string][]string
	}{
		{"Access", Schema[Access](), Purposes[Access](), map[string][]string{
			"":               {"purpose", "target"}, // target.path, paths or reads: Decode asks for one
			"target.reads[]": {"path"},
		}},
		{"Discover", Schema[Discover](), Purposes[Discover](), map[string][]string{
			"": {"purpose"},
		}},
		{"Update", Schema[Update](), Purposes[Update](), map[string][]string{
			"":               {"purpose", "target"}, // target.path or target.paths: Decode asks for one
			"edits[]":        {"oldText"},
			"target.moves[]": {"path", "destination"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var root map[string]any
			if err := json.Unmarshal(tc.schema, &root); err != nil {
				t.Fatalf("schema is not JSON: %v\n%s", err, tc.schema)
			}
			resolve(t, tc.schema)
			if root["type"] != "object" {
				t.Errorf("type = %v, want object", root["type"])
			}
			purpose, _ := root["properties"].(map[string]any)["purpose"].(map[string]any)
			var enum []string
			for _, v := range purpose["enum"].([]any) {
				enum = append(enum, v.(string))
			}
			if diff := cmp.Diff(tc.purposes, enum); diff != "" {
				t.Errorf("purpose enum (-want +got):\n%s", diff)
			}

			required := map[string][]string{}
			if root["additionalProperties"] != false {
				t.Errorf("top level: additionalProperties = %v, want false", root["additionalProperties"])
			}
			walkSchema("", root, func(path string, s map[string]any) {
				if d, _ := s["description"].(string); repeatsName(path, d) {
					t.Errorf("description of %s repeats its name: %q", path, d)
				}
				if _, ok := s["additionalProperties"]; ok && path != "" {
					t.Errorf("object %s says additionalProperties, which the top level says once", path)
				}
				if _, ok := s["maxLength"]; ok {
					t.Errorf("%s states its longest length, which Decode holds", path)
				}
				if r, ok := s["required"].([]any); ok {
					for _, name := range r {
						required[path] = append(required[path], name.(string))
					}
				}
			})
			if diff := cmp.Diff(tc.required, required); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
		})
	}
}

// repeatsName reports whether description d of the field at path starts by saying the field's
// name in words, as "Path of the file" for path or "Max results" for maxResults: bytes a model
// pays for on every turn to read what the name already told it.
func repeatsName(path, d string) bool {
	name := path[strings.LastIndex(path, ".")+1:]
	name = strings.TrimSuffix(name, "[]")
	if name == "" || d == "" {
		return false
	}
	var words []string
	start := 0
	for i, r := range name {
		if unicode.IsUpper(r) {
			words = append(words, name[start:i])
			start = i
		}
	}
	words = append(words, name[start:])
	d = strings.TrimPrefix(strings.ToLower(d), "the ")
	return strings.HasPrefix(d, strings.ToLower(strings.Join(words, " ")))
}

// TestSchemaAcceptsDecoded checks that the schema and Decode agree: what
// Decode accepts, re-encoded, validates against the schema, including
// nested optional objects present or absent, and what the schema refuses
// for an unknown nested field Decode refuses too.
func TestSchemaAcceptsDecoded(t *testing.T) {
	type check struct {
		name string
		in   string
	}
	run := func(t *testing.T, schema []byte, decode func([]byte) (any, error), valid, invalid, open []check) {
		rs := resolve(t, schema)
		for _, tc := range valid {
			t.Run(tc.name, func(t *testing.T) {
				v, err := decode([]byte(tc.in))
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				var instance any
				if err := json.Unmarshal(b, &instance); err != nil {
					t.Fatal(err)
				}
				if err := rs.Validate(instance); err != nil {
					t.Errorf("schema refuses decoded %s: %v", b, err)
				}
			})
		}
		for _, tc := range invalid {
			t.Run(tc.name, func(t *testing.T) {
				var instance any
				if err := json.Unmarshal([]byte(tc.in), &instance); err != nil {
					t.Fatal(err)
				}
				if err := rs.Validate(instance); err == nil {
					t.Errorf("schema accepts %s", tc.in)
				}
				if _, err := decode([]byte(tc.in)); err == nil {
					t.Errorf("Decode accepts %s", tc.in)
				}
			})
		}
		for _, tc := range open { // unknown fields below the top level: the schema leaves them to Decode
			t.Run(tc.name, func(t *testing.T) {
				if _, err := decode([]byte(tc.in)); err == nil {
					t.Errorf("Decode accepts %s", tc.in)
				}
			})
		}
	}
	t.Run("Access", func(t *testing.T) {
		run(t, Schema[Access](), func(b []byte) (any, error) { return Decode[Access](b) },
			[]check{
				{"minimal", `{"purpose":"exists","target":"a"}`},
				{"full", `{"purpose":"read","target":{"path":"a","encoding":"utf-8"},"preferences":{"includeMetadata":true,"maxSizeBytes":9,"chunkIfLarge":true,"offset":1,"limit":2}}`},
			},
			[]check{
				{"unknown field", `{"purpose":"read","target":{"path":"a"},"lines":2}`},
				{"missing target", `{"purpose":"read"}`},
			},
			[]check{{"unknown nested field", `{"purpose":"read","target":{"path":"a"},"preferences":{"lines":2}}`}})
	})
	t.Run("Discover", func(t *testing.T) {
		run(t, Schema[Discover](), func(b []byte) (any, error) { return Decode[Discover](b) },
			[]check{
				{"minimal", `{"purpose":"list"}`},
				{"full", `{"purpose":"search_semantic","target":{"path":"d","query":"q","criteria":{"tags":"t","extension":"md","name":"*",
					"modified":{"after":"2025-01-01","before":"2025-02-01T00:00:00Z"},"sizeBytes":{"min":0,"max":5}}},
					"options":{"recursive":true,"maxDepth":1,"maxResults":2,"offset":3,"includeContent":true,"followRelationships":true},
					"queries":["a","b"]}`},
				{"full search_content", `{"purpose":"search_content","target":{"path":"d","query":"q","criteria":{"content":"c"}},
					"options":{"regex":true,"caseSensitive":true,"contextLines":4}}`},
				{"empty criteria", `{"purpose":"list","target":{"criteria":{"modified":{},"sizeBytes":{}}}}`},
			},
			[]check{
				{"unknown purpose", `{"purpose":"find"}`},
				{"unknown field", `{"purpose":"list","owner":"me"}`},
			},
			[]check{{"unknown criterion", `{"purpose":"list","target":{"criteria":{"owner":"me"}}}`}})
	})
	t.Run("Update", func(t *testing.T) {
		run(t, Schema[Update](), func(b []byte) (any, error) { return Decode[Update](b) },
			[]check{
				{"create", `{"purpose":"create","target":"a","content":""}`},
				{"edit", `{"purpose":"edit","target":"a","edits":[{"oldText":"x","newText":"y","replaceAll":true}],"options":{"dryRun":true,"atomic":true}}`},
				{"move", `{"purpose":"move","target":{"path":"a","destination":"b"},"options":{"overwrite":true,"createPath":true,"preserveRelationships":true}}`},
				{"delete", `{"purpose":"delete","target":"a","options":{"recursive":true}}`},
			},
			[]check{
				{"edit without oldText", `{"purpose":"edit","target":{"path":"a"},"edits":[{"newText":"x"}]}`},
			},
			[]check{{"unknown edit field", `{"purpose":"edit","target":{"path":"a"},"edits":[{"oldText":"x","line":1}]}`}})
	})
}

func TestSchemaReturnsACopy(t *testing.T) {
	a := Schema[Access]()
	clear(a)
	if b := Schema[Access](); !json.Valid(b) {
		t.Errorf("Schema[Access]() after clearing an earlier result = %q", b)
	}
}

func TestSchemaNull(t *testing.T) {
	// An output type, as another package might declare one: null stays
	// possible exactly where encoding/json can write it.
	type out struct {
		Always   *int       `json:"always"`
		Optional *int       `json:"optional,omitempty"`
		List     []string   `json:"list"`
		When     *time.Time `json:"when,omitempty"`
	}
	var root struct {
		Properties map[string]struct {
			Type   any    `json:"type"`
			Format string `json:"format"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(Schema[out](), &root); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for name, p := range root.Properties {
		got[name] = p.Type
		if p.Format != "" {
			got[name+".format"] = p.Format
		}
	}
	want := map[string]any{
		"always":      []any{"null", "integer"},
		"optional":    "integer",
		"list":        []any{"null", "array"},
		"when":        "string",
		"when.format": "date-time",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	if root.Required != nil {
		t.Errorf("required = %v, want none: nothing has a required rule", root.Required)
	}
}

func TestSchemaPanics(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema func() json.RawMessage
	}{
		{"not a struct", Schema[[]string]},
		{"unsupported field", Schema[struct {
			F func() `json:"f"`
		}]},
		{"bad description", Schema[struct {
			F string `json:"f" jsonschema:"default=1"`
		}]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.schema()
		})
	}
}
