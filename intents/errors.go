package intents

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"
)

// ErrInvalid is wrapped by every [FieldError], so callers can test for a bad
// argument with errors.Is(err, intents.ErrInvalid).
var ErrInvalid = errors.New("invalid argument")

// FieldError is one failure to decode or validate tool arguments.
//
// Field is the JSON path of the offending value ("target.path",
// "edits[2].oldText", "options.maxResults"), or "arguments" when the
// arguments as a whole are wrong. Rule is a short, stable word:
// "required", "oneof", "max", "min", "type", "unknown-field", "json",
// "unexpected" (a field the purpose does not take, see [Takes]),
// "conflict" (two fields that contradict each other) or "atomic-only".
// Message is one lowercase sentence for the model that names the field and
// the rule and says what to send instead.
type FieldError struct {
	Field   string
	Rule    string
	Message string
}

// Error returns e.Message.
func (e *FieldError) Error() string { return e.Message }

// Unwrap returns [ErrInvalid].
func (e *FieldError) Unwrap() error { return ErrInvalid }

// argumentsField is the Field of errors about the arguments as a whole.
const argumentsField = "arguments"

// validate is shared: a *validator.Validate caches struct metadata and is
// safe for concurrent use.
var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New()
	// Report JSON names, so that namespaces read "Update.edits[2].oldText".
	v.RegisterTagNameFunc(func(f reflect.StructField) string { return jsonName(f) })
	return v
}

// validateStruct runs the validate tags of *p, then the struct-level rules
// of intents that have them, and returns the first failure.
func validateStruct(p any) *FieldError {
	if err := validate.Struct(p); err != nil {
		var errs validator.ValidationErrors
		if errors.As(err, &errs) && len(errs) > 0 {
			return fromValidator(reflect.TypeOf(p).Elem(), errs[0])
		}
		// Only a nil or non-struct argument gets here, which Decode never
		// passes; keep the contract that every error is a FieldError.
		return &FieldError{Field: argumentsField, Rule: "type", Message: "arguments cannot be validated: " + err.Error()}
	}
	if fe := refusePurpose(reflect.ValueOf(p)); fe != nil {
		return fe
	}
	if fe := refuseMissing(reflect.ValueOf(p)); fe != nil {
		return fe
	}
	if c, ok := p.(interface{ check() *FieldError }); ok {
		return c.check()
	}
	return nil
}

// refusePurpose refuses a field of the intent v points to that is set while the intent's purpose
// does not take it (see [Takes]); intents without a purpose pass.
func refusePurpose(v reflect.Value) *FieldError {
	v = reflect.Indirect(v)
	if v.Kind() != reflect.Struct {
		return nil
	}
	f, ok := fieldNamed(v.Type(), "purpose")
	if !ok {
		return nil
	}
	purpose, ok := v.FieldByIndex(f.index).Interface().(string)
	if !ok {
		return nil
	}
	return refuseUntaken(v, "", purpose)
}

// fromValidator is the one place that turns validator output into a
// [FieldError]. root is the validated struct type.
func fromValidator(root reflect.Type, fe validator.FieldError) *FieldError {
	field := fe.Namespace()
	if _, rest, ok := strings.Cut(field, "."); ok {
		field = rest // drop the root type name
	}
	e := &FieldError{Field: field, Rule: fe.Tag()}
	switch fe.Tag() {
	case "required":
		e.Message = field + " is required"
		if values := oneofOf(root, fe.StructNamespace()); values != nil {
			e.Message += ": send one of: " + strings.Join(values, ", ")
		}
	case "oneof":
		values := strings.Fields(fe.Param())
		e.Message = fmt.Sprintf("%s must be one of: %s (got %s)", field, strings.Join(values, ", "), brief(fe.Value()))
		if got, ok := fe.Value().(string); ok {
			if near := Nearest(got, values); near != "" {
				e.Message += fmt.Sprintf(": did you mean %q?", near)
			}
		}
	case "max", "lte":
		e.Message = fmt.Sprintf("%s must %s at most %s", field, verb(fe), bound(fe))
	case "min", "gte":
		e.Message = fmt.Sprintf("%s must %s at least %s", field, verb(fe), bound(fe))
	case "unique":
		e.Message = field + " names the same entry twice: send each once"
	default:
		e.Message = fmt.Sprintf("%s does not satisfy the rule %s", field, fe.Tag())
	}
	return e
}

