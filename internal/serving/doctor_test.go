package serving

import (
	"testing"
)

func TestAtLeast(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"go1.26.5", true},
		{"go1.26.8", true},
		{"go1.27", true},
		{"go1.27rc1", true},
		{"go1.26.4", false},
		{"go1.26", false},
		{"go1.25.9", false},
		{"go2", true},
		{"devel go1.27-abcdef", true},
	}
	for _, tt := range tests {
		if got := atLeast(tt.v, [3]int{1, 26, 5}); got != tt.want {
			t.Errorf("atLeast(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
