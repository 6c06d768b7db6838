package fsroot

import "testing"

func TestWithin(t *testing.T) {
	tests := []struct {
		name, dir string
		want      bool
	}{
		{"a/b.md", "a", true},
		{"a", "a", true},
		{"a/b/c", "a/b", true},
		{"ab", "a", false}, // a whole component, not a prefix of one
		{"a/bc", "a/b", false},
		{"a", "a/b", false},
		{"a", ".", true}, // the root holds every name
		{".", ".", true},
		{"", ".", false}, // an empty name names nothing
		{"", "a", false},
		{"A/b", "a", false}, // names are compared as spelled
	}
	for _, tt := range tests {
		if got := Within(tt.name, tt.dir); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.name, tt.dir, got, tt.want)
		}
	}
}
