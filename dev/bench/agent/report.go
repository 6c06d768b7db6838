package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
)

// summary is what a session's log and verdict say.
type summary struct {
	Name       string   `json:"name"`
	Task       int      `json:"task"`
	TaskName   string   `json:"taskName"`
	Server     string   `json:"server"`
	Calls      int      `json:"calls"`      // tool calls the server answered
	Errors     int      `json:"errors"`     // of them, results flagged as errors
	Bytes      int      `json:"bytes"`      // text of all results shown to the model
	Listing    int      `json:"listing"`    // the tools listing, once (not in Bytes)
	ToolsShown int      `json:"toolsShown"` // times the agent printed the listing
	Rejected   int      `json:"rejected"`   // calls the wrapper refused (arguments not a JSON object)
	NonText    int      `json:"nonText"`    // non-text blocks, shown as placeholders, not in Bytes
	Answered   bool     `json:"answered"`
	Collab     string   `json:"collaborator,omitempty"`
	Running    bool     `json:"running"`
	Verdict    string   `json:"verdict"` // pass, fail, or "" when not verified
	Problems   []string `json:"problems,omitempty"`
}

func summarize(dir string) (summary, error) {
	s, err := loadSession(dir)
	if err != nil {
		return summary{}, err
	}
	sum := summary{Name: s.Name, Task: s.Task, TaskName: s.TaskName, Server: s.Server}
	f, err := os.Open(filepath.Join(dir, "log.jsonl"))
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 256<<20)
		for sc.Scan() {
			var e event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				return sum, fmt.Errorf("%s/log.jsonl: %w", dir, err)
			}
			switch e.Event {
			case "listing":
				sum.Listing = e.Bytes
			case "tools":
				sum.ToolsShown++
			case "call":
				sum.Calls++
				sum.Bytes += e.Bytes
				sum.NonText += e.NonText
				if e.IsError {
					sum.Errors++
				}
			case "rejected":
				sum.Rejected++
			case "answer":
				sum.Answered = true
			case "collaborator":
				sum.Collab = e.Note
			}
		}
		if err := sc.Err(); err != nil {
			return sum, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sock")); err == nil {
		sum.Running = true
	}
	if data, err := os.ReadFile(filepath.Join(dir, "verdict.json")); err == nil {
		var v verdict
		if json.Unmarshal(data, &v) == nil {
			sum.Verdict = map[bool]string{true: "pass", false: "fail"}[v.Pass]
			sum.Problems = v.Problems
		}
	}
	return sum, nil
}

// sessions returns the session folders named, or every one under the base.
func sessions(o options, names []string) ([]string, error) {
	if len(names) > 0 {
		var out []string
		for _, n := range names {
			out = append(out, sessionDir(o, n))
		}
		return out, nil
	}
	matches, err := filepath.Glob(filepath.Join(o.base, "*", "session.json"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		out = append(out, filepath.Dir(m))
	}
	sort.Strings(out)
	return out, nil
}

func kb(b int) string { return fmt.Sprintf("%.1f", float64(b)/1024) }

func cmdReport(o options, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON lines")
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return exitCode(2)
	}
	dirs, err := sessions(o, fs.Args())
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	if !*asJSON {
		fmt.Fprintln(w, "session\ttask\tserver\tcalls\terrors\tKB shown\ttools listing KB (once, not in KB shown)\tanswer\tverdict")
	}
	for _, d := range dirs {
		s, err := summarize(d)
		if err != nil {
			return err
		}
		if *asJSON {
			line, _ := json.Marshal(s)
			fmt.Println(string(line))
			continue
		}
		v := s.Verdict
		switch {
		case s.Running:
			v = "running"
		case v == "":
			v = "not verified"
		}
		ans := "-"
		if s.Answered {
			ans = "given"
		}
		fmt.Fprintf(w, "%s\t%d %s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", s.Name, s.Task, s.TaskName, s.Server, s.Calls, s.Errors, kb(s.Bytes), kb(s.Listing), ans, v)
		for _, p := range s.Problems {
			fmt.Fprintf(w, "\t\t\t\t\t\t\t\t  %s\n", p)
		}
		if s.Rejected > 0 || s.NonText > 0 || s.ToolsShown > 0 || s.Collab != "" {
			var notes []string
			if s.ToolsShown > 0 {
				notes = append(notes, fmt.Sprintf("listing printed %d times", s.ToolsShown))
			}
			if s.Rejected > 0 {
				notes = append(notes, fmt.Sprintf("%d calls refused by the wrapper (not JSON objects)", s.Rejected))
			}
			if s.NonText > 0 {
				notes = append(notes, fmt.Sprintf("%d non-text blocks (placeholders, not counted)", s.NonText))
			}
			if s.Collab != "" {
				notes = append(notes, "other party's edit "+s.Collab)
			}
			fmt.Fprintf(w, "\t\t\t\t\t\t\t\t  (%s)\n", strings.Join(notes, "; "))
		}
	}
	return w.Flush()
}

