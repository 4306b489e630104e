#!/usr/bin/env bash
# Sets everything up from a fresh clone and runs the main demo: the HashMap race, first with
# java.util.HashMap (keys go missing during resizes), then with ConcurrentHashMap (none do).
#   ./demo.sh            15 s per map
#   DURATION=30 ./demo.sh
set -euo pipefail
cd "$(dirname "$0")"
duration=${DURATION:-15}
./build.sh
echo
echo "=== 1/2  HashMap: not thread-safe ==="
./dbf0 race --map hashmap --duration "$duration"
echo
echo "=== 2/2  ConcurrentHashMap: the same load ==="
./dbf0 race --map concurrent --duration "$duration"
