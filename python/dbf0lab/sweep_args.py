"""scripts/run_benchmarks.py's options: the parser, its help text and the presets' estimates."""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import disk_sweep, replication_sweep, sweep
from . import grid as grids
from .grid import PRESETS, Grid
from .hosts import SshHost, SshSettings, parse_hosts

REPO = Path(__file__).resolve().parents[2]

DESCRIPTION = """\
Runs the dbf0 Benchmark over a grid of configurations, one fresh JVM per trial, and appends
each result to a JSONL file as soon as it finishes ([spec, result] per line).

Start from a preset and change any axis with its option; a value list is comma-separated:
  run_benchmarks.py --preset quick
  run_benchmarks.py --preset quick --map-type concurrent --duration PT5S --trials 3
  run_benchmarks.py --preset anchors --dry-run
  run_benchmarks.py --preset seed --hosts ubuntu@10.0.0.5,ubuntu@10.0.0.6 --identity ~/.ssh/lab.pem

Trials run in a shuffled order (--order-seed). Running the same command again resumes: the
trials already in the results file are skipped. Ctrl-C stops at once; only the trials that were
running are lost. A failed or timed-out trial is recorded as failed and the sweep goes on.
"""


def grid_needs_roles(grid: Grid) -> bool:
    """A grid that varies the shard count starts servers by role (like --servers/--clients)."""
    return any("shards" in f.names for f in grid.factors)


def estimated_seconds(plan: sweep.Plan, hosts: Sequence[Any], roles: bool) -> float:
    """The plan's estimated time: the one figure both --dry-run and --help's preset list print."""
    if roles:
        return sweep.estimated_cluster_seconds(plan, any(isinstance(h, SshHost) for h in hosts))
    return plan.estimated_seconds(hosts)


def preset_estimate(name: str) -> str:
    """'(N trials, estimated time T on one host)': the --dry-run estimate of the preset as it is."""
    grid = PRESETS[name].grid
    specs = grid.specs()
    plan = sweep.Plan(grid, Path(), specs, total=len(specs), already=0)
    seconds = estimated_seconds(
        plan, parse_hosts(["local"], "java", SshSettings()), grid_needs_roles(grid)
    )
    return f"({len(specs):,} trials, estimated time {sweep.format_seconds(seconds)} on one host)"


def preset_help() -> str:
    disk_runs = disk_sweep.plan()
    disk = (
        f"{disk_sweep.HELP} ({len(disk_runs)} runs, estimated time "
        f"{sweep.format_seconds(disk_sweep.estimated_seconds(disk_runs))} on one host)"
    )
    return "\n".join(
        textwrap.fill(
            text,
            width=96,
            initial_indent=f"  {name:8} ",
            subsequent_indent=" " * 11,
        )
        for name, text in [
            *((name, f"{p.help} {preset_estimate(name)}") for name, p in PRESETS.items()),
            (disk_sweep.PRESET, disk),
            (replication_sweep.PRESET, replication_sweep.describe()),
        ]
    )


EPILOG = """\
presets:
{presets}

remote hosts:
  Each host is [user@]host[:port], or 'local' for this machine. The jar is copied once to every
  host (scp, into --remote-dir), each host then runs one trial at a time, all hosts at once, and
  the results come back into the local file. ssh and scp run in BatchMode: set up key login
  first (ssh-agent, --identity, or ~/.ssh/config). Every host needs a JDK 21+ (--remote-java).

servers and clients on separate hosts:
  --servers H,... --clients H,... (or a grid with --shards, which defaults both to local) runs one
  trial at a time on all of them: the servers are started for the trial (dbf0 server, the spec's
  server threads, model and map), every client host runs bench --connect <all servers> at once,
  and the servers are stopped when the trial ends, fails or is interrupted. The result holds the
  total (the clients' rates added up, latency percentiles from their merged histograms) and each
  node's own figures. The servers have no authentication: --server-bind 0.0.0.0 exposes them to
  whoever reaches the port, so use it only on a private network or behind a firewall.
"""


def comma_list(parse):
    def convert(text: str) -> list[Any]:
        try:
            return [parse(item) for item in text.split(",") if item.strip()]
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return convert


