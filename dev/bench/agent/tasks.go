package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/packfs/packfs-mcp/internal/corpora"
)

// task is one job a user gives an agent, on a fresh copy of a corpus, or of several.
type task struct {
	N    int
	Name string
	// Corpus is the one folder of a task of one folder, served as the root itself.
	Corpus corpora.Corpus
	// Folders, when set, are the folders of a task of several instead: each served as a root of
	// its own, by its name (and Corpus is unused).
	Folders []folder
	// What is an engineer's note on what the task exercises (never shown to the agent).
	What string
	// Prompt is what the user says, the same for every server.
	Prompt string
	// Answer says whether the task wants an answer (given with the answer command).
	Answer bool
	// collab, when set, is another party's edit made to the files while the agent works.
	collab *collaborator
	// verify checks the end state; it records each problem with c.fail.
	verify func(c *check)
}

// folder is one folder a task serves: a copy of a corpus, under a name when the task serves
// several. The session copies it to the folder of that name in its root (the root itself when
// the name is ""), and the verifier sees its files below that name ("vault/Plugins/x.md").
type folder struct {
	Name   string
	Corpus corpora.Corpus
}

// folders returns the folders of t: its Folders, or its one Corpus as the root itself.
func (t *task) folders() []folder {
	if len(t.Folders) > 0 {
		return t.Folders
	}
	return []folder{{Corpus: t.Corpus}}
}

// corpusNames names t's corpora, as the task list shows them ("obsidian", "obsidian+tldr").
func (t *task) corpusNames() string {
	var names []string
	for _, f := range t.folders() {
		names = append(names, f.Corpus.Name)
	}
	return strings.Join(names, "+")
}

// collaborator is another party's edit of one file during a session: the session applies it right
// after the first tool result that shows the agent the anchor (the agent has then seen the file
// as it was), or at stop if no result ever did (the agent never looked, so it could not have kept
// a stale copy; its edit and this one must both be there in the end).
type collaborator struct {
	File   string // slash path of the file it edits
	Anchor string // text of the file whose sight by the agent sets the edit off
	Edit   func(string) string
}

