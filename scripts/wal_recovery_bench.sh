#!/usr/bin/env bash
# Recovery speed of the write-ahead log: writes a log with bench (--fsync never, rewrites off,
# 16-byte keys, 64-byte values), then starts `dbf0 server` on it RUNS times from a warm page cache
# and prints each start-up line and the median records/s. docs/3-durability.md (Experiment 3)
# reports it.
#   scripts/wal_recovery_bench.sh DIR [WRITE_SECONDS=25] [RUNS=5]
# By default every SET is a new random key, so every record adds a key (the hard case: the map
# grows to millions of entries). RECORDS=N writes N keys, then overwrites them (a log as it
# grows between rewrites). DIR is emptied first. Extra JVM flags for the server: DBF0_JAVA_OPTS.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
dir=$1 write_seconds=${2:-25} runs=${3:-5}
port=${PORT:-9123}
rm -rf "$dir"
echo "wal_recovery_bench: writing a log for ${write_seconds}s into $dir ..."
keyed=()
if [ -n "${RECORDS:-}" ]; then
  keyed=(--records "$RECORDS")
fi
"$here/dbf0" bench 2 4 concurrent 16 64 1.0 "${write_seconds}s" --server-model nio --client-mode pipelined \
  "${keyed[@]}" --data-dir "$dir" --fsync never --rewrite-growth 0 2>&1 | grep -F "log fsync" || true
cat "$dir/dbf0.wal" > /dev/null   # warm the page cache
rates=()
for i in $(seq "$runs"); do
  log=$(mktemp)
  "$here/dbf0" server --port "$port" --data-dir "$dir" --rewrite-growth 0 >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1200); do
    grep -q "log replayed" "$log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  line=$(grep -m1 -o "log replayed.*" "$log" || true)
  rm -f "$log"
  if [ -z "$line" ]; then
    echo "wal_recovery_bench: run $i: the server printed no 'log replayed' line" >&2
    exit 1
  fi
  echo "run $i: $line"
  rates+=("$(sed -E 's/.*\(([0-9,]+) records\/s\).*/\1/; s/,//g' <<<"$line")")
done
printf '%s\n' "${rates[@]}" | sort -n | awk '{a[NR]=$1} END {printf "median: %d records/s over %d runs\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), NR}'
