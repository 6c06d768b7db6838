package intents

import "strings"

// Nearest returns the candidate closest to word, a likely meant name for a mistyped one: within a
// few edits (a third of the word, at least two), or the only candidate that contains word or that
// word contains. It returns "" when none is close.
func Nearest(word string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := editDistance(word, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= max(2, len(word)/3) {
		return best
	}
	var contains []string
	for _, c := range candidates {
		if len(word) >= 4 && (strings.Contains(c, word) || strings.Contains(word, c)) {
			contains = append(contains, c)
		}
	}
	if len(contains) == 1 {
		return contains[0]
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