var tasks = []*task{
	{
		N: 1, Name: "archive-password", Corpus: corpora.TLDR, Answer: true,
		What: "read and compare several named pages; answer only",
		Prompt: "I need to send someone a folder packed into one archive that is protected by a password. " +
			"Look at the pages for tar, zip, 7z, rar and zstd: which of them show how to set a password or " +
			"encrypt the archive? Answer with one line per tool whose page shows it, written as " +
			"`tool: command`, where command is that page's example command line copied exactly as the page " +
			"writes it (one example per tool). Leave out the tools whose page doesn't show it.",
		verify: verifyArchivePassword,
	},
	{
		N: 2, Name: "preview-move", Corpus: corpora.Obsidian, Answer: true,
		What: "preview a move (which files it changes), then make it; links and the publish menu keep working",
		Prompt: "I want to move the note \"Plugins/Unique note creator.md\" into the \"Files and folders\" " +
			"folder, keeping its name. Before you move anything, work out which other files will have to " +
			"change so that every link to the note and the site's navigation menu (site-options.json) keep " +
			"working, and give me that list as your answer: one path per line, relative to the vault, or " +
			"the single word none. Then make the move and exactly those changes, nothing else.",
		verify: verifyPreviewMove,
	},
	{
		N: 3, Name: "move-folder", Corpus: corpora.Obsidian,
		What: "move a whole folder into another; path-qualified links and the publish menu must follow",
		Prompt: "Please move the Web Clipper pages (the whole \"Obsidian Web Clipper\" folder) into " +
			"\"Extending Obsidian\", as a subfolder named \"Web Clipper\". Every link to those pages must " +
			"keep working, and so must the site's navigation menu in site-options.json. Don't change " +
			"anything else.",
		verify: verifyMoveFolder,
	},
	{
		N: 4, Name: "related-section", Corpus: corpora.Obsidian,
		What: "follow backlinks, compare with the note's own links, append a section",
		Prompt: "The \"File recovery\" note should point back to the notes that mention it. At the end of " +
			"that note, add a section headed \"## Related\" with a bulleted list of links, one per line, to " +
			"every note that links to File recovery but that File recovery doesn't link to already. Use " +
			"wiki links ([[Note name]]) like the rest of the vault, and don't change anything else.",
		verify: verifyRelated,
	},
	{
		N: 5, Name: "find-by-description", Corpus: corpora.TLDR, Answer: true,
		What: "find a page from a paraphrase that shares few words with it",
		Prompt: "My deploy script prints a lot of lines, and I'd like to see how much time passes between " +
			"one line and the next. I think one of these pages covers a small tool that does that. Which " +
			"page is it, and which command line on it does exactly that? Answer with two lines: the " +
			"page's path relative to the folder you were given, then the command copied exactly as the " +
			"page writes it.",
		verify: verifyFindByDescription,
	},
	{
		N: 6, Name: "two-notes", Corpus: corpora.Obsidian, Answer: true,
		What: "a question whose answer is split between a note and the note it embeds",
		Prompt: "Where in the world can Obsidian Sync keep my remote vault? I want the cities. Also, I'm " +
			"on the Standard plan: what do I have to do before I can move my vault to another region? " +
			"Answer with the cities, one per line, then one line starting with \"Before:\" saying what I " +
			"must do first.",
		verify: verifyTwoNotes,
	},
	{
		N: 7, Name: "concurrent-edit", Corpus: corpora.Obsidian,
		What: "an edit to a note another party changes after the agent has read it",
		Prompt: "Someone else is editing notes in this vault at the same time as you. In the \"Word count\" " +
			"note, add the sentence \"" + wordCountSentence + "\" at the end of the paragraph that says " +
			"where word count appears. Don't change anything else.",
		collab: &collaborator{
			File:   wordCountNote,
			Anchor: "On desktop word count appears in the",
			Edit:   wordCountCollab,
		},
		verify: verifyConcurrentEdit,
	},
	{
		N: 8, Name: "retire-note", Corpus: corpora.Obsidian,
		What: "archive a note and unlink it everywhere, the publish menu included",
		Prompt: "We're dropping the \"Web viewer\" page from the help. Move that note into a new top-level " +
			"folder named \"Archive\", and make sure nothing in the help points to it any more: where " +
			"other notes link to it, keep the words but remove the link, and take it out of the site's " +
			"navigation menu (site-options.json). Don't change anything else.",
		verify: verifyRetire,
	},
	{
		N: 9, Name: "quick-reference",
		Folders: []folder{{"vault", corpora.Obsidian}, {"tldr", corpora.TLDR}},
		Answer:  true,
		What:    "two folders: copy a page from one into the other and link it; an answer built from a note of each",
		Prompt: "I have two folders: \"vault\", the Obsidian help kept as an Obsidian vault, and \"tldr\", the " +
			"tldr pages of command-line examples. Two things.\n\n" +
			"First, I'd like tldr's page for the `obsidian` command in the vault as a quick reference: put an " +
			"exact copy of that page, unchanged, in the vault's \"Extending Obsidian\" folder, named \"" +
			path.Base(quickRefNote) + "\", and at the end of the vault's \"Obsidian CLI\" note add a line with a " +
			"wiki link ([[...]]) to it. Leave the tldr page where it is, and don't change anything else in " +
			"either folder.\n\n" +
			"Second, I installed Obsidian with Flatpak the way the help describes, and now I want to remove " +
			"it. What's the exact command? Use the tldr pages' example for removing an installed Flatpak " +
			"application, with its placeholder replaced by Obsidian's application ID as the help gives it. " +
			"Answer with the command on the first line, then the two files you took it from, one per line, " +
			"each path starting with its folder's name (vault/... or tldr/...).",
		verify: verifyQuickReference,
	},
}

// findTask returns the task a command line names, by number or name.
func findTask(s string) (*task, error) {
	for _, t := range tasks {
		if s == fmt.Sprint(t.N) || s == t.Name {
			return t, nil
		}
	}
	var names []string
	for _, t := range tasks {
		names = append(names, fmt.Sprintf("%d (%s)", t.N, t.Name))
	}
	return nil, fmt.Errorf("no task %q: the tasks are %s", s, strings.Join(names, ", "))
}

// check is one verification: the files as the agent found them, as it left them, and its answer.
type check struct {
	orig, final *vault
	answer      string
	rootAbs     string // the root as the servers named it, to strip from paths in the answer
	problems    []string
}

func (c *check) fail(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// answerLines returns the answer's non-empty lines, trimmed, without list markers or enclosing
// backticks or quotes.
func (c *check) answerLines() []string {
	var out []string
	for _, l := range strings.Split(c.answer, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"- ", "* ", "• "} {
			l = strings.TrimPrefix(l, p)
		}
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "```") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// unquote removes one pair of enclosing backticks or quotes.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	for _, q := range []string{"`", "\"", "'"} {
		if len(s) >= 2 && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
			return strings.TrimSpace(s[1 : len(s)-1])
		}
	}
	return s
}

