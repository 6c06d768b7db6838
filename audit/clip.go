package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

const (
	// DefaultMaxContentBytes is the content kept per field when [Options.MaxContentBytes] is zero:
	// a page of text, enough to see what was read or written, small enough that a journal of
	// thousands of calls stays readable.
	DefaultMaxContentBytes = 4096
	// maxOtherBytes bounds every other string the journal records (a query, a name, a path): the
	// arguments are recorded before validation, so an agent could send megabytes in any field. It
	// is twice the longest path a tool accepts.
	maxOtherBytes = 8192
	// maxTruncatedPaths bounds metadata.truncated, so a listing of many files each with cut
	// content does not repeat the same note thousands of times.
	maxTruncatedPaths = 16
)

// contentKeys name the fields that carry file contents, in the tools' arguments and results: a
// file's text (content), an edit's old and new text (edits), a diff, a search's matching lines
// (matches, with their before and after context) and a semantic search's snippet. Each such field
// is one budget of MaxContentBytes, shared by every string inside it.
var contentKeys = map[string]bool{
	"content": true,
	"edits":   true,
	"diff":    true,
	"matches": true,
	"before":  true,
	"after":   true,
	"snippet": true,
}

// clipper cuts the contents of JSON values to their budgets and remembers what it cut.
type clipper struct {
	max   int // bytes per content field; 0 records none
	cut   []string
	extra int // cut fields not listed, beyond maxTruncatedPaths
}

func newClipper(maxContent int) *clipper {
	switch {
	case maxContent == 0:
		maxContent = DefaultMaxContentBytes
	case maxContent < 0:
		maxContent = 0
	}
	return &clipper{max: maxContent}
}

// clip returns raw with its contents cut, compact. An empty raw gives empty; raw that is not JSON
// is recorded as a JSON string (cut like any other).
func (c *clipper) clip(raw json.RawMessage, path string, empty []byte) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return empty
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers exactly as sent
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		v = string(raw)
	}
	v = c.value(v, path, nil)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage(strconv.Quote("unrecordable value"))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// value cuts v, found at path. budget is the bytes left in the content field v lies in, or nil
// outside any.
func (c *clipper) value(v any, path string, budget *int) any {
	switch x := v.(type) {
	case string:
		limit := maxOtherBytes
		if budget != nil {
			limit = *budget
		}
		if len(x) <= limit {
			if budget != nil {
				*budget -= len(x)
			}
			return x
		}
		kept := cutUTF8(x, limit)
		if budget != nil {
			*budget = 0
		}
		c.mark(path)
		return kept + fmt.Sprintf("[…%d more bytes not recorded]", len(x)-len(kept))
	case []any:
		for i := range x {
			if budget != nil && *budget <= 0 {
				c.mark(fmt.Sprintf("%s[%d:]", path, i))
				return x[:i]
			}
			x[i] = c.value(x[i], fmt.Sprintf("%s[%d]", path, i), budget)
		}
		return x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // so the same value is always cut the same way
		for _, k := range keys {
			b := budget
			if b == nil && contentKeys[k] {
				own := c.max
				b = &own
			}
			x[k] = c.value(x[k], path+"."+k, b)
		}
		return x
	}
	return v
}

// mark notes that the field at path was cut.
func (c *clipper) mark(path string) {
	if len(c.cut) < maxTruncatedPaths {
		c.cut = append(c.cut, path)
	} else {
		c.extra++
	}
}

// paths returns the cut fields for metadata.truncated, nil if none.
func (c *clipper) paths() []string {
	if c.extra > 0 {
		return append(c.cut, fmt.Sprintf("and %d more", c.extra))
	}
	return c.cut
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not split a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
