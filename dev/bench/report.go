package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// measure names one quantity measured on every server that can do it.
type measure string

const (
	mStart         measure = "start → initialize"
	mStartCPU      measure = "CPU time to initialize"
	mToolsList     measure = "tools/list"
	mRead4KP50     measure = "read 4 KB, p50"
	mRead4KP95     measure = "read 4 KB, p95"
	mRead1MP50     measure = "read 1 MB, p50"
	mRead1MP95     measure = "read 1 MB, p95"
	mList1000      measure = "list a 1,000-entry folder"
	mTree          measure = "recursive list of tldr"
	mContentRare   measure = "content search, rare word"
	mContentCommon measure = "content search, common word"
	mContentPhrase measure = "content search, phrase"
	mSemanticP50   measure = "semantic search, p50"
	mSemanticP95   measure = "semantic search, p95"
	mRSS           measure = "peak RSS"
)

func opMeasure(o op, query string) measure {
	switch o {
	case opList:
		return mList1000
	case opTree:
		return mTree
	case opContent:
		switch query {
		case rareWord:
			return mContentRare
		case commonWord:
			return mContentCommon
		}
		return mContentPhrase
	}
	return ""
}

// results holds one value per measure, server and repetition; NaN where nothing was recorded.
type results struct {
	runs int
	v    map[measure]map[string][]float64
}

func newResults() *results { return &results{v: map[measure]map[string][]float64{}} }

func (r *results) add(m measure, srv string, rep int, v float64) {
	if r.v[m] == nil {
		r.v[m] = map[string][]float64{}
	}
	s := r.v[m][srv]
	for len(s) <= rep {
		s = append(s, math.NaN())
	}
	s[rep] = v
	r.v[m][srv] = s
	r.runs = max(r.runs, rep+1)
}