// relPath reads a path the agent wrote: relative to the root, or absolute under it.
func (c *check) relPath(s string) string {
	s = unquote(s)
	if c.rootAbs != "" {
		s = strings.TrimPrefix(s, strings.TrimSuffix(c.rootAbs, "/")+"/")
	}
	s = strings.TrimPrefix(s, "./")
	return path.Clean(strings.TrimPrefix(s, "/"))
}

// unchanged fails for every file that differs between the original, its paths passed through
// rename, and the end state, except those skip accepts (by their path in the end state).
func (c *check) unchanged(rename func(string) string, skip func(string) bool) {
	if rename == nil {
		rename = func(p string) string { return p }
	}
	seen := map[string]bool{}
	for p, data := range c.orig.data {
		q := rename(p)
		seen[q] = true
		if skip != nil && skip(q) {
			continue
		}
		got, ok := c.final.data[q]
		switch {
		case !ok:
			c.fail("%s is missing", q)
		case got != data:
			c.fail("%s was changed", q)
		}
	}
	for q := range c.final.data {
		if !seen[q] && (skip == nil || !skip(q)) {
			c.fail("%s was created", q)
		}
	}
}

// changedFiles returns the end state's paths whose content differs from the original's (passed
// through rename), and the files created.
func (c *check) changedFiles(rename func(string) string) []string {
	seen := map[string]bool{}
	var out []string
	for p, data := range c.orig.data {
		q := rename(p)
		seen[q] = true
		if got, ok := c.final.data[q]; ok && got != data {
			out = append(out, q)
		}
	}
	for q := range c.final.data {
		if !seen[q] {
			out = append(out, q)
		}
	}
	sort.Strings(out)
	return out
}

// linksKept fails for every note whose links no longer reach what they reached before, the
// targets passed through rename: a link lost, broken, or sent elsewhere.
func (c *check) linksKept(rename func(string) string) {
	want := c.orig.targets(rename)
	got := c.final.targets(nil)
	for _, note := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[note]
		if !ok {
			continue // a missing note is reported by unchanged or the task
		}
		for _, to := range slices.Sorted(maps.Keys(want[note])) {
			if g[to] < want[note][to] {
				c.fail("%s: %d of its %d links to %s no longer reach it", note, want[note][to]-g[to], want[note][to], shortTarget(to))
			}
		}
		for _, to := range slices.Sorted(maps.Keys(g)) {
			if g[to] > want[note][to] {
				c.fail("%s: %d more links to %s than before", note, g[to]-want[note][to], shortTarget(to))
			}
		}
	}
}

func shortTarget(to string) string {
	if strings.HasPrefix(to, "broken:") {
		return "nothing (broken: " + strings.TrimPrefix(to, "broken:") + ")"
	}
	return to
}

// sameOutsideLinks reports whether two texts are equal once every link is blanked out: the
// agent changed only link syntax.
func sameOutsideLinks(a, b string) bool {
	blank := func(s string) string {
		s = wikiRe.ReplaceAllString(s, "[[]]")
		return mdRe.ReplaceAllString(s, "[]()")
	}
	return blank(a) == blank(b)
}

// movePaths returns the rename function of moving from (a file or folder) to to.
func movePaths(from, to string) func(string) string {
	return func(p string) string {
		if p == from {
			return to
		}
		if rest, ok := strings.CutPrefix(p, from+"/"); ok {
			return to + "/" + rest
		}
		return p
	}
}

// -- tldr pages ---------------------------------------------------------------------------------

// example is one example of a tldr page: its description and its command.
type example struct {
	Desc, Cmd string
}

// examplesOf parses a tldr page: "- description:" then a line with the `command`.
func examplesOf(page string) []example {
	var out []example
	desc := ""
	for _, l := range strings.Split(page, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "- "):
			desc = strings.TrimSuffix(strings.TrimPrefix(l, "- "), ":")
		case strings.HasPrefix(l, "`") && strings.HasSuffix(l, "`") && len(l) > 1 && desc != "":
			out = append(out, example{desc, l[1 : len(l)-1]})
			desc = ""
		}
	}
	return out
}

