package intents

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// decodeCase is one row of a Decode table: either want (when field is "")
// or an error with the given Field and Rule whose message contains msg.
type decodeCase[T any] struct {
	name  string
	in    string
	want  T
	field string
	rule  string
	msg   string
}

func runDecode[T any](t *testing.T, cases []decodeCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode[T]([]byte(tc.in))
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Decode(%s) error: %v", tc.in, err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Decode(%s) mismatch (-want +got):\n%s", tc.in, diff)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Decode(%s) = %+v, %v; want a *FieldError", tc.in, got, err)
			}
			if diff := cmp.Diff(tc.field+" "+tc.rule, fe.Field+" "+fe.Rule); diff != "" {
				t.Errorf("Decode(%s) field and rule (-want +got):\n%s\nmessage: %s", tc.in, diff, fe.Message)
			}
			if !strings.Contains(fe.Message, tc.msg) {
				t.Errorf("Decode(%s) message %q does not contain %q", tc.in, fe.Message, tc.msg)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Decode(%s) error %v does not wrap ErrInvalid", tc.in, err)
			}
			if diff := cmp.Diff(*new(T), got); diff != "" {
				t.Errorf("Decode(%s) returned a non-zero value with an error:\n%s", tc.in, diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodeAccess(t *testing.T) {
	read := func(path string) Access { return Access{Purpose: "read", Target: AccessTarget{Path: path}} }
	runDecode(t, []decodeCase[Access]{
		{name: "minimal", in: `{"purpose":"read","target":{"path":"a.md"}}`, want: read("a.md")},
		{name: "full", in: `{"purpose":"read","target":{"path":"bin/x","encoding":"utf-8"},
			"preferences":{"includeMetadata":true,"maxSizeBytes":1024,"chunkIfLarge":true,"offset":5,"limit":20}}`,
			want: Access{Purpose: "read", Target: AccessTarget{Path: "bin/x", Encoding: "utf-8"},
				Preferences: AccessPreferences{IncludeMetadata: true, MaxSizeBytes: 1024, ChunkIfLarge: true, Offset: 5, Limit: 20}}},
		{name: "base64 with what it takes", in: `{"purpose":"read","target":{"path":"bin/x","encoding":"base64"},"preferences":{"includeMetadata":true,"maxSizeBytes":1024}}`,
			want: Access{Purpose: "read", Target: AccessTarget{Path: "bin/x", Encoding: "base64"}, Preferences: AccessPreferences{IncludeMetadata: true, MaxSizeBytes: 1024}}},
		{name: "metadata", in: `{"purpose":"metadata","target":{"path":"d"}}`, want: Access{Purpose: "metadata", Target: AccessTarget{Path: "d"}}},
		{name: "nulls are absent", in: `{"purpose":"read","target":{"path":"a.md","encoding":null},"preferences":null}`, want: read("a.md")},
		{name: "whitespace around", in: " \n{\"purpose\":\"read\",\"target\":{\"path\":\"a.md\"}}\t ", want: read("a.md")},

		// Forgiven slips.
		{name: "target as JSON string", in: `{"purpose":"read","target":"{\"path\":\"a.md\"}"}`, want: read("a.md")},
		{name: "target as plain string", in: `{"purpose":"read","target":"notes/a.md"}`, want: read("notes/a.md")},
		{name: "top-level path", in: `{"purpose":"read","path":"a.md"}`, want: read("a.md")},
		{name: "top-level path equal to target.path", in: `{"purpose":"read","path":"a.md","target":{"path":"a.md"}}`, want: read("a.md")},
		{name: "top-level path fills null target.path", in: `{"purpose":"read","path":"a.md","target":{"path":null}}`, want: read("a.md")},
		{name: "top-level encoding", in: `{"purpose":"read","path":"a","encoding":"utf8"}`,
			want: Access{Purpose: "read", Target: AccessTarget{Path: "a", Encoding: "utf8"}}},
		{name: "numbers and booleans as strings", in: `{"purpose":"read","target":{"path":"a.md"},
			"preferences":{"limit":"10","offset":" 2 ","maxSizeBytes":"1e3","includeMetadata":"true","chunkIfLarge":"false"}}`,
			want: Access{Purpose: "read", Target: AccessTarget{Path: "a.md"},
				Preferences: AccessPreferences{Limit: 10, Offset: 2, MaxSizeBytes: 1000, IncludeMetadata: true}}},
		{name: "integral float", in: `{"purpose":"read","target":{"path":"a.md"},"preferences":{"limit":10.0}}`,
			want: Access{Purpose: "read", Target: AccessTarget{Path: "a.md"}, Preferences: AccessPreferences{Limit: 10}}},
		{name: "preferences as JSON string", in: `{"purpose":"read","target":{"path":"a.md"},"preferences":"{\"limit\":\"7\"}"}`,
			want: Access{Purpose: "read", Target: AccessTarget{Path: "a.md"}, Preferences: AccessPreferences{Limit: 7}}},
		{name: "arguments as JSON string", in: `"{\"purpose\":\"read\",\"target\":{\"path\":\"a.md\"}}"`, want: read("a.md")},

		// Strict.
		{name: "top-level path conflicting with target.path", in: `{"purpose":"read","path":"b.md","target":{"path":"a.md"}}`,
			field: "path", rule: "unknown-field", msg: "send it once, as target.path"},
		{name: "unknown top-level field", in: `{"purpose":"read","target":{"path":"a.md"},"mode":"fast"}`,
			field: "mode", rule: "unknown-field", msg: `unknown field "mode"; accepted fields: purpose, target, preferences`},
		{name: "unknown nested field", in: `{"purpose":"read","target":{"path":"a.md","line":3}}`,
			field: "target.line", rule: "unknown-field", msg: "accepted fields: path, reads, encoding"},
		{name: "unknown field with a near miss", in: `{"purpose":"read","target":{"path":"a.md"},"preferences":{"max_size":3}}`,
			field: "preferences.max_size", rule: "unknown-field", msg: "did you mean maxSizeBytes?"},
		{name: "miscased field", in: `{"Purpose":"read","target":{"path":"a.md"}}`,
			field: "Purpose", rule: "unknown-field", msg: "did you mean purpose?"},
		{name: "object for target.path", in: `{"purpose":"read","target":{"path":{"name":"a.md"}}}`,
			field: "target.path", rule: "type", msg: "target.path must be a string, got an object"},
		{name: "number for target", in: `{"purpose":"read","target":42}`, field: "target", rule: "type", msg: "an object"},
		{name: "list for preferences", in: `{"purpose":"read","target":"a","preferences":[]}`, field: "preferences", rule: "type"},
		{name: "word for a number", in: `{"purpose":"read","target":"a","preferences":{"limit":"abc"}}`,
			field: "preferences.limit", rule: "type", msg: `preferences.limit must be an integer, got a string "abc"`},
		{name: "fraction for an integer", in: `{"purpose":"read","target":"a","preferences":{"limit":10.5}}`, field: "preferences.limit", rule: "type"},
		{name: "overflowing integer", in: `{"purpose":"read","target":"a","preferences":{"offset":1e300}}`, field: "preferences.offset", rule: "type"},
		{name: "word for a boolean", in: `{"purpose":"read","target":"a","preferences":{"chunkIfLarge":"yes"}}`,
			field: "preferences.chunkIfLarge", rule: "type", msg: "true or false"},
		{name: "number for a boolean", in: `{"purpose":"read","target":"a","preferences":{"chunkIfLarge":1}}`, field: "preferences.chunkIfLarge", rule: "type"},
		{name: "number for purpose", in: `{"purpose":1,"target":"a"}`, field: "purpose", rule: "type"},
		{name: "broken target JSON string", in: `{"purpose":"read","target":"{\"path\":"}`, field: "target", rule: "json"},
		{name: "missing purpose", in: `{"target":{"path":"a.md"}}`, field: "purpose", rule: "required", msg: "one of: read, metadata, exists"},
		{name: "unknown purpose", in: `{"purpose":"write","target":{"path":"a.md"}}`,
			field: "purpose", rule: "oneof", msg: `purpose must be one of: read, metadata, exists, history (got "write")`},
		{name: "mistyped purpose", in: `{"purpose":"raed","target":{"path":"a.md"}}`,
			field: "purpose", rule: "oneof", msg: `purpose must be one of: read, metadata, exists, history (got "raed"): did you mean "read"?`},
		{name: "missing target", in: `{"purpose":"read"}`, field: "target.path", rule: "required"},
		{name: "empty target", in: `{"purpose":"read","target":{}}`, field: "target.path", rule: "required"},
		{name: "path and paths", in: `{"purpose":"read","target":{"path":"a.md","paths":["b.md"]}}`, field: "target.reads", rule: "conflict"},
		{name: "paths for metadata", in: `{"purpose":"metadata","target":{"paths":["a.md"]}}`, field: "target.reads", rule: "unexpected", msg: "use purpose read"},
		{name: "too many paths", in: `{"purpose":"read","target":{"paths":["f0.md","f1.md","f2.md","f3.md","f4.md","f5.md","f6.md","f7.md","f8.md","f9.md","f10.md","f11.md","f12.md","f13.md","f14.md","f15.md","f16.md","f17.md","f18.md","f19.md","f20.md"]}}`, field: "target.reads", rule: "max"},
		{name: "an empty path among paths", in: `{"purpose":"read","target":{"paths":["a.md",""]}}`, field: "target.reads[1].path", rule: "required"},
		{name: "a path twice", in: `{"purpose":"read","target":{"paths":["a.md","a.md"]}}`, field: "target.reads", rule: "unique"},
		{name: "a range twice", in: `{"purpose":"read","target":{"reads":[{"path":"a.md","limit":3},{"path":"a.md","limit":3}]}}`, field: "target.reads", rule: "unique"},
		{name: "paths not a list", in: `{"purpose":"read","target":{"paths":{"a":1}}}`, field: "target.paths", rule: "type"},
		{name: "reads and path", in: `{"purpose":"read","target":{"path":"a.md","reads":[{"path":"b.md"}]}}`, field: "target.reads", rule: "conflict"},
		{name: "reads and paths", in: `{"purpose":"read","target":{"paths":["a.md"],"reads":[{"path":"b.md"}]}}`, field: "target.paths", rule: "conflict"},
		{name: "reads for metadata", in: `{"purpose":"metadata","target":{"reads":[{"path":"a.md"}]}}`, field: "target.reads", rule: "unexpected", msg: "use purpose read"},
		{name: "a read without its path", in: `{"purpose":"read","target":{"reads":[{"path":"a.md"},{"offset":3}]}}`, field: "target.reads[1].path", rule: "required"},
		{name: "a read's negative offset", in: `{"purpose":"read","target":{"reads":[{"path":"a.md","offset":-1}]}}`, field: "target.reads[0].offset", rule: "min"},
		{name: "a read's lines in base64", in: `{"purpose":"read","target":{"encoding":"base64","reads":[{"path":"a.md"},{"path":"b.md","limit":3}]}}`, field: "target.reads[1].limit", rule: "conflict"},
		{name: "empty path", in: `{"purpose":"read","target":""}`, field: "target.path", rule: "required"},
		{name: "unknown encoding", in: `{"purpose":"read","target":{"path":"a","encoding":"latin1"}}`,
			field: "target.encoding", rule: "oneof", msg: "utf-8, utf8, base64"},
		{name: "path too long", in: `{"purpose":"read","target":"` + strings.Repeat("a", 4097) + `"}`,
			field: "target.path", rule: "max", msg: "at most 4096 characters"},
		{name: "limit too big", in: `{"purpose":"read","target":"a","preferences":{"limit":100001}}`, field: "preferences.limit", rule: "max"},
		{name: "negative offset", in: `{"purpose":"read","target":"a","preferences":{"offset":-1}}`,
			field: "preferences.offset", rule: "min", msg: "at least 0"},
		{name: "preferences with metadata", in: `{"purpose":"metadata","target":"a","preferences":{"includeMetadata":true}}`,
			field: "preferences", rule: "unexpected", msg: "only accepted when purpose is read, not metadata"},
		{name: "encoding with exists", in: `{"purpose":"exists","target":{"path":"a","encoding":"base64"}}`,
			field: "target.encoding", rule: "unexpected", msg: "use purpose read"},
		{name: "lines of base64", in: `{"purpose":"read","target":{"path":"a","encoding":"base64"},"preferences":{"offset":2}}`,
			field: "preferences.offset", rule: "conflict", msg: "target.encoding base64 returns the whole file's bytes"},
		{name: "chunks of base64", in: `{"purpose":"read","target":{"path":"a","encoding":"base64"},"preferences":{"chunkIfLarge":true}}`,
			field: "preferences.chunkIfLarge", rule: "conflict"},

		// Whole arguments.
		{name: "empty input", in: ``, field: "purpose", rule: "required"},
		{name: "blank input", in: " \n", field: "purpose", rule: "required"},
		{name: "null", in: `null`, field: "purpose", rule: "required"},
		{name: "empty object", in: `{}`, field: "purpose", rule: "required"},
		{name: "list", in: `[]`, field: "arguments", rule: "type", msg: "arguments must be a JSON object, got a list"},
		{name: "number", in: `42`, field: "arguments", rule: "type", msg: "got a number"},
		{name: "boolean", in: `true`, field: "arguments", rule: "type"},
		{name: "string that is not an object", in: `"read a.md"`, field: "arguments", rule: "type", msg: "got a string"},
		{name: "truncated JSON", in: `{"purpose":`, field: "arguments", rule: "json"},
		{name: "two values", in: `{}{}`, field: "arguments", rule: "json"},
		{name: "trailing garbage", in: `{"purpose":"read","target":"a"} x`, field: "arguments", rule: "json"},
	})
}

func TestDecodeDiscover(t *testing.T) {
	after := time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC)
	before := time.Date(2025, 2, 1, 12, 30, 0, 0, time.FixedZone("", 2*3600))
	runDecode(t, []decodeCase[Discover]{
		{name: "minimal list", in: `{"purpose":"list"}`, want: Discover{Purpose: "list"}},
		{name: "list root dot", in: `{"purpose":"list","target":{"path":"."}}`, want: Discover{Purpose: "list", Target: DiscoverTarget{Path: "."}}},
		{name: "full", in: `{"purpose":"search_content","target":{"path":"docs","query":"TODO",
			"criteria":{"content":"x","extension":["md","txt"],"name":"*.md",
				"modified":{"after":"2025-01-31T00:00:00Z","before":"2025-02-01T12:30:00+02:00"},"sizeBytes":{"min":1,"max":2048}}},
			"options":{"recursive":true,"maxDepth":3,"maxResults":50,"offset":10,"includeContent":true,
				"regex":true,"caseSensitive":true,"contextLines":2}}`,
			want: Discover{Purpose: "search_content",
				Target: DiscoverTarget{Path: "docs", Query: "TODO", Criteria: &Criteria{Content: "x", Extension: []string{"md", "txt"}, Name: "*.md",
					Modified: &TimeRange{After: &after, Before: &before}, SizeBytes: &SizeRange{Min: ptr[int64](1), Max: ptr[int64](2048)}}},
				Options: DiscoverOptions{Recursive: ptr(true), MaxDepth: 3, MaxResults: 50, Offset: 10, IncludeContent: true,
					Regex: true, CaseSensitive: true, ContextLines: 2}}},
		{name: "semantic with queries", in: `{"purpose":"search_semantic","target":{"query":"rate limits"},"queries":["throttling","quotas"]}`,
			want: Discover{Purpose: "search_semantic", Target: DiscoverTarget{Query: "rate limits"}, Queries: []string{"throttling", "quotas"}}},
		{name: "semantic full", in: `{"purpose":"search_semantic","target":{"query":"q","criteria":{"tags":["a"],"name":"*.md"}},
			"options":{"followRelationships":true,"includeContent":true}}`,
			want: Discover{Purpose: "search_semantic", Target: DiscoverTarget{Query: "q", Criteria: &Criteria{Tags: []string{"a"}, Name: "*.md"}},
				Options: DiscoverOptions{FollowRelationships: true, IncludeContent: true}}},
		{name: "recursive false for search_content", in: `{"purpose":"search_content","target":{"query":"a"},"options":{"recursive":false}}`,
			want: Discover{Purpose: "search_content", Target: DiscoverTarget{Query: "a"}, Options: DiscoverOptions{Recursive: ptr(false)}}},
		{name: "maxDepth for search_content, recursive by default", in: `{"purpose":"search_content","target":{"query":"a"},"options":{"maxDepth":2}}`,
			want: Discover{Purpose: "search_content", Target: DiscoverTarget{Query: "a"}, Options: DiscoverOptions{MaxDepth: 2}}},
		{name: "zero option for a purpose that does not take it", in: `{"purpose":"list","options":{"regex":false,"contextLines":0},"queries":[]}`,
			want: Discover{Purpose: "list", Queries: []string{}}},

		// Forgiven slips.
		{name: "strings at several depths", in: `{"purpose":"list","target":{"criteria":{"sizeBytes":{"min":"10","max":"20"}}},
			"options":{"recursive":"true","maxResults":"10","maxDepth":"2"}}`,
			want: Discover{Purpose: "list", Target: DiscoverTarget{Criteria: &Criteria{SizeBytes: &SizeRange{Min: ptr[int64](10), Max: ptr[int64](20)}}},
				Options: DiscoverOptions{Recursive: ptr(true), MaxResults: 10, MaxDepth: 2}}},
		{name: "single string extension", in: `{"purpose":"list","target":{"criteria":{"extension":"md"}}}`,
			want: Discover{Purpose: "list", Target: DiscoverTarget{Criteria: &Criteria{Extension: []string{"md"}}}}},
		{name: "JSON-encoded extension list", in: `{"purpose":"list","target":{"criteria":{"extension":"[\"md\",\"txt\"]"}}}`,
			want: Discover{Purpose: "list", Target: DiscoverTarget{Criteria: &Criteria{Extension: []string{"md", "txt"}}}}},
		{name: "single string queries", in: `{"purpose":"search_semantic","target":{"query":"a"},"queries":"b"}`,
			want: Discover{Purpose: "search_semantic", Target: DiscoverTarget{Query: "a"}, Queries: []string{"b"}}},
		{name: "top-level query and path", in: `{"purpose":"search_content","path":"src","query":"func main"}`,
			want: Discover{Purpose: "search_content", Target: DiscoverTarget{Path: "src", Query: "func main"}}},
		{name: "top-level query beside target", in: `{"purpose":"search_content","target":{"path":"src"},"query":"x"}`,
			want: Discover{Purpose: "search_content", Target: DiscoverTarget{Path: "src", Query: "x"}}},
		{name: "target as plain string", in: `{"purpose":"list","target":"docs"}`, want: Discover{Purpose: "list", Target: DiscoverTarget{Path: "docs"}}},
		{name: "options as JSON string", in: `{"purpose":"list","options":"{\"recursive\":true,\"maxResults\":\"5\"}"}`,
			want: Discover{Purpose: "list", Options: DiscoverOptions{Recursive: ptr(true), MaxResults: 5}}},
		{name: "criteria as JSON string", in: `{"purpose":"list","target":{"criteria":"{\"name\":\"*.go\"}"}}`,
			want: Discover{Purpose: "list", Target: DiscoverTarget{Criteria: &Criteria{Name: "*.go"}}}},
		{name: "plain date", in: `{"purpose":"list","target":{"criteria":{"modified":{"after":"2025-01-31"}}}}`,
			want: Discover{Purpose: "list", Target: DiscoverTarget{Criteria: &Criteria{Modified: &TimeRange{After: &after}}}}},

		// Strict.
		{name: "search_content without query", in: `{"purpose":"search_content","target":{"path":"src"}}`,
			field: "target.query", rule: "required", msg: "when purpose is search_content"},
		{name: "search_semantic with blank query", in: `{"purpose":"search_semantic","target":{"query":"  \t"}}`,
			field: "target.query", rule: "required"},
		{name: "unknown purpose", in: `{"purpose":"grep"}`, field: "purpose", rule: "oneof", msg: "list, search_content, search_semantic"},
		{name: "unknown option", in: `{"purpose":"list","options":{"depth":2}}`, field: "options.depth", rule: "unknown-field", msg: "maxDepth"},
		{name: "maxDepth for a plain list", in: `{"purpose":"list","options":{"maxDepth":2}}`, field: "options.maxDepth", rule: "conflict",
			msg: "list does not look inside subdirectories unless options.recursive is true: set options.recursive to true, or remove options.maxDepth"},
		{name: "maxDepth with recursive false", in: `{"purpose":"search_semantic","target":{"query":"a"},"options":{"maxDepth":2,"recursive":false}}`,
			field: "options.maxDepth", rule: "conflict", msg: "options.recursive is false"},
		{name: "includeContent with list", in: `{"purpose":"list","options":{"includeContent":true}}`, field: "options.includeContent", rule: "unexpected",
			msg: "options.includeContent is only accepted when purpose is search_content or search_semantic, not list: remove options.includeContent, or use one of those purposes"},
		{name: "followRelationships with search_content", in: `{"purpose":"search_content","target":{"query":"a"},"options":{"followRelationships":true}}`,
			field: "options.followRelationships", rule: "unexpected", msg: "only accepted when purpose is search_semantic, not search_content: remove options.followRelationships, or use purpose search_semantic"},
		{name: "tags with list", in: `{"purpose":"list","target":{"criteria":{"tags":["a"]}}}`, field: "target.criteria.tags", rule: "unexpected", msg: "search_semantic"},
		{name: "content criterion with search_semantic", in: `{"purpose":"search_semantic","target":{"query":"a","criteria":{"content":"b"}}}`,
			field: "target.criteria.content", rule: "unexpected", msg: "list or search_content"},
		{name: "query with list", in: `{"purpose":"list","target":{"query":"a"}}`, field: "target.query", rule: "unexpected", msg: "search_content or search_semantic"},
		{name: "queries with search_content", in: `{"purpose":"search_content","target":{"query":"a"},"queries":["b"]}`, field: "queries", rule: "unexpected"},
		{name: "criteria with relationships", in: `{"purpose":"relationships","target":{"path":"a.md","criteria":{"extension":"md"}}}`,
			field: "target.criteria", rule: "unexpected", msg: "list, search_content or search_semantic, not relationships"},
		{name: "options with relationships", in: `{"purpose":"relationships","target":"a.md","options":{"maxResults":5}}`, field: "options.maxResults", rule: "unexpected"},
		{name: "snake case option", in: `{"purpose":"list","options":{"max_results":2}}`,
			field: "options.max_results", rule: "unknown-field", msg: "did you mean maxResults?"},
		{name: "unknown criterion", in: `{"purpose":"list","target":{"criteria":{"type":"file"}}}`,
			field: "target.criteria.type", rule: "unknown-field", msg: "content, extension, name, modified, size"},
		{name: "number in extension", in: `{"purpose":"list","target":{"criteria":{"extension":[1]}}}`,
			field: "target.criteria.extension[0]", rule: "type"},
		{name: "null in extension", in: `{"purpose":"list","target":{"criteria":{"extension":["md",null]}}}`,
			field: "target.criteria.extension[1]", rule: "type"},
		{name: "object for extension", in: `{"purpose":"list","target":{"criteria":{"extension":{}}}}`,
			field: "target.criteria.extension", rule: "type", msg: "a list"},
		{name: "bad time", in: `{"purpose":"list","target":{"criteria":{"modified":{"before":"yesterday"}}}}`,
			field: "target.criteria.modified.before", rule: "type", msg: "RFC 3339"},
		{name: "a field from before its unit joined its name", in: `{"purpose":"list","target":{"criteria":{"size":{"max":3}}}}`,
			field: "target.criteria.size", rule: "unknown-field", msg: "did you mean sizeBytes?"},
		{name: "negative size", in: `{"purpose":"list","target":{"criteria":{"sizeBytes":{"min":-1}}}}`,
			field: "target.criteria.sizeBytes.min", rule: "min"},
		{name: "word for size", in: `{"purpose":"list","target":{"criteria":{"sizeBytes":{"max":"big"}}}}`,
			field: "target.criteria.sizeBytes.max", rule: "type"},
		{name: "too many results", in: `{"purpose":"list","options":{"maxResults":10001}}`,
			field: "options.maxResults", rule: "max", msg: "at most 10000"},
		{name: "too many context lines", in: `{"purpose":"search_content","target":{"query":"a"},"options":{"contextLines":"11"}}`,
			field: "options.contextLines", rule: "max"},
		{name: "too many queries", in: `{"purpose":"search_semantic","target":{"query":"a"},"queries":["1","2","3","4","5","6","7","8","9"]}`,
			field: "queries", rule: "max", msg: "at most 8 items"},
		{name: "query too long", in: `{"purpose":"search_semantic","target":{"query":"a"},"queries":["` + strings.Repeat("é", 1001) + `"]}`,
			field: "queries[0]", rule: "max", msg: "1000 characters"},
		{name: "too many extensions", in: `{"purpose":"list","target":{"criteria":{"extension":[` + strings.Repeat(`"a",`, 50) + `"b"]}}}`,
			field: "target.criteria.extension", rule: "max"},
		{name: "extension too long", in: `{"purpose":"list","target":{"criteria":{"extension":"` + strings.Repeat("x", 33) + `"}}}`,
			field: "target.criteria.extension[0]", rule: "max"},
		{name: "conflicting top-level query", in: `{"purpose":"search_content","target":{"query":"a"},"query":"b"}`,
			field: "query", rule: "unknown-field"},
		{name: "missing purpose", in: `{"target":{"query":"x"}}`, field: "purpose", rule: "required"},
		{name: "list", in: `[{"purpose":"list"}]`, field: "arguments", rule: "type"},
	})
}

func TestDecodeUpdate(t *testing.T) {
	runDecode(t, []decodeCase[Update]{
		{name: "create", in: `{"purpose":"create","target":{"path":"a.md"},"content":"# A\n"}`,
			want: Update{Purpose: "create", Target: UpdateTarget{Path: "a.md"}, Content: ptr("# A\n")}},
		{name: "create empty content", in: `{"purpose":"create","target":{"path":"a.md"},"content":""}`,
			want: Update{Purpose: "create", Target: UpdateTarget{Path: "a.md"}, Content: ptr("")}},
		{name: "append", in: `{"purpose":"append","target":"log.txt","content":"line\n"}`,
			want: Update{Purpose: "append", Target: UpdateTarget{Path: "log.txt"}, Content: ptr("line\n")}},
		{name: "full update", in: `{"purpose":"update","target":{"path":"a.md"},"content":"x","options":{"atomic":true}}`,
			want: Update{Purpose: "update", Target: UpdateTarget{Path: "a.md"}, Content: ptr("x"), Options: UpdateOptions{Atomic: ptr(true)}}},
		{name: "full move", in: `{"purpose":"move","target":{"path":"a.md","destination":"b/a.md"},
			"options":{"createPath":true,"atomic":true,"preserveRelationships":true,"overwrite":true,"dryRun":true}}`,
			want: Update{Purpose: "move", Target: UpdateTarget{Path: "a.md", Destination: "b/a.md"},
				Options: UpdateOptions{CreatePath: true, Atomic: ptr(true), PreserveRelationships: true, Overwrite: true, DryRun: true}}},
		{name: "delete", in: `{"purpose":"delete","target":{"path":"old"},"options":{"recursive":"true"}}`,
			want: Update{Purpose: "delete", Target: UpdateTarget{Path: "old"}, Options: UpdateOptions{Recursive: true}}},
		{name: "mkdir with top-level path", in: `{"purpose":"mkdir","path":"a/b","options":{"atomic":"true"}}`,
			want: Update{Purpose: "mkdir", Target: UpdateTarget{Path: "a/b"}, Options: UpdateOptions{Atomic: ptr(true)}}},
		{name: "edit", in: `{"purpose":"edit","target":{"path":"a.go"},"edits":[{"oldText":"a","newText":"b"},{"oldText":"c","newText":"","replaceAll":true}],"options":{"dryRun":true}}`,
			want: Update{Purpose: "edit", Target: UpdateTarget{Path: "a.go"},
				Edits: []Edit{{OldText: "a", NewText: "b"}, {OldText: "c", ReplaceAll: true}}, Options: UpdateOptions{DryRun: true}}},
		{name: "edits as JSON string", in: `{"purpose":"edit","target":"a.go","edits":"[{\"oldText\":\"a\",\"newText\":\"b\"}]"}`,
			want: Update{Purpose: "edit", Target: UpdateTarget{Path: "a.go"}, Edits: []Edit{{OldText: "a", NewText: "b"}}}},
		{name: "move", in: `{"purpose":"move","target":{"path":"a","destination":"b"},"options":{"overwrite":true}}`,
			want: Update{Purpose: "move", Target: UpdateTarget{Path: "a", Destination: "b"}, Options: UpdateOptions{Overwrite: true}}},
		{name: "move with top-level destination", in: `{"purpose":"move","target":"a","destination":"b"}`,
			want: Update{Purpose: "move", Target: UpdateTarget{Path: "a", Destination: "b"}}},
		{name: "moves", in: `{"purpose":"move","target":{"moves":[{"path":"a","destination":"b"},{"path":"c","destination":"d/c"}]}}`,
			want: Update{Purpose: "move", Target: UpdateTarget{Moves: []MovePair{{"a", "b"}, {"c", "d/c"}}}}},
		{name: "atomic as string true", in: `{"purpose":"delete","target":"a","options":{"atomic":"true"}}`,
			want: Update{Purpose: "delete", Target: UpdateTarget{Path: "a"}, Options: UpdateOptions{Atomic: ptr(true)}}},
		{name: "empty edits with delete", in: `{"purpose":"delete","target":"a","edits":[]}`,
			want: Update{Purpose: "delete", Target: UpdateTarget{Path: "a"}, Edits: []Edit{}}},

		// Strict.
		{name: "create without content", in: `{"purpose":"create","target":{"path":"a.md"}}`,
			field: "content", rule: "required", msg: "when purpose is create"},
		{name: "update with null content", in: `{"purpose":"update","target":{"path":"a.md"},"content":null}`,
			field: "content", rule: "required"},
		{name: "number for content", in: `{"purpose":"create","target":"a","content":42}`, field: "content", rule: "type"},
		{name: "edit without edits", in: `{"purpose":"edit","target":{"path":"a.go"}}`, field: "edits", rule: "required"},
		{name: "edit with empty edits", in: `{"purpose":"edit","target":{"path":"a.go"},"edits":[]}`, field: "edits", rule: "required"},
		{name: "edit without oldText", in: `{"purpose":"edit","target":"a","edits":[{"oldText":"a"},{"newText":"b"}]}`,
			field: "edits[1].oldText", rule: "required"},
		{name: "unknown edit field", in: `{"purpose":"edit","target":"a","edits":[{"old":"a","new":"b"}]}`,
			field: "edits[0].new", rule: "unknown-field", msg: "oldText, newText, replaceAll"},
		{name: "object for edits", in: `{"purpose":"edit","target":"a","edits":{"oldText":"a"}}`, field: "edits", rule: "type"},
		{name: "too many edits", in: `{"purpose":"edit","target":"a","edits":[` + strings.Repeat(`{"oldText":"a"},`, 100) + `{"oldText":"a"}]}`,
			field: "edits", rule: "max"},
		{name: "edits with create", in: `{"purpose":"create","target":"a","content":"","edits":[{"oldText":"a"}]}`,
			field: "edits", rule: "unexpected", msg: "only accepted when purpose is edit"},
		{name: "dryRun with delete", in: `{"purpose":"delete","target":"a","options":{"dryRun":true}}`,
			field: "options.dryRun", rule: "unexpected", msg: "only accepted when purpose is edit, move or copy, not delete"},
		{name: "createPath with mkdir", in: `{"purpose":"mkdir","target":"a/b","options":{"createPath":true}}`,
			field: "options.createPath", rule: "unexpected", msg: "create, append, move, copy or restore, not mkdir"},
		{name: "content with delete", in: `{"purpose":"delete","target":"a","content":""}`, field: "content", rule: "unexpected"},
		{name: "destination with create", in: `{"purpose":"create","target":{"path":"a","destination":"b"},"content":"x"}`,
			field: "target.destination", rule: "unexpected", msg: "only accepted when purpose is move or copy, not create"},
		{name: "move without destination", in: `{"purpose":"move","target":{"path":"a"}}`,
			field: "target.destination", rule: "required", msg: "when purpose is move"},
		{name: "copy without destination", in: `{"purpose":"copy","target":{"path":"a"}}`,
			field: "target.destination", rule: "required", msg: "when purpose is copy"},
		{name: "moves with destination", in: `{"purpose":"move","target":{"moves":[{"path":"a","destination":"b"}],"destination":"c"}}`,
			field: "target.destination", rule: "conflict", msg: "target.moves names each file and its destination"},
		{name: "moves with path", in: `{"purpose":"move","target":{"path":"x","moves":[{"path":"a","destination":"b"}]}}`,
			field: "target.path", rule: "conflict"},
		{name: "moves with version", in: `{"purpose":"move","target":{"moves":[{"path":"a","destination":"b"}],"version":"0123456789abcdef"}}`,
			field: "target.version", rule: "conflict"},
		{name: "a move without its destination", in: `{"purpose":"move","target":{"moves":[{"path":"a"}]}}`,
			field: "target.moves[0].destination", rule: "required"},
		{name: "moves with copy", in: `{"purpose":"copy","target":{"moves":[{"path":"a","destination":"b"}]}}`,
			field: "target.moves", rule: "unexpected"},
		{name: "backup, gone: the history keeps every change", in: `{"purpose":"update","target":{"path":"a"},"content":"x","options":{"backup":true}}`,
			field: "options.backup", rule: "unknown-field", msg: "createPath, atomic"},
		{name: "atomic false", in: `{"purpose":"delete","target":"a","options":{"atomic":false}}`,
			field: "options.atomic", rule: "atomic-only", msg: "writes are always atomic; omit options.atomic"},
		{name: "unknown purpose", in: `{"purpose":"write","target":"a"}`,
			field: "purpose", rule: "oneof", msg: "create, update, append, delete, edit, move, copy, mkdir"},
		{name: "missing path", in: `{"purpose":"delete","target":{}}`, field: "target.path", rule: "required"},
		{name: "unknown option", in: `{"purpose":"delete","target":"a","options":{"force":true}}`,
			field: "options.force", rule: "unknown-field", msg: "createPath, atomic"},
		{name: "options as list", in: `{"purpose":"delete","target":"a","options":["recursive"]}`, field: "options", rule: "type"},
	})
}

func TestDecodePointer(t *testing.T) {
	got, err := Decode[*Access]([]byte(`{"purpose":"exists","target":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Access{Purpose: "exists", Target: AccessTarget{Path: "a"}}, got); diff != "" {
		t.Errorf("Decode[*Access] mismatch (-want +got):\n%s", diff)
	}
	if _, err := Decode[*Access]([]byte(`{"purpose":"exists"}`)); err == nil {
		t.Error("Decode[*Access] without target: no error")
	}
}

func TestPurposes(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  []string
		want []string
	}{
		{"Access", Purposes[Access](), []string{"read", "metadata", "exists", "history"}},
		{"Discover", Purposes[Discover](), []string{"list", "search_content", "search_semantic", "relationships"}},
		{"Update", Purposes[Update](), []string{"create", "update", "append", "delete", "edit", "move", "copy", "mkdir", "restore"}},
		{"pointer", Purposes[*Access](), []string{"read", "metadata", "exists", "history"}},
		{"no purpose", Purposes[Edit](), nil},
		{"not a struct", Purposes[string](), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("Purposes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDepth(t *testing.T) {
	for _, tc := range []struct {
		purpose   string
		recursive *bool
		maxDepth  int
		want      int
	}{
		{"list", nil, 0, 1},
		{"list", ptr(false), 0, 1},
		{"list", ptr(true), 0, 0},
		{"list", ptr(true), 3, 3},
		{"search_content", nil, 0, 0},
		{"search_content", nil, 2, 2},
		{"search_content", ptr(false), 0, 1},
		{"search_semantic", nil, 0, 0},
		{"search_semantic", ptr(false), 0, 1},
		{"relationships", nil, 0, 1},
	} {
		d := Discover{Purpose: tc.purpose, Options: DiscoverOptions{Recursive: tc.recursive, MaxDepth: tc.maxDepth}}
		if got := d.Depth(); got != tc.want {
			t.Errorf("Depth of %s with recursive %v and maxDepth %d = %d, want %d", tc.purpose, fmtBool(tc.recursive), tc.maxDepth, got, tc.want)
		}
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "unset"
	}
	return strconv.FormatBool(*b)
}

// TestPathsAsReads checks that a read's target.paths, the shorter form the schema leaves out, is
// taken as target.reads of those paths, each with the read's preferences.
func TestPathsAsReads(t *testing.T) {
	for _, in := range []string{
		`{"purpose":"read","target":{"paths":["a.md","b.md"]}}`,
		`{"purpose":"read","target":{"paths":"[\"a.md\",\"b.md\"]"}}`,
		`{"purpose":"read","paths":["a.md","b.md"]}`,
	} {
		got, err := Decode[Access]([]byte(in))
		if err != nil {
			t.Fatalf("Decode(%s): %v", in, err)
		}
		if want := []ReadRange{{Path: "a.md"}, {Path: "b.md"}}; !slices.Equal(got.Target.Reads, want) {
			t.Errorf("Decode(%s).Target.Reads = %+v, want %+v", in, got.Target.Reads, want)
		}
	}
	got, err := Decode[Access]([]byte(`{"purpose":"read","target":{"paths":"a.md"}}`))
	if err != nil || len(got.Target.Reads) != 1 || got.Target.Reads[0].Path != "a.md" {
		t.Errorf("one path as a string: %+v, %v", got.Target, err)
	}
}
