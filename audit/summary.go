package audit

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
)

// DefaultTop is how many of the slowest calls a summary lists when asked for zero.
const DefaultTop = 5

// Summary is what a journal holds, in aggregate.
type Summary struct {
	// Calls counts the records read; Malformed the lines that were not records (a partial last
	// line after a crash, or text that is not a journal's).
	Calls     int `json:"calls"`
	Malformed int `json:"malformed"`
	// OK, Failed and Denied count the calls in each final state.
	OK     int `json:"ok"`
	Failed int `json:"failed"`
	Denied int `json:"denied"`
	// First and Last are the times of the earliest and latest calls.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// ByTool counts calls per tool and purpose, most called first.
	ByTool []ToolStats `json:"byTool"`
	// Denials and Failures count denied and failed calls per code, most frequent first.
	Denials  []CodeStats `json:"denials"`
	Failures []CodeStats `json:"errors"`
	// Slowest are the slowest calls, slowest first.
	Slowest []SlowCall `json:"slowest"`
}

// ToolStats counts the calls of one tool and purpose.
type ToolStats struct {
	Tool    string `json:"tool"`
	Purpose string `json:"purpose"`
	Calls   int    `json:"calls"`
	OK      int    `json:"ok"`
	Errors  int    `json:"errors"`
	Denied  int    `json:"denied"`
	// MaxMs is the longest of these calls, in milliseconds.
	MaxMs float64 `json:"maxMs"`
}

