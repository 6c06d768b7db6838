#!/usr/bin/env bash
# install-peers.sh installs the pinned peer servers that `go run ./dev/bench` compares packfs-mcp with,
# into a folder outside the repository (default $HOME/.cache/packfs-bench, or --dir DIR):
#
#   DIR/node_modules/@modelcontextprotocol/server-filesystem   (npm, pinned)
#   DIR/bin/mcp-filesystem-server                              (Go module proxy, pinned)
#
# ripgrep comes from the distribution (apt-get install -y ripgrep) and is only checked here.
# Re-running is cheap: a peer already at its pinned version is left alone.
set -euo pipefail

OFFICIAL_VERSION=2026.8.31
MARK3LABS_VERSION=v0.11.1

dir="${HOME}/.cache/packfs-bench"
while [ $# -gt 0 ]; do
	case "$1" in
	--dir) dir="$2"; shift 2 ;;
	--dir=*) dir="${1#--dir=}"; shift ;;
	-h|--help) echo "usage: $0 [--dir DIR]"; exit 0 ;;
	*) echo "install-peers: unknown argument $1" >&2; exit 2 ;;
	esac
done
mkdir -p "$dir/bin"
dir="$(cd "$dir" && pwd)"

# The official server, from the npm registry.
if command -v npm >/dev/null; then
	pkg="$dir/node_modules/@modelcontextprotocol/server-filesystem/package.json"
	if [ -f "$pkg" ] && grep -q "\"version\": \"$OFFICIAL_VERSION\"" "$pkg"; then
		echo "install-peers: @modelcontextprotocol/server-filesystem@$OFFICIAL_VERSION already installed"
	else
		npm install --no-audit --no-fund --prefix "$dir" "@modelcontextprotocol/server-filesystem@$OFFICIAL_VERSION"
	fi
else
	echo "install-peers: npm not found; skipping @modelcontextprotocol/server-filesystem" >&2
fi

# mark3labs/mcp-filesystem-server, through the Go module proxy. `go install module@version` fails
# here because the proxy refuses the module's version list (403); `go get` of the exact version in a
# throwaway module, then `go build` of the package path, does not need the list.
if command -v go >/dev/null; then
	stamp="$dir/bin/mcp-filesystem-server.version"
	if [ -x "$dir/bin/mcp-filesystem-server" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$MARK3LABS_VERSION" ]; then
		echo "install-peers: mcp-filesystem-server@$MARK3LABS_VERSION already installed"
	else
		tmp="$(mktemp -d)"
		trap 'rm -rf "$tmp"' EXIT
		(
			cd "$tmp"
			go mod init peer >/dev/null 2>&1
			go get "github.com/mark3labs/mcp-filesystem-server@$MARK3LABS_VERSION"
			go build -o "$dir/bin/mcp-filesystem-server" github.com/mark3labs/mcp-filesystem-server
		)
		echo "$MARK3LABS_VERSION" >"$stamp"
		echo "install-peers: built $dir/bin/mcp-filesystem-server"
	fi
else
	echo "install-peers: go not found; skipping mcp-filesystem-server" >&2
fi

# ripgrep.
if command -v rg >/dev/null; then
	echo "install-peers: $(rg --version | sed -n 1p) at $(command -v rg)"
else
	echo "install-peers: rg not found; install it with: apt-get install -y ripgrep" >&2
fi
echo "install-peers: peers are in $dir"
