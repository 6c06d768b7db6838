package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/packfs/packfs-mcp/markdown"
)

// textCases are contents whose judgement depends on where a piece ends: characters of every
// length cut at every byte, invalid and truncated sequences, NUL bytes, and line endings.
var textCases = []string{
	"",
	"a",
	"plain ascii\n",
	"no final newline",
	"\n\n\n",
	"crlf\r\nlines\r\n",
	"é and ü, ñ\n",   // 2-byte characters
	"€ — “quotes”\n", // 3-byte characters
	"😀 🎉 and 𝄞\n",    // 4-byte characters
	"\uFFFD is a valid character",
	"mixed é€😀 at the end 😀",
	"\xe2\x82",            // a cut-off character at the end
	"\xe2\x82x",           // a broken one in the middle
	"\xff\xfe h\x00e\x00", // UTF-16 with a byte-order mark
	"nul \x00 inside",
	"\x80 stray continuation",
	"overlong \xc0\xaf",
	"surrogate \xed\xa0\x80",
	strings.Repeat("é", 300) + "\xe2", // cut off after the sniffed head
	strings.Repeat("line\n", 200) + "😀",
}

// scanPieces feeds data to a Scan in pieces of the given size.
func scanPieces(data []byte, size int) *Scan {
	var t Scan
	for len(data) > 0 {
		n := min(size, len(data))
		t.Add(data[:n])
		data = data[n:]
	}
	return &t
}

// TestTextScan checks that judging content piece by piece, whatever the pieces, says what judging
// it whole says: text or not, its lines, and the head its media type is sniffed from.
func TestTextScan(t *testing.T) {
	for _, c := range textCases {
		data := []byte(c)
		wantText := markdown.IsText(data)
		wantLines := len(SplitLines(c))
		wantHead := data[:min(len(data), SniffLen)]
		for _, size := range []int{1, 2, 3, 4, 5, 7, 64, 1 << 16} {
			got := scanPieces(data, size)
			if got.Text() != wantText || (wantText && got.Lines() != wantLines) || !bytes.Equal(got.head, wantHead) {
				t.Errorf("%q in pieces of %d: text %v, lines %d, head %d bytes; want %v, %d, %d bytes",
					c, size, got.Text(), got.Lines(), len(got.head), wantText, wantLines, len(wantHead))
			}
		}
	}
}

// FuzzTextScan holds Scan to markdown.IsText and SplitLines on any content, cut anywhere.
func FuzzTextScan(f *testing.F) {
	for _, c := range textCases {
		f.Add([]byte(c), uint8(1))
		f.Add([]byte(c), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		got := scanPieces(data, int(size)%9+1)
		if want := markdown.IsText(data); got.Text() != want {
			t.Fatalf("%q: text %v, want %v", data, got.Text(), want)
		}
		if got.Text() && got.Lines() != len(SplitLines(string(data))) {
			t.Fatalf("%q: lines %d, want %d", data, got.Lines(), len(SplitLines(string(data))))
		}
	})
}