// cmdTable prints, in markdown, one row per task with a cell per server, then one row per
// server with its totals.
func cmdTable(o options, args []string) error {
	dirs, err := sessions(o, args)
	if err != nil {
		return err
	}
	type cellKey struct {
		task   int
		server string
	}
	cells := map[cellKey][]summary{}
	taskNames := map[int]string{}
	var servers []string
	for _, d := range dirs {
		s, err := summarize(d)
		if err != nil {
			return err
		}
		if s.Running {
			fmt.Fprintf(os.Stderr, "mcp: %s is still running; left out\n", s.Name)
			continue
		}
		k := cellKey{s.Task, s.Server}
		cells[k] = append(cells[k], s)
		taskNames[s.Task] = s.TaskName
		found := false
		for _, x := range servers {
			found = found || x == s.Server
		}
		if !found {
			servers = append(servers, s.Server)
		}
	}
	// Ours first, then the peers in the order serverNames gives.
	sort.SliceStable(servers, func(i, j int) bool { return rank(servers[i]) < rank(servers[j]) })
	var taskIDs []int
	for n := range taskNames {
		taskIDs = append(taskIDs, n)
	}
	sort.Ints(taskIDs)

	fmt.Print("| task |")
	for _, sv := range servers {
		fmt.Printf(" %s |", sv)
	}
	fmt.Print("\n| --- |")
	for range servers {
		fmt.Print(" --- |")
	}
	fmt.Println()
	for _, n := range taskIDs {
		fmt.Printf("| %d %s |", n, taskNames[n])
		for _, sv := range servers {
			var parts []string
			for _, s := range cells[cellKey{n, sv}] {
				mark := map[string]string{"pass": "pass", "fail": "FAIL", "": "not verified"}[s.Verdict]
				parts = append(parts, fmt.Sprintf("%s, %d calls, %s KB", mark, s.Calls, kb(s.Bytes)))
			}
			fmt.Printf(" %s |", strings.Join(parts, "; "))
		}
		fmt.Println()
	}

	fmt.Println()
	fmt.Println("| server | sessions | passed | calls | KB shown | calls per session | KB per session | tools listing KB (once per session, not in KB shown) |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, sv := range servers {
		var n, passed, calls, bytes, listing int
		for k, ss := range cells {
			if k.server != sv {
				continue
			}
			for _, s := range ss {
				n++
				calls += s.Calls
				bytes += s.Bytes
				listing = s.Listing
				if s.Verdict == "pass" {
					passed++
				}
			}
		}
		fmt.Printf("| %s | %d | %d | %d | %s | %.1f | %s | %s |\n", sv, n, passed, calls, kb(bytes),
			float64(calls)/float64(max(n, 1)), kb(bytes/max(n, 1)), kb(listing))
	}
	return nil
}

func rank(server string) int {
	for i, s := range serverNames {
		if s == server {
			return i
		}
	}
	return len(serverNames)
}
