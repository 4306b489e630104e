#!/usr/bin/env bash
# Sets everything up from a fresh clone and runs the main demo: the HashMap race, first with
# java.util.HashMap (keys go missing during resizes; the load stays on until the first miss),
# then with ConcurrentHashMap (none do); then a quick benchmark sweep (about 3 minutes), its
# analysis (the best thread setting per workload and map as a Markdown table, and the figures)
# and the analysis notebook, run on the results the sweep just wrote.
#   ./demo.sh                        15 s per map, then the quick sweep
#   DURATION=30 ./demo.sh
#   PRESET=anchors ./demo.sh         another sweep preset (scripts/run_benchmarks.py --help)
#   DURATION=5 PRESET=smoke ./demo.sh    a check that everything works, in about 40 s (jar built)
#   RESULTS_DIR=/tmp/x ./demo.sh     where the results, figures and notebook go
#                                    (default: benchmarks/results, which git ignores)
# Running it again resumes the sweep: trials already in the results file are not run again.
# Exits non-zero as soon as a step fails.
set -euo pipefail
cd "$(dirname "$0")"
duration=${DURATION:-15}
preset=${PRESET:-quick}
dir=${RESULTS_DIR:-benchmarks/results}
name="$preset-$(hostname -s 2>/dev/null || hostname)"
results="$dir/$name.jsonl"
./build.sh
echo
echo "=== 1/4  HashMap: not thread-safe ==="
./dbf0 race --map hashmap --duration "$duration"
echo
echo "=== 2/4  ConcurrentHashMap: the same load ==="
./dbf0 race --map concurrent --duration "$duration"
echo
echo "=== 3/4  A benchmark sweep ($preset) and its analysis ==="
. scripts/lib/venv.sh
dbf0_use_venv "$PWD"
mkdir -p "$dir"
python scripts/run_benchmarks.py --preset "$preset" --out "$results"
echo
python scripts/analyze.py "$results" --figures "$dir/figures/$name"
echo
echo "=== 4/4  The analysis notebook, on the same results ==="
python scripts/run_notebook.py "$results" --figures "$dir/figures/$name-notebook" --output "$dir/$name-analysis.ipynb"
echo
echo "demo.sh: done. Results $results, figures in $dir/figures/$name/, notebook $dir/$name-analysis.ipynb"