// bound renders a min or max parameter with the unit that applies to the
// field's kind.
func bound(fe validator.FieldError) string {
	switch fe.Kind() {
	case reflect.String:
		return fe.Param() + " characters long"
	case reflect.Slice, reflect.Array, reflect.Map:
		return fe.Param() + " items"
	}
	return fe.Param()
}

// verb is "have" for a bound on a count of items, else "be".
func verb(fe validator.FieldError) string {
	switch fe.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return "have"
	}
	return "be"
}

// brief renders a rejected value for a message, cut short so a huge value
// cannot swamp it.
func brief(v any) string {
	const maxLen = 60 // enough to recognise the value, small enough to read
	s := fmt.Sprint(v)
	if len(s) > maxLen {
		s = s[:maxLen] + "..."
	}
	if _, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return s
}

// oneofOf returns the oneof values of the field at the validator struct
// namespace ns ("Access.Purpose", "Update.Edits[2].OldText") under root, or
// nil.
func oneofOf(root reflect.Type, ns string) []string {
	t := root
	parts := strings.Split(ns, ".")
	var tag string
	for _, part := range parts[1:] {
		name, _, _ := strings.Cut(part, "[")
		t = deref(t)
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			t = deref(t.Elem())
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		f, ok := t.FieldByName(name)
		if !ok {
			return nil
		}
		t, tag = f.Type, f.Tag.Get("validate")
	}
	before, _ := splitDive(tag)
	return ruleParam(before, "oneof")
}

// check asks for exactly one of target.path and target.reads, and refuses preferences that read
// text by lines alongside target.encoding base64, which returns the whole file's bytes.
func (a *Access) check() *FieldError {
	switch {
	case a.Target.Path == "" && len(a.Target.Reads) == 0:
		return &FieldError{Field: "target.path", Rule: "required",
			Message: "target.path is required: send the file's path relative to the root (or, to read several files, target.reads)"}
	case a.Target.Path != "" && len(a.Target.Reads) > 0:
		return &FieldError{Field: "target.reads", Rule: "conflict",
			Message: "target.path and target.reads both name files: send target.reads alone to read several, or target.path alone for one"}
	}
	if a.Target.Encoding != "base64" {
		return nil
	}
	p := a.Preferences
	type set struct {
		name string
		set  bool
	}
	sets := []set{
		{"preferences.chunkIfLarge", p.ChunkIfLarge},
		{"preferences.offset", p.Offset > 0},
		{"preferences.limit", p.Limit > 0},
		{"preferences.page", p.Page > 0},
	}
	for i, r := range a.Target.Reads {
		sets = append(sets, set{fmt.Sprintf("target.reads[%d].offset", i), r.Offset > 0}, set{fmt.Sprintf("target.reads[%d].limit", i), r.Limit > 0})
	}
	for _, f := range sets {
		if f.set {
			return &FieldError{Field: f.name, Rule: "conflict",
				Message: f.name + " reads text by lines, but target.encoding base64 returns the whole file's bytes: remove " + f.name + ", or leave target.encoding out to read text"}
		}
	}
	return nil
}

// onePath asks for exactly one of target.path (p) and target.paths (ps), refusing neither with the
// message required and both with conflict.
func onePath(p string, ps []string, required, conflict string) *FieldError {
	switch {
	case p == "" && len(ps) == 0:
		return &FieldError{Field: "target.path", Rule: "required", Message: required}
	case p != "" && len(ps) > 0:
		return &FieldError{Field: "target.paths", Rule: "conflict", Message: conflict}
	}
	return nil
}

