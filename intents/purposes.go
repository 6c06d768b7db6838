package intents

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// The purposes tag of an intent field lists the purposes that take it, such as
//
//	Regex bool `json:"regex,omitempty" purposes:"search_content" ...`
//
// A field without one is taken by every purpose of its intent, and so are the fields inside a
// tagged field when the tag takes the purpose. The tags are the one table of which purpose takes
// which field: [Decode] refuses a field set for a purpose its tag leaves out, [Schema] ends the
// field's description with the purposes that take it, and [Takes] answers for everything else
// (tests, documentation), so a field can never be offered by the schema and then ignored.
const purposesTag = "purposes"

// Takes reports whether purpose of intent type T takes the field at path, a JSON path such as
// "options.recursive", "target.criteria.modified.after" or "edits[].oldText" ("[]" marks the items
// of a list): whether the path exists and no field along it has a purposes tag that leaves purpose
// out.
func Takes[T any](purpose, path string) bool {
	t := deref(reflect.TypeFor[T]())
	for part := range strings.SplitSeq(path, ".") {
		name, items := strings.CutSuffix(part, "[]")
		if t.Kind() != reflect.Struct {
			return false
		}
		f, ok := fieldNamed(t, name)
		if !ok {
			return false
		}
		if f.purposes != nil && !slices.Contains(f.purposes, purpose) {
			return false
		}
		t = deref(f.typ)
		if items {
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return false
			}
			t = deref(t.Elem())
		}
	}
	return true
}

// The required tag of an intent field marks it as needed by every purpose that takes it (its
// purposes tag), and says what to send:
//
//	Destination string `json:"destination,omitempty" purposes:"move copy" required:"send the new path" ...`
//
// [Decode] refuses the field missing for such a purpose with the rule required.
const requiredTag = "required"

// refuseMissing returns an error naming the first field of the intent v points to, or of the
// structs inside it, that a required tag asks for and the intent's purpose takes, left out: a nil
// pointer, an empty list, or a string of nothing but spaces. Intents without a purpose pass.
func refuseMissing(v reflect.Value) *FieldError {
	v = reflect.Indirect(v)
	f, ok := fieldNamed(v.Type(), "purpose")
	if !ok {
		return nil
	}
	purpose, _ := v.FieldByIndex(f.index).Interface().(string)
	return missingIn(v, "", purpose)
}

// missingIn is refuseMissing for the struct v, at path.
func missingIn(v reflect.Value, path, purpose string) *FieldError {
	for _, f := range fields(v.Type()) {
		fv, name := v.FieldByIndex(f.index), join(path, f.name)
		if f.purposes != nil && !slices.Contains(f.purposes, purpose) {
			continue
		}
		if f.required != "" && missing(fv) {
			return &FieldError{Field: name, Rule: "required",
				Message: name + " is required when purpose is " + purpose + ": " + f.required}
		}
		if fv.Kind() == reflect.Struct && fv.Type() != timeType {
			if fe := missingIn(fv, name, purpose); fe != nil {
				return fe
			}
		}
	}
	return nil
}

// missing reports a value left out: a nil pointer, an empty list, a blank string.
func missing(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return v.IsNil()
	case reflect.Slice:
		return v.Len() == 0
	case reflect.String:
		return strings.TrimSpace(v.String()) == ""
	}
	return false
}

// refuseUntaken returns an error naming the first field of the struct v (its path below path) that
// is set while its purposes tag leaves purpose out, or nil. A field is set when it is not its
// type's zero value; a list or map only when it holds something, since an empty one asks for
// nothing.
func refuseUntaken(v reflect.Value, path, purpose string) *FieldError {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == timeType:
		return nil
	case v.Kind() == reflect.Slice || v.Kind() == reflect.Array:
		for i := range v.Len() {
			if fe := refuseUntaken(v.Index(i), fmt.Sprintf("%s[%d]", path, i), purpose); fe != nil {
				return fe
			}
		}
		return nil
	case v.Kind() != reflect.Struct:
		return nil
	}
	for _, f := range fields(v.Type()) {
		fv := v.FieldByIndex(f.index)
		name := join(path, f.name)
		if f.purposes != nil && isSet(fv) && !slices.Contains(f.purposes, purpose) {
			return untaken(name, purpose, f.purposes)
		}
		if fe := refuseUntaken(fv, name, purpose); fe != nil {
			return fe
		}
	}
	return nil
}

// isSet reports whether v asks for something: not its zero value, and for a list or map, not empty.
func isSet(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() > 0
	}
	return !v.IsZero()
}

// untaken is the error for field, set while purpose does not take it; takers are the purposes that
// do.
func untaken(field, purpose string, takers []string) *FieldError {
	next := "use purpose " + takers[0]
	if len(takers) > 1 {
		next = "use one of those purposes"
	}
	return &FieldError{Field: field, Rule: "unexpected",
		Message: fmt.Sprintf("%s is only accepted when purpose is %s, not %s: remove %s, or %s",
			field, orList(takers), purpose, field, next)}
}

// purposesNote is the sentence [Schema] starts the description of a field with when only some of
// the intent's purposes (all) take it (takers): "For a, b." and "Required for a, b." when needed
// says each of them needs it. It is empty for a field every purpose takes, and for one that every
// purpose of three or more takes but one: a tool's description says once what that purpose takes,
// rather than each of its fields.
func purposesNote(takers, all []string, needed bool) string {
	switch {
	case takers == nil && needed:
		return "Required."
	case needed:
		return "Required for " + strings.Join(takers, ", ") + "."
	case takers == nil, len(takers) == len(all), len(all) >= 3 && len(takers) == len(all)-1:
		return ""
	}
	return "For " + strings.Join(takers, ", ") + "."
}

// orList writes words as "a", "a or b", or "a, b or c".
func orList(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// checkTags reports a purposes tag of struct type t, or of a struct below it, that is empty or
// names a purpose not in valid: a programming error, which [Schema] turns into a panic at start-up.
func checkTags(t reflect.Type, valid []string) error {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) error
	walk = func(t reflect.Type) error {
		t = deref(t)
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = deref(t.Elem())
		}
		if t.Kind() != reflect.Struct || t == timeType || seen[t] {
			return nil
		}
		seen[t] = true
		for _, f := range fields(t) {
			if f.purposes != nil && len(f.purposes) == 0 {
				return fmt.Errorf("field %s: empty purposes tag", f.name)
			}
			for _, p := range f.purposes {
				if !slices.Contains(valid, p) {
					return fmt.Errorf("field %s: purposes tag names %q, not one of %v", f.name, p, valid)
				}
			}
			if err := walk(f.typ); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(t)
}
