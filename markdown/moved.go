package markdown

import "iter"

// MovedView is the graph as it would be after moves, for what a dry run of a move says it would
// keep: each document taken by a move is at its new path, found by its new name, and gone from
// its old one. It is a view over the graph, taken under its read lock; the graph does not change.
type MovedView struct {
	g     *Graph
	moves []Moved
	// byKey holds the moved documents by the keys of their new paths (and aliases).
	byKey map[string][]string
	// from holds each moved document's old path by its new one.
	from map[string]string
}

// AfterMoves returns the view of g after moves. It visits every document once.
func (g *Graph) AfterMoves(moves []Moved) *MovedView {
	g.mu.RLock()
	defer g.mu.RUnlock()
	v := &MovedView{g: g, moves: moves, byKey: map[string][]string{}, from: map[string]string{}}
	for p, n := range g.docs {
		to, ok := DestOf(moves, p)
		if !ok {
			continue
		}
		v.from[to] = p
		for _, k := range nameKeys(to, n.aliases()) {
			v.byKey[k] = append(v.byKey[k], to)
		}
	}
	return v
}

// Resolve resolves a link of the document at from, a path after the moves, as it would resolve
// after them.
func (v *MovedView) Resolve(from string, l Link) Resolved {
	v.g.mu.RLock()
	defer v.g.mu.RUnlock()
	return resolve(from, l, v.lookup, v.exists)
}

// Links returns the links of the document at p, a path after the moves, as the graph holds them
// (its content before any rewrite), and whether it is a document.
func (v *MovedView) Links(p string) ([]Link, bool) {
	v.g.mu.RLock()
	defer v.g.mu.RUnlock()
	if from, ok := v.from[p]; ok {
		p = from
	}
	n, ok := v.g.docs[p]
	if !ok {
		return nil, false
	}
	return n.links, true
}

// exists reports whether a document is at p after the moves.
func (v *MovedView) exists(p string) bool {
	if _, ok := v.from[p]; ok {
		return true
	}
	if _, moved := DestOf(v.moves, p); moved {
		return false
	}
	return v.g.exists(p)
}

// lookup yields the documents found by a lower-cased key after the moves: those the graph finds
// that stay where they are, and the moved ones by their new names.
func (v *MovedView) lookup(key string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for p := range v.g.names.lookup(key) {
			if _, moved := DestOf(v.moves, p); moved {
				continue
			}
			if !yield(p) {
				return
			}
		}
		for _, p := range v.byKey[key] {
			if !yield(p) {
				return
			}
		}
	}
}
