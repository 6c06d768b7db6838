package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/internal/serving"
	"gopkg.in/yaml.v3"
)

// movedKeys are settings that moved, by their old full name, with where they went.
var movedKeys = map[string]string{
	"http.maxRequestBytes": "the message bound is security.maxRequestBytes now, for stdio and HTTP alike: move it there",
}

// parseConfig decodes a config file's text, JSON or YAML (JSON is YAML), into c, and answers a
// mistake as the flags do: the line, the setting in the file's own names, what it takes, and the
// nearest known setting for an unknown one. A list may be written as the flags write it, one
// string of comma-separated items ("permissions: read,write").
func parseConfig(data []byte, isJSON bool, c *serving.Config) error {
	if isJSON {
		if err := jsonSyntax(data); err != nil {
			return err
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil // an empty file sets nothing
	}
	if err := checkNode(doc.Content[0], reflect.TypeFor[serving.Config](), ""); err != nil {
		return err
	}
	return doc.Content[0].Decode(c)
}

// jsonSyntax reports a JSON syntax error with its line and column.
func jsonSyntax(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil // valid, or a problem checkNode words better
	}
	line, col := 1, 1
	for _, b := range data[:min(int(se.Offset), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: not valid JSON: %v", line, col, err)
}

// checkNode checks that n fits the type t of the setting name (its full dotted name, "" for the
// whole file), and rewrites a comma-separated string given for a list into the list.
func checkNode(n *yaml.Node, t reflect.Type, name string) error {
	at := func(format string, args ...any) error {
		return fmt.Errorf("line %d: %s", n.Line, fmt.Sprintf(format, args...))
	}
	what := name
	if what == "" {
		what = "the file"
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return at("%s takes settings by name (a mapping such as %s), not %s", what, example(t), shown(n))
		}
		fields := settingFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			full := strings.TrimPrefix(name+"."+key.Value, ".")
			f, ok := fields[key.Value]
			if !ok {
				if hint, moved := movedKeys[full]; moved {
					return fmt.Errorf("line %d: unknown setting %s (%s)", key.Line, full, hint)
				}
				msg := fmt.Sprintf("line %d: unknown setting %s", key.Line, full)
				if near := intents.Nearest(key.Value, keysOf(fields)); near != "" {
					msg += ": did you mean " + strings.TrimPrefix(name+"."+near, ".") + "?"
				} else {
					msg += " (known here: " + strings.Join(keysOf(fields), ", ") + ")"
				}
				return errors.New(msg)
			}
			if err := checkNode(value, f.Type, full); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && t.Elem().Kind() == reflect.String {
			// As the flags take it: "read,write,search,list".
			items := splitList(n.Value)
			n.Kind, n.Tag, n.Value, n.Content = yaml.SequenceNode, "!!seq", "", nil
			for _, it := range items {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it, Line: n.Line})
			}
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return at("%s takes a list, such as [a, b] or \"a,b\", not %s", name, shown(n))
		}
		for i, item := range n.Content {
			if err := checkNode(item, t.Elem(), fmt.Sprintf("%s[%d]", name, i)); err != nil {
				return err
			}
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return at("%s takes true or false, not %s", name, shown(n))
		}
	case reflect.Int, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			return at("%s takes a whole number%s, not %s", name, unitOf(name), shown(n))
		}
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!float" && n.Tag != "!!int") {
			return at("%s takes a number, such as 0.5, not %s", name, shown(n))
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			return at("%s takes a string, not %s", name, shown(n))
		}
		n.Tag = "!!str" // a path or name that reads as a number, such as 2026, is still a string
	}
	return nil
}

// settingFields are the settings a struct type takes, by their name in the file.
func settingFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
			out[name] = f
		}
	}
	return out
}

func keysOf(fields map[string]reflect.StructField) []string {
	return slices.Sorted(maps.Keys(fields))
}

// example is a mapping of t's first setting, for a message.
func example(t reflect.Type) string {
	keys := keysOf(settingFields(t))
	if len(keys) == 0 {
		return "{}"
	}
	return "{" + keys[0] + ": ...}"
}

// unitOf says the unit of a number setting, by its name.
func unitOf(name string) string {
	switch {
	case strings.HasSuffix(name, "Bytes") || strings.HasSuffix(name, "Size"):
		return " of bytes, such as 10485760 for 10 MiB"
	case strings.HasSuffix(name, "Ms"):
		return " of milliseconds, such as 30000"
	}
	return ""
}

// shown describes what a node holds, for a message.
func shown(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}
