package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMoveSeveralEndToEnd archives two notes of a vault whose links name notes by path, in one
// move through the binary: both arrive, every link to them and between them reaches them in the
// form it was written, and the answer lists what moved and says it checked the links.
func TestMoveSeveralEndToEnd(t *testing.T) {
	f := workspace(t)
	files := map[string]string{
		"inbox/roots-listing.md": "# Roots listing\n## Repro\nsee [[inbox/triage]] and [triage](triage.md)\n",
		"inbox/triage.md":        "# Triage\nback to [[inbox/roots-listing#Repro|the roots repro]]\n",
		"inbox/index.md":         "- [[inbox/roots-listing]]\n- [[inbox/roots-listing#Repro|the roots repro]]\n- [[triage]]\n",
	}
	writeFiles(t, f.root, files)
	s := start(t, f, nil, "--allow-write")
	waitIndexed(t, s)
	res, isErr := s.call(writer, map[string]any{"purpose": "move",
		"target":  map[string]any{"paths": []string{"inbox/roots-listing.md", "inbox/triage.md"}, "destination": "archive"},
		"options": map[string]any{"createPath": true, "preserveRelationships": true}})
	if isErr {
		t.Fatalf("move: %v", res)
	}
	want := map[string]string{
		"archive/roots-listing.md": "# Roots listing\n## Repro\nsee [[archive/triage]] and [triage](triage.md)\n",
		"archive/triage.md":        "# Triage\nback to [[archive/roots-listing#Repro|the roots repro]]\n",
		"inbox/index.md":           "- [[archive/roots-listing]]\n- [[archive/roots-listing#Repro|the roots repro]]\n- [[triage]]\n",
	}
	checkFiles(t, f.root, want)
	if moved, _ := res["moved"].([]any); len(moved) != 2 {
		t.Errorf("moved = %v, want both notes", res["moved"])
	}
	if lost, ok := res["linksLost"].([]any); !ok || len(lost) > 0 || res["linksChecked"] == nil {
		t.Errorf("linksChecked %v, linksLost %v: want a check that lost none", res["linksChecked"], res["linksLost"])
	}
}

// TestMoveVaultLinkFormatEndToEnd moves two notes of a vault whose owner chose relative links
// (.obsidian/app.json) through the binary: relative wiki links stay relative, those between the
// moved notes stay as written, and a link by a name another note now answers to gets a path
// relative to its note, as Obsidian would write it.
func TestMoveVaultLinkFormatEndToEnd(t *testing.T) {
	f := workspace(t)
	files := map[string]string{
		".obsidian/app.json":  `{"newLinkFormat": "relative", "alwaysUpdateLinks": true}`,
		"inbox/plan.md":       "# Plan\nnext: [[../projects/roadmap]], notes: [[./plan-notes]]\n",
		"inbox/plan-notes.md": "# Notes\nfor [[./plan#Plan|the plan]]\n",
		"inbox/today.md":      "- [[plan]]\n",
		"journal/day.md":      "- [[../inbox/plan|the plan]]\n",
		"projects/roadmap.md": "# Roadmap\n",
		"projects/plan.md":    "# Last year's plan\n",
	}
	writeFiles(t, f.root, files)
	s := start(t, f, nil, "--allow-write")
	waitIndexed(t, s)
	res, isErr := s.call(writer, map[string]any{"purpose": "move",
		"target":  map[string]any{"paths": []string{"inbox/plan.md", "inbox/plan-notes.md"}, "destination": "archive/2026"},
		"options": map[string]any{"createPath": true, "preserveRelationships": true}})
	if isErr {
		t.Fatalf("move: %v", res)
	}
	want := map[string]string{
		"archive/2026/plan.md":       "# Plan\nnext: [[../../projects/roadmap]], notes: [[./plan-notes]]\n",
		"archive/2026/plan-notes.md": "# Notes\nfor [[./plan#Plan|the plan]]\n",
		"inbox/today.md":             "- [[../archive/2026/plan|plan]]\n",
		"journal/day.md":             "- [[../archive/2026/plan|the plan]]\n",
	}
	checkFiles(t, f.root, want)
	if lost, ok := res["linksLost"].([]any); !ok || len(lost) > 0 {
		t.Errorf("linksLost %v: want a check that lost none", res["linksLost"])
	}
}

// writeFiles writes files (slash path to text) below root, making their folders.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, p), []byte(text), 0o644))
	}
}

// checkFiles checks that each file of want (slash path to text) below root holds its text.
func checkFiles(t *testing.T, root string, want map[string]string) {
	t.Helper()
	for p, text := range want {
		got, err := os.ReadFile(filepath.Join(root, p))
		if err != nil || string(got) != text {
			t.Errorf("%s = %q (%v), want %q", p, got, err, text)
		}
	}
}