def thread_pairs(text: str) -> list[tuple[int, int]]:
    pairs = []
    for item in text.split(","):
        match = re.fullmatch(r"\s*(\d+):(\d+)\s*", item)
        if not match:
            raise argparse.ArgumentTypeError(f"not SERVER:CLIENT: {item!r}")
        pairs.append((int(match.group(1)), int(match.group(2))))
    return pairs


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="run_benchmarks.py",
        description=DESCRIPTION,
        epilog=EPILOG.format(presets=preset_help()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g = p.add_argument_group("the grid")
    g.add_argument(
        "--preset",
        choices=sorted([*PRESETS, disk_sweep.PRESET, replication_sweep.PRESET]),
        default="quick",
        help="the grid to start from (default: quick); see the list below",
    )
    for axis in grids.AXES:
        g.add_argument(
            axis.option,
            dest=axis.name,
            type=comma_list(axis.parse),
            metavar="V[,V...]",
            help=f"{axis.help} (replaces the preset's)",
        )
    g.add_argument(
        "--thread-pairs",
        type=thread_pairs,
        metavar="S:C[,S:C...]",
        help="server:client thread pairs instead of a cross product, e.g. 1:1,4:8,8:16",
    )
    g.add_argument("--trials", type=int, help="trials per configuration (replaces the preset's)")
    g.add_argument(
        "--disk-engines",
        type=comma_list(str),
        metavar="E[,E...]",
        help="--preset disk: only these engines, as TYPE-COMPACTION (lsm-leveled, rocksdb-tiered) "
        "or by type alone (map, btree, sqlite, mvstore, lmdb)",
    )
    g.add_argument(
        "--disk-mixes",
        type=comma_list(str),
        metavar="M[,M...]",
        help="--preset disk: only these mixes (PUT_HEAVY, BALANCED, GET_HEAVY)",
    )

    r = p.add_argument_group("running")
    r.add_argument(
        "--out",
        type=Path,
        help="the results file (JSONL) to append to and resume from "
        "(default: benchmarks/results/PRESET-HOST.jsonl)",
    )
    r.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (trial count, trials already done, estimated time) and run nothing",
    )
    r.add_argument(
        "--order-seed", type=int, default=1, help="seed of the shuffled trial order (default: 1)"
    )
    r.add_argument(
        "--timeout",
        type=float,
        help="seconds one trial may take before it is killed and recorded as timed out "
        "(default: twice its duration + 30)",
    )
    r.add_argument(
        "--retry-failed",
        action="store_true",
        help="on resume, run again the trials that are in the file only as failures",
    )
    r.add_argument(
        "--jar",
        type=Path,
        default=REPO / "target" / "dbf0.jar",
        help="the dbf0 jar to run (default: target/dbf0.jar; ./build.sh makes it)",
    )
    r.add_argument(
        "--no-utilisation",
        dest="utilisation",
        action="store_false",
        help="do not sample CPU, memory and network from /proc during each trial (by default every "
        "node is sampled once a second and the result records per-node medians and maxima)",
    )
    r.add_argument(
        "--data-root",
        metavar="DIR",
        help="--fsync trials: the directory on each host under which every trial gets its fresh "
        "data directory, removed when the trial ends (default: the host's temporary directory, "
        "$TMPDIR or /tmp). fsync costs what this directory's disk and file system make it cost: a "
        "tmpfs makes every policy free",
    )
    r.add_argument(
        "--java", help="java for local trials (default: a JDK 21+ found like ./build.sh does)"
    )
    r.add_argument(
        "--java-opt",
        action="append",
        default=[],
        metavar="OPT",
        help="a JVM option for every trial, e.g. --java-opt=-Xmx1g (repeatable)",
    )
    bar = r.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="always show the progress bar (default: only on a terminal; "
        "elsewhere one line per trial)",
    )
    bar.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="one line per trial instead of the bar",
    )

    h = p.add_argument_group("remote hosts")
    h.add_argument(
        "--hosts",
        type=comma_list(str),
        default=[],
        metavar="H[,H...]",
        help="where trials run: [user@]host[:port] reached over SSH, or 'local' (default: local)",
    )
    h.add_argument(
        "--hosts-file",
        type=Path,
        help="hosts one per line ('#' starts a comment), added to --hosts",
    )
    h.add_argument("--identity", help="ssh private key file (ssh -i)")
    h.add_argument(
        "--ssh-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an ssh/scp option (ssh -o), e.g. StrictHostKeyChecking=accept-new (repeatable)",
    )
    h.add_argument(
        "--remote-java",
        default="java",
        help="java on the remote hosts; must be 21+ (default: java)",
    )
    h.add_argument(
        "--remote-dir",
        default=".dbf0-bench",
        help="where the jar goes on remote hosts, relative to the login directory or absolute "
        "(default: .dbf0-bench)",
    )
    c = p.add_argument_group("servers and clients on separate hosts")
    c.add_argument(
        "--servers",
        type=comma_list(str),
        metavar="H[,H...]",
        help="run each trial's `dbf0 server` processes on these hosts ('local' or "
        "[user@]host[:port]), one per host or --shards of them round-robin; the trial waits until "
        "each listens and stops them all when it ends (default with --clients or --shards: local)",
    )
    c.add_argument(
        "--clients",
        type=comma_list(str),
        metavar="H[,H...]",
        help="run `bench --connect <every server>` on each of these hosts at once; the trial's "
        "result adds up their throughput and merges their latency histograms (default with "
        "--servers or --shards: local)",
    )
    c.add_argument(
        "--server-bind",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="the address every server listens on (server --bind; default: 127.0.0.1, reachable "
        "from its own host only). On a cluster, a private address or 0.0.0.0: the servers have "
        "no authentication, so keep the port away from untrusted networks",
    )
    c.add_argument(
        "--server-port",
        type=int,
        default=0,
        metavar="PORT",
        help="the port of the first server on each host, the next ones counting up from it "
        "(default: 0, any free port, read from the line each server prints)",
    )
    return p
