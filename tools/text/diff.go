package text

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines surround each hunk, as in diff -u.
const diffContext = 3

// maxDiffCells bounds the line-matching table of a diff (lines of old times lines of new, after the
// common head and tail are set aside); past it the changed middle is shown as removed then added.
const maxDiffCells = 4_000_000

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// Diff returns the unified diff that turns before into after, or "" when they are equal.
func Diff(name, before, after string) string {
	if before == after {
		return ""
	}
	ops := diffLines(SplitLines(before), SplitLines(after))
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	aAt, bAt := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		aAt[i+1], bAt[i+1] = aAt[i], bAt[i]
		if op.kind != '+' {
			aAt[i+1]++
		}
		if op.kind != '-' {
			bAt[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start, end := max(0, i-diffContext), i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*diffContext {
				break
			}
		}
		end = min(len(ops), end+diffContext)
		writeHunk(&b, ops[start:end], aAt[start], bAt[start], aAt[end]-aAt[start], bAt[end]-bAt[start])
		i = end
	}
	return b.String()
}

func writeHunk(b *strings.Builder, ops []diffOp, a0, b0, an, bn int) {
	if an > 0 {
		a0++
	}
	if bn > 0 {
		b0++
	}
	fmt.Fprintf(b, "@@ -%d,%d +%d,%d @@\n", a0, an, b0, bn)
	for _, op := range ops {
		b.WriteByte(op.kind)
		b.WriteString(op.line)
		if !strings.HasSuffix(op.line, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// diffLines matches the lines of a and b: the common head and tail directly, the middle by longest
// common subsequence when it is small enough.
func diffLines(a, b []string) []diffOp {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var ops []diffOp
	for _, l := range a[:head] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, diffMiddle(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

func diffMiddle(a, b []string) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > maxDiffCells {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}
