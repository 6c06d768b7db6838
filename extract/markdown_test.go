package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestHTMLMarkdown(t *testing.T) {
	page := `<html><head><title>Trip</title><style>p{color:red}</style><script>alert(1)</script></head><body>
<h1>Ferry</h1><p>We booked the <a href="https://ferry.example/">ferry</a> &amp; the <b>hotel</b>.</p>
<ul><li>one</li><li>two</li></ul></body></html>`
	md, err := HTMLMarkdown(context.Background(), []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Ferry", "We booked the [ferry](https://ferry.example/) & the **hotel**.", "- one\n- two"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, not := range []string{"alert", "color:red", "<p>"} {
		if strings.Contains(md, not) {
			t.Errorf("markdown holds %q:\n%s", not, md)
		}
	}
	if _, err := HTMLMarkdown(context.Background(), make([]byte, MaxMarkdownHTML+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a page past the limit: %v, want ErrTooLarge", err)
	}
	deep := strings.Repeat("<div>", 100_000) + "x"
	if _, err := HTMLMarkdown(context.Background(), []byte(deep)); err != nil && !errors.Is(err, ErrMalformed) {
		t.Errorf("a page nested 100,000 deep: %v", err)
	}
}
