package markdown

import (
	"iter"
	"slices"
)

// addTo adds v to the set m holds for k.
func addTo(m map[string]pathSet, k, v string) {
	set := m[k]
	set.add(v)
	m[k] = set
}

// removeFrom removes v from the set m holds for k, and the set once it is empty.
func removeFrom(m map[string]pathSet, k, v string) {
	set, ok := m[k]
	if !ok {
		return
	}
	set.remove(v)
	if set.len() == 0 {
		delete(m, k)
		return
	}
	m[k] = set
}

// smallSet is the most paths a [pathSet] keeps in a slice. Almost every set of the graph's
// indexes holds one to a few paths (the documents linking to one document, or answering to one
// name); a map for each cost many times the slice, which on a big tree was most of the graph's
// memory (dev/bench/README.md, Scale). Past smallSet a map keeps adding and removing constant-time
// for hubs.
const smallSet = 16

// pathSet is a set of paths: a slice while it holds at most smallSet, else a map. The zero value
// is an empty set. It is a value type, so that a map of them costs no allocation per key beyond
// the slice: modify a copy and store it back.
type pathSet struct {
	few  []string
	many map[string]struct{}
}

func (s *pathSet) add(p string) {
	switch {
	case s.many != nil:
		s.many[p] = struct{}{}
	case slices.Contains(s.few, p):
	case len(s.few) < smallSet:
		s.few = append(s.few, p)
	default:
		s.many = make(map[string]struct{}, 2*smallSet)
		for _, q := range s.few {
			s.many[q] = struct{}{}
		}
		s.many[p] = struct{}{}
		s.few = nil
	}
}

func (s *pathSet) remove(p string) {
	if s.many != nil {
		delete(s.many, p)
		return
	}
	if i := slices.Index(s.few, p); i >= 0 {
		last := len(s.few) - 1
		s.few[i] = s.few[last]
		s.few[last] = ""
		s.few = s.few[:last]
	}
}

func (s *pathSet) has(p string) bool {
	if s.many != nil {
		_, ok := s.many[p]
		return ok
	}
	return slices.Contains(s.few, p)
}

func (s *pathSet) len() int { return len(s.few) + len(s.many) }

// all yields the paths of the set, in no particular order.
func (s *pathSet) all() iter.Seq[string] {
	return func(yield func(string) bool) {
		if s == nil {
			return
		}
		for _, p := range s.few {
			if !yield(p) {
				return
			}
		}
		for p := range s.many {
			if !yield(p) {
				return
			}
		}
	}
}

// clone returns the paths of the set as a new slice, safe to hold while the set changes.
func (s *pathSet) clone() []string {
	out := make([]string, 0, s.len())
	for p := range s.all() {
		out = append(out, p)
	}
	return out
}
