#!/usr/bin/env bash
# The loopback measurement of docs/experiments.md "Sharding over several servers": three
# `dbf0 server` processes (nio, one event loop each), then per round, back to back, batched bench
# runs against one of them through the plain load generator, against the same one through
# ShardedKeyValueClient (--sharded-client), and against all three (--connect a,b,c).
#   scripts/shard-loopback.sh            3 rounds
#   scripts/shard-loopback.sh 5          5 rounds
# Ports 9411-9413 (BASE_PORT=N moves them). Prints one line per run: round, variant, ops/s.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
base=${BASE_PORT:-9411}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for p in "$base" $((base + 1)) $((base + 2)); do
  ./dbf0 server --server-model nio --threads 1 --port "$p" >/dev/null 2>&1 &
  pids+=($!)
done
sleep 3
one="127.0.0.1:$base"
three="$one,127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))"
bench=(./dbf0 bench 1 4 concurrent 16 64 0.1 PT5S --warmup PT1S --client-mode batched --batch 100 --pipeline 2)
for round in $(seq "$rounds"); do
  for variant in plain one-shard three-shards; do
    case $variant in
      plain) args=(--connect "$one") ;;
      one-shard) args=(--connect "$one" --sharded-client) ;;
      three-shards) args=(--connect "$three") ;;
    esac
    "${bench[@]}" "${args[@]}" 2>/dev/null | python3 -c '
import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
print("round %s %-13s %10.0f ops/s  errors %d" % (sys.argv[1], sys.argv[2], r["ops_per_sec"], r["errors"]))' "$round" "$variant"
  done
done
