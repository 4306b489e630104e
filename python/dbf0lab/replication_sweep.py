"""The sweep preset ``replication`` of scripts/run_benchmarks.py: chapter 8's experiments in one
run on this host, one after another, each by its own script with the chapter's arguments:

1. scripts/nemesis.py against dbf0, every fault of the default mix, its figures drawn;
2. the same against Redis Cluster;
3. scripts/replication_cost.py: dbf0 with 1, 3 and 5 copies beside Redis with a replica.

--out names a folder (default benchmarks/results/replication-HOST/): ``nemesis-dbf0/`` and
``nemesis-redis/`` (campaigns.jsonl and the PNG figures), ``cost.jsonl``. The notebook's
replication section reads the same files (nemesis_figures, replication_summary).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .sweep import format_seconds

PRESET = "replication"
DBF0_CAMPAIGNS = 10
REDIS_CAMPAIGNS = 5
SECONDS = 30
CAMPAIGN_OVERHEAD_S = 25  # starting the nodes and the clients' JVM, the final reads, the check
COST_ROUNDS = 3
COST_ROUND_S = 4 * 60  # four configurations, each started, warmed up and run by two clients
HELP = (
    f"chapter 8: scripts/nemesis.py, {DBF0_CAMPAIGNS} campaigns of {SECONDS} s against dbf0 and "
    f"{REDIS_CAMPAIGNS} against Redis Cluster (kill, pause, partition, kill-all; timelines "
    f"drawn), then scripts/replication_cost.py ({COST_ROUNDS} rounds); needs root for "
    "partitions and redis-server"
)


def steps(out: Path, seed: int = 100) -> list[tuple[str, object, list[str]]]:
    """(name, the script's main, its arguments) of each experiment, in order."""
    from . import nemesis, replication_cost  # here: nemesis imports sweep_cli, which imports this

    campaign = ["--seconds", str(SECONDS), "--timeline"]
    return [
        (
            "nemesis dbf0",
            nemesis.main,
            ["--campaigns", str(DBF0_CAMPAIGNS), "--seed", str(seed), *campaign]
            + ["--out", str(out / "nemesis-dbf0")],
        ),
        (
            "nemesis redis",
            nemesis.main,
            ["--system", "redis", "--campaigns", str(REDIS_CAMPAIGNS), "--seed", str(seed + 100)]
            + [*campaign, "--out", str(out / "nemesis-redis")],
        ),
        (
            "cost of copies",
            replication_cost.main,
            ["--rounds", str(COST_ROUNDS), "--out", str(out / "cost.jsonl")],
        ),
    ]


def estimated_seconds() -> float:
    campaigns = (DBF0_CAMPAIGNS + REDIS_CAMPAIGNS) * (SECONDS + CAMPAIGN_OVERHEAD_S)
    return campaigns + COST_ROUNDS * COST_ROUND_S


def describe() -> str:
    return f"{HELP} (estimated time {format_seconds(estimated_seconds())} on one host)"


def main(args) -> int:
    """Runs the steps (or, with --dry-run, lists them); --hosts and the like are refused: the
    nemesis makes network namespaces on this host."""
    if args.hosts or args.hosts_file or args.servers or args.clients:
        print(
            "run_benchmarks.py: error: --preset replication runs on this host only"
            " (no --hosts, --servers or --clients)",
            file=sys.stderr,
        )
        return 2
    out = Path(args.out)
    out = out.with_suffix("") if out.suffix == ".jsonl" else out
    plan = steps(out)
    for name, _, argv in plan:
        print(f"{name}: {' '.join(argv)}")
    print(f"estimated time {format_seconds(estimated_seconds())}; results in {out}")
    if args.dry_run:
        return 0
    worst = 0
    for name, run, argv in plan:
        print(f"run_benchmarks.py: {name}", file=sys.stderr)
        code = run(argv)
        if code == 130:
            return code
        worst = max(worst, code or 0)
    return worst
