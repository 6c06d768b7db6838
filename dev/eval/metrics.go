package main

import "math"

// Judgments maps a root-relative path to its graded relevance for one query:
// 2 for the page that answers it, 1 for a page that helps. Paths not in the
// map have relevance 0.
type Judgments map[string]int

// NDCG returns the normalised discounted cumulative gain of the first k
// results: each result at 1-based rank i gains (2^rel - 1) / log2(i + 1), and
// the sum is divided by the same sum for the ideal ordering of the judged set.
// It returns 0 when no judged file is relevant.
func NDCG(results []string, rel Judgments, k int) float64 {
	var dcg float64
	for i, p := range top(results, k) {
		dcg += gain(rel[p]) / math.Log2(float64(i+2))
	}
	grades := make([]int, 0, len(rel))
	for _, g := range rel {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	// Sort descending; the judged sets are small, so insertion sort will do.
	for i := 1; i < len(grades); i++ {
		for j := i; j > 0 && grades[j] > grades[j-1]; j-- {
			grades[j], grades[j-1] = grades[j-1], grades[j]
		}
	}
	var idcg float64
	for i, g := range grades {
		if i == k {
			break
		}
		idcg += gain(g) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// ReciprocalRank returns 1/r for the 1-based rank r of the first result among
// the first k with relevance >= 1, or 0 when there is none.
func ReciprocalRank(results []string, rel Judgments, k int) float64 {
	for i, p := range top(results, k) {
		if rel[p] >= 1 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Recall returns the fraction of the judged-relevant files (relevance >= 1)
// found among the first k results, or 0 when no judged file is relevant.
func Recall(results []string, rel Judgments, k int) float64 {
	var relevant, found int
	for _, g := range rel {
		if g >= 1 {
			relevant++
		}
	}
	if relevant == 0 {
		return 0
	}
	for _, p := range top(results, k) {
		if rel[p] >= 1 {
			found++
		}
	}
	return float64(found) / float64(relevant)
}

// gain is the graded gain 2^rel - 1 of a result; negative grades gain nothing.
func gain(rel int) float64 {
	if rel <= 0 {
		return 0
	}
	return math.Exp2(float64(rel)) - 1
}

// top returns the first k distinct results, so that a ranker that returns a
// path twice (one hit per section, say) is not credited twice.
func top(results []string, k int) []string {
	seen := make(map[string]bool, k)
	out := make([]string, 0, k)
	for _, p := range results {
		if len(out) == k {
			break
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
