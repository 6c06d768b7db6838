package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/packfs/packfs-mcp/fsroot"
	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/internal/testfs"
	"github.com/packfs/packfs-mcp/security"
	"github.com/packfs/packfs-mcp/semantic"
	"github.com/packfs/packfs-mcp/tools/docs"
	"github.com/packfs/packfs-mcp/tools/errs"
)

// An option case shows that a field changes what a purpose does. The call with the field is the
// purpose's base call with set applied; the call without it is the base call. also is applied to
// both, to give the field something to act on (a file large enough to chunk, a destination that
// exists). refused says that the value in set, though the purpose takes the field, is refused
// naming it (options.atomic false).
type optionCase struct {
	set, also map[string]any
	refused   bool
}

// optionTable is what TestEveryOptionMatters knows of one tool.
type optionTable struct {
	tree []string // the files every call starts from, as testfs.Tree takes them
	// engine says whether the server needs the search index.
	engine bool
	// fresh says whether every call needs its own copy of the tree, because calls write.
	fresh bool
	// setup, when set, gives the server a history and makes the changes it keeps (through the
	// tools, and from outside them), before any call of the table.
	setup func(t *testing.T, e *optionEnv)
	// base is the call, per purpose, that each field is added to.
	base map[string]map[string]any
	// cases, keyed "purpose path", or "* path" for every purpose that takes the field and has no
	// case of its own, show that a field a purpose takes changes the result.
	cases map[string]optionCase
	// refuse holds, per field, a value that is not the field's zero value: the purposes that do not
	// take the field must refuse it. A list item's field may need its siblings to pass validation,
	// so each entry is a set of fields.
	refuse map[string]map[string]any
}

// TestEveryOptionMatters walks every field the declared input schema of each tool offers, for
// every purpose, and checks that a field the purpose takes (see [intents.Takes]) changes the
// result, and that a field it does not take is refused with INVALID_ARGUMENT naming the field.
// The fields come from the schema a client reads, not from a list written here: a field added to
// an intent fails this test until a case shows that it does something, or its purposes tag says
// which purposes take it and the others refuse it.
func TestEveryOptionMatters(t *testing.T) {
	for _, tc := range []struct {
		tool     string
		purposes []string
		table    optionTable
	}{
		{ReaderName, intents.Purposes[intents.Access](), readerOptions()},
		{SearcherName, intents.Purposes[intents.Discover](), searcherOptions()},
		{WriterName, intents.Purposes[intents.Update](), writerOptions()},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			shared := newOptionEnv(t, tc.table)
			env := func(t *testing.T) *optionEnv {
				if tc.table.fresh {
					return newOptionEnv(t, tc.table)
				}
				return shared
			}
			fields := schemaFields(t, shared.tools[tc.tool].Tool.RawInputSchema)
			for _, purpose := range tc.purposes {
				t.Run(purpose, func(t *testing.T) {
					base, ok := tc.table.base[purpose]
					if !ok {
						t.Fatalf("no base call for purpose %s: add one to the table", purpose)
					}
					// The refusals change nothing, so they share one tree even for the writer.
					refusals := env(t)
					for _, field := range fields {
						t.Run(field, func(t *testing.T) {
							c, specific := tc.table.cases[purpose+" "+field]
							wildcard, general := tc.table.cases["* "+field]
							if !specific {
								c = wildcard
							}
							switch {
							case !takes(tc.tool, purpose, field):
								if specific {
									t.Fatalf("a case shows %s changing %s, which does not take it: remove the case, or add %s to the field's purposes tag", field, purpose, purpose)
								}
								patch, ok := tc.table.refuse[field]
								if !ok {
									t.Fatalf("no value to send in %s, which %s must refuse: add one to refuse", field, purpose)
								}
								wantRefused(t, refusals.call(t, tc.tool, with(base, patch)), field)
							case !specific && !general:
								t.Fatalf("%s takes %s, and no case shows that it changes the result: add one, or leave %s out of the field's purposes tag so it is refused", purpose, field, purpose)
							case c.refused:
								wantRefused(t, env(t).call(t, tc.tool, with(with(base, c.also), c.set)), field)
							default:
								without := env(t).call(t, tc.tool, with(base, c.also))
								again := env(t).call(t, tc.tool, with(base, c.also))
								if diff := cmp.Diff(without, again); diff != "" {
									t.Fatalf("the same call gave two results, so no difference can be trusted (-first +second):\n%s", diff)
								}
								got := env(t).call(t, tc.tool, with(with(base, c.also), c.set))
								if cmp.Equal(without, got) {
									t.Errorf("%s with %v gives the same result as without it: %s", purpose, c.set, got.json())
								}
							}
						})
					}
				})
			}
		})
	}
}

