package intents

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

var indexRE = regexp.MustCompile(`\[\d+\]`)

func jsonPaths(t reflect.Type, prefix string, out map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(time.Time{}) {
		return
	}
	switch t.Kind() {
	case reflect.Slice:
		out[prefix+"[]"] = true
		jsonPaths(t.Elem(), prefix+"[]", out)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if f.Anonymous && name == "" {
				jsonPaths(f.Type, prefix, out)
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if prefix != "" {
				p = prefix + "." + name
			}
			out[p] = true
			jsonPaths(f.Type, p, out)
		}
	}
}

func checkField[T any](t *testing.T, raw []byte) {
	var zero T
	known := map[string]bool{argumentsField: true}
	jsonPaths(reflect.TypeOf(zero), "", known)
	_, err := Decode[T](raw)
	if err == nil {
		return
	}
	fe, ok := errors.AsType[*FieldError](err)
	if !ok {
		t.Fatalf("not a FieldError: %v", err)
	}
	f := indexRE.ReplaceAllString(fe.Field, "[]")
	if known[f] {
		return
	}
	if fe.Rule == "unknown-field" {
		// An unknown key may itself hold dots: accept any split whose parent is known.
		for i := 0; i <= len(f); i++ {
			if (i == 0 || (i < len(f) && f[i] == '.')) && (i == 0 || known[f[:i]]) {
				return
			}
		}
	}
	t.Fatalf("Decode[%T](%q): Field %q (rule %s) names no field of the type", zero, raw, fe.Field, fe.Rule)
}

func FuzzDecodeFieldNames(f *testing.F) {
	for _, s := range []string{`{"purpose":"read","target":{"path":"a","x":1}}`, `{"purpose":"edit","target":"a","edits":[{"oldText":1}]}`, `{"purpose":"list","options":{"maxResults":-1}}`, `{"purpose":"read","target":{"path":"a"},"preferences":{"limit":"x"}}`, `{"purpose":"list","target":{"criteria":{"sizeBytes":{"min":-1}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkField[Access](t, raw)
		checkField[Discover](t, raw)
		checkField[Update](t, raw)
	})
}
