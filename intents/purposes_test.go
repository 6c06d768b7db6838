package intents

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestTakes(t *testing.T) {
	for _, tc := range []struct {
		purpose, path string
		want          bool
	}{
		{"list", "target.path", true},
		{"list", "options.recursive", true},
		{"list", "options.includeContent", false},
		{"search_content", "options.includeContent", true},
		{"search_semantic", "options.followRelationships", true},
		{"relationships", "options.maxResults", false}, // options itself is not taken
		{"relationships", "target.criteria.modified.after", false},
		{"search_semantic", "target.criteria.modified.after", true},
		{"search_semantic", "target.criteria.content", false},
		{"list", "target.criteria.tags", false},
		{"search_semantic", "queries", true},
		{"list", "target.query", false},
		{"edit", "edits[].replaceAll", true},
		{"create", "edits[].replaceAll", false},
		{"delete", "options.atomic", true},
		{"delete", "options.dryRun", false},
		{"move", "options.dryRun", true},
		{"list", "options.nope", false},
		{"list", "target.path.deeper", false},
		{"edit", "edits.oldText", false}, // a list's items are reached with []
	} {
		var got bool
		switch {
		case tc.purpose == "edit" || tc.purpose == "create" || tc.purpose == "delete" || tc.purpose == "move":
			got = Takes[Update](tc.purpose, tc.path)
		default:
			got = Takes[Discover](tc.purpose, tc.path)
		}
		if got != tc.want {
			t.Errorf("Takes(%s, %s) = %v, want %v", tc.purpose, tc.path, got, tc.want)
		}
	}
	if Takes[Access]("metadata", "preferences.offset") || !Takes[Access]("read", "preferences.offset") {
		t.Error("preferences: want read only")
	}
}

// TestSchemaNamesPurposes checks that a field some purposes refuse says which take it, in the
// schema the model reads, and that a field every purpose takes says nothing of the kind.
func TestSchemaNamesPurposes(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(Schema[Discover](), &root); err != nil {
		t.Fatal(err)
	}
	desc := map[string]string{}
	walkSchema("", root, func(path string, s map[string]any) {
		d, _ := s["description"].(string)
		desc[path] = d
	})
	for path, want := range map[string]string{
		"target.paths":            "For relationships.",
		"options.regex":           "For search_content.",
		"options.includeContent":  "For search_content, search_semantic.",
		"target.criteria.tags":    "For search_semantic.",
		"target.criteria.content": "For list, search_content.",
		"queries":                 "For search_semantic.",
		"target.query":            "Required for search_content, search_semantic.",
	} {
		if !strings.HasPrefix(desc[path], want) {
			t.Errorf("description of %s = %q, want it to start with %q", path, desc[path], want)
		}
	}
	// Taken by every purpose, or by every one of the four but relationships, whose own
	// description in the tool says what it takes: no note.
	for _, path := range []string{"options", "options.maxResults", "target.criteria", "target.path"} {
		if strings.HasPrefix(desc[path], "For ") {
			t.Errorf("description of %s = %q, names purposes", path, desc[path])
		}
	}
}

type badPurposesTag struct {
	Purpose string `json:"purpose" validate:"required,oneof=a b"`
	X       bool   `json:"x" purposes:"a c"`
}

type emptyPurposesTag struct {
	Purpose string `json:"purpose" validate:"required,oneof=a b"`
	X       bool   `json:"x" purposes:""`
}

// TestSchemaRefusesBadPurposesTag checks that a tag naming a purpose the intent lacks, or none,
// stops the server at start-up rather than refusing a field for every purpose.
func TestSchemaRefusesBadPurposesTag(t *testing.T) {
	for name, schema := range map[string]func(){
		"unknown purpose": func() { Schema[badPurposesTag]() },
		"empty tag":       func() { Schema[emptyPurposesTag]() },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Schema did not panic")
				}
			}()
			schema()
		})
	}
}

// TestRequiredTags checks the required tags: each names a field that only some purposes take (a
// field every purpose needs says so with validate:"required"), and Decode refuses it missing for
// each of them, with the tag's words.
func TestRequiredTags(t *testing.T) {
	cases := []struct {
		raw, field, words string
	}{
		{`{"purpose":"search_content","target":{"path":".","query":"  "}}`, "target.query", "send the text to search for"},
		{`{"purpose":"create","target":{"path":"a.md"}}`, "content", "send the text to write (it may be empty)"},
		{`{"purpose":"edit","target":{"path":"a.md"}}`, "edits", `send at least one {"oldText": ..., "newText": ...}`},
		{`{"purpose":"copy","target":{"path":"a.md"}}`, "target.destination", "send the new path"},
	}
	for _, tc := range cases {
		var err error
		if strings.Contains(tc.raw, "search_content") {
			_, err = Decode[Discover]([]byte(tc.raw))
		} else {
			_, err = Decode[Update]([]byte(tc.raw))
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || fe.Rule != "required" || !strings.HasSuffix(fe.Message, ": "+tc.words) {
			t.Errorf("%s: %v; want %s required, %q", tc.raw, err, tc.field, tc.words)
		}
	}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		for _, f := range fields(deref(typ)) {
			if f.required != "" && f.purposes == nil {
				t.Errorf("%s%s: a required tag without a purposes tag", path, f.name)
			}
			if deref(f.typ).Kind() == reflect.Struct && deref(f.typ) != timeType {
				walk(f.typ, path+f.name+".")
			}
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[Access](), reflect.TypeFor[Discover](), reflect.TypeFor[Update]()} {
		walk(typ, "")
	}
}
