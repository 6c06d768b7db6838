#!/bin/bash
# search-scan.sh OLD NEW ROOT: times search_content without an index (a scan of every file) through
# two packfs-mcp binaries, side by side, three runs each, for a regular expression with literals, a
# literal ignoring case, and an expression whose only literals are single letters; then grep -rlE on
# the same tree for reference. The tree should be warm in the page cache (run it twice).
set -eu
old=$1 new=$2 root=$3
call() { # call BINARY QUERY-JSON OPTIONS-JSON-PREFIX
	echo "{\"name\":\"packfs-file-searcher\",\"arguments\":{\"purpose\":\"search_content\",\"target\":{\"path\":\".\",\"query\":$2},\"options\":{$3\"filesOnly\":true,\"maxResults\":1000}}}" |
		"$1" call --root "$root" --no-index --timeout 5m 2>/dev/null
}
run() { # run NAME QUERY-JSON OPTIONS
	for b in "$old" "$new"; do
		times=()
		for _ in 1 2 3; do
			s=$(date +%s.%N)
			out=$(call "$b" "$2" "$3")
			times+=("$(echo "$(date +%s.%N) - $s" | bc)")
		done
		found=$(echo "$out" | python3 -c 'import json,sys; s=json.load(sys.stdin)["structuredContent"]; print(s.get("totalFound"), "found in", s.get("filesSearched"), "files")')
		echo "$1	$b	${times[*]} s	$found"
	done
}
run regex '"func\\s+New[A-Z]\\w*Index\\("' '"regex":true,'
run literal '"newindex"' ''
run letters '"[a-z]q[0-9]+x"' '"regex":true,'
s=$(date +%s.%N)
grep -rlE 'func\s+New[A-Z]\w*Index\(' "$root" | wc -l
echo "grep -rlE regex: $(echo "$(date +%s.%N) - $s" | bc) s"
