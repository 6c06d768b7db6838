package extract

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

func TestRender(t *testing.T) {
	pageWord["test"] = "page"
	defer delete(pageWord, "test")
	tests := []struct {
		name  string
		doc   Document
		text  string
		marks []Mark
	}{
		{"paragraphs and headings", Document{Parts: []Part{{Heading: 1, Text: "Lease"}, {Text: "Rent is due."}, {Heading: 2, Text: "Terms"}}},
			"# Lease\n\nRent is due.\n\n## Terms\n", nil},
		{"pages", Document{Parts: []Part{{Page: 1, Text: "one"}, {Page: 1, Text: "more"}, {Page: 3, Text: "three"}}},
			"[page 1]\n\none\n\nmore\n\n[page 3]\n\nthree\n", []Mark{{1, "page 1", 1}, {7, "page 3", 3}}},
		{"sheets", Document{Parts: []Part{{Sheet: "Budget", Row: 1, Text: "Item | Cost"}, {Sheet: "Budget", Row: 3, Text: "Rent | 1200"}, {Sheet: "Notes", Row: 2, Text: "paid"}}},
			"[sheet Budget]\n\n1: Item | Cost\n3: Rent | 1200\n\n[sheet Notes]\n\n2: paid\n", []Mark{{1, "sheet Budget", 1}, {6, "sheet Notes", 2}}},
		{"empty", Document{}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, marks := tt.doc.Render("test")
			if text != tt.text {
				t.Errorf("text = %q, want %q", text, tt.text)
			}
			if len(marks) != len(tt.marks) {
				t.Fatalf("marks = %v, want %v", marks, tt.marks)
			}
			lines := strings.Split(text, "\n")
			for i, m := range marks {
				if m != tt.marks[i] {
					t.Errorf("mark %d = %v, want %v", i, m, tt.marks[i])
				}
				if got := lines[m.Line-1]; got != "["+m.Place+"]" {
					t.Errorf("line %d = %q, want the mark of %s", m.Line, got, m.Place)
				}
			}
		})
	}
}

func TestPlaceOf(t *testing.T) {
	marks := []Mark{{1, "page 1", 1}, {7, "page 3", 3}}
	for line, want := range map[int]string{1: "page 1", 6: "page 1", 7: "page 3", 100: "page 3"} {
		if got := PlaceOf(marks, line); got != want {
			t.Errorf("PlaceOf(%d) = %q, want %q", line, got, want)
		}
	}
	if got := PlaceOf(nil, 3); got != "" {
		t.Errorf("PlaceOf without marks = %q", got)
	}
}

// TestReadCaches extracts the same bytes once, and other bytes anew.
func TestReadCaches(t *testing.T) {
	var calls atomic.Int32
	extractors["counted"] = func(ctx context.Context, data []byte) (*Document, error) {
		calls.Add(1)
		if string(data) == "bad" {
			return nil, ErrMalformed
		}
		return &Document{Parts: []Part{{Text: string(data)}}, Title: "T"}, nil
	}
	defer delete(extractors, "counted")
	for _, in := range []string{"a", "a", "b", "a"} {
		x, err := Read(context.Background(), []byte(in), "counted")
		if err != nil || x.Text != in+"\n" || x.Doc.Title != "T" || x.Doc.Parts != nil {
			t.Fatalf("Read(%q) = %+v, %v", in, x, err)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("extracted %d times, want 2 (a, b)", n)
	}
	for range 2 {
		if _, err := Read(context.Background(), []byte("bad"), "counted"); !errors.Is(err, ErrMalformed) {
			t.Fatalf("err = %v", err)
		}
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("extracted %d times, want 4: a failure is not kept", n)
	}
}

func TestLRUBound(t *testing.T) {
	c := newLRU(10)
	key := func(s string) cacheKey { return cacheKey{ext: s} }
	c.put(key("a"), &Extracted{Text: "aaaa"})
	c.put(key("b"), &Extracted{Text: "bbbb"})
	c.get(key("a")) // a is now the most recent
	c.put(key("c"), &Extracted{Text: "cccc"})
	if c.get(key("b")) != nil || c.get(key("a")) == nil || c.get(key("c")) == nil || c.bytes != 8 {
		t.Errorf("after c: b should be out, a and c in, 8 bytes held; held %d", c.bytes)
	}
	c.put(key("big"), &Extracted{Text: strings.Repeat("x", 11)})
	if c.get(key("big")) != nil || c.bytes != 8 {
		t.Errorf("a text larger than the cache is not kept")
	}
}

func TestTextRefuses(t *testing.T) {
	if _, err := Text(context.Background(), []byte("x"), "nope"); err == nil {
		t.Error("an unknown type extracted")
	}
	extractors["big"] = func(context.Context, []byte) (*Document, error) { return &Document{}, nil }
	defer delete(extractors, "big")
	if _, err := Text(context.Background(), make([]byte, MaxDocumentBytes+1), "big"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}
