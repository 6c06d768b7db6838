package tools

import "github.com/packfs/packfs-mcp/security"

// Purpose is one thing a tool can be asked to do, with everything the server decides by it. The
// table of them, [Purposes], is the one place the vocabulary is spelled out: the permission check,
// the rate limiter, the progress messages and the call command read it, and TestPurposeTable
// holds the intents' purpose lists (their validate tags) to it.
type Purpose struct {
	// Name is the purpose as a call spells it, such as "search_semantic".
	Name string
	// Tool is the tool that takes it ([ReaderName], [SearcherName] or [WriterName]).
	Tool string
	// Permission is what the server must grant for it.
	Permission security.Permission
	// Cost is its rate-limit weight ([security.CostLight], [security.CostMedium] or
	// [security.CostHeavy]): heavier operations do more work per request. RecursiveCost is the
	// weight when it walks a whole tree (a recursive list); 0 means Cost.
	Cost, RecursiveCost int
	// NeedsIndex says its answer depends on the search index, so the call command brings the
	// index up to date first, as a server that has been running a while would have: ranked search
	// and relationships read it, delete reports the documents that link to what it removes, and
	// move keeps links working.
	NeedsIndex bool
	// Progress is what its progress messages call the work ("listing: 120 of 400 files"); "" for
	// the purpose's own name.
	Progress string
}

// purposes is the table, in the order the tools list them.
var purposes = []Purpose{
	{Name: "read", Tool: ReaderName, Permission: security.PermRead, Cost: security.CostLight},
	{Name: "metadata", Tool: ReaderName, Permission: security.PermRead, Cost: security.CostLight},
	{Name: "exists", Tool: ReaderName, Permission: security.PermRead, Cost: security.CostLight},
	{Name: "list", Tool: SearcherName, Permission: security.PermList, Cost: security.CostMedium,
		RecursiveCost: security.CostHeavy, Progress: "listing"},
	{Name: "search_content", Tool: SearcherName, Permission: security.PermSearch, Cost: security.CostHeavy,
		Progress: "searching"},
	{Name: "search_semantic", Tool: SearcherName, Permission: security.PermSearch, Cost: security.CostHeavy,
		NeedsIndex: true, Progress: "building the search index"},
	{Name: "relationships", Tool: SearcherName, Permission: security.PermSearch, Cost: security.CostMedium,
		NeedsIndex: true, Progress: "building the search index"},
	{Name: "create", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium},
	{Name: "update", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium},
	{Name: "append", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium},
	{Name: "delete", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium, NeedsIndex: true},
	{Name: "edit", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium},
	{Name: "move", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium, NeedsIndex: true},
	// copy needs write alone, as move does: it makes no content readable that read permission
	// guards, since what it writes stays under the same policy. Copying a folder walks a whole tree.
	{Name: "copy", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium,
		RecursiveCost: security.CostHeavy},
	{Name: "mkdir", Tool: WriterName, Permission: security.PermWrite, Cost: security.CostMedium},
}

// Purposes returns the table of purposes, in the order the tools list them.
func Purposes() []Purpose { return append([]Purpose(nil), purposes...) }

// PurposeOf returns the purpose named name of the tool named tool, and false when that tool
// takes no such purpose. Names are matched exactly.
func PurposeOf(tool, name string) (Purpose, bool) {
	for _, p := range purposes {
		if p.Name == name && p.Tool == tool {
			return p, true
		}
	}
	return Purpose{}, false
}

// cost is the rate-limit weight of p, recursive when it walks a whole tree.
func (p Purpose) cost(recursive bool) int {
	if recursive && p.RecursiveCost != 0 {
		return p.RecursiveCost
	}
	return p.Cost
}
