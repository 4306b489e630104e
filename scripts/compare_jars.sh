#!/usr/bin/env bash
# Two builds of dbf0 side by side: runs each benchmark configuration with jar A, then jar B, for
# several rounds, so that drift on a shared machine hits both alike, and prints the per-pair B/A
# ratios and their median. Used for docs/performance.md's before/after tables.
#   scripts/compare_jars.sh OLD.jar NEW.jar [ROUNDS] [CONFIG...]
# Each CONFIG is one quoted string of bench arguments; given any, they replace the default list.
# Build an old jar with: git worktree add /tmp/old COMMIT && (cd /tmp/old && ./build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
A=$1; B=$2; rounds=${3:-3}
shift $(($# < 3 ? $# : 3))
. scripts/lib/jdk.sh
dbf0_use_jdk
configs=(
  "4 8 concurrent 16 64 0.1 PT3S"
  "4 8 concurrent 16 64 0.9 PT3S"
  "2 16 concurrent 16 64 0.5 PT3S --client-mode persistent --server-model nio"
  "2 4 concurrent 16 64 0.5 PT3S --client-mode pipelined --server-model nio"
  "2 4 concurrent 16 64 0.5 PT3S --client-mode batched --server-model nio"
)
if [ $# -gt 0 ]; then
  configs=("$@")
fi
ops() {  # $1 = jar, rest = bench arguments; prints ops/s
  local jar=$1; shift
  java -jar "$jar" bench "$@" 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["ops_per_sec"])'
}
for c in "${configs[@]}"; do
  ratios=(); as=(); bs=()
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086  # the configuration is a list of words
    a=$(ops "$A" $c); b=$(ops "$B" $c)
    ratios+=("$(python3 -c "print(round($b / $a, 2))")")
    as+=("$a"); bs+=("$b")
  done
  median=$(printf '%s\n' "${ratios[@]}" | sort -n | python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.stdin))')
  med() { printf '%s\n' "$@" | python3 -c 'import statistics, sys; print(round(statistics.median(float(x) for x in sys.stdin)))'; }
  echo "$c | A median $(med "${as[@]}") | B median $(med "${bs[@]}") | B/A ${ratios[*]} | median $median"
done