// values returns the recorded values of a measure on a server, NaNs dropped.
func (r *results) values(m measure, srv string) []float64 {
	var out []float64
	for _, v := range r.v[m][srv] {
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// ratios returns ours/peer for each repetition where both were recorded.
func (r *results) ratios(m measure, ours, peer string) []float64 {
	a, b := r.v[m][ours], r.v[m][peer]
	var out []float64
	for i := 0; i < min(len(a), len(b)); i++ {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) && b[i] > 0 {
			out = append(out, a[i]/b[i])
		}
	}
	return out
}

type summary struct{ med, lo, hi float64 }

func summarize(v []float64) (summary, bool) {
	if len(v) == 0 {
		return summary{}, false
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return summary{med, s[0], s[len(s)-1]}, true
}

// row is one line of the table: a measure, and which of our two configurations it shows.
type row struct {
	label string
	m     measure
	ours  string
	unit  string
}

var rows = []row{
	{"start → answered initialize", mStart, "ours", "ms"},
	{"start → answered initialize, ours `--no-index`", mStart, "ours --no-index", "ms"},
	{"CPU time from start to answered initialize (all threads)", mStartCPU, "ours", "ms"},
	{"CPU time from start to answered initialize, ours `--no-index`", mStartCPU, "ours --no-index", "ms"},
	{"tools/list", mToolsList, "ours", "ms"},
	{"read 4 KB, p50", mRead4KP50, "ours", "ms"},
	{"read 4 KB, p95", mRead4KP95, "ours", "ms"},
	{"read 1 MB, p50", mRead1MP50, "ours", "ms"},
	{"read 1 MB, p95", mRead1MP95, "ours", "ms"},
	{"list a 1,000-entry folder", mList1000, "ours", "ms"},
	{"recursive list of tldr", mTree, "ours", "ms"},
	{"content search, rare word `" + rareWord + "`", mContentRare, "ours", "ms"},
	{"content search, common word `" + commonWord + "`", mContentCommon, "ours", "ms"},
	{"content search, phrase `" + phrase + "`", mContentPhrase, "ours", "ms"},
	{"content search, rare word, ours `--no-index`", mContentRare, "ours --no-index", "ms"},
	{"content search, common word, ours `--no-index`", mContentCommon, "ours --no-index", "ms"},
	{"content search, phrase, ours `--no-index`", mContentPhrase, "ours --no-index", "ms"},
	{"semantic search, p50 (71 queries)", mSemanticP50, "ours", "ms"},
	{"semantic search, p95 (71 queries)", mSemanticP95, "ours", "ms"},
	{"peak RSS (VmHWM), ours with the index", mRSS, "ours", "MB"},
	{"peak RSS (VmHWM), ours `--no-index`", mRSS, "ours --no-index", "MB"},
}

// target is a goal from the issue: ours/peer at most max on a measure.
type target struct {
	label    string
	m        measure
	ours     string
	peer     string
	maxRatio float64
}

var targets = []target{
	{"start ≤ 1.0x mark3labs", mStart, "ours", "mark3labs", 1.0},
	{"start ≤ 0.05x official", mStart, "ours", "official", 0.05},
	{"start, ours `--no-index`, ≤ 1.0x mark3labs", mStart, "ours --no-index", "mark3labs", 1.0},
	{"start, ours `--no-index`, ≤ 0.05x official", mStart, "ours --no-index", "official", 0.05},
	{"read 4 KB p50 ≤ 1.0x mark3labs", mRead4KP50, "ours", "mark3labs", 1.0},
	{"read 1 MB p50 ≤ 1.0x mark3labs", mRead1MP50, "ours", "mark3labs", 1.0},
	{"content rare ≤ 0.2x mark3labs", mContentRare, "ours", "mark3labs", 0.2},
	{"content common ≤ 0.2x mark3labs", mContentCommon, "ours", "mark3labs", 0.2},
	{"content phrase ≤ 0.2x mark3labs", mContentPhrase, "ours", "mark3labs", 0.2},
	{"content rare ≤ 1.0x ripgrep", mContentRare, "ours", "ripgrep", 1.0},
	{"content common ≤ 1.0x ripgrep", mContentCommon, "ours", "ripgrep", 1.0},
	{"content phrase ≤ 1.0x ripgrep", mContentPhrase, "ours", "ripgrep", 1.0},
	{"peak RSS `--no-index` ≤ 2x mark3labs", mRSS, "ours --no-index", "mark3labs", 2.0},
}

func (b *bench) report(skipped []string) string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }

	p("# packfs-mcp against its peers\n\n")
	p("- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	p("- machine: %d CPUs (nproc), %s, Linux %s, load average %s\n", runtime.NumCPU(), cpuModel(), kernel(), loadAvg())
	p("- command: `%s`\n", commandLine())
	warm := ""
	if b.cfg.warmup {
		warm = " (after one unrecorded warm-up)"
	}
	p("- %d repetitions%s, %d reads of each file per server and repetition; protocol %s asked of every server\n",
		b.res.runs, warm, b.cfg.reads, protocolVersion)
	var peers []string
	for _, s := range b.servers {
		v := b.proto[s.name]
		if v != protocolVersion {
			v += ", its newest"
		}
		peers = append(peers, fmt.Sprintf("%s `%s` (agreed %s)", s.name, strings.Join(append([]string{shortPath(s.command)}, shortArgs(s.args)...), " "), v))
	}
	if b.rg != "" {
		peers = append(peers, fmt.Sprintf("ripgrep `%s -F -n --no-heading LITERAL tldr`", b.rg))
	}
	p("- servers: %s\n", strings.Join(peers, "; "))
	for _, s := range skipped {
		p("- skipped: %s\n", s)
	}
	p("\nThe machine is shared and noisy, so each repetition starts every server afresh and runs each measure on ours, then on each peer, in turn (reads alternate call by call). A ratio is the median of the per-repetition ratios ours/peer, so both sides of each pair saw the same load; absolute times move with the load, the ratios much less. Cells are median (min–max) over the repetitions.\n\n")

	cols := []string{}
	for _, s := range b.servers {
		if !strings.HasPrefix(s.name, "ours") {
			cols = append(cols, s.name)
		}
	}
	if b.rg != "" {
		cols = append(cols, "ripgrep")
	}
	p("| measure | ours |")
	for _, c := range cols {
		p(" %s | ours/%s |", c, c)
	}
	p("\n| --- | --- |")
	for range cols {
		p(" --- | --- |")
	}
	p("\n")
	for _, r := range rows {
		ours, ok := summarize(b.res.values(r.m, r.ours))
		if !ok {
			continue
		}
		p("| %s | %s |", r.label, cell(ours, r.unit))
		for _, c := range cols {
			peer, ok := summarize(b.res.values(r.m, c))
			if !ok {
				p(" n/a | |")
				continue
			}
			ratio, _ := summarize(b.res.ratios(r.m, r.ours, c))
			p(" %s | %s |", cell(peer, r.unit), ratioCell(ratio))
		}
		p("\n")
	}

	p("\n## Targets (median of the per-repetition ratios)\n\n")
	for _, t := range targets {
		ratio, ok := summarize(b.res.ratios(t.m, t.ours, t.peer))
		if !ok {
			p("- %s: not measured (%s missing)\n", t.label, t.peer)
			continue
		}
		verdict := "met"
		if ratio.med > t.maxRatio {
			verdict = "**missed**"
		}
		p("- %s: %s, %.3gx (%.3g–%.3g)\n", t.label, verdict, ratio.med, ratio.lo, ratio.hi)
	}

	p("\n## What each server was asked\n\n")
	p("- Paths: ours gets root-relative paths; the peers get absolute paths inside the same root (`fixtures/`, 1,000 files in `fixtures/dir1000`, and `tldr/`, %d files).\n", b.fx.corpusFiles)
	p("- Reads: ours `packfs-file-reader` read; mark3labs `read_file`; official `read_text_file`. Whole file, as text.\n")
	p("- Lists: ours `packfs-file-searcher` list (recursive for the tree, 10,000 entries a page, every page fetched); mark3labs `list_directory` and `tree`; official `list_directory` and `directory_tree`.\n")
	p("- Content search: the same case-sensitive literal everywhere. Ours `search_content` with `caseSensitive` and `maxResults` 10000 (with the index, it picks the candidate files from it); mark3labs `search_within_files` with `max_results` 10000; ripgrep as a subprocess, output piped back and counted. The official server has no content search (`search_files` matches names), so its cells are n/a.\n")
	p("- Semantic search: ours only, the 71 judged tldr queries of `dev/eval/queries/tldr.json`, once each per repetition, after the index reports `indexComplete`.\n")
	p("- Peak RSS: VmHWM from /proc/PID/status at the end of each server's session, after everything above.\n")
	p("- All servers of a repetition stay up until its end, idle when not measured; ours with the index reconciles it every 10 s in the background, which, if anything, slows the measures taken on the others.\n")
	if len(b.notes) > 0 {
		p("\nSize of the answers (last repetition):\n\n")
		var keys []string
		for k := range b.notes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			srv, m, _ := strings.Cut(k, "\x00")
			p("- %s, %s: %s\n", m, srv, b.notes[k])
		}
	}
	return w.String()
}

