package tools

import (
	"fmt"
	"strings"

	"github.com/packfs/packfs-mcp/tools/errs"
)

// undoCopy removes what a failed copy made (files and folders, made in that order, removed in the
// reverse) and returns err with what became of them; replaced are the files the copy had already
// replaced, which it cannot put back.
func (s *Server) undoCopy(err error, made, replaced []string) error {
	if len(made) == 0 && len(replaced) == 0 {
		return err
	}
	removed, left := 0, []string(nil)
	for i := len(made) - 1; i >= 0; i-- {
		if rerr := s.removeMade(made[i]); rerr != nil && !isNotExist(rerr) {
			s.cfg.Log.Printf("removing %q after a failed copy: %v", made[i], rerr)
			left = append(left, made[i])
			continue
		}
		removed++
	}
	return &errs.Undone{Err: err, Note: copyUndone(removed, left, replaced)}
}

// copyUndone says what became of what a copy had written before it failed: removed counts the
// files and folders it made and removed again, left those it could not remove, replaced the files
// already there that it had replaced.
func copyUndone(removed int, left, replaced []string) string {
	var note string
	if len(left) == 0 {
		note = fmt.Sprintf(". The %d files and folders the copy had made were removed again", removed)
	} else {
		note = fmt.Sprintf(". The copy could not remove all it had made (%d removed); still there: %s: delete them before you retry", removed, quotedCapped(left))
	}
	if len(replaced) > 0 {
		note += fmt.Sprintf("; the files it had already replaced keep the copied content: %s", quotedCapped(replaced))
	}
	return note
}

// quotedCapped quotes at most MaxCopyListed names, saying how many more there are.
func quotedCapped(names []string) string {
	if len(names) <= MaxCopyListed {
		return quoted(names)
	}
	return fmt.Sprintf("%s and %d more", quoted(names[:MaxCopyListed]), len(names)-MaxCopyListed)
}

// quoted lists names, each quoted, joined by commas.
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// removeMade removes name, a file or empty folder a failed copy made, through one lookup judged
// as a delete's ([Server.open], useRemove).
func (s *Server) removeMade(name string) error {
	e, err := s.open(name, useRemove)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.Remove(false)
}
