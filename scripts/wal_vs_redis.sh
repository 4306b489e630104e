#!/usr/bin/env bash
# dbf0's write-ahead log against Redis's AOF under redis-benchmark, side by side (docs/storage.md).
# Both on loopback, one at a time, each with a fresh data dir under $1:
#   redis-server --port 6390 --appendonly yes --appendfsync always|everysec|no --save '' --dir DIR
#   dbf0 server --port 9390 --server-model virtual --data-dir DIR --fsync always|interval|never
#   redis-benchmark -p PORT -t set -d 64 -r 100000 -c 50 -n N -q  [-P 16]
#   scripts/wal_vs_redis.sh /tmp/walredis
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: wal_vs_redis.sh DIR}
mkdir -p "$base"
wait_port() {
  for _ in $(seq 1 200); do
    if redis-cli -p "$1" PING >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "nothing answered on port $1" >&2
  return 1
}
bench() { # name port n pipeline
  local line
  line=$(redis-benchmark -p "$2" -t set -d 64 -r 100000 -c 50 -n "$3" -P "$4" -q 2>/dev/null | tr '\r' '\n' | grep -a 'requests per second' | tail -1)
  printf '%-32s -P %-3s %s\n' "$1" "$4" "$line"
}
for pair in always:always everysec:interval no:never; do
  redis_policy=${pair%%:*}
  dbf0_policy=${pair##*:}
  n=200000
  if [ "$redis_policy" = always ]; then n=50000; fi
  for p in 1 16; do
    rm -rf "$base/redis" && mkdir -p "$base/redis"
    redis-server --port 6390 --appendonly yes --appendfsync "$redis_policy" --save '' --dir "$base/redis" \
      --daemonize no --logfile "$base/redis.log" &
    redis_pid=$!
    wait_port 6390
    bench "redis appendfsync $redis_policy" 6390 "$n" "$p"
    kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true

    rm -rf "$base/dbf0"
    "$here/dbf0" server --port 9390 --server-model virtual --data-dir "$base/dbf0" --fsync "$dbf0_policy" \
      > "$base/dbf0.log" 2>&1 &
    dbf0_pid=$!
    wait_port 9390
    bench "dbf0 --fsync $dbf0_policy" 9390 "$n" "$p"
    redis-cli -p 9390 INFO persistence | tr -d '\r' | grep -E 'dbf0_records_per_fsync|dbf0_fsyncs' | tr '\n' ' '; echo
    kill "$dbf0_pid"; wait "$dbf0_pid" 2>/dev/null || true
  done
done
