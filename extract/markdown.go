package extract

import (
	"context"
	"fmt"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
)

// MaxMarkdownHTML is the largest web page [HTMLMarkdown] converts: the converter parses the whole
// page into a tree, at some tens of bytes a byte, and cannot be stopped once it runs.
const MaxMarkdownHTML = 4 << 20

// converting holds the one conversion that runs at a time: a deadline returns to its caller, but
// the conversion runs on, and must not be joined by others.
var converting = make(chan struct{}, 1)

// HTMLMarkdown gives the web page data as Markdown (headings, lists, links, tables, code): what a
// model reads of a saved page for a fraction of its markup. The page is parsed as browsers do
// (golang.org/x/net/html, which refuses nesting past 512); the text is cut at MaxTextBytes.
func HTMLMarkdown(ctx context.Context, data []byte) (string, error) {
	if len(data) > MaxMarkdownHTML {
		return "", fmt.Errorf("%w: %d MB is more than the %d MB a page is converted from", ErrTooLarge, len(data)>>20, MaxMarkdownHTML>>20)
	}
	select {
	case converting <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	type result struct {
		md  string
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-converting }()
		md, err := htmltomarkdown.ConvertString(string(data))
		done <- result{md, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	select {
	case r := <-done:
		if r.err != nil {
			return "", fmt.Errorf("%w: %v", ErrMalformed, r.err)
		}
		if len(r.md) > MaxTextBytes {
			r.md = strings.ToValidUTF8(r.md[:MaxTextBytes], "") // not a cut rune
		}
		if r.md != "" && !strings.HasSuffix(r.md, "\n") {
			r.md += "\n" // as a text file ends, so its last line counts as one
		}
		return r.md, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
