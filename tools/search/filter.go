package search

import (
	"errors"
	"path"
	"strings"
	"time"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// Filter holds a listing's or search's criteria, checked against each entry's attributes.
type Filter struct {
	exts          map[string]bool
	names         []string // globs, lower-case; any one matching keeps a name
	after, before *time.Time
	min, max      *int64
	content       string
}

// NewFilter is the filter of in's criteria, refused when its name glob is not one.
func NewFilter(in intents.Discover) (*Filter, error) {
	f := &Filter{}
	cr := in.Target.Criteria
	if cr == nil {
		return f, nil
	}
	if len(cr.Extension) > 0 {
		f.exts = make(map[string]bool)
		for _, e := range cr.Extension {
			f.exts[NormExt(e)] = true
		}
	}
	if cr.Name != "" {
		names, err := expandBraces(strings.ToLower(cr.Name))
		if err == nil {
			for _, n := range names {
				if _, err = path.Match(strings.TrimPrefix(n, "!"), ""); err != nil {
					break
				}
			}
		}
		if err != nil {
			return nil, &errs.Error{Code: errs.CodeInvalidArgument, Field: "target.criteria.name", Msg: "target.criteria.name is not a valid glob pattern: use * and ? wildcards, {a,b} alternatives and ! to leave out, such as \"*.md\", \"{tar,zip}.md\" or \"{*.go,!*_test.go}\""}
		}
		f.names = names
	}
	if cr.Modified != nil {
		f.after, f.before = cr.Modified.After, cr.Modified.Before
	}
	if cr.SizeBytes != nil {
		f.min, f.max = cr.SizeBytes.Min, cr.SizeBytes.Max
	}
	f.content = strings.ToLower(cr.Content)
	return f, nil
}

// NormExt writes an extension as the policy and the index do: lower-case, with its dot.
func NormExt(e string) string { return "." + strings.TrimPrefix(strings.ToLower(e), ".") }

// none reports whether f has no criteria: it keeps every entry.
func (f *Filter) none() bool {
	return f.exts == nil && f.names == nil && f.after == nil && f.before == nil && f.min == nil && f.max == nil && f.content == ""
}

// Content is the text, lower-case, a file must hold (criteria.content); "" for any.
func (f *Filter) Content() string { return f.content }

// HasNames reports whether the criteria name files by a glob.
func (f *Filter) HasNames() bool { return f.names != nil }

// Keep judges an entry by its attributes. Criteria about files (extension, size, content) leave
// directories out.
func (f *Filter) Keep(info fsroot.Info) bool {
	fileOnly := f.exts != nil || f.min != nil || f.max != nil || f.Content() != ""
	if fileOnly && info.Type != fsroot.TypeFile {
		return false
	}
	if f.exts != nil && !f.exts[strings.ToLower(path.Ext(info.Name))] {
		return false
	}
	if !f.Named(info.Name) {
		return false
	}
	if f.after != nil && !info.ModTime.After(*f.after) {
		return false
	}
	if f.before != nil && !info.ModTime.Before(*f.before) {
		return false
	}
	if f.min != nil && info.Size < *f.min {
		return false
	}
	if f.max != nil && info.Size > *f.max {
		return false
	}
	return true
}

// Named reports whether base passes the name criteria: it matches one of the patterns that
// include (any, when all exclude) and none of those that exclude ("!*_test.go").
func (f *Filter) Named(base string) bool {
	if f.names == nil {
		return true
	}
	base = strings.ToLower(base)
	included, includes := false, false
	for _, n := range f.names {
		pattern, exclude := strings.CutPrefix(n, "!")
		ok, _ := path.Match(pattern, base)
		switch {
		case exclude && ok:
			return false
		case !exclude:
			includes = true
			included = included || ok
		}
	}
	return included || !includes
}

// maxAlternatives bounds the globs one name pattern expands to, so that "{a,b}{c,d}..." cannot
// multiply into millions of matches per file.
const maxAlternatives = 64

var errBraces = errors.New("unbalanced or nested braces, or too many alternatives")

// expandBraces expands each {a,b,c} group of pattern into the patterns it stands for, as a shell
// does: "{tar,zip}.md" is "tar.md" and "zip.md". Groups do not nest.
func expandBraces(pattern string) ([]string, error) {
	open := strings.IndexByte(pattern, '{')
	if open < 0 {
		if strings.IndexByte(pattern, '}') >= 0 {
			return nil, errBraces
		}
		return []string{pattern}, nil
	}
	end := strings.IndexByte(pattern[open:], '}')
	if end < 0 || strings.IndexByte(pattern[:open], '}') >= 0 {
		return nil, errBraces
	}
	end += open
	inner := pattern[open+1 : end]
	if strings.IndexByte(inner, '{') >= 0 {
		return nil, errBraces
	}
	rest, err := expandBraces(pattern[end+1:])
	if err != nil {
		return nil, err
	}
	var out []string
	for _, alt := range strings.Split(inner, ",") {
		for _, r := range rest {
			out = append(out, pattern[:open]+alt+r)
		}
		if len(out) > maxAlternatives {
			return nil, errBraces
		}
	}
	return out, nil
}