// mnemonicless drops the brackets tldr puts around the letter an option is named after
// ("[i]ncremental").
func mnemonicless(s string) string { return strings.NewReplacer("[", "", "]", "").Replace(s) }

var spaces = regexp.MustCompile(`\s+`)

func normCmd(s string) string { return spaces.ReplaceAllString(strings.TrimSpace(unquote(s)), " ") }

var passwordRe = regexp.MustCompile(`(?i)passw|encrypt`)

func verifyArchivePassword(c *check) {
	c.unchanged(nil, nil)
	tools := []string{"tar", "zip", "7z", "rar", "zstd"}
	want := map[string][]string{} // tool -> the commands of its password examples
	for _, t := range tools {
		page, ok := c.orig.data["common/"+t+".md"]
		if !ok {
			c.fail("the corpus has no common/%s.md: the task no longer fits it", t)
			return
		}
		for _, e := range examplesOf(page) {
			if passwordRe.MatchString(mnemonicless(e.Desc)) {
				want[t] = append(want[t], normCmd(e.Cmd))
			}
		}
	}
	got := map[string]string{}
	for _, l := range c.answerLines() {
		name, cmd, ok := strings.Cut(l, ":")
		name = strings.ToLower(unquote(strings.Trim(strings.TrimSpace(name), "*")))
		if !ok || !slices.Contains(tools, name) {
			c.fail("answer line %q is not `tool: command` for one of %s", l, strings.Join(tools, ", "))
			continue
		}
		if _, dup := got[name]; dup {
			c.fail("the answer names %s twice", name)
		}
		got[name] = normCmd(cmd)
	}
	for _, t := range tools {
		cmd, named := got[t]
		switch {
		case len(want[t]) == 0 && named:
			c.fail("%s's page shows no password or encryption, but the answer names it", t)
		case len(want[t]) > 0 && !named:
			c.fail("the answer leaves out %s, whose page shows: %s", t, want[t][0])
		case named && !slices.Contains(want[t], cmd):
			c.fail("%s: %q is not one of the page's password examples %q", t, cmd, want[t])
		}
	}
}

func verifyFindByDescription(c *check) {
	c.unchanged(nil, nil)
	const page = "common/ts.md"
	var want string
	for _, e := range examplesOf(c.orig.data[page]) {
		if strings.Contains(strings.ToLower(mnemonicless(e.Desc)), "incremental") {
			want = normCmd(e.Cmd)
		}
	}
	if want == "" {
		c.fail("the corpus has no incremental example in %s: the task no longer fits it", page)
		return
	}
	lines := c.answerLines()
	if len(lines) != 2 {
		c.fail("the answer has %d lines, not two (the page, then the command)", len(lines))
		return
	}
	if got := c.relPath(lines[0]); got != page {
		c.fail("the answer names the page %q, not %s", got, page)
	}
	if got := normCmd(lines[1]); got != want {
		c.fail("the answer gives the command %q, not the page's %q", got, want)
	}
}

// -- the Obsidian vault -------------------------------------------------------------------------

const siteOptions = "site-options.json"

// navigation checks that site-options.json is the original with navigationOrdering holding
// exactly want, in any order, and every other setting as it was.
func (c *check) navigation(want []string) {
	before, err1 := parseSiteOptions(c.orig.data[siteOptions])
	after, err2 := parseSiteOptions(c.final.data[siteOptions])
	if err1 != nil {
		c.fail("the corpus's %s does not parse: %v", siteOptions, err1)
		return
	}
	if err2 != nil {
		c.fail("%s is no longer valid: %v", siteOptions, err2)
		return
	}
	for k, v := range before.other {
		if after.other[k] != v {
			c.fail("%s: the setting %s changed", siteOptions, k)
		}
	}
	for k := range after.other {
		if _, ok := before.other[k]; !ok {
			c.fail("%s: a setting %s was added", siteOptions, k)
		}
	}
	have := map[string]int{}
	for _, e := range after.nav {
		have[e]++
	}
	need := map[string]int{}
	for _, e := range want {
		need[e]++
	}
	for _, e := range slices.Sorted(maps.Keys(need)) {
		if have[e] < need[e] {
			c.fail("%s: the navigation menu lacks %q", siteOptions, e)
		}
	}
	for _, e := range slices.Sorted(maps.Keys(have)) {
		if have[e] > need[e] {
			c.fail("%s: the navigation menu has %q, which it should not", siteOptions, e)
		}
	}
}

