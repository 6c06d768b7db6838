#!/bin/bash
# idle.sh BINARY ROOT SECONDS [FLAGS...]: serves ROOT on stdio with no client call (and FLAGS, such
# as --config with semantic.reconcileMs set, to walk instead of following file events), waits until
# the index is ready, then prints the CPU seconds the server used over the next SECONDS and its
# resident memory. Linux only (reads /proc).
set -eu
bin=$1 root=$2 secs=$3
shift 3
idx=$(mktemp -d) err=$(mktemp)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$idx" "$err"' EXIT
sleep $((secs + 3600)) | "$bin" serve --root "$root" --index-dir "$idx" "$@" 2>"$err" >/dev/null &
pid=$!
until grep -q 'search index ready' "$err"; do sleep 1; done
sleep 5
tck=$(getconf CLK_TCK)
t0=$(awk '{print $14+$15}' /proc/$pid/stat)
sleep "$secs"
t1=$(awk '{print $14+$15}' /proc/$pid/stat)
echo "idle CPU over ${secs} s: $(echo "scale=2; ($t1-$t0)/$tck" | bc) s ($(echo "scale=2; ($t1-$t0)/$tck*60/$secs" | bc) s a minute), RSS $(awk '/VmRSS/{printf "%.0f MB", $2/1024}' /proc/$pid/status)"
