"""The figures of a replication-cost run (replication_cost.py): its configurations, the parsing of
each load tool's output, and the summary of the rows it appends to its JSONL file.

A row is one measured run: a configuration (dbf0 with R replicas, or Redis with one), a client
(redis-benchmark, or dbf0 resp-load, the one that can follow a SET with WAIT), a test (clients and
pipeline depth), a command, and what was measured: ops/s, p50 and p99 latency, and the CPU time
every server process of the configuration used during the run, per operation.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

REDIS_BENCHMARK = "redis-benchmark"
RESP_LOAD = "resp-load"

# The configurations, in the order a round runs them. dbf0's are one shard of R+1 nodes whose
# writes a majority forces to disk (R = 0: a single node and its own write-ahead log); Redis's is
# a master and a replica, both with appendfsync always.
CONFIGS = [
    {"name": "r0", "server": "dbf0", "replicas": 0, "label": "dbf0 R=0 (1 copy)"},
    {"name": "r2", "server": "dbf0", "replicas": 2, "label": "dbf0 R=2 (3 copies)"},
    {"name": "r4", "server": "dbf0", "replicas": 4, "label": "dbf0 R=4 (5 copies)"},
    {"name": "redis", "server": "redis", "replicas": 1, "label": "Redis +1 replica"},
]
BASE = "r0"  # what the other dbf0 configurations are compared with
WAIT_LABEL = "Redis +1 replica, WAIT 1 0"


def choose_configs(spec: str) -> list[dict[str, Any]]:
    """The configurations named in a comma-separated list (r0, r2, r4, redis), in the canonical
    order; ValueError naming the unknown ones and the choices."""
    wanted = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = sorted(set(wanted) - {c["name"] for c in CONFIGS})
    if unknown or not wanted:
        raise ValueError(
            f"unknown configuration(s) {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(c['name'] for c in CONFIGS)}"
        )
    return [c for c in CONFIGS if c["name"] in wanted]


def schedule(configs: Sequence[dict[str, Any]], rounds: int) -> Iterator[tuple[int, dict]]:
    """Round by round, every configuration once; each round starts one configuration later than
    the one before, so that none is always first (just after a build's burst, say)."""
    for r in range(rounds):
        shift = r % len(configs) if configs else 0
        for config in [*configs[shift:], *configs[:shift]]:
            yield r, config


def cells(
    config: dict[str, Any], tests: Sequence[dict[str, Any]], commands: Sequence[str]
) -> list[dict[str, Any]]:
    """What runs against one started configuration, in order: per test and command, resp-load
    first (its rate sizes the redis-benchmark run after it), then redis-benchmark, and on Redis,
    for SETs, resp-load with WAIT 1 0 after each. GETs run under redis-benchmark only."""
    out = []
    for test in tests:
        for command in commands:
            runs = [(REDIS_BENCHMARK, 0)]
            if command == "SET":
                runs.insert(0, (RESP_LOAD, 0))
                if config["server"] == "redis":
                    runs.append((RESP_LOAD, 1))
            for tool, wait in runs:
                out.append({"test": test, "command": command, "tool": tool, "wait_replicas": wait})
    return out


def label(row: dict[str, Any]) -> str:
    """How a row's configuration is named in the table."""
    if row.get("wait_replicas"):
        return WAIT_LABEL
    return next((c["label"] for c in CONFIGS if c["name"] == row["config"]), row["config"])


def parse_resp_load(text: str) -> dict[str, Any]:
    """resp-load's JSON line (the last line of its stdout that is a JSON object) as a row's
    figures; ValueError if there is none."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            result = json.loads(line)
            return {
                "rps": float(result["ops_per_sec"]),
                "p50_ms": float(result["p50_ms"]),
                "p99_ms": float(result["p99_ms"]),
                "ops": int(result["ops"]),
                "seconds": float(result["seconds"]),
                "errors": int(result["errors"]),
                "wait_short": int(result["wait_short"]),
                "first_error": result.get("first_error"),
            }
    raise ValueError(f"resp-load printed no JSON: {text[:300]!r}")


def requests_for(rate: float, seconds: float, minimum: int = 2_000) -> int:
    """redis-benchmark runs a number of requests, not a time: enough for `seconds` at `rate`,
    rounded to a thousand, and at least `minimum`."""
    return max(minimum, int(round(rate * seconds, -3)))


def cpu_us_per_op(cpu_before: float, cpu_after: float, ops: int) -> float | None:
    """Server CPU microseconds per operation over a run (None when no operation completed)."""
    return (cpu_after - cpu_before) * 1e6 / ops if ops > 0 else None


def load_one_minute(loadavg: str) -> float:
    """The one-minute load average from /proc/loadavg's text."""
    return float(loadavg.split()[0])


def _key(row: dict[str, Any]) -> tuple:
    return (label(row), row["tool"], row["test"], row["command"])


def _median(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None


def _cores(row: dict[str, Any]) -> float | None:
    """How many cores the servers kept busy during a run: CPU seconds per second."""
    if row.get("cpu_seconds") is None or not row.get("seconds"):
        return None
    return row["cpu_seconds"] / row["seconds"]


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per configuration, client, test and command: the medians over the rounds of ops/s, p50,
    p99 and CPU per operation, and the medians of per-round ratios: ops/s and CPU against dbf0
    R=0 (same client, test, command), and ops/s against Redis with WAIT (resp-load, SETs, same
    test). Rows with error replies or a failed client are left out: their rate is not that of the
    configuration."""
    good = [r for r in rows if not r.get("errors") and not r.get("error")]
    by_round: dict[tuple, dict[int, dict]] = defaultdict(dict)
    for r in good:
        by_round[_key(r)][r["round"]] = r
    base_label = next(c["label"] for c in CONFIGS if c["name"] == BASE)
    summary = []
    for key, runs in by_round.items():
        name, tool, test, command = key
        base = by_round.get((base_label, tool, test, command), {})
        wait = by_round.get((WAIT_LABEL, RESP_LOAD, test, command), {})
        rps_vs_base, cpu_vs_base, rps_vs_wait = [], [], []
        for rnd, r in runs.items():
            if rnd in base:
                rps_vs_base.append(r["rps"] / base[rnd]["rps"])
                if r.get("cpu_us_per_op") and base[rnd].get("cpu_us_per_op"):
                    cpu_vs_base.append(r["cpu_us_per_op"] / base[rnd]["cpu_us_per_op"])
            if rnd in wait and command == "SET":
                rps_vs_wait.append(r["rps"] / wait[rnd]["rps"])
        values = list(runs.values())
        summary.append(
            {
                "label": name,
                "tool": tool,
                "test": test,
                "command": command,
                "rounds": len(values),
                "rps": _median([r["rps"] for r in values]),
                "p50_ms": _median([r["p50_ms"] for r in values]),
                "p99_ms": _median([r["p99_ms"] for r in values]),
                "cpu_us_per_op": _median([r.get("cpu_us_per_op") for r in values]),
                "server_cores": _median([_cores(r) for r in values]),
                "rps_vs_r0": _median(rps_vs_base) if name.startswith("dbf0") else None,
                "cpu_vs_r0": _median(cpu_vs_base) if name.startswith("dbf0") else None,
                "rps_vs_wait": _median(rps_vs_wait),
                "load_1m": _median([r.get("load_1m") for r in values]),
            }
        )
    order = [c["label"] for c in CONFIGS] + [WAIT_LABEL]
    summary.sort(
        key=lambda s: (
            s["test"],
            s["command"] != "SET",
            s["tool"],
            order.index(s["label"]) if s["label"] in order else len(order),
        )
    )
    return summary


def _number(value: float | None, form: str) -> str:
    return "" if value is None else format(value, form)


def summary_table(summary: Sequence[dict[str, Any]]) -> list[str]:
    """The summary as a Markdown table."""
    lines = [
        "| test | command | client | configuration | ops/s | p50 ms | p99 ms | CPU µs/op "
        "| server cores | ops/s ÷ R=0 | CPU ÷ R=0 | ops/s ÷ Redis+WAIT | load |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in summary:
        lines.append(
            f"| {s['test']} | {s['command']} | {s['tool']} | {s['label']} | {s['rps']:,.0f} "
            f"| {_number(s['p50_ms'], '.2f')} | {_number(s['p99_ms'], '.2f')} "
            f"| {_number(s['cpu_us_per_op'], '.0f')} | {_number(s['server_cores'], '.2f')} "
            f"| {_number(s['rps_vs_r0'], '.2f')} "
            f"| {_number(s['cpu_vs_r0'], '.2f')} | {_number(s['rps_vs_wait'], '.2f')} "
            f"| {_number(s['load_1m'], '.1f')} |"
        )
    return lines


def verdicts(summary: Sequence[dict[str, Any]]) -> list[str]:
    """The issue's two targets, each said as met or missed with the figures behind it: three
    copies cost at most 2.5× the server CPU per write of one copy; at -P 16, three copies serve at
    least the SETs of Redis with a replica and WAIT after each (both under resp-load)."""
    lines = []
    three = next(c["label"] for c in CONFIGS if c["name"] == "r2")
    for s in summary:
        if s["label"] == three and s["command"] == "SET" and s["cpu_vs_r0"] is not None:
            lines.append(
                f"CPU per write, 3 copies ÷ 1 copy ({s['test']}, {s['tool']}): "
                f"{s['cpu_vs_r0']:.2f}× (target ≤ 2.5×: "
                f"{'met' if s['cpu_vs_r0'] <= 2.5 else 'missed'})"
            )
    for s in summary:
        if (
            s["label"] == three
            and s["tool"] == RESP_LOAD
            and s["command"] == "SET"
            and "P16" in s["test"]
            and s["rps_vs_wait"] is not None
        ):
            lines.append(
                f"SETs/s at {s['test']}, 3 copies ÷ Redis+replica with WAIT (resp-load): "
                f"{s['rps_vs_wait']:.2f} (target ≥ 1: "
                f"{'met' if s['rps_vs_wait'] >= 1 else 'missed'})"
            )
    return lines
