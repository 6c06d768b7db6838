package intents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Decode decodes tool arguments (the raw JSON of an MCP tools/call
// "arguments" object) into a T, then validates it. Every error it returns is
// a *[FieldError]; when there are several, the first in a fixed order is
// returned: unknown fields of an object before its fields, fields in
// declaration order, then the validate tags, then the intent's rules that
// depend on its purpose. On error the returned T is the zero value.
//
// Decode forgives the slips models commonly make, in this order:
//   - empty arguments and null are taken as {};
//   - arguments sent as a JSON string that holds an object are unwrapped;
//   - a "target" sent as a JSON-encoded object string is parsed, and any
//     other string sent as target is taken as target.path;
//   - a top-level field that T lacks but T's target has ("path",
//     "destination", "query") moves into target; if target already has a
//     different value for it, Decode refuses it with Rule "unknown-field";
//   - a read's target.paths (a list of paths) is taken as target.reads of
//     those paths;
//   - wherever T has a number or a boolean, a string holding one ("10",
//     "true") is accepted, and so is an integral number such as 10.0 for an
//     integer;
//   - wherever T has a list of strings, a single string is taken as a
//     one-element list, and a JSON-encoded list is parsed;
//   - wherever T has an object ("options", "preferences", ...), a
//     JSON-encoded object string is parsed;
//   - wherever T has a date-time, a plain date (2025-01-31) is taken as
//     midnight UTC;
//   - null for any field is taken as absent.
//
// Anything else is strict: an unknown field fails with Rule "unknown-field"
// and a message listing the accepted fields, a value of the wrong type with
// Rule "type", JSON that does not parse with Rule "json", and a failed
// validate tag with the tag as Rule. Decode never panics.
func Decode[T any](raw []byte) (T, error) {
	var zero T
	t := reflect.TypeFor[T]()
	v, ferr := parseArguments(raw)
	if ferr != nil {
		return zero, ferr
	}
	if m, ok := v.(map[string]any); ok && deref(t).Kind() == reflect.Struct {
		if ferr := liftTarget(m, deref(t)); ferr != nil {
			return zero, ferr
		}
	}
	v, ferr = normalize(v, t, "")
	if ferr != nil {
		return zero, ferr
	}
	// normalize has made v match T's shape, so this only fails on a type
	// with its own UnmarshalJSON that rejects the value.
	b, err := json.Marshal(v)
	if err != nil {
		return zero, &FieldError{Field: argumentsField, Rule: "json", Message: "arguments cannot be encoded: " + err.Error()}
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		return zero, fromUnmarshal(err)
	}
	if deref(t).Kind() == reflect.Struct {
		p := any(&out)
		if t.Kind() == reflect.Pointer {
			p = out // validator follows the pointer itself
		}
		if ferr := validateStruct(p); ferr != nil {
			return zero, ferr
		}
	}
	return out, nil
}

// parseArguments parses raw into a generic value, numbers kept as
// [json.Number], unwrapping arguments sent as a string.
func parseArguments(raw []byte) (any, *FieldError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return map[string]any{}, nil
	}
	v, err := unmarshal(raw)
	if err != nil {
		return nil, &FieldError{Field: argumentsField, Rule: "json",
			Message: "arguments are not valid JSON (" + err.Error() + "): send a JSON object"}
	}
	if s, ok := v.(string); ok {
		if inner, err := unmarshal([]byte(s)); err == nil {
			if _, ok := inner.(map[string]any); ok {
				v = inner
			}
		}
	}
	switch v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	}
	return nil, &FieldError{Field: argumentsField, Rule: "type",
		Message: "arguments must be a JSON object, got " + kindOf(v) + `: send an object such as {"purpose": ..., "target": {...}}`}
}

