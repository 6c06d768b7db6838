package markdown

import "testing"

func TestIsText(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want bool
	}{
		{"empty", "", true},
		{"ascii", "hello\n", true},
		{"utf-8", "café, 東京\n", true},
		{"nul", "a\x00b", false},
		{"latin-1", "caf\xe9\n", false},
		{"utf-16 with bom", "\xff\xfeh\x00i\x00", false},
		{"nul past 8 KiB", string(make([]byte, 9<<10)) + "x", false},
	}
	for _, tc := range tests {
		if got := IsText([]byte(tc.src)); got != tc.want {
			t.Errorf("%s: IsText = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzTextCheck holds TextCheck, fed the content in pieces cut anywhere, to IsText of it whole.
func FuzzTextCheck(f *testing.F) {
	for _, s := range []string{"", "café", "caf\xe9", "東京\x00", "\xe6\x9d", "a\xf0\x9f\x98\x80b"} {
		f.Add([]byte(s), uint8(1), uint8(2))
	}
	f.Fuzz(func(t *testing.T, src []byte, a, b uint8) {
		var c TextCheck
		i, j := min(int(a), len(src)), min(int(a)+int(b), len(src))
		c.Write(src[:i])
		c.Write(src[i:j])
		c.Write(src[j:])
		if got, want := c.Text(), IsText(src); got != want {
			t.Errorf("TextCheck in pieces at %d, %d of %q = %v, IsText = %v", i, j, src, got, want)
		}
	})
}
