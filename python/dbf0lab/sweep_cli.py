"""The command line of scripts/run_benchmarks.py."""

from __future__ import annotations

import argparse
import re
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import cluster, disk_sweep, machine, outliers, replication_sweep, sweep, words
from . import grid as grids
from .grid import PRESETS, Grid, benchmark_args
from .hosts import HostError, SshSettings, parse_hosts, read_hosts_file
from .sweep_args import build_parser, estimated_seconds, grid_needs_roles

REPO = Path(__file__).resolve().parents[2]


def cluster_mode(args: argparse.Namespace, grid: Grid) -> bool:
    """Trials with roles: asked for by --servers/--clients, or by a grid that varies the shard
    count."""
    return bool(args.servers or args.clients) or grid_needs_roles(grid)


def make_grid(args: argparse.Namespace) -> Grid:
    grid = PRESETS[args.preset].grid
    for axis in grids.AXES:
        values = getattr(args, axis.name)
        if values is not None:
            grid = grid.with_axis(axis.name, values)
    if args.thread_pairs:
        grid = grid.with_pairs(("server_threads", "client_threads"), args.thread_pairs)
    if args.trials is not None:
        grid = grid.with_trials(args.trials)
    return grid


def find_local_java() -> str:
    """The same JDK 21+ that build.sh uses (scripts/lib/jdk.sh)."""
    script = '. "$1/scripts/lib/jdk.sh" && dbf0_find_jdk'
    done = subprocess.run(["bash", "-c", script, "bash", str(REPO)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip() or "no JDK 21+ found; pass --java")
    return str(Path(done.stdout.strip()) / "bin" / "java")


def default_out(preset: str, host_names: Sequence[str]) -> Path:
    if not host_names or host_names == ["local"]:
        where = socket.gethostname().split(".")[0]
    else:
        first = host_names[0].rpartition("@")[2].split(":")[0]
        where = first + (f"-and-{len(host_names) - 1}-more" if len(host_names) > 1 else "")
    return (
        REPO / "benchmarks" / "results" / f"{preset}-{re.sub(r'[^A-Za-z0-9._-]', '_', where)}.jsonl"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.preset == disk_sweep.PRESET:  # disk-bench runs, not Benchmark trials
        if not args.dry_run and args.java is None:
            args.java = find_local_java()
        args.out = args.out or default_out(disk_sweep.PRESET, args.hosts or ["local"])
        return disk_sweep.main(args)
    if args.preset == replication_sweep.PRESET:  # chapter 8's scripts, one after another
        args.out = args.out or default_out(replication_sweep.PRESET, ["local"])
        return replication_sweep.main(args)
    try:
        grid = make_grid(args)
    except ValueError as e:
        print(f"run_benchmarks.py: error: {e}", file=sys.stderr)
        return 2
    bad = grids.grid_problems(grid)
    if bad:  # before any planning: a value the Benchmark rejects would fail trial after trial
        print(
            "run_benchmarks.py: error: the grid has values the benchmark cannot run:",
            file=sys.stderr,
        )
        for problem in bad:
            print(f"  {problem}", file=sys.stderr)
        return 2
    names = list(args.hosts) + (read_hosts_file(args.hosts_file) if args.hosts_file else [])
    roles = cluster_mode(args, grid)
    if roles and any(v != grids.NO_LOG for v in grid.axis_values().get("fsync", [])):
        # the log belongs to the bench's own server; servers started by role get no --data-dir (yet)
        print(
            "run_benchmarks.py: error: --fsync needs each trial's own server: it cannot go with "
            "--servers/--clients or --shards",
            file=sys.stderr,
        )
        return 2
    if roles:
        if names:
            print(
                "run_benchmarks.py: error: --hosts runs whole trials on each host; with "
                "--servers/--clients (or --shards) name the hosts by role instead",
                file=sys.stderr,
            )
            return 2
        if not 0 <= args.server_port <= 65535:
            print(
                f"run_benchmarks.py: error: --server-port must be 0..65535, got {args.server_port}",
                file=sys.stderr,
            )
            return 2
        server_names, client_names = args.servers or ["local"], args.clients or ["local"]
        for what, listed in (("--servers", server_names), ("--clients", client_names)):
            if len(listed) != len(set(listed)):
                print(
                    f"run_benchmarks.py: error: a host is named twice in {what}: {listed}",
                    file=sys.stderr,
                )
                return 2
        # a host in both lists is one host: one jar copy, one sampler, its role "client+server"
        names = list(dict.fromkeys([*server_names, *client_names]))
    names = names or ["local"]
    out = args.out or default_out(args.preset, names)
    plan = sweep.make_plan(grid, out, args.order_seed, args.retry_failed)

    needs_java = "local" in names and not args.dry_run
    java = args.java or (find_local_java() if needs_java else "java")
    ssh = SshSettings(
        identity=args.identity,
        options=args.ssh_option,
        remote_java=args.remote_java,
        remote_dir=args.remote_dir,
    )
    try:
        hosts = parse_hosts(names, java, ssh)
    except ValueError as e:
        raise SystemExit(f"run_benchmarks.py: {e}") from e

    layout = None
    if roles:
        by_name = {h.label: h for h in hosts}
        layout = cluster.Layout(
            [by_name[n] for n in server_names],
            [by_name[n] for n in client_names],
            bind=args.server_bind,
            port=args.server_port,
        )
    configs = len(grid.configurations())
    print(
        f"plan: {plan.total} trials = {configs} configurations x {grid.trials} trials "
        f"(preset {args.preset}{', changed' if plan.grid != PRESETS[args.preset].grid else ''})",
    )
    for line in grid.describe():
        print(f"  {line}")
    print(
        f"results: {out}"
        + (f" ({plan.already} of these trials already there: skipped)" if plan.already else ""),
    )
    if layout is not None:
        print(
            f"to run: {len(plan.todo)} trials, one at a time, servers on "
            f"{', '.join(h.label for h in layout.servers)} (bind {args.server_bind}), clients on "
            f"{', '.join(h.label for h in layout.clients)}; estimated time "
            f"{sweep.format_seconds(estimated_seconds(plan, hosts, True))}"
        )
    else:
        print(
            f"to run: {len(plan.todo)} trials on {len(hosts)} host(s): "
            f"{', '.join(h.label for h in hosts)}; estimated time "
            f"{sweep.format_seconds(estimated_seconds(plan, hosts, False))}"
        )
    logged = [v for v in grid.axis_values().get("fsync", []) if v != grids.NO_LOG]
    if logged and "local" in names:
        root = args.data_root or tempfile.gettempdir()
        print(
            f"data dirs (fsync {', '.join(logged)}): fresh under {root} for each trial, on "
            f"{machine.filesystem_of(root)}"
        )
    if args.dry_run:
        if plan.todo and layout is not None:
            first = plan.todo[0]
            shards = first.get("shards", len(layout.servers))
            c = first.get("cluster")
            joined = (" --cluster-nodes <all>", "--cluster <one node>") if c else ("", "--connect")
            print(
                f"first trial: {shards} x java -jar {args.jar} server "
                f"{' '.join(cluster.server_args(first, args.server_bind, args.server_port))}"
                f"{joined[0]}, then on each client java -jar {args.jar} bench "
                f"{' '.join(benchmark_args(first))} {joined[1]}{'' if c else f' <the {shards}>'}"
            )
        elif plan.todo:
            print(
                f"first trial: java -jar {args.jar} bench {' '.join(benchmark_args(plan.todo[0]))}",
            )
        print("dry run: nothing was run")
        return 0

    if not args.jar.is_file():
        raise SystemExit(f"run_benchmarks.py: no jar at {args.jar}; build it with ./build.sh")
    if args.data_root is not None and "local" in names and not Path(args.data_root).is_dir():
        raise SystemExit(f"run_benchmarks.py: --data-root {args.data_root} is not a directory")
    options = sweep.Options(
        java_opts=args.java_opt,
        timeout=args.timeout,
        progress=args.progress,
        utilisation=args.utilisation,
        data_root=args.data_root,
    )
    try:
        if layout is not None:
            outcome = sweep.run_cluster(plan, layout, args.jar, REPO, options)
        else:
            outcome = sweep.run(plan, hosts, args.jar, REPO, options)
    except HostError as e:
        raise SystemExit(f"run_benchmarks.py: {e}") from e
    if outcome.interrupted:
        print(
            f"stopped: {words.count(outcome.ran, 'trial')} recorded in {out}, "
            f"{outcome.not_run} not run. Run the same command again to resume."
        )
        return 130
    print(
        f"done: {words.count(outcome.ran, 'trial')} recorded in {out}, {outcome.failed} failed"
        + (
            f"; {outcome.not_run} not run (hosts given up: {', '.join(outcome.retired)})"
            if outcome.not_run
            else ""
        ),
    )
    if outcome.ran and outcome.failed == outcome.ran:
        print(
            f"run_benchmarks.py: every trial failed ({outcome.failed}); their errors are above and "
            f"in {out}",
            file=sys.stderr,
        )
        return 1
    print(
        outliers.sweep_summary(
            outcome.ran, outcome.failed, outcome.labels, outcome.stalled, outcome.watched
        )
    )
    if outcome.warned:
        one = outcome.warned == 1
        print(
            f"{words.count(outcome.warned, 'trial')} carried a warning from the benchmark "
            f"(see above); the analysis keeps {'it' if one else 'them'} and lists the warnings"
        )
    return 0 if not outcome.not_run else 1