// unmarshal parses b into a generic value with numbers kept exact.
func unmarshal(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// liftTarget applies the forgiving rules about "target" to the top-level
// object m of struct type t: it parses a target sent as a string and moves
// misplaced top-level fields into it.
func liftTarget(m map[string]any, t reflect.Type) *FieldError {
	tf, ok := fieldNamed(t, "target")
	if !ok || deref(tf.typ).Kind() != reflect.Struct {
		return nil
	}
	tt := deref(tf.typ)
	if s, ok := m["target"].(string); ok {
		if strings.HasPrefix(strings.TrimSpace(s), "{") {
			v, err := unmarshal([]byte(s))
			if err != nil {
				return &FieldError{Field: "target", Rule: "json",
					Message: `target is a string that is not a valid JSON object (` + err.Error() + `): send an object such as {"path": "notes/a.md"}`}
			}
			m["target"] = v
		} else if _, ok := fieldNamed(tt, "path"); ok {
			m["target"] = map[string]any{"path": s}
		}
	}
	target, isMap := m["target"].(map[string]any)
	if m["target"] != nil && !isMap {
		return nil // normalize reports the type error
	}
	for _, key := range slices.Sorted(maps.Keys(m)) {
		if _, ok := fieldNamed(t, key); ok {
			continue
		}
		if _, ok := fieldNamed(tt, key); !ok && (key != "paths" || !pathsAsReads(tt)) {
			continue
		}
		if target == nil {
			target = map[string]any{}
			m["target"] = target
		}
		old, exists := target[key]
		switch {
		case !exists || old == nil:
			target[key] = m[key]
		case !equalJSON(old, m[key]):
			return &FieldError{Field: key, Rule: "unknown-field",
				Message: fmt.Sprintf("unknown field %q; it belongs in target, which already has a different %s: send it once, as target.%s", key, key, key)}
		}
		delete(m, key)
	}
	return liftPaths(target, tt)
}

// pathsAsReads reports whether target type t takes a list of paths as reads of them: it has reads
// and no paths.
func pathsAsReads(t reflect.Type) bool {
	_, paths := fieldNamed(t, "paths")
	_, reads := fieldNamed(t, "reads")
	return reads && !paths
}

// liftPaths takes target.paths, in a target t that reads several files as target.reads (a read),
// as target.reads of those paths, each with the read's preferences: the shorter form of a read of
// several files, which the schema leaves out so that a model is shown one way.
func liftPaths(target map[string]any, t reflect.Type) *FieldError {
	if !pathsAsReads(t) || target["paths"] == nil {
		return nil
	}
	if target["reads"] != nil {
		return &FieldError{Field: "target.paths", Rule: "conflict",
			Message: "target.paths and target.reads both name files: send target.reads alone"}
	}
	paths := target["paths"]
	if s, ok := paths.(string); ok {
		paths = []any{s}
		if v, err := unmarshal([]byte(s)); err == nil {
			if list, ok := v.([]any); ok {
				paths = list
			}
		}
	}
	list, ok := paths.([]any)
	if !ok {
		return typeError("target.paths", "a list of paths", paths)
	}
	reads := make([]any, len(list))
	for i, p := range list {
		reads[i] = map[string]any{"path": p}
	}
	delete(target, "paths")
	target["reads"] = reads
	return nil
}

// equalJSON reports whether a and b encode to the same JSON.
func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

var timeType = reflect.TypeFor[time.Time]()

// normalize checks the generic value v against Go type t and returns it
// reshaped so that encoding/json can decode it into t: strings that hold
// numbers, booleans, objects or lists become those, nulls are dropped, and
// unknown fields and wrong types are reported. path is v's JSON path.
func normalize(v any, t reflect.Type, path string) (any, *FieldError) {
	if v == nil {
		return nil, nil
	}
	t = deref(t)
	if t == timeType {
		return normalizeTime(v, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		return normalizeStruct(v, t, path)
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			break // []byte is a base64 string
		}
		return normalizeList(v, t, path)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, typeError(path, "an object", v)
		}
		if t.Key().Kind() != reflect.String {
			return m, nil
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			e, ferr := normalize(m[k], t.Elem(), join(path, k))
			if ferr != nil {
				return nil, ferr
			}
			m[k] = e
		}
		return m, nil
	case reflect.Bool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
				return b, nil
			}
		}
		return nil, typeError(path, "true or false", v)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := toInt(v); ok && !reflect.Zero(t).OverflowInt(n) {
			return json.Number(strconv.FormatInt(n, 10)), nil
		}
		return nil, typeError(path, "an integer", v)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if n, ok := toInt(v); ok && n >= 0 && !reflect.Zero(t).OverflowUint(uint64(n)) {
			return json.Number(strconv.FormatInt(n, 10)), nil
		}
		return nil, typeError(path, "a non-negative integer", v)
	case reflect.Float32, reflect.Float64:
		if f, ok := toFloat(v); ok && !reflect.Zero(t).OverflowFloat(f) {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return nil, typeError(path, "a number", v)
	case reflect.Interface:
		return v, nil
	}
	if t.Kind() == reflect.String || t.Kind() == reflect.Slice {
		if _, ok := v.(string); ok {
			return v, nil
		}
		return nil, typeError(path, "a string", v)
	}
	return v, nil // a kind encoding/json rejects anyway
}

