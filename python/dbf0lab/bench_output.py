"""What one finished ``dbf0 bench`` process leaves to record: its JSON result, or the error.

The single-host sweep (sweep.py) records it as the trial's result; a trial with roles
(cluster.py) parses every client's output this way before merging them.
"""

from __future__ import annotations

import json
from typing import Any

from .hosts import Completed, excerpt


def parse_bench_output(done: Completed) -> dict[str, Any]:
    """The result to record for one finished process: the Benchmark's JSON, or an error."""
    if done.timed_out:
        return {"error": "timed out", "exit_code": done.exit_code, "stderr": excerpt(done.stderr)}
    if done.exit_code != 0:
        return {
            "error": f"exit code {done.exit_code}",
            "exit_code": done.exit_code,
            "stderr": excerpt(done.stderr),
        }
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    try:
        value = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict) or not {"set", "get"} <= value.keys():
        return {
            "error": "no JSON result on stdout",
            "exit_code": done.exit_code,
            "stdout": excerpt(done.stdout),
            "stderr": excerpt(done.stderr),
        }
    return value
