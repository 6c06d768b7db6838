package intents

import (
	"reflect"
	"strings"
	"sync"
)

// field is an exported struct field as encoding/json sees it.
type field struct {
	name     string // JSON name
	index    []int
	typ      reflect.Type
	optional bool     // omitempty or omitzero: encoding/json never writes a zero value
	validate string   // the validate tag
	purposes []string // the purposes tag, nil when the field has none (every purpose takes it)
	required string   // the required tag: what to send, when every purpose that takes it needs it
	unlisted bool     // the schema tag is "-": Decode takes the field, the schema does not offer it
}

// fieldCache maps a struct type to its []field.
var fieldCache sync.Map

// fields returns the JSON-visible fields of struct type t in declaration
// order. Fields of embedded structs are promoted, as encoding/json does;
// name conflicts between them are not resolved (the intent types have none).
func fields(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && deref(f.Type).Kind() == reflect.Struct {
			continue
		}
		name := jsonName(f)
		if name == "" {
			continue
		}
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		optional := false
		for opt := range strings.SplitSeq(opts, ",") {
			optional = optional || opt == "omitempty" || opt == "omitzero"
		}
		var purposes []string
		if tag, ok := f.Tag.Lookup(purposesTag); ok {
			purposes = strings.Fields(tag)
		}
		fs = append(fs, field{name: name, index: f.Index, typ: f.Type, optional: optional,
			validate: f.Tag.Get("validate"), purposes: purposes, required: f.Tag.Get(requiredTag),
			unlisted: f.Tag.Get("schema") == "-"})
	}
	fieldCache.Store(t, fs)
	return fs
}

// fieldNamed returns the field of struct type t with JSON name name.
func fieldNamed(t reflect.Type, name string) (field, bool) {
	for _, f := range fields(t) {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

// jsonName returns the JSON name of f, or "" if encoding/json skips it.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return name
}

// deref strips pointer types.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// splitDive splits a validate tag into the rules for the field and the
// rules after "dive", which apply to its elements.
func splitDive(tag string) (field, elem []string) {
	rules := strings.Split(tag, ",")
	for i, r := range rules {
		if r == "dive" {
			return rules[:i], rules[i+1:]
		}
	}
	return rules, nil
}

// ruleParam returns the space-separated parameters of rule name in rules
// ("oneof=a b" gives [a b]), or nil if the rule is absent.
func ruleParam(rules []string, name string) []string {
	for _, r := range rules {
		if k, v, ok := strings.Cut(r, "="); ok && k == name {
			return strings.Fields(v)
		}
	}
	return nil
}

// hasRule reports whether rules contains the parameterless rule name.
func hasRule(rules []string, name string) bool {
	for _, r := range rules {
		if r == name {
			return true
		}
	}
	return false
}