// CodeStats counts the failed or denied calls with one code, with the first one as an example.
type CodeStats struct {
	Code  string `json:"code"`
	Count int    `json:"count"`
	// Tool, Purpose, Path and Reason describe the first such call (Path the first non-empty one).
	Tool    string `json:"tool"`
	Purpose string `json:"purpose,omitempty"`
	Path    string `json:"path,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// SlowCall is one call among the slowest.
type SlowCall struct {
	Time       time.Time `json:"time"`
	DurationMs float64   `json:"durationMs"`
	Tool       string    `json:"tool"`
	Purpose    string    `json:"purpose,omitempty"`
	Path       string    `json:"path,omitempty"`
	State      string    `json:"state"`
	Code       string    `json:"code,omitempty"`
	ToolCallID string    `json:"toolCallId"`
}

// Summarize reads a journal and sums it up, keeping the top slowest calls (if top <= 0,
// [DefaultTop]). Lines that are not records are counted in Malformed, not fatal; only a read error
// is.
func Summarize(r io.Reader, top int) (Summary, error) {
	if top <= 0 {
		top = DefaultTop
	}
	var s Summary
	tools := map[[2]string]*ToolStats{}
	denials := map[string]*CodeStats{}
	failures := map[string]*CodeStats{}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if rec, ok := parseLine(line); ok {
				s.add(rec, tools, denials, failures, top)
			} else {
				s.Malformed++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s, fmt.Errorf("reading the journal: %w", err)
		}
	}
	for _, t := range tools {
		s.ByTool = append(s.ByTool, *t)
	}
	slices.SortFunc(s.ByTool, func(a, b ToolStats) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Tool, b.Tool), cmp.Compare(a.Purpose, b.Purpose))
	})
	s.Denials = sortCodes(denials)
	s.Failures = sortCodes(failures)
	if s.ByTool == nil {
		s.ByTool = []ToolStats{}
	}
	if s.Slowest == nil {
		s.Slowest = []SlowCall{}
	}
	return s, nil
}

// parseLine decodes one journal line, accepting only records that pass [Check].
func parseLine(line []byte) (Record, bool) {
	var rec Record
	if Check(line) != nil || json.Unmarshal(line, &rec) != nil {
		return rec, false
	}
	return rec, true
}

func (s *Summary) add(rec Record, tools map[[2]string]*ToolStats, denials, failures map[string]*CodeStats, top int) {
	p, md := rec.Part(), rec.Metadata
	s.Calls++
	if !md.Time.IsZero() {
		if s.First.IsZero() || md.Time.Before(s.First) {
			s.First = md.Time
		}
		if md.Time.After(s.Last) {
			s.Last = md.Time
		}
	}
	key := [2]string{p.ToolName, md.Purpose}
	t := tools[key]
	if t == nil {
		t = &ToolStats{Tool: p.ToolName, Purpose: md.Purpose}
		tools[key] = t
	}
	t.Calls++
	t.MaxMs = max(t.MaxMs, md.DurationMs)
	switch p.State {
	case StateOutput:
		s.OK++
		t.OK++
	case StateDenied:
		s.Denied++
		t.Denied++
		count(denials, rec)
	default:
		s.Failed++
		t.Errors++
		count(failures, rec)
	}
	slow := SlowCall{Time: md.Time, DurationMs: md.DurationMs, Tool: p.ToolName, Purpose: md.Purpose,
		Path: md.Path, State: p.State, Code: md.Code, ToolCallID: p.ToolCallID}
	i, _ := slices.BinarySearchFunc(s.Slowest, slow, func(a, b SlowCall) int { return cmp.Compare(b.DurationMs, a.DurationMs) })
	// Among equal durations the earlier call stays ahead.
	for i < len(s.Slowest) && s.Slowest[i].DurationMs == slow.DurationMs {
		i++
	}
	if i < top {
		s.Slowest = slices.Insert(s.Slowest, i, slow)
		if len(s.Slowest) > top {
			s.Slowest = s.Slowest[:top]
		}
	}
}

func count(m map[string]*CodeStats, rec Record) {
	p, md := rec.Part(), rec.Metadata
	c := m[md.Code]
	if c == nil {
		c = &CodeStats{Code: md.Code, Tool: p.ToolName, Purpose: md.Purpose, Reason: p.Reason()}
		m[md.Code] = c
	}
	c.Count++
	if c.Path == "" {
		c.Path = md.Path
	}
}

func sortCodes(m map[string]*CodeStats) []CodeStats {
	out := []CodeStats{}
	for _, c := range m {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b CodeStats) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Code, b.Code))
	})
	return out
}

// textCell bounds a free-text column of the text summary.
const textCell = 60

// WriteText writes s for people: totals, then tables of calls by tool and purpose, denials,
// errors and the slowest calls. name labels the journal.
func (s Summary) WriteText(w io.Writer, name string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s: %s", name, plural(s.Calls, "call"))
	if s.Calls > 0 {
		fmt.Fprintf(tw, " from %s to %s", s.First.Format(time.RFC3339), s.Last.Format(time.RFC3339))
	}
	fmt.Fprintf(tw, ": %d answered, %s, %d denied\n", s.OK, plural(s.Failed, "error"), s.Denied)
	if s.Malformed > 0 {
		fmt.Fprintf(tw, "skipped %s that %s not a journal record (a crash can leave a partial last line)\n",
			plural(s.Malformed, "line"), map[bool]string{true: "is", false: "are"}[s.Malformed == 1])
	}
	if len(s.ByTool) > 0 {
		fmt.Fprint(tw, "\nCalls by tool and purpose\n  TOOL\tPURPOSE\tCALLS\tOK\tERRORS\tDENIED\tSLOWEST\n")
		for _, t := range s.ByTool {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%s\n", cell(t.Tool), cell(t.Purpose), t.Calls, t.OK, t.Errors, t.Denied, ms(t.MaxMs))
		}
	}
	codes := func(title string, list []CodeStats) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(tw, "\n%s\n  CODE\tCOUNT\tEXAMPLE PATH\tREASON\n", title)
		for _, c := range list {
			code := c.Code
			if code == "" {
				code = "(no code)"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\n", cell(code), c.Count, cell(c.Path), cell(c.Reason))
		}
	}
	codes("Denials (refused by policy, permission or rate limit)", s.Denials)
	codes("Errors", s.Failures)
	if len(s.Slowest) > 0 {
		fmt.Fprint(tw, "\nSlowest calls\n  DURATION\tTOOL\tPURPOSE\tPATH\tRESULT\tTIME\n")
		for _, c := range s.Slowest {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", ms(c.DurationMs), cell(c.Tool), cell(c.Purpose), cell(c.Path), result(c), c.Time.Format(time.RFC3339))
		}
	}
	return tw.Flush()
}

// cell makes s safe and short for a table column: quoted if it holds control characters (which
// would break the columns or the terminal), "-" if empty, and cut to textCell characters.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	if r := []rune(s); len(r) > textCell {
		s = string(r[:textCell-1]) + "…"
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// result says how a call ended in a word and its code: ok, error NOT_FOUND, denied PATH_BLOCKED.
func result(c SlowCall) string {
	word := "error"
	switch c.State {
	case StateOutput:
		return "ok"
	case StateDenied:
		word = "denied"
	}
	if c.Code == "" {
		return word
	}
	return word + " " + cell(c.Code)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// ms writes a duration in milliseconds the way time.Duration does, to the microsecond: 190µs,
// 1.5ms, 2.1s.
func ms(v float64) string {
	return time.Duration(v * float64(time.Millisecond)).Round(time.Microsecond).String()
}