// normalizeStruct normalizes v, which must be an object, against struct
// type t.
func normalizeStruct(v any, t reflect.Type, path string) (any, *FieldError) {
	if s, ok := v.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
		if parsed, err := unmarshal([]byte(s)); err == nil {
			v = parsed
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, typeError(path, "an object", v)
	}
	fs := fields(t)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if _, ok := fieldNamed(t, k); !ok {
			return nil, unknownField(t, path, k)
		}
	}
	for _, f := range fs {
		e, present := m[f.name]
		if !present {
			continue
		}
		e, ferr := normalize(e, f.typ, join(path, f.name))
		if ferr != nil {
			return nil, ferr
		}
		if e == nil {
			delete(m, f.name)
		} else {
			m[f.name] = e
		}
	}
	return m, nil
}

// normalizeList normalizes v, which must be a list, against slice or array
// type t.
func normalizeList(v any, t reflect.Type, path string) (any, *FieldError) {
	if s, ok := v.(string); ok {
		if strings.HasPrefix(strings.TrimSpace(s), "[") {
			if parsed, err := unmarshal([]byte(s)); err == nil {
				v = parsed
			}
		}
		if _, ok := v.(string); ok && deref(t.Elem()).Kind() == reflect.String {
			v = []any{s}
		}
	}
	list, ok := v.([]any)
	if !ok {
		return nil, typeError(path, "a list", v)
	}
	if t.Kind() == reflect.Array && len(list) > t.Len() {
		return nil, typeError(path, fmt.Sprintf("a list of at most %d items", t.Len()), v)
	}
	for i, e := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		if e == nil {
			return nil, typeError(p, "a value, not null", e)
		}
		e, ferr := normalize(e, t.Elem(), p)
		if ferr != nil {
			return nil, ferr
		}
		list[i] = e
	}
	return list, nil
}

// normalizeTime accepts an RFC 3339 date-time, or a plain date taken as
// midnight UTC, and returns it in RFC 3339 form.
func normalizeTime(v any, path string) (any, *FieldError) {
	if s, ok := v.(string); ok {
		s = strings.TrimSpace(s)
		for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
			if tm, err := time.Parse(layout, s); err == nil {
				if b, err := tm.MarshalJSON(); err == nil {
					return json.RawMessage(b), nil
				}
			}
		}
	}
	return nil, typeError(path, "an RFC 3339 date-time such as 2025-01-31T00:00:00Z", v)
}

// toInt converts a JSON number, or a string holding one, to an int64 if it
// is integral and in range.
func toInt(v any) (int64, bool) {
	s, ok := numberText(v)
	if !ok {
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	// 2^63 is exactly representable; anything at or above it overflows.
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// toFloat converts a JSON number, or a string holding one, to a finite
// float64.
func toFloat(v any) (float64, bool) {
	s, ok := numberText(v)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// numberText returns the text of a JSON number or of a string.
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case string:
		return strings.TrimSpace(x), true
	}
	return "", false
}

// join appends a field name to a JSON path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// typeError reports that the value at path is not what T needs.
func typeError(path, want string, got any) *FieldError {
	if path == "" {
		path = argumentsField
	}
	desc := kindOf(got)
	switch got.(type) {
	case string, json.Number, bool:
		desc += " " + brief(got)
	}
	return &FieldError{Field: path, Rule: "type",
		Message: fmt.Sprintf("%s must be %s, got %s", path, want, desc)}
}

// kindOf names the JSON type of a generic value.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// unknownField reports a field of the object at path that struct type t
// does not have, listing those it does.
func unknownField(t reflect.Type, path, key string) *FieldError {
	var names []string
	var guess string
	for _, f := range fields(t) {
		names = append(names, f.name)
		if l, k := loose(f.name), loose(key); l == k || l == k+"bytes" {
			guess = f.name // a unit joined the name (maxSize became maxSizeBytes)
		}
	}
	where := ""
	if path != "" {
		where = " in " + path
	}
	msg := fmt.Sprintf("unknown field %s%s; accepted fields: %s", brief(key), where, strings.Join(names, ", "))
	if guess != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", guess)
	}
	if key == "" {
		key = `""` // a Field is never empty
	}
	return &FieldError{Field: join(path, key), Rule: "unknown-field", Message: msg}
}

// loose folds case and drops '_' and '-', so that "max_results" matches
// "maxResults".
func loose(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// fromUnmarshal maps an encoding/json error to a [FieldError].
func fromUnmarshal(err error) *FieldError {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return &FieldError{Field: te.Field, Rule: "type", Message: fmt.Sprintf("%s must be %s", te.Field, te.Type)}
	}
	return &FieldError{Field: argumentsField, Rule: "json", Message: "arguments cannot be decoded: " + err.Error()}
}
