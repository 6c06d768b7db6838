package intents

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzDecode checks that Decode never panics, that every error is a
// *FieldError with a Field and a Rule, and that whatever Decode accepts
// decodes again, re-encoded, to the same value (an empty list
// may come back as nil: omitempty drops it).
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		// Access.
		`{"purpose":"read","target":{"path":"a.md"}}`,
		`{"purpose":"read","target":{"path":"bin/x","encoding":"base64"},"preferences":{"includeMetadata":true,"maxSizeBytes":1024,"chunkIfLarge":true,"offset":5,"limit":20}}`,
		`{"purpose":"read","target":"{\"path\":\"a.md\"}"}`,
		`{"purpose":"metadata","target":"notes/a.md"}`,
		`{"purpose":"exists","path":"a.md"}`,
		`{"purpose":"read","target":"a","preferences":{"limit":"10","includeMetadata":"true","offset":1e2}}`,
		`{"purpose":"read","target":"a","preferences":"{\"limit\":7}"}`,
		`"{\"purpose\":\"read\",\"target\":{\"path\":\"a.md\"}}"`,
		`{"purpose":"write","target":{"path":{"x":1}},"extra":[null]}`,
		// Discover.
		`{"purpose":"list"}`,
		`{"purpose":"list","target":"docs","options":{"recursive":"true","maxResults":"10"}}`,
		`{"purpose":"search_content","path":"src","query":"func main","options":{"regex":true,"contextLines":2}}`,
		`{"purpose":"search_semantic","target":{"query":"rate limits"},"queries":["throttling","quotas"]}`,
		`{"purpose":"list","target":{"criteria":{"extension":"md","sizeBytes":{"min":"10"},"modified":{"after":"2025-01-31"}}}}`,
		`{"purpose":"list","target":{"criteria":"{\"extension\":[\"md\"],\"name\":\"*.md\"}"}}`,
		`{"purpose":"search_content","target":{"query":"  "},"options":{"max_results":3}}`,
		// Update.
		`{"purpose":"create","target":{"path":"a.md"},"content":""}`,
		`{"purpose":"edit","target":"a.go","edits":[{"oldText":"a","newText":"b","replaceAll":true}],"options":{"dryRun":"true"}}`,
		`{"purpose":"edit","target":"a.go","edits":"[{\"oldText\":\"a\"}]"}`,
		`{"purpose":"move","target":"a","destination":"b","options":{"overwrite":true,"atomic":false}}`,
		`{"purpose":"delete","target":"d","edits":[{"oldText":"x"}],"options":{"recursive":"1"}}`,
		`{"purpose":"mkdir","target":{"path":"a/b"},"options":{"createPath":true,"atomic":"true"}}`,
		// Whole arguments.
		``, `null`, `[]`, `42`, `"x"`, `{`, `{}{}`, `{"purpose":"read","target":"a"} x`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fuzzOne[Access](t, raw)
		fuzzOne[Discover](t, raw)
		fuzzOne[Update](t, raw)
	})
}

func fuzzOne[T any](t *testing.T, raw []byte) {
	got, err := Decode[T](raw)
	if err != nil {
		fe, ok := errors.AsType[*FieldError](err)
		if !ok || fe.Field == "" || fe.Rule == "" || fe.Message == "" {
			t.Fatalf("Decode[%T](%q) error %#v is not a complete *FieldError", got, raw, err)
		}
		return
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("Marshal(%+v): %v", got, err)
	}
	again, err := Decode[T](b)
	if err != nil {
		t.Fatalf("Decode[%T](%s) accepted, but its re-encoding %s is refused: %v", got, raw, b, err)
	}
	if diff := cmp.Diff(got, again, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("Decode[%T] of the re-encoding of %s differs (-first +second):\n%s", got, raw, diff)
	}
}
