package result

import "strings"

// Rebase returns a root's answer with every path in it as the caller names it, through show (tools'
// Server.show): over several roots, inside the root's name. Each path field of the result types
// is listed here; TestRebaseCoversEveryPath fails when one is added and not.
func Rebase(out any, show func(string) string) any {
	switch v := out.(type) {
	case Reader:
		v.rebase(show)
		return v
	case Searcher:
		v.rebase(show)
		return v
	case Writer:
		v.rebase(show)
		return v
	}
	return out
}

// entryPath is the path of one entry of a call about several paths: a path outside the root is
// named by its place (target.paths[2], target.reads[2]), which stays as it is.
func entryPath(p string, show func(string) string) string {
	if strings.HasPrefix(p, "target.paths[") || strings.HasPrefix(p, "target.reads[") {
		return p
	}
	return show(p)
}

func (v *Reader) rebase(show func(string) string) {
	for i := range v.Files {
		v.Files[i].Path = entryPath(v.Files[i].Path, show)
	}
	for i := range v.History {
		v.History[i].Path = show(v.History[i].Path)
		if v.History[i].MovedTo != "" {
			v.History[i].MovedTo = show(v.History[i].MovedTo)
		}
	}
}

func (v *Searcher) rebase(show func(string) string) {
	for i := range v.Files {
		v.Files[i].Path = show(v.Files[i].Path)
	}
	for i := range v.ExcludedFiles {
		v.ExcludedFiles[i] = show(v.ExcludedFiles[i])
	}
	for i := range v.Related {
		v.Related[i].Path = show(v.Related[i].Path)
		v.Related[i].From = show(v.Related[i].From)
	}
	v.DocumentLinks.rebase(show)
	for i := range v.Documents {
		v.Documents[i].Path = entryPath(v.Documents[i].Path, show)
		v.Documents[i].DocumentLinks.rebase(show)
	}
}

func (d *DocumentLinks) rebase(show func(string) string) {
	for _, links := range [][]LinkEntry{d.Links, d.Broken} {
		for i := range links {
			links[i].To = show(links[i].To)
		}
	}
	for i := range d.Backlinks {
		d.Backlinks[i].Path = show(d.Backlinks[i].Path)
	}
	for _, paths := range [][]string{d.Parent, d.Children} {
		for i := range paths {
			paths[i] = show(paths[i])
		}
	}
}

func (v *Writer) rebase(show func(string) string) {
	v.Path, v.Destination = show(v.Path), show(v.Destination)
	for _, paths := range [][]string{v.LinkedFrom, v.UpdatedFiles, v.WouldCopy} {
		for i := range paths {
			paths[i] = show(paths[i])
		}
	}
	for i := range v.Files {
		v.Files[i].Path = show(v.Files[i].Path)
	}
	for i := range v.Skipped {
		v.Skipped[i].Path = show(v.Skipped[i].Path)
	}
	for i := range v.Rewrites {
		v.Rewrites[i].Path = show(v.Rewrites[i].Path)
	}
	for i := range v.LinksLost {
		v.LinksLost[i].Path = show(v.LinksLost[i].Path)
		v.LinksLost[i].Reached = show(v.LinksLost[i].Reached)
	}
	for i := range v.Mentions {
		v.Mentions[i].Path = show(v.Mentions[i].Path)
	}
	for i := range v.Moved {
		v.Moved[i].Path, v.Moved[i].Destination = show(v.Moved[i].Path), show(v.Moved[i].Destination)
	}
}
