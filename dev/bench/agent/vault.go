package main

import (
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// This file is the verifiers' own reading of an Obsidian vault: which files there are, the links
// each note holds and what each link reaches. It is written apart from the server's markdown
// package on purpose: a verifier that shared the server's resolver would agree with the server's
// mistakes. It follows Obsidian's rules as far as the tasks need them: a wiki link names a file by
// its name (without .md) or by a path, matched from the end; a link that several files answer
// prefers an exact path, then a file in the linking note's folder, and is otherwise ambiguous
// (kept as the set of candidates, so that a move that only renames the folders around them is not
// read as a change of target). Links inside code (fenced blocks, indented blocks after a blank
// line are not treated specially, inline code spans) and in the frontmatter are not links.

// vault is a snapshot of a folder: every regular file by slash path, with its content.
type vault struct {
	files map[string]bool   // slash path relative to the root -> present
	dirs  map[string]bool   // every folder that holds a file, by slash path
	data  map[string]string // every file's content
	notes map[string]string // the .md files' content

	byName map[string][]string   // a file's lower-case name, and for a note also without .md -> its paths
	out    map[string][]resolved // outlinks, computed once
}

func newVault() *vault {
	return &vault{files: map[string]bool{}, dirs: map[string]bool{}, data: map[string]string{}, notes: map[string]string{},
		byName: map[string][]string{}, out: map[string][]resolved{}}
}

// add puts a file in the vault.
func (v *vault) add(rel, content string) {
	v.files[rel] = true
	v.data[rel] = content
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		v.dirs[dir] = true
	}
	name := strings.ToLower(path.Base(rel))
	v.byName[name] = append(v.byName[name], rel)
	if n, ok := strings.CutSuffix(name, ".md"); ok {
		v.byName[n] = append(v.byName[n], rel)
		v.notes[rel] = content
	}
}

// readVault reads every regular file below root.
func readVault(root string) (*vault, error) {
	v := newVault()
	return v, v.read(root, "")
}

// readFolders reads the folders of a task into one vault, each folder's files below its name
// ("vault/Plugins/x.md"; the files of a folder named "" at the top).
func readFolders(dirs map[string]string) (*vault, error) {
	v := newVault()
	for name, dir := range dirs {
		prefix := ""
		if name != "" {
			prefix = name + "/"
		}
		if err := v.read(dir, prefix); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// read adds every regular file below root, its slash path after prefix.
func (v *vault) read(root, prefix string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		v.add(prefix+filepath.ToSlash(rel), string(data))
		return nil
	})
}

// within returns the files of v below the folder dir as a vault of their own, their paths
// relative to dir: one root of a task of several, as its own links read it.
func (v *vault) within(dir string) *vault {
	w := newVault()
	for p, data := range v.data {
		if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
			w.add(rest, data)
		}
	}
	return w
}

// exists reports whether p names a file or a folder of the vault.
func (v *vault) exists(p string) bool { return v.files[p] || v.dirs[p] }

// link is one link of a note, as written.
type link struct {
	Raw    string // the whole link as written: [[...]], ![[...]] or [text](target)
	Target string // the part that names a file, without heading, block or display text
	Frag   string // the heading or block after #, without the #
	Wiki   bool
	Embed  bool
	Line   int // 1-based
}

var (
	wikiRe  = regexp.MustCompile(`(!?)\[\[([^\[\]]+?)\]\]`)
	mdRe    = regexp.MustCompile(`(!?)\[[^\[\]]*\]\(([^()\s]+|<[^<>]+>)\)`)
	codeRe  = regexp.MustCompile("`+[^`]*`+")
	fenceRe = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	urlRe   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// linksOf returns the links of a note's text, outside frontmatter and code.
func linksOf(text string) []link {
	lines := strings.Split(text, "\n")
	start := 0
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
				start = i + 1
				break
			}
		}
	}
	var out []link
	fence := ""
	for i := start; i < len(lines); i++ {
		line := lines[i]
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case m[1] == fence:
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		line = codeRe.ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
		for _, m := range wikiRe.FindAllStringSubmatch(line, -1) {
			inner := m[2]
			// A pipe escaped for a table (\|) separates the display text as | does.
			inner = strings.ReplaceAll(inner, `\|`, "|")
			target, _, _ := strings.Cut(inner, "|")
			target, frag, _ := strings.Cut(target, "#")
			out = append(out, link{Raw: m[0], Target: strings.TrimSpace(target), Frag: frag, Wiki: true, Embed: m[1] == "!", Line: i + 1})
		}
		for _, m := range mdRe.FindAllStringSubmatch(line, -1) {
			target := strings.Trim(m[2], "<>")
			if urlRe.MatchString(target) || strings.HasPrefix(target, "#") {
				continue // a URL, or a heading of the same note
			}
			target, frag, _ := strings.Cut(target, "#")
			if dec, err := url.PathUnescape(target); err == nil {
				target = dec
			}
			out = append(out, link{Raw: m[0], Target: target, Frag: frag, Embed: m[1] == "!", Line: i + 1})
		}
	}
	return out
}

