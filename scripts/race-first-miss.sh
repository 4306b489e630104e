#!/usr/bin/env bash
# Runs the HashMap race demo N times in a row with its default settings, each run stopping at
# its first miss, and prints how long every run took to show one: min, median and max.
#   scripts/race-first-miss.sh          20 runs
#   scripts/race-first-miss.sh 5
# Exits 1 if any run ended without a miss (the demo gives up after 120 s by default).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for i in $(seq "$runs"); do
  ./dbf0 race --stop-at-first-miss --json 2>/dev/null >>"$out"
  tail -n 1 "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
what = ("first miss after %.2f s" % r["first_miss_seconds"]) if r["missing_keys"] else ("no miss in %.1f s" % r["seconds"])
print("run %s of %s: %s" % (sys.argv[1], sys.argv[2], what))' "$i" "$runs"
done
python3 - "$out" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
times = sorted(r["first_miss_seconds"] for r in runs if r["missing_keys"] > 0)
missed = len(runs) - len(times)
print(f"{len(times)} of {len(runs)} runs showed a miss", end="")
if times:
    print(f"; time to first miss: min {times[0]:.2f} s, median {statistics.median(times):.2f} s, "
          f"max {times[-1]:.2f} s")
else:
    print()
sys.exit(1 if missed else 0)
PY