// takes asks the intents' table whether purpose takes field, for tool.
func takes(tool, purpose, field string) bool {
	switch tool {
	case ReaderName:
		return intents.Takes[intents.Access](purpose, field)
	case SearcherName:
		return intents.Takes[intents.Discover](purpose, field)
	}
	return intents.Takes[intents.Update](purpose, field)
}

// wantRefused fails unless out is an INVALID_ARGUMENT answer whose field is field or one of the
// objects or lists that hold it.
func wantRefused(t *testing.T, out optionResult, field string) {
	t.Helper()
	got, _ := out.Result["field"].(string)
	if out.Result["success"] != false || out.Result["code"] != errs.CodeInvalidArgument ||
		!(got == field || strings.HasPrefix(field, got+".") || strings.HasPrefix(field, got+"[")) {
		t.Errorf("want INVALID_ARGUMENT naming %s, got %s", field, out.json())
	}
}

// schemaFields returns the path of every field of an input schema but purpose: the leaves, through
// objects and lists of objects, such as "options.recursive", "target.criteria.modified.after" and
// "edits[].oldText".
func schemaFields(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if items, ok := s["items"].(map[string]any); ok && items["properties"] != nil {
			walk(path+"[]", items)
			return
		}
		props, ok := s["properties"].(map[string]any)
		if !ok {
			out = append(out, path)
			return
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			p := name
			if path != "" {
				p = path + "." + name
			}
			walk(p, props[name].(map[string]any))
		}
	}
	walk("", root)
	out = slices.DeleteFunc(out, func(p string) bool { return p == "purpose" })
	if len(out) < 5 {
		t.Fatalf("schema fields = %v: the walk found too few to be the tool's", out)
	}
	return out
}

// with returns a copy of args with every field of patch set, by path ("target.criteria.name",
// "edits[].oldText": "[]" is the list's first item, made if needed).
func with(args map[string]any, patch map[string]any) map[string]any {
	var out map[string]any
	b, _ := json.Marshal(args)
	json.Unmarshal(b, &out)
	for _, path := range slices.Sorted(maps.Keys(patch)) {
		m := out
		parts := strings.Split(path, ".")
		for i, part := range parts {
			name, items := strings.CutSuffix(part, "[]")
			if i == len(parts)-1 && !items {
				m[name] = patch[path]
				break
			}
			if items {
				list, _ := m[name].([]any)
				if len(list) == 0 {
					list = []any{map[string]any{}}
				}
				m[name] = list
				m = list[0].(map[string]any)
				continue
			}
			next, ok := m[name].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[name] = next
			}
			m = next
		}
	}
	return out
}

// optionEnv is a server over a copy of a table's tree.
type optionEnv struct {
	root  string
	srv   *Server
	tools map[string]server.ServerTool
}

