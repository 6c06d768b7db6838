package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// verifyDir checks the end state of task t (and the answer) against the original, each given as
// its folders by name (as originals and foldersUnder give them), and returns the problems, none
// when the task was done. rootAbs is the root as the servers named it (the folder that holds a
// task's folders, or its one folder), stripped from paths in the answer.
func verifyDir(t *task, origs, finals map[string]string, answer, rootAbs string) ([]string, error) {
	o, err := readFolders(origs)
	if err != nil {
		return nil, fmt.Errorf("reading the original: %w", err)
	}
	f, err := readFolders(finals)
	if err != nil {
		return nil, fmt.Errorf("reading the end state: %w", err)
	}
	c := &check{orig: o, final: f, answer: answer, rootAbs: rootAbs}
	t.verify(c)
	return c.problems, nil
}

// verdict is the verifier's judgement of a session, kept in verdict.json.
type verdict struct {
	Task     int      `json:"task"`
	Pass     bool     `json:"pass"`
	Problems []string `json:"problems,omitempty"`
	Time     string   `json:"time"`
}

func printVerdict(v verdict) {
	if v.Pass {
		fmt.Println("PASS")
		return
	}
	fmt.Println("FAIL")
	for _, p := range v.Problems {
		fmt.Println("  - " + p)
	}
}

// cmdVerifyDir verifies any folder and answer file against a task, from the corpus archives. For
// a task of several folders, dir holds them by name, as a session's root does.
func cmdVerifyDir(o options, taskArg, dir, answerFile string) error {
	t, err := findTask(taskArg)
	if err != nil {
		return err
	}
	origs, err := originals(o.base, o.archives, t)
	if err != nil {
		return err
	}
	answer, err := os.ReadFile(answerFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	problems, err := verifyDir(t, origs, foldersUnder(dir, t), string(answer), abs)
	if err != nil {
		return err
	}
	printVerdict(verdict{Pass: len(problems) == 0, Problems: problems})
	if len(problems) > 0 {
		return exitCode(1)
	}
	return nil
}
