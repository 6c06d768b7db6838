package serving

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/server"
	"github.com/packfs/packfs-mcp/tools"
)

func findTool(list []server.ServerTool, name string) (server.ServerTool, bool) {
	for _, t := range list {
		if t.Tool.Name == name {
			return t, true
		}
	}
	return server.ServerTool{}, false
}

// notOffered explains, to the model and to the user, why a known tool is not offered under a's
// configuration and how the user turns it on. It names flags and settings only, never a path.
func notOffered(a *app, name string) string {
	var offered []string
	for _, t := range a.tools.Tools() {
		offered = append(offered, t.Tool.Name)
	}
	if len(offered) == 0 {
		offered = []string{"none"}
	}
	others := fmt.Sprintf(" The tools offered are: %s.", strings.Join(offered, ", "))
	switch {
	case slices.Contains(a.cfg.DisabledTools, name):
		return fmt.Sprintf("%s is disabled on this server (--disable-tool, or disabledTools in its config file): to use it, take it out of that list and restart the server.%s", name, others)
	case name == tools.WriterName && a.cfg.ReadOnly:
		return "writing is off: the server runs with --read-only (or readOnly in its config file), which wins over --allow-write and the permissions; " +
			"to write, restart it without --read-only." + others
	case name == tools.WriterName:
		return fmt.Sprintf("writing is off: the server's permissions are %s; to write, restart it with --allow-write "+
			"(or add write to --permissions, or to permissions in its config file).%s", a.perms, others)
	}
	need := "read"
	if name == tools.SearcherName {
		need = "list or search"
	}
	return fmt.Sprintf("%s is not offered: the server's permissions are %s, without %s; to use it, restart the server with %s in --permissions.%s",
		name, a.perms, need, need, others)
}
