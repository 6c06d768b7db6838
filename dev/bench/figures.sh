#!/usr/bin/env bash
# figures.sh runs, at the commit checked out, every command whose figures dev/bench/README.md quotes, and
# writes each one's output to a folder (default /var/tmp/packfs-figures/<commit>):
#
#   peers.md / peers.txt   go run ./dev/bench --runs 3           (Compared with other servers)
#   eval-*.txt             go run ./dev/eval, three query views  (Search quality)
#   speed.txt, tldr.txt    the Start/Read4K and TLDRCorpus benchmarks (Speed)
#   resources.txt          BenchmarkResourcesTLDR (Resources and logging)
#   scale.txt              BenchmarkScale on tldr, tldr x10 and, with --linux, linux-source (Scale)
#
# It needs ../shared/corpora beside the repository, the peers of dev/bench/install-peers.sh and
# ripgrep; --linux needs apt-get and about 3 GB. Run it on an idle machine: the figures are
# timings, and anything else on the cores slows them. It takes about an hour (90 minutes with
# --linux) on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"

linux=0
out=""
scale_dir="${PACKFS_SCALE_DIR:-/var/tmp/packfs-scale}"
while [ $# -gt 0 ]; do
	case "$1" in
	--linux) linux=1; shift ;;
	--out) out="$2"; shift 2 ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	*) echo "figures: unknown argument $1" >&2; exit 2 ;;
	esac
done
commit=$(git rev-parse --short HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "figures: the tree has uncommitted changes; the figures would belong to no commit" >&2
	exit 1
fi
out="${out:-/var/tmp/packfs-figures/$commit}"
mkdir -p "$out"
note() { echo "figures: $* ($(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/log.txt" >&2; }

note "commit $commit, $(nproc) CPUs, $(go env GOVERSION)"
note "eval"
go run ./dev/eval > "$out/eval-words.txt"
go run ./dev/eval --paraphrases > "$out/eval-paraphrases.txt"
go run ./dev/eval --paraphrases --paraphrase-set paraphrases-generic > "$out/eval-generic.txt"
note "speed"
go test -run '^$' -bench 'StartToInitialize|Read4K' -benchtime 300x -count 3 ./cmd/packfs-mcp/ > "$out/speed.txt"
go test -run '^$' -bench TLDRCorpus -benchtime 1x -count 3 -timeout 30m ./cmd/packfs-mcp/ > "$out/tldr.txt"
go test -run '^$' -bench ResourcesTLDR -benchtime 1x -count 3 ./cmd/packfs-mcp/ > "$out/resources.txt"
note "peers"
go run ./dev/bench --runs 3 --markdown "$out/peers.md" > "$out/peers.txt"
trees=tldr,tldrx10
if [ "$linux" = 1 ]; then trees=$trees,linux; fi
note "scale: $trees"
PACKFS_SCALE_DIR="$scale_dir" PACKFS_SCALE_LINUX="$linux" PACKFS_SCALE_TREES="$trees" \
	go test -v -run '^$' -bench Scale -benchtime 1x -timeout 3h ./cmd/packfs-mcp/ > "$out/scale.txt"
note "done: $out"