func verifyPreviewMove(c *check) {
	const from, to = "Plugins/Unique note creator.md", "Files and folders/Unique note creator.md"
	move := movePaths(from, to)
	if !c.final.files[to] || c.final.files[from] {
		c.fail("the note is not at %s alone", to)
		return
	}
	if !sameOutsideLinks(c.orig.data[from], c.final.data[to]) {
		c.fail("%s was changed beyond its links", to)
	}
	c.linksKept(move)
	c.navigation(mapNav(c.orig.data[siteOptions], move))

	// What the move required: the notes whose links a bare move breaks or redirects, and the menu
	// when it names the note.
	bare := newVault()
	for p, d := range c.orig.data {
		bare.add(move(p), d)
	}
	want, got := c.orig.targets(move), bare.targets(nil)
	var required []string
	for _, n := range slices.Sorted(maps.Keys(want)) {
		if n != to && !equalCounts(want[n], got[n]) {
			required = append(required, n)
		}
	}
	if strings.Contains(c.orig.data[siteOptions], from) {
		required = append(required, siteOptions)
	}

	changed := map[string]bool{}
	for _, p := range c.changedFiles(move) {
		if p != to {
			changed[p] = true
		}
	}
	for _, p := range required {
		if !changed[p] {
			c.fail("%s needed a change for the move and was not changed", p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(changed)) {
		switch {
		case !c.orig.files[p]:
			c.fail("%s was created", p)
		case p != siteOptions && !sameOutsideLinks(c.orig.data[p], c.final.data[p]):
			c.fail("%s was changed beyond its links", p)
		}
	}

	// The preview: the answer lists exactly the files changed (the note itself may be named).
	listed := map[string]bool{}
	lines := c.answerLines()
	if len(lines) == 0 {
		c.fail("no answer: the preview of the files to change is missing")
	}
	for _, l := range lines {
		if strings.EqualFold(l, "none") && len(lines) == 1 {
			break
		}
		p := c.relPath(l)
		if p == from || p == to {
			continue
		}
		if !c.orig.files[p] {
			c.fail("the preview names %q, which is no file of the vault", l)
			continue
		}
		listed[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(changed)) {
		if !listed[p] {
			c.fail("the preview left out %s, which the move changed", p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(listed)) {
		if !changed[p] {
			c.fail("the preview named %s, which the move did not change", p)
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// mapNav returns the navigation entries of a site-options.json, passed through rename.
func mapNav(data string, rename func(string) string) []string {
	so, err := parseSiteOptions(data)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range so.nav {
		out = append(out, rename(e))
	}
	return out
}

func verifyMoveFolder(c *check) {
	const from, to = "Obsidian Web Clipper", "Extending Obsidian/Web Clipper"
	move := movePaths(from, to)
	if c.final.dirs[from] {
		c.fail("files remain in %s", from)
	}
	c.linksKept(move)
	c.navigation(mapNav(c.orig.data[siteOptions], move))
	for _, p := range c.changedFiles(move) {
		o := reverse(c.orig, move, p)
		switch {
		case o == "":
			c.fail("%s was created", p)
		case p != siteOptions && !sameOutsideLinks(c.orig.data[o], c.final.data[p]):
			c.fail("%s was changed beyond its links", p)
		}
	}
	for p := range c.orig.data {
		if q := move(p); !c.final.files[q] {
			c.fail("%s is missing", q)
		}
	}
}

// reverse returns the original path that rename took to p.
func reverse(v *vault, rename func(string) string, p string) string {
	for q := range v.data {
		if rename(q) == p {
			return q
		}
	}
	return ""
}

func verifyRelated(c *check) {
	const note = "Plugins/File recovery.md"
	c.unchanged(nil, func(p string) bool { return p == note })
	already := map[string]bool{note: true}
	for _, r := range c.orig.outlinks(note) {
		already[r.To] = true
	}
	want := map[string]bool{}
	for _, b := range c.orig.backlinks(note) {
		if !already[b] {
			want[b] = true
		}
	}
	if len(want) == 0 {
		c.fail("the corpus gives File recovery no backlinks it lacks: the task no longer fits it")
		return
	}
	orig := strings.TrimRight(c.orig.data[note], " \t\n")
	final := c.final.data[note]
	if !strings.HasPrefix(final, orig) {
		c.fail("%s was changed before its end", note)
		return
	}
	added := strings.Split(strings.TrimSpace(final[len(orig):]), "\n")
	if len(added) == 0 || strings.TrimSpace(added[0]) != "## Related" {
		c.fail("%s does not end with a section headed \"## Related\"", note)
		return
	}
	got := map[string]bool{}
	for _, l := range added[1:] {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		links := linksOf(l)
		if !(strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ")) || len(links) != 1 || !links[0].Wiki {
			c.fail("the Related section holds %q, not a bullet with one wiki link", l)
			continue
		}
		to := c.final.resolve(note, links[0])
		switch {
		case to == "" || strings.HasPrefix(to, "ambiguous:"):
			c.fail("the Related link %s reaches no single note", links[0].Raw)
		case got[to]:
			c.fail("the Related section links to %s twice", to)
		case !want[to]:
			c.fail("the Related section links to %s, which does not link to File recovery or is linked already", to)
		}
		got[to] = true
	}
	for _, b := range slices.Sorted(maps.Keys(want)) {
		if !got[b] {
			c.fail("the Related section lacks %s", b)
		}
	}
}

var regionRe = regexp.MustCompile(`\*\*([^*]+)\*\*:\s*([^,\n]+)`)

func verifyTwoNotes(c *check) {
	c.unchanged(nil, nil)
	const note = "Obsidian Sync/Sync regions.md"
	// The cities: the region lines of the blocks the note embeds (Obsidian's ^block ids).
	var cities []string
	for _, r := range c.orig.outlinks(note) {
		if !r.Embed || !strings.HasPrefix(r.Frag, "^") || r.To == "" {
			continue
		}
		for _, m := range regionRe.FindAllStringSubmatch(block(c.orig.data[r.To], strings.TrimPrefix(r.Frag, "^")), -1) {
			if city := strings.TrimSpace(m[2]); !strings.Contains(strings.ToLower(m[1]), "automatic") {
				cities = append(cities, city)
			}
		}
	}
	if len(cities) == 0 {
		c.fail("the corpus's %s embeds no block of regions: the task no longer fits it", note)
		return
	}
	// What the Standard plan must do first: the words of the link in the sentence naming it.
	var must string
	for _, l := range strings.Split(c.orig.data[note], "\n") {
		if strings.Contains(l, "Standard Plan") {
			for _, r := range linksOf(l) {
				if _, alias, ok := strings.Cut(r.Raw, "|"); ok && strings.Contains(strings.ToLower(alias), "delete") {
					must = strings.TrimSuffix(alias, "]]")
				}
			}
		}
	}
	if must == "" {
		c.fail("the corpus's %s no longer says what the Standard plan must do: the task no longer fits it", note)
		return
	}
	lines := c.answerLines()
	found := map[string]bool{}
	before := false
	for _, l := range lines {
		if strings.HasPrefix(strings.ToLower(l), "before:") {
			before = true
			low := strings.ToLower(l)
			for _, w := range []string{"delete", "remote"} {
				if strings.Contains(strings.ToLower(must), w) && !strings.Contains(low, w) {
					c.fail("the Before line does not say to %s (%q)", must, l)
					break
				}
			}
			continue
		}
		if strings.HasSuffix(l, ":") {
			continue // a heading such as "Cities:"
		}
		n := 0
		for _, city := range cities {
			if strings.Contains(strings.ToLower(l), strings.ToLower(city)) {
				found[city] = true
				n++
			}
		}
		if n != 1 {
			c.fail("answer line %q names %d of the cities %q, not one", l, n, cities)
		}
	}
	for _, city := range cities {
		if !found[city] {
			c.fail("the answer lacks the city %s", city)
		}
	}
	if !before {
		c.fail("the answer has no line starting with Before:")
	}
}

// block returns the lines of a note's block with the given id: the paragraph (or callout) that
// ends on the line "^id" or carries " ^id" at its end.
func block(text, id string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t != "^"+id && !strings.HasSuffix(t, " ^"+id) {
			continue
		}
		j := i
		for j > 0 && strings.TrimSpace(lines[j-1]) != "" {
			j--
		}
		return strings.Join(lines[j:i+1], "\n")
	}
	return ""
}

const (
	wordCountNote     = "Plugins/Word count.md"
	wordCountSentence = "If you select text, word count shows the counts for the selection only."
)

// wordCountCollab is the other party's edit of the Word count note: a capital fixed in the
// frontmatter and a paragraph added at the end.
func wordCountCollab(s string) string {
	s = strings.Replace(s, "the Word Count core plugin", "the Word count core plugin", 1)
	return strings.TrimRight(s, "\n") + "\n\n" + wordCountAdded + "\n"
}

const wordCountAdded = "To hide the counts, turn off Word count in **[[Settings]] → Core plugins**."

func verifyConcurrentEdit(c *check) {
	note := wordCountNote
	c.unchanged(nil, func(p string) bool { return p == note })
	final, ok := c.final.data[note]
	if !ok {
		c.fail("%s is missing", note)
		return
	}
	theirs := wordCountCollab(c.orig.data[note])
	if theirs == c.orig.data[note] {
		c.fail("the other party's edit no longer applies to the corpus: the task no longer fits it")
		return
	}
	if !strings.Contains(final, wordCountAdded) || !strings.Contains(final, "the Word count core plugin") {
		c.fail("the other party's edit of %s was lost", note)
	}
	if strings.Count(final, wordCountSentence) != 1 {
		c.fail("%s does not hold the new sentence once", note)
		return
	}
	// The sentence ends the paragraph that says where word count appears.
	var para string
	for _, p := range strings.Split(final, "\n\n") {
		if strings.Contains(p, wordCountSentence) {
			para = strings.TrimSpace(p)
		}
	}
	if !strings.Contains(para, "status bar") || !strings.HasSuffix(para, wordCountSentence) {
		c.fail("the sentence does not end the paragraph about where word count appears: %q", para)
	}
	// Nothing else changed: without the sentence, the note is the other party's version.
	rest := strings.Replace(final, wordCountSentence, "", 1)
	norm := func(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }
	if norm(rest) != norm(theirs) {
		c.fail("%s differs from the other party's version by more than the sentence", note)
	}
}

func verifyRetire(c *check) {
	const note, archived = "Plugins/Web viewer.md", "Archive/Web viewer.md"
	switch {
	case c.final.files[note]:
		c.fail("%s is still there", note)
	case !c.final.files[archived]:
		c.fail("%s is missing", archived)
	case c.final.data[archived] != c.orig.data[note]:
		c.fail("%s is not the note as it was", archived)
	}
	// Every note that linked to it: the same text with each such link replaced by its words.
	linked := map[string]string{}
	for _, src := range c.orig.backlinks(note) {
		lines := strings.Split(c.orig.data[src], "\n")
		for _, r := range c.orig.outlinks(src) {
			if r.To == note {
				lines[r.Line-1] = strings.Replace(lines[r.Line-1], r.Raw, linkWords(r.link), 1)
			}
		}
		linked[src] = strings.Join(lines, "\n")
	}
	if len(linked) == 0 {
		c.fail("nothing links to %s in the corpus: the task no longer fits it", note)
		return
	}
	c.unchanged(nil, func(p string) bool {
		_, ok := linked[p]
		return ok || p == note || p == archived || p == siteOptions
	})
	for _, src := range slices.Sorted(maps.Keys(linked)) {
		if got := c.final.data[src]; got != linked[src] {
			c.fail("%s is not its original text with the links to %s turned into their words", src, note)
		}
	}
	var nav []string
	for _, e := range mapNav(c.orig.data[siteOptions], func(p string) string { return p }) {
		if e != note {
			nav = append(nav, e)
		}
	}
	c.navigation(nav)
}

// linkWords is what a link shows: its display text, or what it names (with " > " before a
// heading, as Obsidian shows it).
func linkWords(l link) string {
	if !l.Wiki {
		text, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(l.Raw, "!"), "["), "](")
		return text
	}
	if _, alias, ok := strings.Cut(strings.ReplaceAll(l.Raw, `\|`, "|"), "|"); ok {
		return strings.TrimSuffix(alias, "]]")
	}
	if l.Frag != "" {
		return l.Target + " > " + l.Frag
	}
	return l.Target
}

// siteOptionsFile is a parsed site-options.json: the navigation menu, and every other setting as
// compact JSON.
type siteOptionsFile struct {
	nav   []string
	other map[string]string
}

func parseSiteOptions(data string) (siteOptionsFile, error) {
	var raw map[string]json.RawMessage
	so := siteOptionsFile{other: map[string]string{}}
	if err := json.Unmarshal([]byte(data), &raw); err != nil {
		return so, err
	}
	for k, v := range raw {
		if k == "navigationOrdering" {
			if err := json.Unmarshal(v, &so.nav); err != nil {
				return so, fmt.Errorf("navigationOrdering: %w", err)
			}
			continue
		}
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return so, err
		}
		so.other[k] = b.String()
	}
	return so, nil
}

// -- two folders: the vault and the tldr pages -------------------------------------------------------

const (
	quickRefPage = "tldr/common/obsidian.md"
	quickRefNote = "vault/Extending Obsidian/Obsidian CLI quick reference.md"
	cliNote      = "vault/Extending Obsidian/Obsidian CLI.md"
	installNote  = "vault/Getting started/Download and install Obsidian.md"
	flatpakPage  = "tldr/linux/flatpak.md"
)

var (
	flatpakIDRe   = regexp.MustCompile(`flatpak install flathub (\S+)`)
	placeholderRe = regexp.MustCompile(`\{\{[^{}]*\}\}`)
)

func verifyQuickReference(c *check) {
	page, ok := c.orig.data[quickRefPage]
	if !ok {
		c.fail("the corpus has no %s: the task no longer fits it", quickRefPage)
		return
	}
	c.unchanged(nil, func(p string) bool { return p == quickRefNote || p == cliNote })
	switch got, ok := c.final.data[quickRefNote]; {
	case !ok:
		c.fail("%s is missing", quickRefNote)
	case got != page:
		c.fail("%s is not an exact copy of %s (%d bytes against %d, the first difference at byte %d)",
			quickRefNote, quickRefPage, len(got), len(page), firstDiff(got, page))
	}

	// The link: the Obsidian CLI note is its old text and a line at its end whose one link reaches
	// the copy, as the vault's own links resolve (within the vault, never into tldr).
	orig := strings.TrimRight(c.orig.data[cliNote], " \t\n")
	final, ok := c.final.data[cliNote]
	switch {
	case !ok:
		c.fail("%s is missing", cliNote)
	case !strings.HasPrefix(final, orig):
		c.fail("%s was changed before its end", cliNote)
	default:
		vault, note, want := c.final.within("vault"), strings.TrimPrefix(cliNote, "vault/"), strings.TrimPrefix(quickRefNote, "vault/")
		links := linksOf(final[len(orig):])
		if len(links) == 0 {
			c.fail("%s has no link added at its end", cliNote)
		}
		for _, l := range links {
			to := vault.resolve(note, l)
			switch {
			case to == "":
				c.fail("the link %s added to %s reaches nothing, not %s", l.Raw, cliNote, quickRefNote)
			case to != want:
				c.fail("the link %s added to %s reaches %s, not %s", l.Raw, cliNote, shortTarget(to), quickRefNote)
			case l.Embed:
				c.fail("%s added to %s embeds the copy rather than linking to it", l.Raw, cliNote)
			case !l.Wiki:
				c.fail("the link %s added to %s is not a wiki link", l.Raw, cliNote)
			}
		}
		if len(links) > 1 {
			c.fail("%s has %d links added at its end, not one", cliNote, len(links))
		}
	}

	// The answer: tldr's example for removing an application, with the help's application ID.
	m := flatpakIDRe.FindStringSubmatch(c.orig.data[installNote])
	var remove string
	for _, e := range examplesOf(c.orig.data[flatpakPage]) {
		if strings.HasPrefix(strings.ToLower(mnemonicless(e.Desc)), "remove an installed application") {
			remove = e.Cmd
		}
	}
	if m == nil || len(placeholderRe.FindAllString(remove, -1)) != 1 {
		c.fail("the corpus no longer has the help's Flatpak install or tldr's example to remove one: the task no longer fits it")
		return
	}
	want := normCmd(placeholderRe.ReplaceAllLiteralString(remove, m[1]))
	lines := c.answerLines()
	if len(lines) != 3 {
		c.fail("the answer has %d lines, not three (the command, then the two files)", len(lines))
		return
	}
	if got := normCmd(lines[0]); got != want {
		c.fail("the answer gives the command %q, not %q (tldr's example with the help's application ID)", got, want)
	}
	sources := map[string]bool{}
	for _, l := range lines[1:] {
		p := c.relPath(l)
		if p != installNote && p != flatpakPage {
			c.fail("the answer names %q as a source, not %s or %s", l, installNote, flatpakPage)
		}
		sources[p] = true
	}
	for _, p := range []string{installNote, flatpakPage} {
		if !sources[p] {
			c.fail("the answer does not name %s as a source", p)
		}
	}
}

// firstDiff returns the offset of the first byte where a and b differ (the shorter's length when
// one is the other's start).
func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