func newOptionEnv(t *testing.T, table optionTable) *optionEnv {
	t.Helper()
	base := testfs.TempDir(t)
	dir := filepath.Join(base, "root")
	mustOK(t, os.Mkdir(dir, 0o755))
	testfs.Tree(t, dir, base, table.tree...)
	root, err := fsroot.Open(dir, fsroot.Options{})
	mustOK(t, err)
	t.Cleanup(func() { root.Close() })
	policy, err := security.NewPolicy(security.PolicyConfig{RootDir: root.Dir(), RootResolved: root.ResolvedDir()})
	mustOK(t, err)
	cfg := Config{
		Mount:       Mount{Root: root, Policy: policy},
		Limiter:     security.NewLimiter(security.LimitConfig{MaxRequests: 1 << 30}),
		Permissions: security.AllPermissions(),
	}
	if table.engine {
		e := semantic.New(semantic.Options{FS: root.FS(), Allow: func(name string, isDir bool) bool { return policy.CheckName(name, isDir) == nil }, Document: docs.IndexText(policy)})
		mustOK(t, e.Build(context.Background()))
		t.Cleanup(func() { e.Close() })
		cfg.Engine = e
	}
	env := &optionEnv{root: dir, srv: New(cfg), tools: map[string]server.ServerTool{}}
	for _, st := range env.srv.Tools() {
		env.tools[st.Tool.Name] = st
	}
	if table.setup != nil {
		withHistory(t, env)
		table.setup(t, env)
	}
	return env
}

// optionResult is what a call did: its flat result without metadata (which holds the time it
// took), and the tree under the root afterwards.
type optionResult struct {
	Result map[string]any
	Tree   map[string]string
}

func (r optionResult) json() string {
	b, _ := json.Marshal(r.Result)
	return string(b)
}

func (e *optionEnv) call(t *testing.T, tool string, args map[string]any) optionResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := e.tools[tool].Handler(context.Background(), req)
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var out optionResult
	mustOK(t, json.Unmarshal(structured(t, res), &out.Result))
	delete(out.Result, "metadata")
	out.Tree = map[string]string{}
	filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relSlash(e.root, p)
		if d.IsDir() {
			out.Tree[rel] = "/"
		} else if b, err := os.ReadFile(p); err == nil {
			out.Tree[rel] = string(b)
		}
		return nil
	})
	return out
}

func readerOptions() optionTable {
	return optionTable{
		tree: []string{"a.md=one\ntwo\nthree\n", "big.txt=" + strings.Repeat("a line of a file large enough to come back in chunks\n", 2000)},
		base: map[string]map[string]any{
			"read":     {"purpose": "read", "target": map[string]any{"path": "a.md"}},
			"metadata": {"purpose": "metadata", "target": map[string]any{"path": "a.md"}},
			"exists":   {"purpose": "exists", "target": map[string]any{"path": "a.md"}},
			"history":  {"purpose": "history", "target": map[string]any{"path": "a.md"}},
		},
		setup: func(t *testing.T, e *optionEnv) {
			for _, content := range []string{"one\n", "one\ntwo\nthree\n"} {
				mustSucceed(t, e.call(t, WriterName, map[string]any{"purpose": "update", "target": map[string]any{"path": "a.md"}, "content": content}))
			}
		},
		cases: map[string]optionCase{
			"* target.path":                    {set: map[string]any{"target.path": "missing.md"}},
			"read target.reads[].path":         {set: map[string]any{"target.path": "", "target.reads[].path": "big.txt"}},
			"read target.reads[].offset":       {set: map[string]any{"target.reads[].offset": 1}, also: map[string]any{"target.path": "", "target.reads[].path": "a.md"}},
			"read target.reads[].limit":        {set: map[string]any{"target.reads[].limit": 1}, also: map[string]any{"target.path": "", "target.reads[].path": "a.md"}},
			"read target.encoding":             {set: map[string]any{"target.encoding": "base64"}},
			"read preferences.includeMetadata": {set: map[string]any{"preferences.includeMetadata": true}},
			"read preferences.maxSizeBytes":    {set: map[string]any{"preferences.maxSizeBytes": 1}},
			"read preferences.chunkIfLarge":    {set: map[string]any{"preferences.chunkIfLarge": true}, also: map[string]any{"target.path": "big.txt"}},
			"read preferences.offset":          {set: map[string]any{"preferences.offset": 1}},
			"read preferences.limit":           {set: map[string]any{"preferences.limit": 1}},
			"read preferences.page":            {set: map[string]any{"preferences.page": 1}},
		},
		refuse: map[string]map[string]any{
			"target.reads[].path":         {"target.reads[].path": "a.md"},
			"target.reads[].offset":       {"target.reads[].path": "a.md", "target.reads[].offset": 1},
			"target.reads[].limit":        {"target.reads[].path": "a.md", "target.reads[].limit": 1},
			"target.encoding":             {"target.encoding": "base64"},
			"preferences.includeMetadata": {"preferences.includeMetadata": true},
			"preferences.maxSizeBytes":    {"preferences.maxSizeBytes": 1},
			"preferences.chunkIfLarge":    {"preferences.chunkIfLarge": true},
			"preferences.offset":          {"preferences.offset": 1},
			"preferences.limit":           {"preferences.limit": 1},
			"preferences.page":            {"preferences.page": 1},
		},
	}
}