// check applies the rules of [Discover] that depend on its purpose and no tag says.
func (d *Discover) check() *FieldError {
	if d.Purpose == "relationships" {
		if fe := onePath(d.Target.Path, d.Target.Paths,
			"target.path is required when purpose is relationships: send the document's path (a folder, or \".\" for the root, describes the documents in it; target.paths names several)",
			"target.path and target.paths both name documents: send target.paths alone for several, or target.path alone for one document or a folder"); fe != nil {
			return fe
		}
	}
	if d.Options.MaxDepth > 0 && !d.Recursive() {
		why := "options.recursive is false"
		if d.Options.Recursive == nil {
			why = "list does not look inside subdirectories unless options.recursive is true"
		}
		return &FieldError{Field: "options.maxDepth", Rule: "conflict",
			Message: "options.maxDepth bounds a recursive walk, but " + why + ": set options.recursive to true, or remove options.maxDepth"}
	}
	return nil
}

// check applies the rules of [Update] that no tag says.
func (u *Update) check() *FieldError {
	if u.Target.Call != "" {
		if u.Target.Path != "" || u.Target.Version != "" {
			return &FieldError{Field: "target.call", Rule: "conflict",
				Message: "target.call undoes a whole call: send it alone, without target.path or target.version"}
		}
	} else if len(u.Target.Moves) > 0 {
		if fe := u.checkMoves(); fe != nil {
			return fe
		}
	} else if fe := onePath(u.Target.Path, u.Target.Paths,
		"target.path is required: send the path, relative to the root (or, to move several files into one folder, target.paths)",
		"target.path and target.paths both name files: send target.paths alone to move several, or target.path alone for one"); fe != nil {
		return fe
	}
	if (u.Purpose == "copy" || u.Purpose == "move" && len(u.Target.Moves) == 0) && strings.TrimSpace(u.Target.Destination) == "" {
		return &FieldError{Field: "target.destination", Rule: "required",
			Message: "target.destination is required when purpose is " + u.Purpose + ": send the new path"}
	}
	if len(u.Target.Paths) > 0 && u.Target.Version != "" {
		return &FieldError{Field: "target.version", Rule: "conflict",
			Message: "target.version is one file's version, but target.paths names several: remove target.version, or move the files one by one to check each"}
	}
	if u.Options.LinkText != "" && !u.Options.PreserveRelationships {
		return &FieldError{Field: "options.linkText", Rule: "conflict",
			Message: "options.linkText says how rewritten links read, but no link is rewritten without options.preserveRelationships: set it to true, or remove options.linkText"}
	}
	if u.Options.Atomic != nil && !*u.Options.Atomic {
		return &FieldError{Field: "options.atomic", Rule: "atomic-only",
			Message: "writes are always atomic; omit options.atomic"}
	}
	return nil
}

// checkMoves refuses what target.moves cannot go with: another way of naming what moves, one
// destination for all, one version for several files.
func (u *Update) checkMoves() *FieldError {
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"target.path", u.Target.Path != ""},
		{"target.paths", len(u.Target.Paths) > 0},
		{"target.destination", u.Target.Destination != ""},
		{"target.version", u.Target.Version != ""},
	} {
		if f.set {
			return &FieldError{Field: f.name, Rule: "conflict",
				Message: "target.moves names each file and its destination: remove " + f.name + ", or send it without target.moves"}
		}
	}
	return nil
}

// Validate runs the validate tags of the struct v points to and returns the first failure as a
// *FieldError named by JSON field path, like [Decode] does. Other packages use it for their own
// settings, so every validation message in the server reads the same way.
func Validate(v any) error {
	if fe := validateStruct(v); fe != nil {
		return fe
	}
	return nil
}
