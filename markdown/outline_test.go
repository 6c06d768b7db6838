package markdown

import (
	"reflect"
	"testing"
	"time"
)

func TestOutlineRoundTrip(t *testing.T) {
	mod := time.Unix(1700000000, 123456789)
	for _, tc := range []struct{ name, src string }{
		{"note.md", "---\ntitle: A note\naliases: [one, two]\ntags: [x]\nparent: \"[[Up]]\"\n---\n# Head\nSee [[Other|shown]] and [b](b.md#part) and https://example.org.\n## Sub ñ\ntext #inline\n"},
		{"plain.txt", "just text, no structure\n"},
		{"empty.md", ""},
		{"dir/only-url.md", "# T\n<https://example.org>\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse(tc.name, []byte(tc.src), mod)
			d.Size = int64(len(tc.src))
			got, err := DecodeOutline(EncodeOutline(d))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			want := d
			want.Sections, want.Links = nil, nil
			for _, l := range d.Links {
				if !external(l) {
					want.Links = append(want.Links, l)
				}
			}
			if !got.ModTime.Equal(want.ModTime) {
				t.Errorf("ModTime = %v, want %v", got.ModTime, want.ModTime)
			}
			got.ModTime = want.ModTime
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decode(encode(d)) =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// Every prefix of a valid outline, and the outline with one byte more, is refused without a panic.
func TestOutlineMalformed(t *testing.T) {
	d := Parse("a.md", []byte("---\naliases: [x]\n---\n# H\n[[B]] [c](c.md)\n"), time.Unix(1, 0))
	enc := EncodeOutline(d)
	for n := range len(enc) {
		if _, err := DecodeOutline(enc[:n]); err == nil {
			t.Errorf("a prefix of %d of %d bytes decoded", n, len(enc))
		}
	}
	for _, s := range []string{enc + "x", "\x02" + enc[1:], "\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"} {
		if _, err := DecodeOutline(s); err == nil {
			t.Errorf("DecodeOutline(%q) succeeded", s)
		}
	}
}

// FuzzDecodeOutline checks that no input makes the decoder panic or allocate beyond its input.
func FuzzDecodeOutline(f *testing.F) {
	f.Add(EncodeOutline(Parse("a.md", []byte("# H\n[[B|b]] #t\n"), time.Unix(5, 0))))
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := DecodeOutline(s)
		if err != nil {
			return
		}
		// A decoded outline encodes again into one that decodes (varints need not be minimal, so
		// the bytes may differ).
		again, err := DecodeOutline(EncodeOutline(d))
		if err != nil || again.Path != d.Path || again.Title != d.Title || len(again.Headings) != len(d.Headings) {
			t.Errorf("a decoded outline does not survive encoding again: %v", err)
		}
	})
}
