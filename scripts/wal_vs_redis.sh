#!/usr/bin/env bash
# dbf0's write-ahead log against Redis's AOF under redis-benchmark, side by side
# (docs/3-durability.md).
# Both on loopback, one at a time, each with a fresh data dir under $1:
#   redis-server --port 6390 --appendonly yes --appendfsync always|everysec|no --save '' --dir DIR
#   dbf0 server --port 9390 --server-model MODEL --data-dir DIR --fsync always|interval|never
#   redis-benchmark -p PORT -t set -d 64 -r 100000 -c 50 -n N -q  [-P 16]
#   scripts/wal_vs_redis.sh /tmp/walredis [JAR ...]
# With JARs (two builds, say), each runs right after Redis in every configuration, so that the
# machine's drift hits them alike, in the given order in odd rounds and reversed in even ones. Environment: MODEL (virtual; nio, pool), ROUNDS (1),
# PAIRS (Redis:dbf0 policies, default "always:always everysec:interval no:never"), N_ALWAYS
# (requests under always, 50000) and N_OTHER (200000).
# Prints one line per run, then per configuration the median SET/s of each and the median of
# the per-round ratios to Redis.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: wal_vs_redis.sh DIR [JAR ...]}
shift
jars=("$@")
if [ ${#jars[@]} -eq 0 ]; then
  jars=("$here/target/dbf0.jar")
fi
model=${MODEL:-virtual}
rounds=${ROUNDS:-1}
pairs=${PAIRS:-always:always everysec:interval no:never}
. "$here/scripts/lib/jdk.sh"
dbf0_use_jdk
mkdir -p "$base"
results="$base/results.txt"
: > "$results"
wait_port() {
  for _ in $(seq 1 200); do
    if redis-cli -p "$1" PING >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "nothing answered on port $1" >&2
  return 1
}
bench() { # label policy port n pipeline
  local rps
  rps=$(redis-benchmark -p "$3" -t set -d 64 -r 100000 -c 50 -n "$4" -P "$5" -q 2>/dev/null | tr '\r' '\n' \
    | grep -a 'requests per second' | tail -1 | sed -E 's/.*SET: ([0-9.]+) requests per second.*/\1/')
  printf '%-20s %-9s -P %-3s %12s SET/s' "$1" "$2" "$5" "$rps"
  echo "$1|$2|$5|$rps" >> "$results"
}
for round in $(seq "$rounds"); do
  order=("${jars[@]}")
  if [ $((round % 2)) -eq 0 ]; then
    order=()
    for ((i = ${#jars[@]} - 1; i >= 0; i--)); do order+=("${jars[$i]}"); done
  fi
  for pair in $pairs; do
    redis_policy=${pair%%:*}
    dbf0_policy=${pair##*:}
    n=${N_OTHER:-200000}
    if [ "$redis_policy" = always ]; then n=${N_ALWAYS:-50000}; fi
    for p in 1 16; do
      rm -rf "$base/redis" && mkdir -p "$base/redis"
      redis-server --port 6390 --appendonly yes --appendfsync "$redis_policy" --save '' --dir "$base/redis" \
        --daemonize no --logfile "$base/redis.log" &
      redis_pid=$!
      wait_port 6390
      bench "redis" "$redis_policy" 6390 "$n" "$p"; echo "   (round $round)"
      kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true

      for jar in "${order[@]}"; do
        rm -rf "$base/dbf0"
        java -jar "$jar" server --port 9390 --bind 127.0.0.1 --server-model "$model" --data-dir "$base/dbf0" \
          --fsync "$dbf0_policy" > "$base/dbf0.log" 2>&1 &
        dbf0_pid=$!
        wait_port 9390
        bench "$(basename "$(dirname "$(dirname "$jar")")")" "$dbf0_policy" 9390 "$n" "$p"
        echo "   $(redis-cli -p 9390 INFO persistence | tr -d '\r' | grep -E 'dbf0_records_per_fsync' | tr '\n' ' ')"
        kill "$dbf0_pid"; wait "$dbf0_pid" 2>/dev/null || true
      done
    done
  done
done
python3 - "$results" <<'PY'
import statistics, sys
from collections import defaultdict
rows = [line.strip().split("|") for line in open(sys.argv[1]) if line.strip()]
# Rows come in order: per configuration and round, Redis first, then each jar.
values = defaultdict(list)   # (label, policy, P) -> SET/s per round
ratios = defaultdict(list)   # (label, policy, P) -> per-round ratio to the Redis run just before
redis = None
for label, policy, p, rps in rows:
    v = float(rps) if rps else float("nan")
    values[(label, policy, p)].append(v)
    if label == "redis":
        redis = v
    elif redis:
        ratios[(label, policy, p)].append(v / redis)
print("\nmedians (SET/s) and the median of per-round ratios to Redis:")
for (label, policy, p), vs in values.items():
    r = ratios.get((label, policy, p))
    ratio = f"  x{statistics.median(r):.2f} of Redis" if r else ""
    print(f"{label:20} {policy:9} -P {p:3} {statistics.median(vs):12,.0f}{ratio}")
PY
