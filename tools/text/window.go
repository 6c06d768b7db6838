package text

import (
	"fmt"

	"github.com/packfs/packfs-mcp/intents"
	"github.com/packfs/packfs-mcp/tools/result"
)

// Window cuts the lines the caller asked for out of the text data, at most budget bytes of them,
// but at least one line when first. It walks the line ends in place and copies only the lines it
// returns.
func Window(out *result.FileContent, data []byte, p intents.AccessPreferences, budget int, first bool) {
	total := LineCount(data)
	out.TotalLines = ptr(total)
	start := min(p.Offset, total)
	end := total
	if p.Limit > 0 {
		end = min(start+p.Limit, total)
	}
	from := 0
	for range start {
		from += LineLen(data[from:])
	}
	to, i := from, start
	for ; i < end; i++ {
		next := to + LineLen(data[to:])
		if next-from > budget && (i > start || !first) {
			break
		}
		to = next
	}
	content := string(data[from:to])
	out.Content = &content
	if start > 0 || p.Limit > 0 || i < end {
		out.Offset = ptr(start)
	}
	if i < end {
		out.Truncated = true
		out.NextOffset = ptr(i)
	} else if end < total {
		out.NextOffset = ptr(end)
	}
}

// Size says n bytes as a model reads a limit: in MiB or KiB when it is a whole number of them.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func ptr[T any](v T) *T { return &v }
