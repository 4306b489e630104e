#!/usr/bin/env bash
# Sets everything up from a fresh clone and runs the main demo: the HashMap race, first with
# java.util.HashMap (keys go missing during resizes), then with ConcurrentHashMap (none do);
# then a quick benchmark sweep (about 3 minutes) and its analysis: the best thread setting per
# workload and map as a Markdown table, and the figures.
#   ./demo.sh                     15 s per map, then the quick sweep
#   DURATION=30 ./demo.sh
#   PRESET=anchors ./demo.sh      another sweep preset (scripts/run_benchmarks.py --help)
# Running it again resumes the sweep: trials already in the results file are not run again.
set -euo pipefail
cd "$(dirname "$0")"
duration=${DURATION:-15}
preset=${PRESET:-quick}
./build.sh
echo
echo "=== 1/3  HashMap: not thread-safe ==="
./dbf0 race --map hashmap --duration "$duration"
echo
echo "=== 2/3  ConcurrentHashMap: the same load ==="
./dbf0 race --map concurrent --duration "$duration"
echo
echo "=== 3/3  A benchmark sweep ($preset) and its analysis ==="
. scripts/lib/venv.sh
dbf0_use_venv "$PWD"
results="benchmarks/results/$preset-$(hostname -s 2>/dev/null || hostname).jsonl"
python scripts/run_benchmarks.py --preset "$preset" --out "$results"
echo
python scripts/analyze.py "$results"
