package intents_test

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
)

// TestTagLimits ties the numbers of the validate tags to the constants that hold the same limits
// for code: a tag cannot name a Go constant, so without this a change of one would leave the other
// behind, and Decode would accept what the tools then refuse (or the reverse). It walks the intent
// types and the types they hold, and each row names, by JSON name, the fields whose max is the
// row's constant: for a list, the list's own max (before dive); else each string's (after dive,
// if any). A field that matches a row must have a max, so a new field named path is held to it.
func TestTagLimits(t *testing.T) {
	rows := []struct {
		constant string
		want     int
		list     bool // the max bounds the list's length, not each string's
		names    []string
	}{
		{"fsroot.MaxPathBytes", fsroot.MaxPathBytes, false, []string{"path", "paths", "destination"}},
		{"intents.MaxReadPaths", intents.MaxReadPaths, true, []string{"paths", "reads", "moves"}},
		{"intents.MaxResults", intents.MaxResults, false, []string{"maxResults"}},
		{"intents.MaxEdits", intents.MaxEdits, true, []string{"edits"}},
	}
	matched := map[string]int{}
	for _, intent := range []any{intents.Access{}, intents.Discover{}, intents.Update{}} {
		eachField(reflect.TypeOf(intent), func(where, name, validate string) {
			list, each := listAndEach(validate)
			for _, r := range rows {
				if !slices.Contains(r.names, name) {
					continue
				}
				matched[r.constant]++
				rules := each
				if r.list {
					rules = list
				}
				if got, ok := maxOf(rules); !ok || got != r.want {
					t.Errorf("%s: validate:%q: want max=%d (%s)", where, validate, r.want, r.constant)
				}
			}
		})
	}
	for _, r := range rows {
		if matched[r.constant] == 0 {
			t.Errorf("no field of the intents is named %v, which %s bounds: rename them here", r.names, r.constant)
		}
	}
}

// eachField calls visit with the place ("AccessTarget.path"), the JSON name and the validate tag of
// every field of struct type t and of the structs of this package it holds, through pointers and
// slices.
func eachField(t reflect.Type, visit func(where, name, validate string)) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() != reflect.TypeFor[intents.Access]().PkgPath() {
		return // time.Time holds no tags of ours
	}
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		visit(t.Name()+"."+name, name, f.Tag.Get("validate"))
		eachField(f.Type, visit)
	}
}

// listAndEach splits a validate tag at its dive: the rules of a list itself, and of each of its
// elements. A tag without dive is all rules of the value itself.
func listAndEach(validate string) (list, each string) {
	if l, e, ok := strings.Cut(validate, ",dive"); ok {
		return l, strings.TrimPrefix(e, ",")
	}
	return validate, validate
}

// maxOf returns the number of the max rule among rules, and whether there is one.
func maxOf(rules string) (int, bool) {
	for rule := range strings.SplitSeq(rules, ",") {
		if n, ok := strings.CutPrefix(rule, "max="); ok {
			v, err := strconv.Atoi(n)
			return v, err == nil
		}
	}
	return 0, false
}
