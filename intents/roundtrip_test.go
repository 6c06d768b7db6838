package intents

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRoundTrip checks that a decoded intent encodes to arguments that decode to the same intent:
// the tools over several roots decode a call, change its paths, and hand it on encoded.
func TestRoundTrip(t *testing.T) {
	calls := []string{
		`{"purpose":"list","target":{"path":"a"},"options":{"recursive":true,"maxDepth":2}}`,
		`{"purpose":"search_semantic","target":{"query":"x","criteria":{"tags":["a"]}},"queries":["y"]}`,
		`{"purpose":"relationships","target":{"paths":["a.md","b.md"]},"options":{"offset":1}}`,
		`{"purpose":"search_content","target":{"path":"a","query":"x"},"options":{"contextLines":2,"filesOnly":true}}`,
		`{"purpose":"list","path":"a"}`,
	}
	for _, c := range calls {
		in, err := Decode[Discover]([]byte(c))
		if err != nil {
			t.Fatal(c, err)
		}
		b, _ := json.Marshal(in)
		in2, err := Decode[Discover](b)
		if err != nil {
			t.Fatalf("%s -> %s: %v", c, b, err)
		}
		if !reflect.DeepEqual(in, in2) {
			t.Errorf("%s: %+v != %+v", c, in, in2)
		}
	}
	ups := []string{
		`{"purpose":"edit","target":{"path":"a.md","version":"0123456789abcdef"},"edits":[{"oldText":"a","newText":"b","path":"c.md"}],"options":{"dryRun":true}}`,
		`{"purpose":"copy","target":{"path":"a","destination":"b"},"options":{"recursive":true,"overwrite":true,"createPath":true}}`,
		`{"purpose":"create","target":{"path":"a.md"},"content":""}`,
		`{"purpose":"move","target":{"path":"a.md","destination":"b.md"},"options":{"preserveRelationships":true,"linkText":"target"}}`,
	}
	for _, c := range ups {
		in, err := Decode[Update]([]byte(c))
		if err != nil {
			t.Fatal(c, err)
		}
		b, _ := json.Marshal(in)
		in2, err := Decode[Update](b)
		if err != nil {
			t.Fatalf("%s -> %s: %v", c, b, err)
		}
		if !reflect.DeepEqual(in, in2) {
			t.Errorf("%s: %+v != %+v", c, in, in2)
		}
	}
	acc := []string{
		`{"purpose":"read","target":{"paths":["a.md","b.md"]},"preferences":{"offset":3,"limit":2}}`,
		`{"purpose":"exists","target":{"path":"a.md"}}`,
		`{"purpose":"read","target":{"path":"a.md","encoding":"base64"}}`,
	}
	for _, c := range acc {
		in, err := Decode[Access]([]byte(c))
		if err != nil {
			t.Fatal(c, err)
		}
		b, _ := json.Marshal(in)
		in2, err := Decode[Access](b)
		if err != nil {
			t.Fatalf("%s -> %s: %v", c, b, err)
		}
		if !reflect.DeepEqual(in, in2) {
			t.Errorf("%s: %+v != %+v", c, in, in2)
		}
	}
}
