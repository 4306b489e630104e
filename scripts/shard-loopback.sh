#!/usr/bin/env bash
# The loopback measurement of docs/5-workloads-and-scale-out.md ("Sharding"): three
# `dbf0 server` processes (nio, one event loop each), then per round, back to back, batched bench
# runs against one of them through the plain load generator, through the sharded one
# (--sharded-client), through the library's ShardedKeyValueClient (--library-client), and
# against all three (--connect a,b,c). Prints ops/s and each process's CPU per run, then the
# per-round ratios and their medians. Odd rounds run the variants in that order, even rounds in
# reverse, since the servers' maps grow all along. The work is in scripts/shard_loopback.py.
#   scripts/shard-loopback.sh            4 rounds
#   scripts/shard-loopback.sh 6          6 rounds
# Ports 9411-9413 (BASE_PORT=N moves them); BATCH=N (default 100), THREADS=N (default 4);
# VARIANTS=plain,one-shard,three-shards,three-shards-3x picks the runs (the last: frames of 3 x BATCH).
# DBF0_JAR=path runs that jar instead of ./dbf0.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/shard_loopback.py "$@"
