#!/usr/bin/env bash
# Two builds of dbf0 side by side: runs each benchmark configuration with jar A, then jar B, for
# several rounds, so that drift on a shared machine hits both alike, and prints the per-pair B/A
# ratios and their median, of ops/s and of the JVM's CPU per operation (steadier than ops/s when
# other work takes the cores). How to compare two builds: docs/testing.md ("Speed, side by side").
#   scripts/compare_jars.sh OLD.jar NEW.jar [ROUNDS] [CONFIG...]
# Each CONFIG is one quoted string of bench arguments; given any, they replace the default list.
# Build an old jar with: git worktree add /tmp/old COMMIT && (cd /tmp/old && ./build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
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
# Prints "ops/s CPU-us/op" for one run; the second is nan from a jar whose JSON lacks
# process_cpu_us_per_op (the whole JVM's CPU per operation in the measured interval).
run() {  # $1 = jar, rest = bench arguments
  local jar=$1; shift
  java -jar "$jar" bench "$@" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(r["ops_per_sec"], r.get("process_cpu_us_per_op", "nan"))'
}
med() { printf '%s\n' "$@" | python3 -c 'import statistics, sys; print(round(statistics.median(float(x) for x in sys.stdin), 3))'; }
for c in "${configs[@]}"; do
  ratios=(); as=(); bs=(); cpu_a=(); cpu_b=(); cpu_ratios=()
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086  # the configuration is a list of words
    read -r a ca < <(run "$A" $c)
    # shellcheck disable=SC2086
    read -r b cb < <(run "$B" $c)
    ratios+=("$(python3 -c "print(round($b / $a, 2))")")
    cpu_ratios+=("$(python3 -c "print(round(float('$cb') / float('$ca'), 2))")")
    as+=("$a"); bs+=("$b"); cpu_a+=("$ca"); cpu_b+=("$cb")
  done
  echo "$c | ops/s A median $(med "${as[@]}") B median $(med "${bs[@]}") | B/A ${ratios[*]} | median $(med "${ratios[@]}")"
  echo "    CPU-us/op A median $(med "${cpu_a[@]}") B median $(med "${cpu_b[@]}") | B/A ${cpu_ratios[*]} | median $(med "${cpu_ratios[@]}")"
done