func searcherOptions() optionTable {
	search := func(purpose string) map[string]any {
		return map[string]any{"purpose": purpose, "target": map[string]any{"path": ".", "query": "needle"}}
	}
	// Criteria that every file fails: the tree was written just now.
	none := map[string]optionCase{
		"target.criteria.modified.after":  {set: map[string]any{"target.criteria.modified.after": "2100-01-01T00:00:00Z"}},
		"target.criteria.modified.before": {set: map[string]any{"target.criteria.modified.before": "2000-01-01T00:00:00Z"}},
		"target.criteria.sizeBytes.min":   {set: map[string]any{"target.criteria.sizeBytes.min": 1 << 20}},
		"target.criteria.sizeBytes.max":   {set: map[string]any{"target.criteria.sizeBytes.max": 1}},
	}
	cases := map[string]optionCase{
		"* target.path":               {set: map[string]any{"target.path": "docs"}},
		"* target.criteria.extension": {set: map[string]any{"target.criteria.extension": []string{"txt"}}},
		"* target.criteria.name":      {set: map[string]any{"target.criteria.name": "*.TXT"}},
		"* options.maxResults":        {set: map[string]any{"options.maxResults": 1}},
		"* options.offset":            {set: map[string]any{"options.offset": 1}},
		// deeper.md is three levels down.
		"* options.maxDepth":                     {set: map[string]any{"options.maxDepth": 2}, also: map[string]any{"options.recursive": true}},
		"list options.recursive":                 {set: map[string]any{"options.recursive": true}},
		"search_content options.recursive":       {set: map[string]any{"options.recursive": false}},
		"search_semantic options.recursive":      {set: map[string]any{"options.recursive": false}},
		"list target.criteria.content":           {set: map[string]any{"target.criteria.content": "alpha"}},
		"search_content target.criteria.content": {set: map[string]any{"target.criteria.content": "beta"}},
		"search_content target.query":            {set: map[string]any{"target.query": "alpha"}},
		"search_semantic target.query":           {set: map[string]any{"target.query": "alpha"}},
		"search_content options.includeContent":  {set: map[string]any{"options.includeContent": true}},
		"list options.includeModified":           {set: map[string]any{"options.includeModified": true}},
		"search_content options.includeModified": {set: map[string]any{"options.includeModified": true}},
		"search_semantic options.includeContent": {set: map[string]any{"options.includeContent": true}},
		"search_content options.regex":           {set: map[string]any{"options.regex": true}, also: map[string]any{"target.query": "n..dle"}},
		"search_content options.caseSensitive":   {set: map[string]any{"options.caseSensitive": true}},
		"search_content options.filesOnly":       {set: map[string]any{"options.filesOnly": true}},
		"search_content options.contextLines":    {set: map[string]any{"options.contextLines": 1}},
		// build/ is ignored by .gitignore and holds a needle.
		"list options.includeIgnored":           {set: map[string]any{"options.includeIgnored": true}},
		"search_content options.includeIgnored": {set: map[string]any{"options.includeIgnored": true}},
		"search_semantic target.criteria.tags":  {set: map[string]any{"target.criteria.tags": []string{"t1"}}},
		// linked.md holds no needle: only the link from top.md reaches it.
		"search_semantic options.followRelationships": {set: map[string]any{"options.followRelationships": true}},
		"search_semantic queries":                     {set: map[string]any{"queries": []string{"gamma"}}, also: map[string]any{"target.query": "zzqxv"}},
		"relationships target.path":                   {set: map[string]any{"target.path": "docs/sub.md"}},
		"relationships target.paths":                  {set: map[string]any{"target.path": "", "target.paths": []string{"top.md", "docs/sub.md"}}},
		// The root holds more than one document; offset pages a folder's.
		"relationships options.offset": {set: map[string]any{"options.offset": 1}, also: map[string]any{"target.path": "."}},
	}
	for field, c := range none {
		for _, purpose := range []string{"list", "search_content", "search_semantic"} {
			cases[purpose+" "+field] = c
		}
	}
	return optionTable{
		tree: []string{
			"top.md=---\ntags: [t1]\n---\n# Top\nneedle alpha\nsecond line\nsee [linked](linked.md)\n",
			"linked.md=# Linked\nnothing to find here\n",
			"notes.txt=Needle upper\n",
			"docs/sub.md=# Sub\nneedle beta\n",
			"docs/deep/deeper.md=# Deeper\nneedle gamma\n",
			".gitignore=build/\n",
			".git/HEAD=ref: main\n",
			"build/out.md=# Out\nneedle built\n",
		},
		engine: true,
		base: map[string]map[string]any{
			"list":            {"purpose": "list", "target": map[string]any{"path": "."}},
			"search_content":  search("search_content"),
			"search_semantic": search("search_semantic"),
			"relationships":   {"purpose": "relationships", "target": map[string]any{"path": "top.md"}},
		},
		cases: cases,
		refuse: map[string]map[string]any{
			"target.query":                    {"target.query": "needle"},
			"target.paths":                    {"target.paths": []string{"top.md"}},
			"target.criteria.content":         {"target.criteria.content": "needle"},
			"target.criteria.extension":       {"target.criteria.extension": []string{"md"}},
			"target.criteria.name":            {"target.criteria.name": "*.md"},
			"target.criteria.modified.after":  {"target.criteria.modified.after": "2000-01-01T00:00:00Z"},
			"target.criteria.modified.before": {"target.criteria.modified.before": "2100-01-01T00:00:00Z"},
			"target.criteria.sizeBytes.min":   {"target.criteria.sizeBytes.min": 1},
			"target.criteria.sizeBytes.max":   {"target.criteria.sizeBytes.max": 1 << 20},
			"target.criteria.tags":            {"target.criteria.tags": []string{"t1"}},
			"options.recursive":               {"options.recursive": true},
			"options.maxDepth":                {"options.maxDepth": 2},
			"options.maxResults":              {"options.maxResults": 1},
			"options.offset":                  {"options.offset": 1},
			"options.includeContent":          {"options.includeContent": true},
			"options.includeModified":         {"options.includeModified": true},
			"options.followRelationships":     {"options.followRelationships": true},
			"options.regex":                   {"options.regex": true},
			"options.caseSensitive":           {"options.caseSensitive": true},
			"options.filesOnly":               {"options.filesOnly": true},
			"options.contextLines":            {"options.contextLines": 1},
			"options.includeIgnored":          {"options.includeIgnored": true},
			"queries":                         {"queries": []string{"gamma"}},
		},
	}
}

