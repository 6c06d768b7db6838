#!/bin/bash
# cold.sh BIN ROOT [ARGS...]: serves ROOT with the packfs-mcp binary BIN and a fresh index, waits
# for the index to be ready, stops the server and prints the build's wall time, CPU (user and
# system) and peak RSS, as /usr/bin/time measures the whole process. Extra ARGS go to serve;
# the environment too (GOMEMLIMIT=off turns the server's memory governor off).
set -euo pipefail
bin=$1 root=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/in"
touch "$tmp/err"
sleep 1000000 > "$tmp/in" & holder=$! # keeps the server's standard input open
/usr/bin/time -f "$(basename "$bin"): %e s wall, %U s user, %S s system, peak RSS %M KB" \
	"$bin" serve --root "$root" --index-dir "$tmp/index" "$@" < "$tmp/in" 2> "$tmp/err" &
server=$!
until grep -q "index ready" "$tmp/err"; do
	if ! kill -0 "$server" 2>/dev/null; then cat "$tmp/err" >&2; exit 1; fi
	sleep 0.5
done
kill "$holder"
wait "$server" || true
grep "index ready" "$tmp/err"
tail -1 "$tmp/err"
