package main

import (
	"math"
	"testing"
)

// The expected values below were computed by hand; log2(3) = 1.5849625.
func TestNDCG(t *testing.T) {
	tests := []struct {
		name    string
		results []string
		rel     Judgments
		k       int
		want    float64
	}{
		{"ideal order", []string{"a", "c"}, Judgments{"a": 2, "c": 1}, 5, 1},
		// DCG = 3/1 + 0 + 1/2 = 3.5; IDCG = 3 + 1/log2(3) = 3.6309298.
		{"gap at rank 2", []string{"a", "b", "c"}, Judgments{"a": 2, "c": 1}, 5, 0.9639404},
		// DCG = 1/log2(3) = 0.6309298 (grade 0 gains nothing); IDCG = 3.6309298.
		{"best file missing", []string{"x", "c", "y", "a2"}, Judgments{"a": 2, "c": 1, "a2": 0}, 5, 0.1737653},
		// DCG = 1/log2(3) + 3/log2(4) = 2.1309298; IDCG = 3.6309298.
		{"swapped grades", []string{"x", "c", "a"}, Judgments{"a": 2, "c": 1}, 5, (1/1.5849625 + 3.0/2) / (3 + 1/1.5849625)},
		{"nothing relevant", []string{"x", "y"}, Judgments{"a": 2}, 5, 0},
		{"relevant below cut-off", []string{"x1", "x2", "x3", "x4", "x5", "a"}, Judgments{"a": 2}, 5, 0},
		// Duplicates collapse: results are [b a], DCG = 1/log2(3), IDCG = 1.
		{"duplicate result", []string{"b", "b", "a"}, Judgments{"a": 1}, 5, 0.6309298},
		{"ideal truncated at k", []string{"a", "b"}, Judgments{"a": 1, "b": 1, "c": 1}, 2, 1},
		{"no judgments", []string{"a"}, Judgments{}, 5, 0},
		{"no results", nil, Judgments{"a": 2}, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NDCG(tt.results, tt.rel, tt.k); math.Abs(got-tt.want) > 1e-6 {
				t.Errorf("NDCG(%q, %v, %d) = %.7f, want %.7f", tt.results, tt.rel, tt.k, got, tt.want)
			}
		})
	}
}

func TestReciprocalRank(t *testing.T) {
	tests := []struct {
		name    string
		results []string
		rel     Judgments
		want    float64
	}{
		{"first", []string{"a", "x"}, Judgments{"a": 2}, 1},
		{"second", []string{"x", "a"}, Judgments{"a": 2}, 0.5},
		{"grade 1 counts", []string{"x", "y", "b"}, Judgments{"a": 2, "b": 1}, 1.0 / 3},
		{"duplicates do not push it down", []string{"x", "x", "a"}, Judgments{"a": 2}, 0.5},
		{"beyond 10", []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "a"}, Judgments{"a": 2}, 0},
		{"tenth", []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "a"}, Judgments{"a": 2}, 0.1},
		{"none", nil, Judgments{"a": 2}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReciprocalRank(tt.results, tt.rel, 10); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("ReciprocalRank(%q, %v, 10) = %v, want %v", tt.results, tt.rel, got, tt.want)
			}
		})
	}
}

func TestRecall(t *testing.T) {
	tests := []struct {
		name    string
		results []string
		rel     Judgments
		want    float64
	}{
		{"all", []string{"b", "a"}, Judgments{"a": 2, "b": 1}, 1},
		{"two of three", []string{"a", "x", "c"}, Judgments{"a": 2, "b": 1, "c": 1}, 2.0 / 3},
		{"beyond 10", []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "a"}, Judgments{"a": 2, "b": 1}, 0},
		{"duplicates count once", []string{"a", "a"}, Judgments{"a": 2, "b": 1}, 0.5},
		{"no judgments", []string{"a"}, Judgments{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Recall(tt.results, tt.rel, 10); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Recall(%q, %v, 10) = %v, want %v", tt.results, tt.rel, got, tt.want)
			}
		})
	}
}
