#!/usr/bin/env bash
# The write-ahead log's cost, side by side in one session (docs/3-durability.md, Experiment 1):
# write-heavy (90% SET) persistent and pipelined clients against no log and the three --fsync
# policies, the pool model, plus nio and virtual (a thread per connection) under always. Each run gets a fresh data dir under $1.
#   scripts/wal_bench.sh /tmp/walbench [PT5S]
# Prints one line per run: mode, policy, model, ops/s, p50/p99 us; and the log writer's
# records-per-fsync line from the server's log.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: wal_bench.sh DIR [DURATION]}
duration=${2:-PT5S}
mkdir -p "$base"
run() {
  local mode=$1 policy=$2 model=$3
  local dir="$base/run-$mode-$policy-$model"
  rm -rf "$dir"
  local log_args=()
  if [ "$policy" != none ]; then
    log_args=(--data-dir "$dir" --fsync "$policy" --rewrite-growth 0)
  fi
  local out err
  err=$(mktemp)
  out=$("$here/dbf0" bench 2 16 concurrent 16 64 0.9 "$duration" --client-mode "$mode" --server-model "$model" \
    --seed 1 "${log_args[@]}" 2>"$err")
  local fsync_line
  fsync_line=$(grep -o 'log fsync.*' "$err" || true)
  python3 - "$mode" "$policy" "$model" "$out" "$fsync_line" <<'PY'
import json, sys
mode, policy, model, out, fsync = sys.argv[1:6]
r = json.loads(out)
print(f"{mode:10} {policy:8} {model:5} {r['ops_per_sec']:>10,.0f} ops/s  p50 {r['p50_us']:>6} us  p99 {r['p99_us']:>7} us  errors {r['errors']}  {fsync}")
PY
  rm -f "$err"
  rm -rf "$dir"
}
for mode in persistent pipelined; do
  for policy in none never interval always; do
    run "$mode" "$policy" pool
  done
  run "$mode" always nio
  run "$mode" always virtual
done