func cell(s summary, unit string) string {
	return fmt.Sprintf("%s %s (%s–%s)", num(s.med), unit, num(s.lo), num(s.hi))
}

func ratioCell(s summary) string {
	return fmt.Sprintf("%sx (%s–%s)", num(s.med), num(s.lo), num(s.hi))
}

// num prints three significant figures without an exponent.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func kernel() string {
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(data))
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// commandLine is how the benchmark was run; under go run, os.Args[0] is a temporary binary.
func commandLine() string {
	var q []string
	for _, a := range os.Args[1:] {
		if strings.ContainsAny(a, " \t'\"$") {
			a = strconv.Quote(a)
		}
		q = append(q, a)
	}
	return strings.TrimSpace("go run ./dev/bench " + strings.Join(q, " "))
}

// shortPath shows a path under the home folder or the temporary folder by its tail, so the report
// does not carry host-specific prefixes.
func shortPath(p string) string {
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(p, home+"/") {
		return "~/" + strings.TrimPrefix(p, home+"/")
	}
	if t := os.TempDir(); strings.HasPrefix(p, t+"/") {
		if i := strings.Index(p[len(t)+1:], "/"); i >= 0 {
			return "TMP" + p[len(t)+1+i:]
		}
	}
	return p
}

func shortArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shortPath(a)
	}
	return out
}

func sortDurations(s []time.Duration) {
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
}
