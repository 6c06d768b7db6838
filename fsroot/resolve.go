package fsroot

// Resolve returns the root-relative path that name reaches after following
// every symbolic link inside the root, component by component, as the
// kernel would. A link that is absolute, or whose target leads above the
// root, gives [ErrEscapes]; more than 40 links (a loop) give [ErrInvalid].
// A non-directory followed by more components gives [ErrNotDir].
//
// If the final component, or a trailing part, does not exist, the result is
// the resolved existing prefix joined with the rest, so a caller can judge
// the name a create would produce. Resolve only reads; the answer can be
// stale by the time it is used. A caller that goes on to read or write
// the file uses [Root.Lookup], which resolves the same way and keeps hold
// of where the name led, and reads or writes through the [Entry].
func (r *Root) Resolve(name string) (string, error) {
	e, err := r.lookup(name)
	if err != nil {
		return "", r.pathErr("resolve", name, err)
	}
	e.Close()
	return e.path, nil
}