func writerOptions() optionTable {
	write := func(purpose, path string, extra map[string]any) map[string]any {
		a := map[string]any{"purpose": purpose, "target": map[string]any{"path": path}}
		maps.Copy(a, extra)
		return a
	}
	cases := map[string]optionCase{
		"* options.atomic":                   {set: map[string]any{"options.atomic": false}, refused: true},
		"create target.path":                 {set: map[string]any{"target.path": "other.md"}},
		"update target.path":                 {set: map[string]any{"target.path": "b.md"}},
		"append target.path":                 {set: map[string]any{"target.path": "b.md"}},
		"edit target.path":                   {set: map[string]any{"target.path": "b.md"}},
		"delete target.path":                 {set: map[string]any{"target.path": "a.md"}},
		"move target.path":                   {set: map[string]any{"target.path": "b.md"}},
		"mkdir target.path":                  {set: map[string]any{"target.path": "otherdir"}},
		"move target.destination":            {set: map[string]any{"target.destination": "elsewhere.md"}},
		"move target.paths":                  {set: map[string]any{"target.path": "", "target.paths": []string{"a.md", "b.md"}, "target.destination": "dir"}},
		"move target.moves[].path":           {set: map[string]any{"target.path": "", "target.destination": "", "target.moves[].path": "b.md", "target.moves[].destination": "moved.md"}},
		"move target.moves[].destination":    {set: map[string]any{"target.path": "", "target.destination": "", "target.moves[].path": "a.md", "target.moves[].destination": "other.md"}},
		"* target.version":                   {set: map[string]any{"target.version": "0123456789abcdef"}}, // no file holds it: CONFLICT
		"create content":                     {set: map[string]any{"content": "hi"}},
		"update content":                     {set: map[string]any{"content": "hi"}},
		"append content":                     {set: map[string]any{"content": "hi"}},
		"edit edits[].oldText":               {set: map[string]any{"edits[].oldText": "z"}}, // twice in a.md
		"edit edits[].newText":               {set: map[string]any{"edits[].newText": "q"}},
		"edit edits[].replaceAll":            {set: map[string]any{"edits[].replaceAll": true}, also: map[string]any{"edits[].oldText": "z"}},
		"edit edits[].path":                  {set: map[string]any{"edits[].path": "c.md"}},                // c.md has an x too
		"edit edits[].version":               {set: map[string]any{"edits[].version": "0123456789abcdef"}}, // not a.md's: CONFLICT
		"create options.createPath":          {set: map[string]any{"options.createPath": true}, also: map[string]any{"target.path": "sub/new.md"}},
		"append options.createPath":          {set: map[string]any{"options.createPath": true}, also: map[string]any{"target.path": "sub/new.md"}},
		"move options.createPath":            {set: map[string]any{"options.createPath": true}, also: map[string]any{"target.destination": "sub/moved.md"}},
		"move options.preserveRelationships": {set: map[string]any{"options.preserveRelationships": true}},
		"delete options.recursive":           {set: map[string]any{"options.recursive": true}, also: map[string]any{"target.path": "dir"}},
		"move options.overwrite":             {set: map[string]any{"options.overwrite": true}, also: map[string]any{"target.destination": "b.md"}},
		"edit options.dryRun":                {set: map[string]any{"options.dryRun": true}},
		"move options.dryRun":                {set: map[string]any{"options.dryRun": true}},
		"copy target.path":                   {set: map[string]any{"target.path": "b.md"}},
		"copy target.destination":            {set: map[string]any{"target.destination": "elsewhere.md"}},
		"copy options.createPath":            {set: map[string]any{"options.createPath": true}, also: map[string]any{"target.destination": "sub/copied.md"}},
		"copy options.overwrite":             {set: map[string]any{"options.overwrite": true}, also: map[string]any{"target.destination": "b.md"}},
		"copy options.dryRun":                {set: map[string]any{"options.dryRun": true}},
		"restore target.path":                {set: map[string]any{"target.path": "a.md"}}, // no change kept: NOT_FOUND
		"restore target.call":                {set: map[string]any{"target.call": "20260101T000000.000000000Z-none", "target.path": ""}},
		"restore options.createPath":         {set: map[string]any{"options.createPath": true}, also: map[string]any{"target.path": "gone/x.md"}},
		"restore options.overwrite":          {set: map[string]any{"options.overwrite": true}, also: map[string]any{"target.path": "c.md"}},
		"copy options.recursive":             {set: map[string]any{"options.recursive": true}, also: map[string]any{"target.path": "dir", "target.destination": "dircopy"}},
		// wiki.md's [[a]] becomes [[moved|a]], or with "target" [[moved]].
		"move options.linkText": {set: map[string]any{"options.linkText": "target"}, also: map[string]any{"options.preserveRelationships": true}},
	}
	return optionTable{
		tree:   []string{"a.md=x\nz\nz\n", "b.md=bee\n", "c.md=cx\n", "link.md=see [a](a.md)\n", "wiki.md=see [[a]]\n", "dir/inner.md=inner\n"},
		engine: true,
		fresh:  true,
		base: map[string]map[string]any{
			"create": write("create", "new.md", map[string]any{"content": "hello"}),
			"update": write("update", "a.md", map[string]any{"content": "hello"}),
			"append": write("append", "a.md", map[string]any{"content": "more"}),
			"edit":   write("edit", "a.md", map[string]any{"edits": []any{map[string]any{"oldText": "x", "newText": "y"}}}),
			"delete": write("delete", "b.md", nil),
			"move":   {"purpose": "move", "target": map[string]any{"path": "a.md", "destination": "moved.md"}},
			"copy":   {"purpose": "copy", "target": map[string]any{"path": "a.md", "destination": "copied.md"}},
			"mkdir":  write("mkdir", "newdir", nil),
			// b.md was "bee\n", then "bee two\n": restore puts "bee two\n" back.
			"restore": write("restore", "b.md", nil),
		},
		setup: func(t *testing.T, e *optionEnv) {
			for _, args := range []map[string]any{
				write("update", "b.md", map[string]any{"content": "bee two\n"}),
				write("update", "b.md", map[string]any{"content": "bee three\n"}),
				write("update", "c.md", map[string]any{"content": "cx two\n"}),
				write("create", "gone/x.md", map[string]any{"content": "x\n", "options": map[string]any{"createPath": true}}),
				write("delete", "gone/x.md", nil),
				write("delete", "gone", nil),
			} {
				mustSucceed(t, e.call(t, WriterName, args))
			}
			// c.md changed outside the tools since: restoring what its last change replaced is a
			// conflict unless options.overwrite.
			mustOK(t, os.WriteFile(filepath.Join(e.root, "c.md"), []byte("cx three\n"), 0o644))
		},
		cases: cases,
		refuse: map[string]map[string]any{
			"target.destination":            {"target.destination": "elsewhere.md"},
			"target.paths":                  {"target.paths": []string{"c.md"}},
			"target.moves[].path":           {"target.moves[].path": "c.md", "target.moves[].destination": "d.md"},
			"target.moves[].destination":    {"target.moves[].path": "c.md", "target.moves[].destination": "d.md"},
			"target.version":                {"target.version": "0123456789abcdef"},
			"target.call":                   {"target.call": "20260101T000000.000000000Z-none"},
			"content":                       {"content": "hi"},
			"edits[].oldText":               {"edits[].oldText": "x"},
			"edits[].newText":               {"edits[].oldText": "x", "edits[].newText": "y"},
			"edits[].replaceAll":            {"edits[].oldText": "x", "edits[].replaceAll": true},
			"edits[].path":                  {"edits[].oldText": "x", "edits[].path": "c.md"},
			"edits[].version":               {"edits[].oldText": "x", "edits[].version": "0123456789abcdef"},
			"options.createPath":            {"options.createPath": true},
			"options.preserveRelationships": {"options.preserveRelationships": true},
			"options.linkText":              {"options.linkText": "target"},
			"options.recursive":             {"options.recursive": true},
			"options.overwrite":             {"options.overwrite": true},
			"options.dryRun":                {"options.dryRun": true},
		},
	}
}

// mustSucceed fails t unless out is a success.
func mustSucceed(t *testing.T, out optionResult) {
	t.Helper()
	if out.Result["success"] != true {
		t.Fatalf("setup call failed: %s", out.json())
	}
}
