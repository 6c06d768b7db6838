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