// resolve returns what a link of the note at src reaches: a file's path, "" when nothing answers
// (a broken link), or "ambiguous:" and the sorted candidates when several files answer equally.
func (v *vault) resolve(src string, l link) string {
	t := strings.TrimSpace(l.Target)
	if t == "" {
		return src // [[#Heading]]: the note itself
	}
	if !l.Wiki {
		// A markdown link: relative to the note's folder, then to the root.
		for _, p := range []string{path.Join(path.Dir(src), t), path.Clean(t)} {
			for _, q := range []string{p, p + ".md"} {
				if v.files[q] {
					return q
				}
			}
		}
		return ""
	}
	if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
		p := path.Join(path.Dir(src), t)
		for _, q := range []string{p, p + ".md"} {
			if v.files[q] {
				return q
			}
		}
		return ""
	}
	want := strings.ToLower(strings.TrimPrefix(t, "/"))
	var exact, cands []string
	for _, f := range v.byName[path.Base(want)] {
		lf := strings.ToLower(f)
		keys := []string{lf}
		if strings.HasSuffix(lf, ".md") {
			keys = append(keys, strings.TrimSuffix(lf, ".md"))
		}
		for _, k := range keys {
			if k == want {
				exact = append(exact, f)
				break
			}
			if strings.HasSuffix(k, "/"+want) {
				cands = append(cands, f)
				break
			}
		}
	}
	if len(exact) == 1 {
		return exact[0]
	}
	cands = append(cands, exact...)
	switch len(cands) {
	case 0:
		return ""
	case 1:
		return cands[0]
	}
	var near []string
	for _, c := range cands {
		if path.Dir(c) == path.Dir(src) {
			near = append(near, c)
		}
	}
	if len(near) == 1 {
		return near[0]
	}
	sort.Strings(cands)
	return "ambiguous:" + strings.Join(cands, "|")
}

// resolved is one link with what it reaches.
type resolved struct {
	link
	To string
}

// outlinks returns the resolved links of one note.
func (v *vault) outlinks(src string) []resolved {
	if out, ok := v.out[src]; ok {
		return out
	}
	var out []resolved
	for _, l := range linksOf(v.notes[src]) {
		out = append(out, resolved{l, v.resolve(src, l)})
	}
	v.out[src] = out
	return out
}

// backlinks returns the notes, other than target itself, with a link that reaches target.
func (v *vault) backlinks(target string) []string {
	var out []string
	for src := range v.notes {
		if src == target {
			continue
		}
		for _, r := range v.outlinks(src) {
			if r.To == target {
				out = append(out, src)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// targets returns, for every note, the multiset of what its links reach (broken links as
// "broken:" and the target as written), with the paths of both the notes and the targets passed
// through rename (old path -> new path; identity when nil or when a path is absent from it).
func (v *vault) targets(rename func(string) string) map[string]map[string]int {
	if rename == nil {
		rename = func(p string) string { return p }
	}
	out := map[string]map[string]int{}
	for src := range v.notes {
		m := map[string]int{}
		for _, r := range v.outlinks(src) {
			to := r.To
			switch {
			case to == "":
				to = "broken:" + r.Target
			case strings.HasPrefix(to, "ambiguous:"):
				parts := strings.Split(strings.TrimPrefix(to, "ambiguous:"), "|")
				for i := range parts {
					parts[i] = rename(parts[i])
				}
				sort.Strings(parts)
				to = "ambiguous:" + strings.Join(parts, "|")
			default:
				to = rename(to)
			}
			m[to]++
		}
		out[rename(src)] = m
	}
	return out
}
